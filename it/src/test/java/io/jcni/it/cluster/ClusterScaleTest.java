package io.jcni.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.EtcdCluster;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cluster-ipam at cluster scale (issue 29), at a size for CI: the simulated cluster of {@code src/test/cluster/
 * cluster_sim.py} (the same program benchmarks/compare.sh's {@code cluster-scale} suite runs at full size) with a
 * real 3-member etcd in a namespace of its own, 3 nodes, each a namespace with its own {@code jcni serve} and node
 * name reaching etcd over a veth, and 100 pods per node started at once on every node, each by a Go libcni process
 * (bridge + cluster-ipam on one shared /20). Scenarios, after a warm-up round of each path: cluster-ipam alone; the
 * pods without a fault; with the etcd leader SIGKILLed mid-burst; with the leader SIGSTOPped for 10 s; with one node
 * cut off from etcd (nftables in its namespace); with one node's service SIGKILLed and restarted; with one node gone
 * for good (its lease expires and another node's GC reclaims its addresses and blocks).
 *
 * <p>The program checks after every scenario (and this test asserts that it found nothing): every pod ended, no
 * address given twice, every live pod's address in etcd under its own key, every failure a CNI error with code 11
 * where etcd or the service was out of reach (the cut node's within {@code requestTimeoutSeconds}), the failed pods
 * ADDed again once the fault healed, nothing left after the DEL of all, the lost node's keys all reclaimed. It
 * removes every namespace and process it made in its own {@code finally}; this test checks that too.
 *
 * <p>It starts a service per node of its own, so the it module runs it once, not again in the execution through the
 * suite's service (it/pom.xml).
 */
class ClusterScaleTest {
    static final int NODES = 3;
    static final int PODS = 100;
    static final int REQUEST_TIMEOUT_SECONDS = 5;

    @TempDir
    Path tmp;

    @Test
    void threeNodesOfAHundredPodsStayConsistentUnderEveryFault() throws Exception {
        Prerequisites.assumeRoot();
        // it/pom.xml leaves this class out of the run through the suite's service (-Dtest overrides that, and then it
        // runs there too: the simulator sets each process's environment itself, so the suite's service is not used).
        EtcdCluster.assumeInstalled();
        Prerequisites.assumeCommand("nft");
        Prerequisites.assumeGoTools();
        Prerequisites.assumeDistPlugins("bridge", "cluster-ipam");
        Prerequisites.assumeJcniCli();
        Path python = Locations.debianPython();
        Path sim = Locations.clusterSupport().resolve("cluster_sim.py");
        Prerequisites.require(Files.isExecutable(python), () -> python + " (Debian's python3)");
        Prerequisites.require(Files.isRegularFile(sim), () -> sim.toString());

        String tag = Names.netns("cs");
        Path results = tmp.resolve("results.json");
        List<String> command = new ArrayList<>(List.of(python.toString(), sim.toString(), "run",
                "--dist", Locations.dist().toString(), "--driver", Locations.libcniDriver().toString(),
                "--tag", tag, "--work", tmp.resolve("work").toString(), "--json", results.toString(),
                "--nodes", Integer.toString(NODES), "--pods", Integer.toString(PODS),
                "--request-timeout", Integer.toString(REQUEST_TIMEOUT_SECONDS), "--scenarios", "all"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("cluster_sim.log").toFile());
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        Process run = pb.start();
        try {
            // A run that hangs is a failure (the program's own deadline per pod is 90 s); SIGTERM lets it clean up.
            assertThat(run.waitFor(15, TimeUnit.MINUTES)).as("cluster_sim.py ended; log in %s", tmp).isTrue();
        } finally {
            if (run.isAlive()) {
                run.destroy();
                if (!run.waitFor(60, TimeUnit.SECONDS)) {
                    run.destroyForcibly().waitFor();
                }
            }
        }
        String log = Files.readString(tmp.resolve("cluster_sim.log"));
        System.out.println(log);
        assertNothingLeft(tag, tmp);
        assertThat(Files.exists(results)).as("results written; log:\n%s", log).isTrue();
        JsonNode r = Json.parse(Files.readString(results));
        assertThat(r.path("error").isMissingNode()).as("the run failed: %s", r.path("error")).isTrue();
        assertThat(r.path("cleanup_complete").asBoolean()).isTrue();

        List<String> names = new ArrayList<>();
        for (JsonNode s : r.path("scenarios")) {
            String name = s.path("name").asText();
            names.add(name);
            assertThat(s.path("problems")).as("%s: what the checks found", name).isEmpty();
            JsonNode add = s.path("add");
            assertThat(add.path("hung")).as("%s: ADDs that hung", name).isEmpty();
            assertThat(s.path("etcd").path("duplicates")).as("%s: duplicates", name).isEmpty();
            assertThat(s.path("after_del").path("ip_owner_keys_left").asInt()).as("%s: left after DEL", name)
                    .isZero();
            assertThat(s.path("del").path("failed").asInt()).as("%s: failed DELs", name).isZero();
            int expected = name.equals("warmup") ? Math.min(PODS, 20) * NODES : PODS * NODES;
            if (name.equals("node-gone")) {
                expected -= PODS; // the lost node's pods went with it
            } else {
                assertThat(add.path("calls").asInt()).as("%s: ADDs made", name).isEqualTo(expected);
            }
            for (String code : iterable(add.path("codes").fieldNames())) {
                assertThat(code).as("%s: failure codes %s", name, add.path("codes")).isEqualTo("11");
            }
            if (List.of("warmup-ipam", "warmup", "ipam-alone", "baseline").contains(name)) {
                assertThat(add.path("ok").asInt()).as("%s: ADDs without a fault all succeed", name)
                        .isEqualTo(expected);
            }
            JsonNode retry = s.path("retry");
            if (!retry.isNull() && !retry.isMissingNode()) {
                assertThat(retry.path("ok").asInt()).as("%s: retried ADDs", name)
                        .isEqualTo(retry.path("calls").asInt());
            }
        }
        assertThat(names).containsExactly("warmup-ipam", "warmup", "ipam-alone", "baseline", "leader-kill",
                "member-stop", "node-cut", "service-kill", "node-gone");
        JsonNode cut = scenario(r, "node-cut");
        assertThat(cut.path("add").path("codes").path("11").asInt()).as("the cut node's ADDs failed with 11")
                .isPositive();
        assertThat(cut.path("fault").path("probe_codes")).as("cluster-ipam exec'd on the cut node")
                .allMatch(code -> code.asInt() == 11);
        assertThat(cut.path("fault").path("probe_wall_ms_max").asDouble())
                .as("cluster-ipam exec'd on the cut node failed within requestTimeoutSeconds (+3 s: the JVM start)")
                .isBetween(REQUEST_TIMEOUT_SECONDS * 1000.0, REQUEST_TIMEOUT_SECONDS * 1000.0 + 3000);
        JsonNode gone = scenario(r, "node-gone").path("fault");
        assertThat(gone.path("lost_node_addresses").asInt()).as("the lost node held addresses when it went")
                .isPositive();
        assertThat(gone.path("lost_node_keys_after_gc").asInt()).as("its keys after the GC").isZero();
    }

    static JsonNode scenario(JsonNode results, String name) {
        for (JsonNode s : results.path("scenarios")) {
            if (s.path("name").asText().equals(name)) {
                return s;
            }
        }
        throw new AssertionError("no scenario " + name);
    }

    static Iterable<String> iterable(java.util.Iterator<String> it) {
        return () -> it;
    }

    /** No namespace of the run, no process it started (etcd, services, drivers: all ran with the work dir). */
    static void assertNothingLeft(String tag, Path tmp) {
        ProcessResult netns = Processes.run("ip", "netns", "list");
        assertThat(netns.stdout()).as("namespaces of the run left").doesNotContain(tag);
        for (String mark : List.of(tmp.toString(), tag)) {
            ProcessResult procs = Processes.run(List.of("pgrep", "-af", mark), Map.of(), null,
                    Duration.ofSeconds(10));
            assertThat(procs.stdout().lines().filter(l -> !l.contains("pgrep")).toList())
                    .as("processes of the run left").isEmpty();
        }
        assertThat(Files.exists(Path.of("/dev/shm/" + tag + "-etcd"))).as("etcd's data left").isFalse();
    }
}
