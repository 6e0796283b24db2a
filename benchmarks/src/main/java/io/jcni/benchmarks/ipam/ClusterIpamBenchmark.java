package io.jcni.benchmarks.ipam;

import io.jcni.plugins.Plugins;
import io.jcni.runtime.InProcessPlugin;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * cluster-ipam against real etcd ({@code members} of them, started per trial on tmpfs), in a warm JVM through {@code
 * Plugins.inProcess()}: the whole plugin call (config, etcd round trips, result), as the resident service runs it.
 * The /16 is filled to {@code fill} percent before the trial: every block (/26) claimed by one of three other nodes
 * or by this node, each block {@code fill} percent taken at random addresses.
 *
 * <ul>
 *   <li>{@code allocate}: ADD of a new container on node "bench" (its DEL runs outside the measurement). The JVM
 *       keeps the node's view of its blocks between calls (issue 29), so after the warm-up ADD each ADD is one etcd
 *       transaction, as in the plugin service; the DEL, in this JVM too, gives its address back to the view;</li>
 *   <li>{@code threeNodes}: 3 threads, each a node of its own, ADD then DEL as fast as they can (throughput of the
 *       cluster store under contention; at 90 % the nodes own no block and borrow, the store's slow path).</li>
 * </ul>
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ClusterIpamBenchmark -f 1 -wi 2 -i 3 -w 1 -r 1}. Issue 17's
 * target (issue 29's, with the view): allocate p50 ≤ 2 ms at 90 % of a /16 with 3 members.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class ClusterIpamBenchmark {
    static final String NETWORK = "bench";
    static final String ROOT = "/jcni/ipam/" + NETWORK + "/";

    @Param({"1", "3"})
    public int members;

    @Param({"0", "90"})
    public int fill;

    EtcdMembers etcd;
    InProcessPlugin plugin;
    byte[] conf;
    final AtomicInteger ids = new AtomicInteger();

    @Setup(Level.Trial)
    public void start() throws Exception {
        etcd = new EtcdMembers(members);
        try {
            plugin = Plugins.inProcess().find("cluster-ipam").orElseThrow();
            conf = ("{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                    + "\"cluster-ipam\",\"subnet\":\"10.100.0.0/16\",\"etcd\":{\"endpoints\":["
                    + etcd.endpointsJson() + "]}}}").getBytes(StandardCharsets.UTF_8);
            if (fill > 0) {
                prefill();
            }
            String cid = "warm-up";
            if (call("ADD", "bench", cid) != 0 || call("DEL", "bench", cid) != 0) {
                throw new IllegalStateException("the first ADD/DEL failed");
            }
        } catch (Exception | Error e) {
            // JMH runs no tear-down after a failed set-up, and tries the set-up again in the next iteration.
            etcd.closeAfter(e);
            etcd = null;
            throw e;
        }
    }

    /** Blocks claimed round-robin by other-0..2 and (every 97th) by bench, each filled to {@code fill} %. */
    private void prefill() throws Exception {
        Random random = new Random(42);
        List<String> ops = new ArrayList<>();
        int blocks = 1024;
        for (int b = 0; b < blocks; b++) {
            String node = b % 97 == 5 ? "bench" : "other-" + (b % 3);
            int start = (10 << 24) | (100 << 16) | (b << 6);
            ops.add(put(ROOT + "block/" + hex(start), node));
            ops.add(put(ROOT + "affinity/" + node + "/" + hex(start), ""));
            List<Integer> offsets = new ArrayList<>();
            for (int k = 0; k < 64; k++) {
                int ip = start + k;
                boolean special = ip == ((10 << 24) | (100 << 16)) || ip == ((10 << 24) | (100 << 16) | 1)
                        || ip == ((10 << 24) | (100 << 16) | 0xffff);
                if (!special) {
                    offsets.add(k);
                }
            }
            Collections.shuffle(offsets, random);
            int taken = offsets.size() * fill / 100;
            for (int k = 0; k < taken; k++) {
                ops.add(put(ROOT + "ip/" + hex(start + offsets.get(k)), node + "\nfill-" + b + "-" + k + "\neth0"));
            }
            if (ops.size() > 900 || b == blocks - 1) {
                etcd.post("/v3/kv/txn", "{\"success\":[" + String.join(",", ops) + "]}");
                ops.clear();
            }
        }
    }

    private static String put(String key, String value) {
        return "{\"request_put\":{\"key\":\"" + EtcdMembers.b64(key) + "\",\"value\":\"" + EtcdMembers.b64(value)
                + "\"}}";
    }

    private static String hex(int ip) {
        String h = Integer.toHexString(ip);
        return "4/" + "00000000".substring(h.length()) + h;
    }

    int call(String command, String node, String cid) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", cid);
        env.put("CNI_NETNS", "/var/run/netns/jcni-bench-none");
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", "/nonexistent");
        env.put("JCNI_NODE_NAME", node);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = plugin.run(env, conf, out, err);
        if (rc != 0) {
            throw new IllegalStateException(command + " " + cid + " on " + node + " failed: "
                    + out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        }
        return rc;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    /** The container the last {@code allocate} added, DEL'd after it outside the measurement. */
    @State(Scope.Thread)
    public static class Added {
        String cid;

        @TearDown(Level.Invocation)
        public void del(ClusterIpamBenchmark b) {
            if (cid != null) {
                b.call("DEL", "bench", cid);
                cid = null;
            }
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public int allocate(Added added) {
        added.cid = "a" + ids.incrementAndGet();
        return call("ADD", "bench", added.cid);
    }

    /** One node per thread. */
    @State(Scope.Thread)
    public static class Node {
        static final AtomicInteger NEXT = new AtomicInteger();
        final String name = "node-" + NEXT.getAndIncrement() % 3;
    }

    @Benchmark
    @Threads(3)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public int threeNodes(Node node) {
        String cid = "t" + ids.incrementAndGet();
        return call("ADD", node.name, cid) + call("DEL", node.name, cid);
    }
}
