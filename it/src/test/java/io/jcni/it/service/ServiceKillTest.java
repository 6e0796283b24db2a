package io.jcni.it.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin service killed with SIGKILL while 50 bridge + host-local ADDs run through it in parallel, as a runtime's
 * plugins exec'd at once: every attachment is then either complete or removed by a DEL (through a restarted
 * service), no address stays reserved without its container, and no client ever printed part of a result: a call the
 * service had accepted ends with error 11, a call it had not yet accepted runs in the client's JVM launcher instead.
 */
class ServiceKillTest {
    static final int CONTAINERS = 50;
    static final String NETWORK = "svckill";

    @TempDir
    Path tmp;

    @Test
    void aServiceKilledDuringFiftyParallelAddsLeavesEveryAttachmentCompleteOrRemovableByDel() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("bridge", "host-local");
        Path socket = tmp.resolve("svc/plugins.sock");
        Path dataDir = tmp.resolve("ipam");
        try (TestHost host = TestHost.create("svkl")) {
            String bridge = Names.link("svkl");
            String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"bridge\",\"bridge\":\""
                    + bridge + "\",\"isGateway\":true,\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"" + dataDir
                    + "\",\"ranges\":[[{\"subnet\":\"10.233.0.0/24\"}]]}}";
            List<TestNetns> containers = new ArrayList<>();
            for (int i = 0; i < CONTAINERS; i++) {
                containers.add(host.container());
            }
            // Four calls at a time: the kill then finds some running, some waiting, and some not yet connected.
            PluginServiceProcess service = PluginServiceProcess.start(socket, List.of("--max-calls", "4"), Map.of());
            CniExec bridgeExec = CniExec.of(Locations.distPlugin("bridge"), List.of(Locations.distCniBin()))
                    .inNetns(host.name()).withEnv("JCNI_SERVICE_SOCKET", socket.toString());
            List<Future<CniExec.Outcome>> adds = new ArrayList<>();
            ExecutorService runtime = Executors.newFixedThreadPool(CONTAINERS);
            try {
                for (int i = 0; i < CONTAINERS; i++) {
                    TestNetns netns = containers.get(i);
                    String id = "kill-" + i;
                    adds.add(runtime.submit(() -> bridgeExec.add(conf, netns.path(), id, "eth0")));
                }
                awaitReservations(dataDir.resolve(NETWORK), 8);
                service.kill();
                assertThat(service.isAlive()).isFalse();

                Map<String, JsonNode> completed = new HashMap<>();
                List<String> cut = new ArrayList<>();
                for (int i = 0; i < CONTAINERS; i++) {
                    CniExec.Outcome outcome = adds.get(i).get(10, TimeUnit.MINUTES);
                    String id = "kill-" + i;
                    if (outcome.succeeded()) {
                        completed.put(id, outcome.result());
                    } else {
                        JsonNode error = Json.parse(outcome.process().stdout());
                        assertThat(error.path("code").asInt()).as("a call cut off by the kill: %s",
                                outcome.process().describe()).isEqualTo(11);
                        cut.add(id);
                    }
                }
                assertThat(cut).as("calls the kill cut off (the service ran 4 at a time)").isNotEmpty();

                // The runtime DELs what failed, through a service started again on the same socket.
                try (PluginServiceProcess again = PluginServiceProcess.start(socket, List.of(), Map.of())) {
                    for (String id : cut) {
                        TestNetns netns = containers.get(Integer.parseInt(id.substring("kill-".length())));
                        CniExec.Outcome del = bridgeExec.del(conf, netns.path(), id, "eth0");
                        assertThat(del.succeeded()).as("DEL after the kill: %s", del.process().describe()).isTrue();
                        assertThat(netns.kernel().link("eth0")).as("%s has no eth0 after its DEL", id).isEmpty();
                    }
                    assertThat(again.log()).contains("listening on " + socket);
                }

                // Every ADD that succeeded is complete: its address on eth0 in its container, and reserved for it.
                Set<String> expected = new TreeSet<>();
                for (Map.Entry<String, JsonNode> e : completed.entrySet()) {
                    String cidr = e.getValue().path("ips").get(0).path("address").asText();
                    String ip = cidr.substring(0, cidr.indexOf('/'));
                    TestNetns netns = containers.get(Integer.parseInt(e.getKey().substring("kill-".length())));
                    assertThat(netns.kernel().addresses("eth0")).extracting(IpAddress::cidr).contains(cidr);
                    assertThat(Files.readString(dataDir.resolve(NETWORK).resolve(ip))).isEqualTo(e.getKey() + "\r\neth0");
                    expected.add(ip);
                }
                assertThat(reservations(dataDir.resolve(NETWORK))).as("no address reserved without its container")
                        .isEqualTo(expected);
                assertThat(host.kernel().links()).filteredOn(l -> bridge.equals(l.master()))
                        .as("one veth on the bridge per completed attachment").hasSize(completed.size());
            } finally {
                runtime.shutdownNow();
                service.kill();
            }
        }
    }

    private static void awaitReservations(Path dir, int n) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while ((!Files.isDirectory(dir) || reservations(dir).size() < n) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    /** The reserved addresses: host-local's files named for an address. */
    private static Set<String> reservations(Path dir) throws Exception {
        Set<String> found = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.matches("[0-9.]+")) {
                    found.add(name);
                }
            }
        }
        return found;
    }
}
