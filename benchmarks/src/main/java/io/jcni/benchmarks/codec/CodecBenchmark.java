package io.jcni.benchmarks.codec;

import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The spec-model codec on the documents a plugin exec handles: a typical ~1 KB conflist (bridge + portmap + tuning +
 * bandwidth), the stdin of a chained plugin (config with a 1.0.0 prevResult), a 1.0.0 dual-stack result, and result
 * conversions. Steady-state costs; start-up cost is measured on the jlink image, not here.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar Codec}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class CodecBenchmark {

    /** 1,0xx bytes: the kind of file found in /etc/cni/net.d. */
    static final String CONFLIST = """
            {
              "cniVersion": "1.0.0",
              "name": "k8s-pod-network",
              "plugins": [
                {
                  "type": "bridge",
                  "bridge": "cni0",
                  "isGateway": true,
                  "ipMasq": true,
                  "hairpinMode": true,
                  "mtu": 1450,
                  "ipam": {
                    "type": "host-local",
                    "ranges": [
                      [{"subnet": "10.244.1.0/24", "gateway": "10.244.1.1"}],
                      [{"subnet": "fd00:10:244:1::/64", "gateway": "fd00:10:244:1::1"}]
                    ],
                    "routes": [{"dst": "0.0.0.0/0"}, {"dst": "::/0"}],
                    "dataDir": "/var/lib/cni/networks"
                  },
                  "dns": {"nameservers": ["10.96.0.10"], "search": ["default.svc.cluster.local",
                    "svc.cluster.local", "cluster.local"], "options": ["ndots:5"]}
                },
                {"type": "portmap", "capabilities": {"portMappings": true}, "snat": true,
                 "masqAll": false, "conditionsV4": ["!", "-d", "192.0.2.0/24"]},
                {"type": "tuning", "capabilities": {"mac": true}, "sysctl": {"net.core.somaxconn": "500",
                  "net.ipv4.conf.IFNAME.arp_notify": "1"}},
                {"type": "bandwidth", "capabilities": {"bandwidth": true}, "ingressRate": 1000000,
                 "ingressBurst": 125000, "egressRate": 1000000, "egressBurst": 125000}
              ]
            }
            """;

    static final String RESULT = """
            {
                "cniVersion": "1.0.0",
                "interfaces": [
                    {"name": "cni0", "mac": "b6:8f:ad:1e:2c:01"},
                    {"name": "veth5d7a2b41", "mac": "4e:8a:c1:09:7b:33"},
                    {"name": "eth0", "mac": "0a:58:0a:f4:01:07", "sandbox": "/var/run/netns/cni-6c1f2d9e-0d4b-8a6e"}
                ],
                "ips": [
                    {"interface": 2, "address": "10.244.1.7/24", "gateway": "10.244.1.1"},
                    {"interface": 2, "address": "fd00:10:244:1::7/64", "gateway": "fd00:10:244:1::1"}
                ],
                "routes": [{"dst": "0.0.0.0/0", "gw": "10.244.1.1"}, {"dst": "::/0", "gw": "fd00:10:244:1::1"}],
                "dns": {"nameservers": ["10.96.0.10"], "search": ["default.svc.cluster.local"], "options": ["ndots:5"]}
            }
            """;

    private byte[] conflistBytes;
    private byte[] resultBytes;
    private byte[] chainedStdin;
    private NetworkConfigList conflist;
    private CniResult result100;
    private CniResult result110;

    @Setup
    public void setUp() throws CniException {
        conflistBytes = CONFLIST.getBytes(StandardCharsets.UTF_8);
        resultBytes = RESULT.getBytes(StandardCharsets.UTF_8);
        conflist = CniJson.decodeNetworkConfigList(conflistBytes);
        result100 = CniJson.decodeResult(resultBytes, CniVersion.V1_0_0);
        result110 = result100.convertTo(CniVersion.V1_1_0);
        PluginConfig tuning = conflist.plugins().get(2).withCniVersion(conflist.cniVersion())
                .withName(conflist.name()).withPrevResult(result100);
        chainedStdin = CniJson.encode(tuning);
    }

    @Benchmark
    public NetworkConfigList decodeConflist() throws CniException {
        return CniJson.decodeNetworkConfigList(conflistBytes);
    }

    @Benchmark
    public byte[] encodeConflist() {
        return CniJson.encode(conflist);
    }

    @Benchmark
    public byte[] decodeAndEncodeConflist() throws CniException {
        return CniJson.encode(CniJson.decodeNetworkConfigList(conflistBytes));
    }

    @Benchmark
    public PluginConfig decodeChainedPluginStdin() throws CniException {
        return CniJson.decodePluginConfig(chainedStdin);
    }

    @Benchmark
    public CniResult decodeResult100() throws CniException {
        return CniJson.decodeResult(resultBytes, CniVersion.V1_0_0);
    }

    @Benchmark
    public byte[] encodeResult100() {
        return CniJson.encode(result100);
    }

    @Benchmark
    public byte[] decodeAndEncodeResult100() throws CniException {
        return CniJson.encode(CniJson.decodeResult(resultBytes, CniVersion.V1_0_0));
    }

    @Benchmark
    public CniResult convertResult110To020() throws CniException {
        return result110.convertTo(CniVersion.V0_2_0);
    }

    @Benchmark
    public CniResult convertResult100To040() throws CniException {
        return result100.convertTo(CniVersion.V0_4_0);
    }
}
