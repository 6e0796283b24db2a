package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.EtcdCluster;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cluster-ipam exec'd through its launcher as a runtime execs it, against real etcd members the tests start: "nodes"
 * are driver processes, each with its own {@code JCNI_NODE_NAME}, running many plugin processes at once; plugins and
 * etcd members are killed with SIGKILL mid-run. Every etcd member is stopped in {@code finally} (try-with-resources).
 */
class ClusterIpamExecTest {
    static final String SUBNET_PREFIX = "10.160.0.";

    @TempDir
    Path tmp;

    @BeforeAll
    static void prerequisites() {
        Prerequisites.assumeDistPlugins("cluster-ipam");
        EtcdCluster.assumeInstalled();
    }

    static String conf(String network, String subnet, EtcdCluster etcd, String extra) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"cluster-ipam\",\"subnet\":\"" + subnet + "\",\"blockSize\":28,\"etcd\":{\"endpoints\":["
                + etcd.endpointsJson() + "],\"dialTimeoutSeconds\":1" + extra + "}}}";
    }

    static Map<String, String> env(String command, String node) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_NETNS", "/var/run/netns/jcni-sdk-none");
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", Locations.distCniBin().toString());
        env.put("JCNI_NODE_NAME", node);
        return env;
    }

    /** What one plugin exec of a round left: exit status (137 when killed), stdout. */
    record Call(String cid, int status, String stdout, String stderr) {
        String address() {
            JsonNode ips = Json.parse(stdout).path("ips");
            assertThat(ips.size()).as("%s: %s", cid, stdout).isEqualTo(1);
            return ips.get(0).path("address").asText();
        }
    }

    /**
     * One round: a driver process per node ({@code sh} + {@code xargs -P parallel}) execs the plugin for each of its
     * container IDs at once; with {@code killWithin > 0} each exec is SIGKILLed after a random delay below it.
     */
    List<Call> round(String name, String command, Path conf, List<String> nodes, int perNode, int parallel,
            double killWithin, Random random) throws Exception {
        Path results = Files.createDirectories(tmp.resolve(name + "-" + command));
        Path plugin = Locations.distPlugin("cluster-ipam");
        String kill = killWithin > 0 ? "timeout -s KILL $2 " : "";
        String worker = "cid=$1; out=" + results + "/$cid; CNI_CONTAINERID=$cid " + kill + "\"" + plugin + "\" < "
                + conf + " > $out.json 2> $out.err; echo $? > $out.rc";
        List<Process> drivers = new ArrayList<>();
        try {
            for (String node : nodes) {
                StringBuilder args = new StringBuilder();
                for (int i = 0; i < perNode; i++) {
                    args.append(name).append('-').append(node).append('-').append(i).append(' ')
                            .append(String.format("%.3f", 0.02 + random.nextDouble() * killWithin)).append('\n');
                }
                ProcessBuilder builder = new ProcessBuilder("sh", "-c", "xargs -P " + parallel + " -n 2 sh -c '"
                        + worker.replace("'", "'\\''") + "' _");
                builder.environment().putAll(env(command, node));
                builder.redirectErrorStream(true);
                builder.redirectOutput(tmp.resolve("driver-" + name + "-" + node + "-" + command + ".log").toFile());
                Process driver = builder.start();
                drivers.add(driver);
                driver.getOutputStream().write(args.toString().getBytes(StandardCharsets.US_ASCII));
                driver.getOutputStream().close();
            }
            for (Process driver : drivers) {
                assertThat(driver.waitFor(5, TimeUnit.MINUTES)).isTrue();
            }
        } finally {
            for (Process driver : drivers) {
                driver.destroyForcibly();
            }
        }
        List<Call> calls = new ArrayList<>();
        for (String node : nodes) {
            for (int i = 0; i < perNode; i++) {
                String cid = name + "-" + node + "-" + i;
                calls.add(new Call(cid, Integer.parseInt(Files.readString(results.resolve(cid + ".rc")).strip()),
                        Files.readString(results.resolve(cid + ".json")),
                        Files.readString(results.resolve(cid + ".err"))));
            }
        }
        return calls;
    }

    /**
     * A full round on a /26 (61 addresses): exactly 61 of the 75 ADDs get an address, all distinct and inside the
     * range; each of the other 14 gets error JSON saying the range set is exhausted; nothing else is in etcd.
     */
    static Set<String> assertFullRound(List<Call> calls, EtcdCluster etcd, String prefix) throws Exception {
        Set<String> addresses = new HashSet<>();
        int refused = 0;
        for (Call call : calls) {
            if (call.status() == 0) {
                String address = call.address();
                assertThat(addresses.add(address)).as("%s got the duplicate %s", call.cid(), address).isTrue();
                int octet = Integer.parseInt(address.substring(SUBNET_PREFIX.length(), address.indexOf('/')));
                assertThat(octet).as(address).isBetween(2, 62);
            } else {
                refused++;
                JsonNode error = Json.parse(call.stdout());
                assertThat(error.path("code").asInt()).as("%s: %s %s", call.cid(), call.stdout(), call.stderr())
                        .isEqualTo(999);
                assertThat(error.path("msg").asText()).contains("no IP addresses available in range set");
                assertThat(call.stderr()).doesNotContain("Exception");
            }
        }
        assertThat(addresses).hasSize(61);
        assertThat(refused).isEqualTo(calls.size() - 61);
        assertThat(etcd.keys(prefix + "/ip/")).hasSize(61);
        assertThat(etcd.keys(prefix + "/owner/")).hasSize(61);
        return addresses;
    }

    static void assertNoKeyNames(EtcdCluster etcd, String prefix, List<Call> calls) throws Exception {
        List<String> keys = etcd.keys(prefix + "/");
        List<String> values = etcd.entries(prefix + "/");
        for (Call call : calls) {
            assertThat(keys).as("keys after DEL").noneMatch(k -> k.contains("/" + call.cid() + "/"));
            assertThat(values).as("values after DEL").noneMatch(v -> v.contains("\n" + call.cid() + "\n"));
        }
    }

    @Test
    void threeNodesOfTwentyFiveParallelAddsFillASlash26ExactlyThenDelsAndKilledAddsLeaveRoomForAnotherFullRound()
            throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            String prefix = "/jcni/ipam/round";
            Path conf = Files.writeString(tmp.resolve("conf.json"),
                    conf("round", SUBNET_PREFIX + "0/26", etcd, ",\"requestTimeoutSeconds\":60"));
            List<String> nodes = List.of("node-a", "node-b", "node-c");
            Random random = new Random(17);

            List<Call> first = round("r1", "ADD", conf, nodes, 25, 25, 0, random);
            assertFullRound(first, etcd, prefix);
            for (Call del : round("r1", "DEL", conf, nodes, 25, 25, 0, random)) {
                assertThat(del.status()).as("%s DEL: %s", del.cid(), del.stdout()).isZero();
            }
            assertNoKeyNames(etcd, prefix, first);
            assertThat(etcd.keys(prefix + "/ip/")).isEmpty();

            // ADDs killed at random points of their run (JVM start to exit), then DEL'd as a runtime would.
            List<Call> killed = round("k", "ADD", conf, nodes, 25, 25, 0.6, random);
            assertThat(killed).as("some ADDs were killed").anyMatch(c -> c.status() == 137);
            for (Call del : round("k", "DEL", conf, nodes, 25, 25, 0, random)) {
                assertThat(del.status()).as("%s DEL: %s", del.cid(), del.stdout()).isZero();
            }
            assertNoKeyNames(etcd, prefix, killed);
            assertThat(etcd.keys(prefix + "/ip/")).isEmpty();

            List<Call> second = round("r2", "ADD", conf, nodes, 25, 25, 0, random);
            assertFullRound(second, etcd, prefix);
            round("r2", "DEL", conf, nodes, 25, 25, 0, random);
            assertNoKeyNames(etcd, prefix, second);
        }
    }

    /**
     * 3 nodes × 300 concurrent ADDs on one /22 (1021 addresses). Each node is a JVM process of its own that runs its
     * 300 calls at once on 300 threads through {@code Plugins.inProcess()} (as the resident service runs them; 900
     * exec'd JVMs at once would not fit this machine): 900 distinct addresses, all within the range; then every DEL,
     * 300 at once per node again, frees its address and no key names a container.
     */
    @Test
    void threeNodesOfThreeHundredConcurrentAddsOnASlash22GetDistinctAddressesAndEveryDelFreesItsAddress()
            throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            String prefix = "/jcni/ipam/wide";
            Path conf = Files.writeString(tmp.resolve("conf.json"), "{\"cniVersion\":\"1.0.0\",\"name\":\"wide\","
                    + "\"type\":\"bridge\",\"ipam\":{\"type\":\"cluster-ipam\",\"subnet\":\"10.162.0.0/22\","
                    + "\"etcd\":{\"endpoints\":[" + etcd.endpointsJson() + "],\"requestTimeoutSeconds\":60}}}");
            List<String> nodes = List.of("node-a", "node-b", "node-c");
            List<Call> adds = nodeProcesses("ADD", nodes, 300, conf);
            Set<String> addresses = new HashSet<>();
            for (Call call : adds) {
                assertThat(call.status()).as("%s: %s %s", call.cid(), call.stdout(), call.stderr()).isZero();
                String address = call.address();
                assertThat(address).startsWith("10.162.").endsWith("/22");
                String[] octets = address.substring(0, address.indexOf('/')).split("\\.");
                int offset = (Integer.parseInt(octets[2]) << 8) + Integer.parseInt(octets[3]);
                assertThat(offset).as(address).isBetween(2, 1022);
                assertThat(addresses.add(address)).as("%s got the duplicate %s", call.cid(), address).isTrue();
            }
            assertThat(etcd.keys(prefix + "/ip/")).hasSize(900);
            for (Call del : nodeProcesses("DEL", nodes, 300, conf)) {
                assertThat(del.status()).as("%s DEL: %s", del.cid(), del.stdout()).isZero();
            }
            assertThat(etcd.keys(prefix + "/ip/")).isEmpty();
            assertThat(etcd.keys(prefix + "/owner/")).isEmpty();
            assertNoKeyNames(etcd, prefix, adds);
        }
    }

    /** One JVM per node running {@code count} calls at once (src/test/resources/.../ClusterNode.java). */
    List<Call> nodeProcesses(String command, List<String> nodes, int count, Path conf) throws Exception {
        Path results = Files.createDirectories(tmp.resolve("node-" + command));
        Path source = tmp.resolve("ClusterNode.java");
        try (var in = ClusterIpamExecTest.class.getResourceAsStream("ClusterNode.java")) {
            Files.write(source, in.readAllBytes());
        }
        StringBuilder modulePath = new StringBuilder();
        for (String module : List.of("io.jcni.plugins", "io.jcni.runtime", "io.jcni.spec", "io.jcni.netlink",
                "com.fasterxml.jackson.core")) {
            java.lang.module.ResolvedModule resolved = ModuleLayer.boot().configuration().findModule(module)
                    .orElseThrow();
            modulePath.append(modulePath.isEmpty() ? "" : ":")
                    .append(Path.of(resolved.reference().location().orElseThrow()));
        }
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<Process> processes = new ArrayList<>();
        try {
            for (String node : nodes) {
                ProcessBuilder pb = new ProcessBuilder(java, "--module-path", modulePath.toString(), "--add-modules",
                        "io.jcni.plugins", "--enable-native-access=io.jcni.netlink", source.toString(), command, node,
                        Integer.toString(count), "w", conf.toString(), results.toString());
                pb.redirectErrorStream(true);
                pb.redirectOutput(tmp.resolve("node-" + node + "-" + command + ".log").toFile());
                processes.add(pb.start());
            }
            for (Process p : processes) {
                assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
                assertThat(p.exitValue()).as("node process log in %s", tmp).isZero();
            }
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
            }
        }
        List<Call> calls = new ArrayList<>();
        for (String node : nodes) {
            for (int i = 0; i < count; i++) {
                String cid = "w-" + node + "-" + i;
                calls.add(new Call(cid, Integer.parseInt(Files.readString(results.resolve(cid + ".rc")).strip()),
                        Files.readString(results.resolve(cid + ".json")),
                        Files.readString(results.resolve(cid + ".err"))));
            }
        }
        return calls;
    }

    /**
     * Three members. One killed with SIGKILL in the middle of 3 nodes × 20 ADDs, some of which are SIGKILLed too:
     * every ADD that was not killed succeeds, no address is handed out twice, and GC with the successful attachments
     * as the valid ones leaves exactly their addresses. Then a second member down: no quorum, ADD fails with code 11
     * within 20 s and writes nothing; with the members back, ADD works again.
     */
    @Test
    void allocationGoesOnWithTwoOfThreeMembersAndFailsWithCode11WithoutQuorum() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 3)) {
            String prefix = "/jcni/ipam/faults";
            Path conf = Files.writeString(tmp.resolve("conf.json"),
                    conf("faults", "10.161.0.0/24", etcd, ",\"requestTimeoutSeconds\":8"));
            List<String> nodes = List.of("node-a", "node-b", "node-c");
            Random random = new Random(23);
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(700);
                    etcd.kill(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            killer.start();
            List<Call> calls;
            try {
                calls = round("f", "ADD", conf, nodes, 20, 10, 0, random);
            } finally {
                killer.join();
            }
            // Some killed plugins too, with the member already down.
            List<Call> killedCalls = round("fk", "ADD", conf, nodes, 5, 5, 0.5, random);
            Set<String> addresses = new HashSet<>();
            Map<String, List<String>> validByNode = new HashMap<>();
            for (List<Call> list : List.of(calls, killedCalls)) {
                for (Call call : list) {
                    if (call.status() == 137) {
                        continue;
                    }
                    assertThat(call.status()).as("%s: %s %s", call.cid(), call.stdout(), call.stderr()).isZero();
                    assertThat(addresses.add(call.address())).as("duplicate %s", call.address()).isTrue();
                    String node = call.cid().split("-")[1] + "-" + call.cid().split("-")[2];
                    validByNode.computeIfAbsent(node, k -> new ArrayList<>()).add(call.cid());
                }
            }
            assertThat(calls).allMatch(c -> c.status() == 0);
            for (String node : nodes) {
                StringBuilder valid = new StringBuilder();
                for (String cid : validByNode.getOrDefault(node, List.of())) {
                    valid.append(valid.isEmpty() ? "" : ",").append("{\"containerID\":\"").append(cid)
                            .append("\",\"ifname\":\"eth0\"}");
                }
                String gc = Files.readString(conf);
                gc = gc.substring(0, gc.length() - 1) + ",\"cni.dev/valid-attachments\":[" + valid + "]}";
                Map<String, String> env = env("GC", node);
                env.put("CNI_CONTAINERID", "gc");
                ProcessResult r = Processes.run(List.of(Locations.distPlugin("cluster-ipam").toString()), env, gc,
                        Duration.ofSeconds(60));
                assertThat(r.exitCode()).as(r.describe()).isZero();
            }
            assertThat(etcd.keys(prefix + "/ip/")).as("after GC: exactly the successful ADDs' addresses")
                    .hasSize(addresses.size());

            etcd.kill(2);
            // Through the service, a node's request answered up to 10 ms before an ADD began proves a quorum for it
            // (cluster-ipam's QuorumRead: its grace). The quorum is lost longer ago than that here: the ADD must not
            // write at all.
            Thread.sleep(50);
            long start = System.nanoTime();
            ProcessResult noQuorum = exec("ADD", "node-a", "no-quorum", Files.readString(conf));
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertThat(noQuorum.exitCode()).isEqualTo(1);
            JsonNode error = Json.parse(noQuorum.stdout());
            assertThat(error.path("code").asInt()).as(noQuorum.describe()).isEqualTo(11);
            assertThat(error.path("msg").asText()).contains("etcd did not answer within 8 s");
            assertThat(millis).as("code 11 within 20 s").isLessThan(20_000);

            etcd.startMember(1);
            etcd.startMember(2);
            etcd.awaitHealthy();
            assertThat(etcd.keys(prefix + "/")).noneMatch(k -> k.contains("no-quorum"));
            assertThat(etcd.keys(prefix + "/ip/")).hasSize(addresses.size());
            ProcessResult again = exec("ADD", "node-a", "after-quorum", Files.readString(conf));
            assertThat(again.exitCode()).as(again.describe()).isZero();
        }
    }

    static ProcessResult exec(String command, String node, String cid, String conf) throws IOException {
        Map<String, String> env = env(command, node);
        env.put("CNI_CONTAINERID", cid);
        return Processes.run(List.of(Locations.distPlugin("cluster-ipam").toString()), env, conf,
                Duration.ofSeconds(60));
    }
}
