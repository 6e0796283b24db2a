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
import io.jcni.it.support.Traffic;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: a hundred pods started at once through the plugin service, as after a node's reboot or a rollout. One Go
 * libcni process per pod (libcni-driver, as containerd runs go-cni per sandbox), all started together, each adding a
 * namespace of its own to bridge (ipMasq, hairpin, host-local) → portmap (a hostPort of its own) → firewall → tuning,
 * with jcni's plugin clients asking a {@code jcni serve} of the dist; then all their DELs at once. Behaviour only (how
 * long it takes is compare.sh's burst suite): every ADD succeeds, the addresses are all different, each pod's hostPort
 * reaches that pod from a client outside the node, every call ran in the service (none fell back to a JVM launcher);
 * after the DELs nothing of any pod is left: no veth, no address reservation, no nftables rule naming it.
 */
class PodBurstTest {
    static final int PODS = 100;
    static final int FIRST_PORT = 32000;
    static final String NETWORK = "jcni-burst";
    static final InetAddress NODE = InetAddress.ofLiteral("172.31.251.1");
    static final InetAddress CLIENT = InetAddress.ofLiteral("172.31.251.2");
    private static final Pattern SERVICE_CALL = Pattern.compile("^jcni serve: (ADD|DEL) ([\\w-]+) for .*: status (\\d+)",
            Pattern.MULTILINE);

    @TempDir
    Path tmp;

    @Test
    void aHundredPodsAddedAtOnceThroughTheServiceGetAddressesOfTheirOwnReachablePortsAndLeaveNothing()
            throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("nft");
        Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap", "firewall", "tuning");
        try (TestHost host = TestHost.create("burst");
                PluginServiceProcess service = PluginServiceProcess.start(tmp.resolve("svc/plugins.sock"), List.of(),
                        Map.of("JCNI_DEBUG", "1"))) {
            TestNetns client = outsideClient(host);
            String bridge = Names.link("burst");
            Path conf = Files.writeString(tmp.resolve("burst.conflist"),
                    Conflists.podChain(NETWORK, bridge, "10.229.0.0/24", tmp));
            LibcniDriver driver = host.libcni(List.of(Locations.distCniBin()), tmp.resolve("cache"))
                    .withEnv(service.clientEnv());
            List<TestNetns> pods = new ArrayList<>();
            List<Attachment> attachments = new ArrayList<>();
            for (int i = 0; i < PODS; i++) {
                pods.add(host.container());
                attachments.add(Attachment.of("jcni-burst-" + i, "eth0").withCapabilityArgs(
                        "{\"portMappings\":[{\"hostPort\":" + (FIRST_PORT + i)
                                + ",\"containerPort\":8080,\"protocol\":\"tcp\"}]}"));
            }

            List<DriverOutcome> added = all(i -> driver.add(conf, pods.get(i).path(), attachments.get(i)));
            Map<String, Integer> owners = new HashMap<>();
            for (int i = 0; i < PODS; i++) {
                DriverOutcome add = added.get(i);
                assertThat(add.succeeded()).as("ADD of pod " + i + ": " + add.process().describe()).isTrue();
                String address = add.answer().path("ips").get(0).path("address").asText();
                Integer other = owners.put(address, i);
                assertThat(other).as("pods " + other + " and " + i + " both got " + address).isNull();
            }
            assertThat(owners).hasSize(PODS);
            for (int i = 0; i < PODS; i++) {
                Traffic.Seen seen = Traffic.tcp(client, pods.get(i), NODE, FIRST_PORT + i, 8080);
                assertThat(seen.reached()).as("hostPort " + (FIRST_PORT + i) + " reaches pod " + i).isTrue();
            }

            List<DriverOutcome> deleted = all(i -> driver.del(conf, pods.get(i).path(), attachments.get(i)));
            for (int i = 0; i < PODS; i++) {
                assertThat(deleted.get(i).succeeded()).as("DEL of pod " + i + ": "
                        + deleted.get(i).process().describe()).isTrue();
            }
            assertThat(host.exec("ip", "-o", "link", "show", "type", "veth").requireSuccess().stdout().lines()
                    .filter(l -> !l.contains(" up0@"))).as("veths left in the node").isEmpty();
            try (Stream<Path> files = Files.list(tmp.resolve("ipam").resolve(NETWORK))) {
                assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("10.")))
                        .as("address reservations left").isEmpty();
            }
            String ruleset = host.exec("nft", "list", "ruleset").requireSuccess().stdout();
            assertThat(ruleset).as("nftables rules naming a pod or its address").doesNotContain("id: jcni-burst-")
                    .doesNotContain("10.229.0.");

            Map<String, Integer> calls = new HashMap<>();
            Matcher m = SERVICE_CALL.matcher(service.log());
            while (m.find()) {
                assertThat(m.group(3)).as("status of " + m.group()).isEqualTo("0");
                calls.merge(m.group(1) + " " + m.group(2), 1, Integer::sum);
            }
            Map<String, Integer> expected = new HashMap<>();
            for (String command : List.of("ADD", "DEL")) {
                for (String type : List.of("bridge", "portmap", "firewall", "tuning")) {
                    expected.put(command + " " + type, PODS);
                }
            }
            assertThat(calls).as("the calls the service ran (host-local runs inside bridge)").isEqualTo(expected);
            assertThat(service.isAlive()).isTrue();
        }
    }

    /** A namespace outside the node, linked to it by a veth (node 172.31.251.1, client .2): a client of hostPorts. */
    private static TestNetns outsideClient(TestHost host) {
        return host.linkedClient(NODE.getHostAddress() + "/24", CLIENT.getHostAddress() + "/24");
    }

    /** One call per pod, all started at once (a thread each, as many runtime workers would), in pod order. */
    private static List<DriverOutcome> all(PodCall call) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(PODS);
        try {
            List<Future<DriverOutcome>> futures = new ArrayList<>();
            for (int i = 0; i < PODS; i++) {
                int pod = i;
                futures.add(threads.submit((Callable<DriverOutcome>) () -> call.run(pod)));
            }
            List<DriverOutcome> outcomes = new ArrayList<>();
            for (Future<DriverOutcome> f : futures) {
                outcomes.add(f.get(10, TimeUnit.MINUTES));
            }
            return outcomes;
        } finally {
            threads.shutdownNow();
        }
    }

    @FunctionalInterface
    private interface PodCall {
        DriverOutcome run(int pod) throws Exception;
    }
}
