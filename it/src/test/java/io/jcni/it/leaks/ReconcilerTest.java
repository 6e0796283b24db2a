package io.jcni.it.leaks;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.it.support.TestNetns;
import io.jcni.it.teardown.NodeState;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code jcni serve --reconcile-every DURATION}: the service runs gc --stale on its own, with the node's networks,
 * cache and plugins, its clients answered by itself. A service of the test's own runs in a test node ({@code ip netns
 * exec}, so it judges host ends where the plugins make them) with a 2 s period; jcni's runtime attaches two containers
 * through it (bridge with ipMasq → portmap → bandwidth, 1.1.0); one container's namespace is deleted. Within a few
 * periods the service must have removed that attachment (cache entry, reservation, rules, ifb), logged the removal and
 * its GC, and left the other whole, traffic included.
 */
class ReconcilerTest {
    static final String TAG = "rec";
    static final String NETWORK = "rec-br";

    @TempDir
    Path tmp;

    @AutoClose
    StaleNode node;

    @Test
    void theServiceRemovesADeadAttachmentOnItsOwnAndLogsIt() throws Exception {
        Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap", "bandwidth");
        node = StaleNode.start(TAG, tmp.resolve("node"), List.of(Locations.distCniBin()));
        String conflist = "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK + "\",\"plugins\":["
                + "{\"type\":\"bridge\",\"bridge\":\"" + StaleNode.link(TAG) + "\",\"isGateway\":true,\"ipMasq\":true,"
                + "\"ipam\":" + GcStaleMixTest.hostLocal(node, "10.234.1.0/24") + "},"
                + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}},"
                + "{\"type\":\"bandwidth\",\"egressRate\":800000000,\"egressBurst\":8000000}]}";
        node.network(NETWORK, conflist);
        NetworkConfigList list = CniJson.decodeNetworkConfigList(conflist.getBytes(StandardCharsets.UTF_8));
        Path socket = tmp.resolve("service/plugins.sock");
        List<String> serve = node.host.command(List.of(Locations.distJcni().toString(), "serve", "--socket",
                socket.toString(), "--reconcile-every", "2s", "--conf-dir", node.confDir.toString(), "--cache-dir",
                node.cacheDir.toString(), "--cni-path", Locations.distCniBin().toString()));
        try (PluginServiceProcess service = PluginServiceProcess.start(serve, socket, Map.of("JCNI_DEBUG", "1"))) {
            Map<String, String> env = new HashMap<>(System.getenv());
            env.put("JCNI_SERVICE_SOCKET", socket.toString());
            try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(node.host.runtimeCniPath(
                    tmp.resolve("host-bin"), node.cniPath)).withCacheDir(node.cacheDir).withEnvironment(env))) {
                TestNetns live = node.host.container();
                TestNetns dead = node.host.container();
                RuntimeConf liveRt = rt("live", live, 18090);
                RuntimeConf deadRt = rt("dead", dead, 18091);
                String liveIp = ip(runtime.addNetworkList(list, liveRt));
                String deadIp = ip(runtime.addNetworkList(list, deadRt));
                assertThat(service.log()).as("the ADDs went through this service").contains("ADD bridge for");
                assertThat(node.links("bwp")).hasSize(2);

                String deadEnd = node.links("veth").stream().filter(v -> !vethOf(live).equals(v)).findFirst()
                        .orElseThrow();
                dead.close();
                node.awaitGone(deadEnd);

                long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
                while (!service.log().contains("reconcile: 1 removed, ") && System.nanoTime() < deadline) {
                    Thread.sleep(200);
                }
                String log = service.log();
                assertThat(node.cacheEntries()).as(log).containsExactly(NETWORK + "-live-eth0");
                assertThat(log).contains("jcni serve: reconciling every 2s: networks in " + node.confDir)
                        .contains("jcni serve: reconcile: removed " + NETWORK + " dead/eth0 netns " + dead.path()
                                + ": no such file")
                        .contains("jcni serve: reconcile: gc " + NETWORK + ": collected, ")
                        .contains("DEL bridge for");
                assertThat(log.lines().filter(l -> l.contains("reconcile: removed"))).as("removed once").hasSize(1);
                assertThat(node.reservations(NETWORK)).containsExactly(liveIp);
                assertThat(node.links("bwp")).containsExactly(StaleNode.ifb(NETWORK, "live"));
                assertThat(node.ruleset()).doesNotContain(deadIp).doesNotContain("18091").contains(liveIp)
                        .contains("18090");
                GcStaleMixTest.tcp(node.host.netns().path(), live.path(), liveIp, "node -> the live container");

                NodeState before = NodeState.read(node.host, node.ipamDir, node.cacheDir);
                Thread.sleep(4500);
                assertThat(NodeState.read(node.host, node.ipamDir, node.cacheDir)).as("later runs change nothing")
                        .isEqualTo(before);
                runtime.delNetworkList(list, liveRt);
            }
        }
        assertThat(node.reservations(NETWORK)).isEmpty();
        assertThat(node.cacheEntries()).isEmpty();
    }

    @Test
    void reconcileOptionsAreChecked() throws Exception {
        Prerequisites.assumeJcniCli();
        Path socket = tmp.resolve("service/plugins.sock");
        ProcessResult tooShort = Processes.run(List.of(Locations.distJcni().toString(), "serve", "--socket",
                socket.toString(), "--reconcile-every", "500ms"), Map.of(), null, Duration.ofSeconds(60));
        assertThat(tooShort.exitCode()).isNotZero();
        assertThat(tooShort.stderr()).contains("--reconcile-every needs a duration of at least 1s");
        ProcessResult alone = Processes.run(List.of(Locations.distJcni().toString(), "serve", "--socket",
                socket.toString(), "--conf-dir", "/etc/cni/net.d"), Map.of(), null, Duration.ofSeconds(60));
        assertThat(alone.exitCode()).isNotZero();
        assertThat(alone.stderr()).contains("--conf-dir only apply with --reconcile-every");
        ProcessResult help = Processes.run(List.of(Locations.distJcni().toString(), "serve", "--help"), Map.of(),
                null, Duration.ofSeconds(60));
        assertThat(help.stdout()).contains("--reconcile-every DURATION");
    }

    static RuntimeConf rt(String id, TestNetns netns, int hostPort) {
        return new RuntimeConf(id, netns.path().toString(), "eth0").withCapabilityArgs((JsonObject) io.jcni.spec.Json
                .parse("{\"portMappings\":[{\"hostPort\":" + hostPort + ",\"containerPort\":80,\"protocol\":\"tcp\"}]}"));
    }

    static String ip(io.jcni.spec.CniResult result) {
        return io.jcni.spec.IpText.format(io.jcni.spec.Result.from(result).ips().getFirst().address().address());
    }

    /** The host end of the veth whose container end is in {@code netns} (its peer's index). */
    String vethOf(TestNetns netns) {
        String peer = netns.exec("cat", "/sys/class/net/eth0/iflink").requireSuccess().stdout().strip();
        return node.host.exec("sh", "-c", "grep -lx " + peer + " /sys/class/net/*/ifindex").requireSuccess()
                .stdout().strip().split("/")[4];
    }
}
