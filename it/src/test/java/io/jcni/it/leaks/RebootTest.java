package io.jcni.it.leaks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jcni.it.support.Attachment;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.it.teardown.NodeState;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A "reboot": a node with attachments (some through Go libcni, some through jcni's runtime, and an ADD whose rollback
 * was cut short) loses every namespace, link and rule, as at a reboot, while its {@code /var/lib/cni} (the cache, the
 * journals, host-local's reservations, tuning's backups) stays. On the node that comes back (a fresh test host with the
 * same directories and configuration), {@code gc --stale} removes every attachment and finishes the failed ADD: no
 * reservation, cache entry or journal is left (Go's tuning keeps the backup it cannot restore without a namespace, as
 * its own DEL does), and a second run finds nothing to do. With Go's plugins (1.0.0) and jcni's (1.1.0: their GC runs
 * too).
 */
class RebootTest {
    static final String TAG = "boot";

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}'s plugins")
    @ValueSource(strings = {"go", "jcni"})
    void gcStaleAfterARebootLeavesNothingOfTheAttachmentsBefore(String plugins) throws Exception {
        Prerequisites.assumeGoTools();
        boolean jcni = plugins.equals("jcni");
        List<Path> cniPath = List.of(jcni ? Locations.distCniBin() : Locations.referencePlugins(),
                Locations.goBin());
        Path dir = tmp.resolve("node");
        // Go libcni 1.1.2 runs jcni's networks as 1.0.0, jcni's runtime as 1.1.0 (the highest both name).
        String version = jcni ? "\"cniVersion\":\"1.0.0\",\"cniVersions\":[\"1.0.0\",\"1.1.0\"]"
                : "\"cniVersion\":\"1.0.0\"";
        String bridge = StaleNode.link(TAG);
        NetworkConfigList br;
        NetworkConfigList pp;
        NetworkConfigList failing;
        try (StaleNode node = StaleNode.start(TAG, dir, cniPath)) {
            String chain = "{\"type\":\"bridge\",\"bridge\":\"" + bridge + "\",\"isGateway\":true,\"ipMasq\":true,"
                    + "\"ipam\":" + GcStaleMixTest.hostLocal(node, "10.235.1.0/24") + "},"
                    + "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}},"
                    + "{\"type\":\"tuning\",\"mtu\":1400,\"dataDir\":\"" + node.tuningDir + "\"},"
                    + "{\"type\":\"bandwidth\",\"egressRate\":800000000,\"egressBurst\":8000000}";
            br = network(node, "boot-br", version, chain);
            pp = network(node, "boot-pp", version, "{\"type\":\"ptp\",\"ipMasq\":true,\"ipam\":"
                    + GcStaleMixTest.hostLocal(node, "10.235.2.0/24") + "}");
            failing = network(node, "boot-fail", version, "{\"type\":\"bridge\",\"bridge\":\"" + bridge + "\","
                    + "\"ipam\":" + GcStaleMixTest.hostLocal(node, "10.235.3.0/24") + "},{\"type\":\""
                    + Locations.TRIVIAL_PLUGIN_TYPE + "\",\"sleepMs\":4000}");

            String ports = "{\"portMappings\":[{\"hostPort\":18100,\"containerPort\":80,\"protocol\":\"tcp\"}]}";
            node.libcni.add(node.confDir.resolve("boot-br.conflist"), node.host.container().path(),
                    Attachment.of("b-libcni", "eth0").withCapabilityArgs(ports)).answer();
            node.runtime.addNetworkList(br, new RuntimeConf("b-jcni", node.host.container().path().toString(),
                    "eth0").withCapabilityArgs((JsonObject) io.jcni.spec.Json.parse(ports.replace("18100", "18101"))));
            node.runtime.addNetworkList(pp, new RuntimeConf("p-jcni", node.host.container().path().toString(),
                    "eth0"));
            try (CniRuntime cutShort = CniRuntime.create(CniRuntime.Options.of(node.host.runtimeCniPath(
                    tmp.resolve("host-bin"), cniPath)).withCacheDir(node.cacheDir)
                    .withRollbackTimeout(Duration.ofMillis(1)))) {
                CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                        () -> cutShort.withTimeout(Duration.ofMillis(3000)).addNetworkList(failing,
                                new RuntimeConf("f-jcni", node.host.container().path().toString(), "eth0")));
                assertThat(e.rolledBack()).isFalse();
            }
            assertThat(node.cacheEntries()).hasSize(3);
            assertThat(node.journals()).containsExactly("boot-fail-f-jcni-eth0");
            assertThat(node.reservations("boot-br")).hasSize(2);
            assertThat(node.reservations("boot-pp")).hasSize(1);
            assertThat(node.reservations("boot-fail")).hasSize(1);
        }
        // The reboot: namespaces, links and rules are gone (the host with them); /var/lib/cni is kept.
        try (StaleNode node = StaleNode.start(TAG, dir, cniPath)) {
            NodeState fresh = NodeState.read(node.host);

            List<String> report = node.gcStale();

            assertThat(report).filteredOn(l -> l.startsWith("removed ")).hasSize(4)
                    .anyMatch(l -> l.startsWith("removed boot-br b-libcni/eth0 netns -: sandbox "))
                    .anyMatch(l -> l.startsWith("removed boot-br b-jcni/eth0 netns "))
                    .anyMatch(l -> l.startsWith("removed boot-pp p-jcni/eth0 netns "))
                    .anyMatch(l -> l.startsWith("removed boot-fail f-jcni/eth0 (unfinished ADD)"));
            assertThat(report).noneMatch(l -> l.startsWith("kept ") || l.startsWith("failed "));
            if (jcni) {
                assertThat(report).anyMatch(l -> l.startsWith("gc boot-br: collected, "));
            }
            assertThat(node.cacheEntries()).isEmpty();
            assertThat(node.journals()).isEmpty();
            for (String network : List.of("boot-br", "boot-pp", "boot-fail")) {
                assertThat(node.reservations(network)).as(network).isEmpty();
            }
            if (jcni) {
                assertThat(GcStaleMixTest.tuningFiles(node)).isEmpty();
            } else {
                // Go's tuning keeps the backup it cannot restore without the namespace, as its own DEL does.
                assertThat(GcStaleMixTest.tuningFiles(node)).hasSize(2);
            }
            // (Go's portmap runs iptables, which makes the nat tables it looks into, empty.)
            assertThat(fresh.addedIn(NodeState.read(node.host))).as("what gc --stale made on the fresh node")
                    .allMatch(l -> !jcni && (l.equals("nft table ip nat") || l.equals("nft table ip6 nat")));

            List<String> again = node.gcStale();
            assertThat(again).noneMatch(l -> l.startsWith("removed ") || l.startsWith("kept "));
        }
    }

    static NetworkConfigList network(StaleNode node, String name, String version, String plugins) throws Exception {
        String conflist = "{" + version + ",\"name\":\"" + name + "\",\"plugins\":[" + plugins + "]}";
        node.network(name, conflist);
        return CniJson.decodeNetworkConfigList(conflist.getBytes(StandardCharsets.UTF_8));
    }

}
