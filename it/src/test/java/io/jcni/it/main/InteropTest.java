package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.IpRoute;
import io.jcni.it.support.KernelState;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's bridge and ptp among Go peers: (a) Go libcni runs a chain of jcni's bridge, host-local and tuning (jcni's
 * launchers first in CNI_PATH: each type is jcni's once it ships, Go's until then); (b) jcni's runtime runs jcni's
 * bridge followed by Go's portmap; (c) Go's and jcni's plugins get the same configurations, each in a fresh namespace
 * with a fresh dataDir, and their results and kernel state are compared field by field, MACs and veth names (random
 * by nature) and the namespace path aside. Every runtime and plugin runs in the test host, whose side (bridges, veth
 * ends, routes, portmap's iptables rules) is read back there.
 */
class InteropTest {
    private static final String NETWORK = "jcni-net-iop";

    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
    }

    // ---- (a) Go libcni runs jcni's chain ---------------------------------------------------------------------

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.4.0", "1.0.0"})
    void goLibcniRunsBridgeHostLocalAndTuning(String version) throws Exception {
        Prerequisites.assumeReferencePlugins("tuning", "host-local");
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("chain.conflist", "{\"cniVersion\":\"" + version + "\",\"name\":\"" + NETWORK
                + "\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"" + bridge + "\",\"isDefaultGateway\":true,"
                + "\"ipam\":" + BridgeTest.hostLocal(world.dataDir(), 40, false, "") + "},"
                + "{\"type\":\"tuning\",\"dataDir\":\"" + tmp.resolve("tuning") + "\","
                + "\"sysctl\":{\"net.ipv4.conf.eth0.arp_filter\":\"1\"}}]}");
        LibcniDriver driver = world.libcniWithJcni("cache").withEnv(java.util.Map.of("JCNI_DEBUG", "1"));
        Attachment attachment = Attachment.of("chain-" + version.replace('.', '-'), "eth0");

        var added = driver.add(conf, netns.path(), attachment);
        JsonNode result = added.answer();
        assertThat(added.stderr()).as("jcni's bridge ran")
                .contains("bridge: ADD " + Locations.skelMode() + ", pid");
        if (Files.isExecutable(Locations.distPlugin("tuning"))) {
            assertThat(added.stderr()).as("jcni's tuning ran")
                    .contains("tuning: ADD " + Locations.skelMode() + ", pid");
        }
        assertThat(result.path("interfaces")).extracting(i -> i.path("name").asText()).first().isEqualTo(bridge);
        assertThat(result.path("ips").get(0).path("address").asText()).isEqualTo("10.216.40.2/24");
        assertThat(netns.kernel().sysctl("net/ipv4/conf/eth0/arp_filter")).as("tuning after bridge").isEqualTo("1");
        assertThat(netns.kernel().routes("eth0")).filteredOn(IpRoute::isDefault).extracting(IpRoute::gateway)
                .containsExactly("10.216.40.1");
        assertThat(driver.check(conf, netns.path(), attachment).answer()).isEmpty();
        assertThat(driver.del(conf, netns.path(), attachment).answer()).isEmpty();
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    // ---- (b) jcni's runtime runs jcni's bridge, then Go's portmap ---------------------------------------------

    @Test
    void jcniRuntimeRunsJcniBridgeThenGoPortmap() throws Exception {
        Prerequisites.assumeReferencePlugins("portmap", "host-local");
        Prerequisites.assumeDistPlugins("bridge");
        Prerequisites.assumeCommand("iptables");
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        NetworkConfigList list = CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK
                + "\",\"plugins\":[{\"type\":\"bridge\",\"bridge\":\"" + bridge + "\",\"isGateway\":true,"
                + "\"ipam\":" + BridgeTest.hostLocal(world.dataDir(), 41, false, "") + "},"
                + "{\"type\":\"portmap\",\"snat\":false,\"capabilities\":{\"portMappings\":true}}]}")
                .getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        // bridge and host-local are found first (jcni's, linked from dist), portmap only among Debian's plugins:
        // dist has a portmap of its own now.
        Path jcniBridge = Files.createDirectories(tmp.resolve("jcni-bridge"));
        for (String type : List.of("bridge", "host-local")) {
            Files.createSymbolicLink(jcniBridge.resolve(type), Locations.distPlugin(type));
        }
        CniRuntime runtime = CniRuntime.create(world.runtimeOptions(List.of(jcniBridge,
                Locations.referencePlugins())).withCacheDir(tmp.resolve("rt-cache")).withStderr(stderr)
                .withDeleteOnAddFailure(false));
        JsonObject mappings = (JsonObject) Json.parse("""
                {"portMappings":[{"hostPort":18080,\
                "containerPort":80,"protocol":"tcp"}]}""");
        RuntimeConf rt = new RuntimeConf("iop-portmap", netns.path().toString(), "eth0")
                .withCapabilityArgs(mappings);
        TestHost host = world.host;
        Result result = (Result) runtime.addNetworkList(list, rt);
        assertThat(result.interfaces()).extracting(i -> i.name()).startsWith(bridge);
        assertThat(result.ips().get(0).address().toString()).isEqualTo("10.216.41.2/24");
        assertThat(host.natRules()).as("portmap's DNAT to the address jcni's bridge configured")
                .anyMatch(r -> r.contains("--dport 18080") && r.contains("10.216.41.2:80"));
        // CHECK: jcni's bridge passes; Go's portmap 1.1.1 then fails its own CHECK on an IPv4-only attachment
        // (it looks for IPv6 chains it never made), as it does after Go's bridge.
        assertThatThrownBy(() -> runtime.checkNetworkList(list, rt))
                .isInstanceOfSatisfying(io.jcni.runtime.CniRuntimeException.class,
                        e -> assertThat(e.pluginType()).isEqualTo("portmap"))
                .hasMessageContaining("could not check ipv6 dnat");
        runtime.delNetworkList(list, rt);
        assertThat(host.natRules()).noneMatch(r -> r.contains("10.216.41.2"));
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.reservations(NETWORK)).isEmpty();
        runtime.delNetworkList(list, rt);
    }

    // ---- (c) the same configuration through Go's plugins and jcni's --------------------------------------------

    static Stream<Arguments> bridgeConfigs() {
        List<Arguments> all = new ArrayList<>();
        String[][] configs = {
            {"isDefaultGateway dual-stack, mtu, hairpin", ",\"isDefaultGateway\":true,\"mtu\":1400,\"hairpinMode\":true",
                "v6", "{\"dst\":\"10.9.0.0/16\"}"},
            {"isGateway IPv4", ",\"isGateway\":true", "", ""},
            {"layer 2 only", "", "none", ""},
            {"promiscMode, dns from the configuration", """
                    ,"promiscMode":true,"dns":{"nameservers":\
                    ["10.0.0.53"],"search":["example.com"]}""", "", "{\"dst\":\"0.0.0.0/0\"}"},
        };
        for (String version : List.of("0.3.1", "0.4.0", "1.0.0")) {
            for (String[] c : configs) {
                all.add(Arguments.of(c[0], version, c[1], c[2], c[3]));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0}, cniVersion {1}")
    @MethodSource("bridgeConfigs")
    void bridgeResultAndKernelStateMatchGosField(String what, String version, String keys, String ipamKind,
            String routes) throws Exception {
        String bridge = world.bridge();
        int n = 42;
        List<String> observed = new ArrayList<>();
        for (boolean go : new boolean[] {true, false}) {
            TestNetns netns = world.netns();
            forwardingOff();
            Path dataDir = tmp.resolve(go ? "ipam-go" : "ipam-jcni");
            String ipam = ipamKind.equals("none") ? null
                    : BridgeTest.hostLocal(dataDir, n, ipamKind.equals("v6"), routes);
            Path conf = world.write("cmp.conflist", BridgeTest.conflist(version, bridge, keys, ipam));
            LibcniDriver driver = go ? world.libcniWithGo("cache-go") : world.libcniWithJcni("cache-jcni");
            Attachment attachment = Attachment.of("cmp", "eth0");
            JsonNode result = driver.add(conf, netns.path(), attachment).answer();
            observed.add(normalized(result, netns) + "\n" + kernelState(world.host, netns, bridge, result));
            driver.del(conf, netns.path(), attachment).answer();
            world.host.exec("ip", "link", "del", bridge).requireSuccess();
        }
        assertThat(observed.get(1)).as("jcni (below) against Go (above)").isEqualTo(observed.get(0));
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void ptpResultAndKernelStateMatchGos(String version) throws Exception {
        List<String> observed = new ArrayList<>();
        for (boolean go : new boolean[] {true, false}) {
            TestNetns netns = world.netns();
            forwardingOff();
            Path dataDir = tmp.resolve(go ? "ipam-go" : "ipam-jcni");
            Path conf = world.write("ptp.conflist", PtpTest.conflist(version, ",\"mtu\":1380",
                    BridgeTest.hostLocal(dataDir, 43, true, "{\"dst\":\"0.0.0.0/0\"}")));
            LibcniDriver driver = go ? world.libcniWithGo("cache-go") : world.libcniWithJcni("cache-jcni");
            Attachment attachment = Attachment.of("cmp", "eth0");
            JsonNode result = driver.add(conf, netns.path(), attachment).answer();
            observed.add(normalized(result, netns) + "\n" + kernelState(world.host, netns, null, result));
            driver.del(conf, netns.path(), attachment).answer();
        }
        assertThat(observed.get(1)).as("jcni (below) against Go (above)").isEqualTo(observed.get(0));
    }

    /** Both runs share the host: each starts from forwarding off, so that each one's own effect is compared. */
    void forwardingOff() {
        world.host.exec("sysctl", "-qw", "net.ipv4.ip_forward=0", "net.ipv6.conf.all.forwarding=0").requireSuccess();
    }

    /**
     * A deliberate difference: Go's bridge 1.1.1 prints the configuration's {@code dns} even when it has none, dropping
     * what IPAM returned; later Go releases and jcni keep IPAM's. (Go's ptp keeps it too.)
     */
    @Test
    void ipamDnsIsKeptWhereGosBridge111DropsIt() throws Exception {
        Path resolv = Files.writeString(tmp.resolve("resolv.conf"), "nameserver 10.0.0.53\nsearch example.com\n");
        String bridge = world.bridge();
        List<JsonNode> dns = new ArrayList<>();
        for (boolean go : new boolean[] {true, false}) {
            TestNetns netns = world.netns();
            String ipam = "{\"type\":\"host-local\",\"dataDir\":\"" + tmp.resolve(go ? "ipam-go" : "ipam-jcni")
                    + "\",\"resolvConf\":\"" + resolv + "\",\"ranges\":[[{\"subnet\":\"10.216.44.0/24\"}]]}";
            Path conf = world.write("dns.conflist", BridgeTest.conflist("1.0.0", bridge, "", ipam));
            LibcniDriver driver = go ? world.libcniWithGo("cache-go") : world.libcniWithJcni("cache-jcni");
            dns.add(driver.add(conf, netns.path(), Attachment.of("dns", "eth0")).answer().path("dns"));
            driver.del(conf, netns.path(), Attachment.of("dns", "eth0")).answer();
            world.host.exec("ip", "link", "del", bridge).requireSuccess();
        }
        assertThat(dns.get(0).toString()).as("Go 1.1.1").isEqualTo("{}");
        assertThat(dns.get(1).toString()).as("jcni")
                .isEqualTo("{\"nameservers\":[\"10.0.0.53\"],\"search\":[\"example.com\"]}");
    }

    /** The result with what is random by nature replaced: MACs, veth names, the namespace path. */
    static String normalized(JsonNode result, TestNetns netns) {
        ObjectNode copy = result.deepCopy();
        for (JsonNode i : copy.path("interfaces")) {
            ObjectNode iface = (ObjectNode) i;
            if (iface.has("mac")) {
                iface.put("mac", iface.path("mac").asText().matches("([0-9a-f]{2}:){5}[0-9a-f]{2}") ? "MAC" : "BAD");
            }
            if (iface.path("name").asText().matches("veth[0-9a-f]{8}")) {
                iface.put("name", "VETH");
            }
            if (iface.path("sandbox").asText().equals(netns.path().toString())) {
                iface.put("sandbox", "NETNS");
            }
        }
        return copy.toString();
    }

    /**
     * Waits (3 s at most) until no link that is up still shows NO-CARRIER. The kernel reports a new veth's carrier
     * asynchronously (its link watch runs up to a second later), so a plugin that answers fast (jcni through the
     * plugin service) can be read back before it settled; Go's exec'd plugins are slower than that.
     */
    static void awaitCarrier(KernelState inside) {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(3);
        while (inside.links().stream().anyMatch(l -> l.flags().contains("NO-CARRIER") && l.flags().contains("UP"))
                && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * What both plugins leave in the kernel, as {@code ip -j} shows it: the container's links, addresses, routes and
     * sysctls; on the (test) host, forwarding, the bridge's addresses and flags and the host end's settings.
     */
    static String kernelState(TestHost testHost, TestNetns netns, String bridge, JsonNode result) {
        KernelState inside = netns.kernel();
        awaitCarrier(inside);
        StringBuilder s = new StringBuilder();
        for (IpLink l : inside.links()) {
            s.append("link ").append(l.name()).append(' ').append(l.kind()).append(" mtu ").append(l.mtu())
                    .append(' ').append(l.flags()).append('\n');
        }
        inside.addresses().stream().filter(a -> !a.scope().equals("link")).map(IpAddress::toString).sorted()
                .forEach(a -> s.append("addr ").append(a).append('\n'));
        inside.routes().stream().map(IpRoute::toString).sorted().forEach(r -> s.append("route ").append(r)
                .append('\n'));
        for (String key : List.of("ipv6/conf/eth0/accept_dad", "ipv4/conf/eth0/arp_notify",
                "ipv6/conf/lo/disable_ipv6", "ipv6/conf/eth0/disable_ipv6")) {
            s.append(key).append('=').append(inside.sysctl("net/" + key)).append('\n');
        }
        KernelState host = testHost.kernel();
        s.append("host forwarding ipv4=").append(host.sysctl("net/ipv4/ip_forward")).append(" ipv6=")
                .append(host.sysctl("net/ipv6/conf/all/forwarding")).append('\n');
        String hostVeth = null;
        for (JsonNode i : result.path("interfaces")) {
            if (i.path("name").asText().matches("veth[0-9a-f]{8}")) {
                hostVeth = i.path("name").asText();
            }
        }
        if (bridge != null) {
            IpLink br = host.link(bridge).orElseThrow();
            s.append("bridge mtu ").append(br.mtu()).append(' ').append(br.flags()).append('\n');
            host.addresses(bridge).stream().filter(a -> !a.scope().equals("link")).map(IpAddress::cidr).sorted()
                    .forEach(a -> s.append("bridge addr ").append(a).append('\n'));
            s.append("bridge accept_ra=").append(host.sysctl("net/ipv6/conf/" + bridge + "/accept_ra")).append('\n');
        }
        if (hostVeth != null) {
            IpLink veth = host.link(hostVeth).orElseThrow();
            s.append("host end mtu ").append(veth.mtu()).append(" master ")
                    .append(veth.master() == null ? "-" : veth.master().equals(bridge) ? "BRIDGE" : veth.master())
                    .append(' ').append(veth.flags()).append(" accept_ra=")
                    .append(host.sysctl("net/ipv6/conf/" + hostVeth + "/accept_ra")).append('\n');
            host.addresses(hostVeth).stream().filter(a -> !a.scope().equals("link")).map(IpAddress::cidr).sorted()
                    .forEach(a -> s.append("host end addr ").append(a).append('\n'));
            host.routes(hostVeth).stream().map(r -> r.dst() + " " + r.scope() + " " + r.protocol()).sorted()
                    .forEach(r -> s.append("host route ").append(r).append('\n'));
            String detail = testHost.exec("ip", "-d", "link", "show", hostVeth).requireSuccess().stdout();
            s.append("hairpin ").append(detail.contains("hairpin on")).append('\n');
        }
        return s.toString();
    }
}
