package io.jcni.it.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: the service's own warm-up ({@code jcni serve --warm-up N}) and the nf_tables sockets it keeps for the
 * calls of its namespace. The service runs inside a test node, as on a node whose runtime shares its namespace (so its
 * calls take the kept sockets), and pods are added and deleted through Go libcni while its warm-up runs: every call
 * succeeds, the service logs exactly the clients' calls (the warm-up's are not clients'), the warm-up finishes its
 * rounds, its directory is gone afterwards, and nothing of it is left in the node (its calls ran in namespaces of its
 * own: no link, address or nftables table of it in the node; the suite's guard checks the machine).
 */
class ServiceWarmUpTest {
    static final int PODS = 4;
    static final int ROUNDS = 20;
    static final String NETWORK = "jcni-warm-test";
    private static final Pattern SERVICE_CALL = Pattern.compile("^jcni serve: (ADD|DEL) ([\\w-]+) for .*: status (\\d+)",
            Pattern.MULTILINE);

    @TempDir
    Path tmp;

    @Test
    void podsAddedDuringTheWarmUpSucceedAndTheWarmUpLeavesNothing() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("nft");
        Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap", "firewall", "tuning");
        try (TestHost node = TestHost.create("warm")) {
            Path socket = tmp.resolve("svc/plugins.sock");
            List<String> serve = node.command(List.of(Locations.distJcni().toString(), "serve", "--socket",
                    socket.toString(), "--warm-up", Integer.toString(ROUNDS)));
            try (PluginServiceProcess service = PluginServiceProcess.start(serve, socket, Map.of("JCNI_DEBUG", "1"))) {
                Path conf = Files.writeString(tmp.resolve("pods.conflist"),
                        Conflists.podChain(NETWORK, Names.link("warm"), "10.228.0.0/24", tmp));
                LibcniDriver driver = node.libcni(List.of(Locations.distCniBin()), tmp.resolve("cache"))
                        .withEnv(service.clientEnv());
                List<TestNetns> pods = new ArrayList<>();
                List<Attachment> attachments = new ArrayList<>();
                for (int i = 0; i < PODS; i++) {
                    pods.add(node.container());
                    attachments.add(Attachment.of("jcni-warm-" + i, "eth0").withCapabilityArgs(
                            "{\"portMappings\":[{\"hostPort\":" + (31000 + i)
                                    + ",\"containerPort\":8080,\"protocol\":\"tcp\"}]}"));
                }
                for (int round = 0; round < 2; round++) {
                    for (int i = 0; i < PODS; i++) {
                        DriverOutcome add = driver.add(conf, pods.get(i).path(), attachments.get(i));
                        assertThat(add.succeeded()).as("ADD of pod " + i + ": " + add.process().describe()).isTrue();
                    }
                    for (int i = 0; i < PODS; i++) {
                        DriverOutcome del = driver.del(conf, pods.get(i).path(), attachments.get(i));
                        assertThat(del.succeeded()).as("DEL of pod " + i + ": " + del.process().describe()).isTrue();
                    }
                }

                long deadline = System.nanoTime() + 180_000_000_000L;
                while (!service.log().contains("jcni serve: warm-up done") && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertThat(service.log()).as("the warm-up ran all its rounds")
                        .contains("jcni serve: warm-up done (" + ROUNDS + " rounds)");
                assertThat(warmUpDirectories(service.pid())).as("the warm-up's directory, removed").isEmpty();

                Map<String, Integer> calls = new HashMap<>();
                Matcher m = SERVICE_CALL.matcher(service.log());
                while (m.find()) {
                    assertThat(m.group(3)).as("status of " + m.group()).isEqualTo("0");
                    calls.merge(m.group(1) + " " + m.group(2), 1, Integer::sum);
                }
                Map<String, Integer> expected = new HashMap<>();
                for (String command : List.of("ADD", "DEL")) {
                    for (String type : List.of("bridge", "portmap", "firewall", "tuning")) {
                        expected.put(command + " " + type, 2 * PODS);
                    }
                }
                assertThat(calls).as("the calls the service logged: the clients', not the warm-up's")
                        .isEqualTo(expected);
                assertThat(node.exec("ip", "-o", "link", "show").requireSuccess().stdout())
                        .as("no link of the warm-up in the node").doesNotContain("jcni-warm0").doesNotContain("jcni-warm1");
                assertThat(node.exec("nft", "list", "ruleset").requireSuccess().stdout())
                        .as("no rule of a pod or of the warm-up in the node").doesNotContain("jcni-warm-")
                        .doesNotContain("10.228.0.").doesNotContain("10.250.");
            }
        }
    }

    /** The warm-up directories of the service with pid {@code pid} under /tmp (java.io.tmpdir). */
    private static List<Path> warmUpDirectories(long pid) throws IOException {
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/tmp"), "jcni-warm-up-" + pid + "-*")) {
            for (Path d : dirs) {
                found.add(d);
            }
        }
        return found;
    }
}
