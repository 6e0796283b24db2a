package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jcni.runtime.Capabilities.Bandwidth;
import io.jcni.runtime.Capabilities.Dns;
import io.jcni.runtime.Capabilities.IpRange;
import io.jcni.runtime.Capabilities.PortMapping;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link SandboxNetworks}, go-cni's counterpart, with scripted plugins (real processes, pipes and exit statuses): which
 * networks a directory yields and how they are numbered, what each plugin gets, the result by interface, parallel and
 * serial setup, the rollback of a failed setup, remove past failures, and time limits as code 11.
 */
class SandboxNetworksTest {
    /** A bridge-like result: the bridge and the veth's host end on the node, eth0 in the sandbox with its address. */
    static final String BRIDGE_RESULT = """
            {"cniVersion":"1.0.0","interfaces":[{"name":"cni0","mac":"02:00:00:00:00:01"},\
            {"name":"veth1","mac":"02:00:00:00:00:02"},{"name":"eth0","mac":"02:00:00:00:00:03",\
            "sandbox":"/var/run/netns/pod"}],"ips":[{"address":"10.1.0.5/24","gateway":"10.1.0.1","interface":2}],\
            "routes":[{"dst":"0.0.0.0/0"}],"dns":{"nameservers":["10.1.0.53"]}}""";
    /** An IPAM-only result: an address without interface index. */
    static final String IPAM_RESULT = """
            {"cniVersion":"1.0.0","ips":[{"address":"10.2.0.7/16","gateway":"10.2.0.1"}],\
            "routes":[{"dst":"10.99.0.0/16","gw":"10.2.0.1"}]}""";

    @TempDir
    Path tmp;

    Path bin;
    Path confDir;
    Path cacheDir;
    FakePlugin a;
    FakePlugin b;
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    CniRuntime runtime;
    final Sandbox sandbox = Sandbox.of("pod-1", "/var/run/netns/pod");

    @BeforeEach
    void plugins() throws IOException {
        bin = Files.createDirectory(tmp.resolve("bin"));
        confDir = Files.createDirectory(tmp.resolve("net.d"));
        cacheDir = tmp.resolve("cache");
        a = FakePlugin.create(bin, "a").answer("ADD", BRIDGE_RESULT);
        b = FakePlugin.create(bin, "b").answer("ADD", IPAM_RESULT);
        runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir).withStderr(stderr));
    }

    @AfterEach
    void close() {
        runtime.close();
    }

    private Path conflist(String file, String name, String version, String plugins) throws IOException {
        return Files.writeString(confDir.resolve(file), "{\"cniVersion\":\"" + version + "\",\"name\":\"" + name
                + "\",\"plugins\":[" + plugins + "]}");
    }

    private static NetworkConfigList list(String name, String plugins) {
        return CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"" + name
                + "\",\"plugins\":[" + plugins + "]}").getBytes(StandardCharsets.UTF_8));
    }

    private List<String> cacheEntries() throws IOException {
        Path results = cacheDir.resolve("results");
        if (!Files.isDirectory(results)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(results)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    // ------------------------------------------------------------------------------------------ loading

    @Test
    void aDirectoryGivesOneNetworkPerFileInFileNameOrderNumberedFromEth0WithLoopbackFirst() throws Exception {
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"a\"}");
        Files.writeString(confDir.resolve("10-red.conf"), "{\"cniVersion\":\"1.0.0\",\"name\":\"red\",\"type\":\"a\"}");
        Files.writeString(confDir.resolve("30-green.json"),
                "{\"cniVersion\":\"1.0.0\",\"name\":\"green\",\"type\":\"b\"}");
        Files.writeString(confDir.resolve("README.txt"), "not a network");
        Files.createDirectory(confDir.resolve("40-dir.conflist"));

        SandboxNetworks all = SandboxNetworks.load(runtime, confDir,
                SandboxNetworks.Config.DEFAULTS.withLoopback(true));
        SandboxNetworks two = SandboxNetworks.load(runtime, confDir,
                SandboxNetworks.Config.DEFAULTS.withMaxNetworks(2).withInterfacePrefix("net"));

        assertThat(all.networks()).extracting(n -> n.name() + "@" + n.ifName())
                .containsExactly("cni-loopback@lo", "red@eth0", "blue@eth1", "green@eth2");
        assertThat(all.networks().get(1).file()).isEqualTo(confDir.resolve("10-red.conf"));
        assertThat(all.networks().getFirst().list().plugins()).extracting(p -> p.type()).containsExactly("loopback");
        assertThat(two.networks()).extracting(n -> n.name() + "@" + n.ifName())
                .containsExactly("red@net0", "blue@net1");
    }

    @Test
    void aFileThatCannotBeLoadedFailsTheLoadNamingItAndAnEmptyDirectoryIsCode7() throws Exception {
        CniRuntimeException empty = catchThrowableOfType(CniRuntimeException.class,
                () -> SandboxNetworks.load(runtime, confDir));
        assertThat(empty.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(empty).hasMessage("no network config found in " + confDir);
        assertThat(catchThrowableOfType(CniRuntimeException.class,
                () -> SandboxNetworks.load(runtime, tmp.resolve("missing"))).code()).isEqualTo(7);

        conflist("10-good.conflist", "good", "1.0.0", "{\"type\":\"a\"}");
        Files.writeString(confDir.resolve("20-bad.conflist"), "{\"cniVersion\":");
        CniRuntimeException bad = catchThrowableOfType(CniRuntimeException.class,
                () -> SandboxNetworks.load(runtime, confDir));
        assertThat(bad.code()).isEqualTo(CniError.DECODING_FAILURE);
        assertThat(bad).hasMessageContaining(confDir.resolve("20-bad.conflist").toString());
    }

    @Test
    void anInterfacePrefixThatMakesNoInterfaceNameIsRefused() {
        assertThatThrownBy(() -> SandboxNetworks.Config.DEFAULTS.withInterfacePrefix("a/b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a/b");
        assertThatThrownBy(() -> SandboxNetworks.Config.DEFAULTS.withInterfacePrefix("sixteen-bytes-xx"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("too long");
    }

    // ------------------------------------------------------------------------------------------ what plugins get

    @Test
    void everyNetworkGetsTheSandboxWithItsOwnInterfaceTheLabelsAndTheCapabilitiesInConventionsKeys()
            throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", """
                {"type":"a","capabilities":{"portMappings":true,"bandwidth":true,"ipRanges":true,"dns":true,\
                "ips":true,"mac":true,"cgroupPath":true,"aliases":true}}""");
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"b\",\"capabilities\":{\"bandwidth\":true}}");
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("IgnoreUnknown", "1");
        labels.put("K8S_POD_NAMESPACE", "default");
        labels.put("K8S_POD_NAME", "web");
        Sandbox pod = sandbox.withLabels(labels)
                .withArg("K8S_POD_NAME", "web-2")
                .withPortMappings(List.of(new PortMapping(8080, 80, "TCP"),
                        new PortMapping(5353, 53, "udp", IpText.parseAddress("192.0.2.1", "hostIP"))))
                .withBandwidth(new Bandwidth(1_000_000, 2_000_000, 3_000_000, 4_000_000))
                .withIpRanges(List.of(List.of(IpRange.of("10.22.0.0/16")), List.of(new IpRange(
                        IpPrefix.parse("2001:db8::/64", "subnet"), IpText.parseAddress("2001:db8::10", "start"),
                        IpText.parseAddress("2001:db8::20", "end"), IpText.parseAddress("2001:db8::1", "gw")))))
                .withDns(new Dns(List.of("10.0.0.53"), List.of("svc.cluster.local"), List.of("ndots:5")))
                .withIps(List.of(IpPrefix.parse("10.22.0.9/16", "ips")))
                .withMac("c2:11:22:33:44:55")
                .withCgroupPath("/kubepods/pod-1")
                .withCapability("aliases", Json.array(Json.of("web")));

        SandboxNetworks.load(runtime, confDir).setup(pod);

        FakePlugin.Call red = a.calls().getFirst();
        FakePlugin.Call blue = b.calls().getFirst();
        assertThat(red.ifName()).isEqualTo("eth0");
        assertThat(blue.ifName()).isEqualTo("eth1");
        assertThat(List.of(red, blue)).allSatisfy(call -> {
            assertThat(call.command()).isEqualTo("ADD");
            assertThat(call.containerId()).isEqualTo("pod-1");
            assertThat(call.netns()).isEqualTo("/var/run/netns/pod");
            assertThat(call.args()).isEqualTo("IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-2");
        });
        // CONVENTIONS.md's keys, as the spec's examples and the reference plugins' JSON tags spell them.
        assertThat(((JsonObject) Json.parse(red.stdin())).get("runtimeConfig").orElseThrow().toString())
                .isEqualTo("""
                        {"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"},\
                        {"hostPort":5353,"containerPort":53,"protocol":"udp","hostIP":"192.0.2.1"}],\
                        "bandwidth":{"ingressRate":1000000,"ingressBurst":2000000,"egressRate":3000000,\
                        "egressBurst":4000000},"ipRanges":[[{"subnet":"10.22.0.0/16"}],[{"subnet":"2001:db8::/64",\
                        "rangeStart":"2001:db8::10","rangeEnd":"2001:db8::20","gateway":"2001:db8::1"}]],\
                        "dns":{"servers":["10.0.0.53"],"searches":["svc.cluster.local"],"options":["ndots:5"]},\
                        "ips":["10.22.0.9/16"],"mac":"c2:11:22:33:44:55","cgroupPath":"/kubepods/pod-1",\
                        "aliases":["web"]}""");
        assertThat(((JsonObject) Json.parse(blue.stdin())).get("runtimeConfig").orElseThrow().toString())
                .isEqualTo("{\"bandwidth\":{\"ingressRate\":1000000,\"ingressBurst\":2000000,"
                        + "\"egressRate\":3000000,\"egressBurst\":4000000}}");
        assertThat(cacheEntries()).containsExactly("blue-pod-1-eth1", "red-pod-1-eth0");
    }

    @Test
    void capabilityValuesAreCheckedWhenTheyAreMade() {
        assertThatThrownBy(() -> new PortMapping(0, 80, "tcp")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PortMapping(8080, 65536, "tcp")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PortMapping(8080, 80, "icmp")).hasMessageContaining("tcp, udp or sctp");
        assertThatThrownBy(() -> new Bandwidth(-1, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sandbox.withMac("c2:11:22")).hasMessageContaining("not a hardware address");
        assertThatThrownBy(() -> sandbox.withIpRanges(List.of(List.of())))
                .hasMessageContaining("at least one range");
        assertThat(catchThrowableOfType(io.jcni.spec.CniException.class,
                () -> sandbox.withLabels(Map.of("K8S;X", "y"))).code()).isEqualTo(4);
        assertThat(Capabilities.NONE.toJson()).isEqualTo(JsonObject.EMPTY);
    }

    // ------------------------------------------------------------------------------------------ the result

    @Test
    void theResultIsByInterfaceWithEachNetworksAddressesOnItsOwnInterface() throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "0.4.0", "{\"type\":\"b\"}");

        SandboxResult result = SandboxNetworks.load(runtime, confDir).setup(sandbox);

        assertThat(result.interfaces().keySet()).containsExactly("eth0", "eth1", "cni0", "veth1");
        SandboxResult.InterfaceConfig eth0 = result.interfaces().get("eth0");
        assertThat(eth0.mac()).isEqualTo("02:00:00:00:00:03");
        assertThat(eth0.sandbox()).isEqualTo("/var/run/netns/pod");
        assertThat(eth0.ips()).extracting(ip -> ip.address().toString() + " via " + IpText.format(ip.gateway()))
                .containsExactly("10.1.0.5/24 via 10.1.0.1");
        assertThat(eth0.ips().getFirst().interfaceIndex()).isNull();
        // go-cni would put an address without an interface index on eth0; it belongs to the second network's eth1.
        assertThat(result.interfaces().get("eth1").ips()).extracting(ip -> ip.address().toString())
                .containsExactly("10.2.0.7/16");
        assertThat(result.interfaces().get("eth1").mac()).isEmpty();
        assertThat(result.interfaces().get("cni0").sandbox()).isEmpty();
        assertThat(result.interfaces().get("cni0").ips()).isEmpty();
        assertThat(result.dns()).hasSize(2);
        assertThat(result.dns().get(0).nameservers()).containsExactly("10.1.0.53");
        assertThat(result.dns().get(1).isEmpty()).isTrue();
        assertThat(result.routes()).extracting(r -> r.dst().toString()).containsExactly("0.0.0.0/0", "10.99.0.0/16");
        assertThat(result.networks()).extracting(n -> n.name() + "@" + n.ifName() + " " + n.result().cniVersion())
                .containsExactly("red@eth0 1.1.0", "blue@eth1 1.1.0");
    }

    // ------------------------------------------------------------------------------------------ parallel, serial

    @Test
    void setupAddsTheNetworksInParallelAndSetupSeriallyOneAfterTheOther() throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"b\"}");
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir);
        a.gate("ADD");
        b.gate("ADD");
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<SandboxResult> parallel = caller.submit(() -> networks.setup(sandbox));
            // Both ADDs started while both are held at their gates: they run at the same time.
            awaitCalls(a, 1);
            awaitCalls(b, 1);
            a.openGate();
            b.openGate();
            assertThat(parallel.get().interfaces()).containsKeys("eth0", "eth1");
            networks.remove(sandbox);

            Files.delete(bin.resolve("a.open"));
            Files.delete(bin.resolve("b.open"));
            Sandbox second = Sandbox.of("pod-2", "/var/run/netns/pod2");
            Future<SandboxResult> serial = caller.submit(() -> networks.setupSerially(second));
            awaitCalls(a, 3); // ADD, DEL of pod-1, ADD of pod-2
            Thread.sleep(300);
            assertThat(b.calls()).as("blue waits for red").hasSize(2);
            a.openGate();
            awaitCalls(b, 3);
            b.openGate();
            assertThat(serial.get().interfaces()).containsKeys("eth0", "eth1");
        } finally {
            a.openGate();
            b.openGate();
            caller.shutdownNow();
        }
    }

    private static void awaitCalls(FakePlugin plugin, int count) throws InterruptedException {
        for (int i = 0; i < 1000 && plugin.calls().size() < count; i++) {
            Thread.sleep(10);
        }
        assertThat(plugin.calls()).as(plugin.type() + "'s calls").hasSize(count);
    }

    // ------------------------------------------------------------------------------------------ rollback

    @Test
    void aFailedSetupRemovesTheNetworksItAddedAndNotTheOneThatFailed() throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"b\"}");
        b.fail("ADD", "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"bad blue\",\"details\":\"d\"}", 1);
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir);

        for (boolean parallel : List.of(true, false)) {
            CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                    () -> {
                        if (parallel) {
                            networks.setup(sandbox);
                        } else {
                            networks.setupSerially(sandbox);
                        }
                    });

            assertThat(e.code()).isEqualTo(7);
            assertThat(e.error().msg()).isEqualTo("bad blue");
            assertThat(e.pluginType()).isEqualTo("b");
            assertThat(e).hasMessageStartingWith("setup of sandbox pod-1: network \"blue\" (eth1): plugin "
                    + "type=\"b\" failed (add): bad blue");
            assertThat(e.getSuppressed()).isEmpty();
        }
        // Each attempt: red added and deleted; blue failed and got no DEL (it would delete what it did not make).
        assertThat(a.commands()).containsExactly("ADD", "DEL", "ADD", "DEL");
        assertThat(b.commands()).containsExactly("ADD", "ADD");
        assertThat(cacheEntries()).isEmpty();
    }

    @Test
    void aSerialSetupStopsAtTheFirstFailure() throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"b\"}");
        a.fail("ADD", "{\"cniVersion\":\"1.0.0\",\"code\":11,\"msg\":\"busy\"}", 1);

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> SandboxNetworks.load(runtime, confDir).setupSerially(sandbox));

        assertThat(e.code()).isEqualTo(11);
        assertThat(b.calls()).isEmpty();
        assertThat(a.commands()).containsExactly("ADD");
    }

    @Test
    void aSecondSetupOfTheSameSandboxIsRefusedWithCode4AndTouchesNothing() throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"b\"}");
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir);
        networks.setup(sandbox);

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class, () -> networks.setup(sandbox));

        assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(e).hasMessageStartingWith("setup of sandbox pod-1: network \"red\" (eth0)");
        assertThat(e.getSuppressed()).hasSize(1);
        assertThat(a.commands()).containsExactly("ADD");
        assertThat(b.commands()).containsExactly("ADD");
        assertThat(cacheEntries()).containsExactly("blue-pod-1-eth1", "red-pod-1-eth0");
    }

    // ------------------------------------------------------------------------------------------ remove, check, gc

    @Test
    void removeDeletesInReverseOrderAndGoesOnPastAFailure() throws Exception {
        SandboxNetworks networks = SandboxNetworks.of(runtime, List.of(list("n0", "{\"type\":\"a\"}"),
                list("n1", "{\"type\":\"b\"}"), list("n2", "{\"type\":\"a\"}")), SandboxNetworks.Config.DEFAULTS);
        networks.setupSerially(sandbox);
        b.fail("DEL", "{\"cniVersion\":\"1.0.0\",\"code\":5,\"msg\":\"disk\"}", 1);

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class, () -> networks.remove(sandbox));

        assertThat(e.code()).isEqualTo(5);
        assertThat(e).hasMessageStartingWith("remove of sandbox pod-1: network \"n1\" (eth1)");
        assertThat(a.calls()).extracting(c -> c.command() + " " + c.ifName())
                .containsExactly("ADD eth0", "ADD eth2", "DEL eth2", "DEL eth0");
        assertThat(cacheEntries()).containsExactly("n1-pod-1-eth1");

        b.answer("DEL", "");
        networks.remove(sandbox);
        assertThat(cacheEntries()).isEmpty();
        networks.remove(sandbox.withCapabilities(Capabilities.NONE));
    }

    @Test
    void checkRunsEveryNetworkInOrderAndStopsAtTheFirstFailure() throws Exception {
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "1.0.0", "{\"type\":\"b\"}");
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir);
        networks.setup(sandbox);
        networks.check(sandbox);
        assertThat(a.commands()).containsExactly("ADD", "CHECK");
        assertThat(b.commands()).containsExactly("ADD", "CHECK");

        a.fail("CHECK", "{\"cniVersion\":\"1.0.0\",\"code\":100,\"msg\":\"eth0 gone\"}", 1);
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class, () -> networks.check(sandbox));
        assertThat(e.code()).isEqualTo(100);
        assertThat(e).hasMessageStartingWith("check of sandbox pod-1: network \"red\" (eth0)");
        assertThat(b.commands()).containsExactly("ADD", "CHECK");
    }

    @Test
    void gcKeepsTheListedSandboxesOnEveryNetworkWithItsInterface() throws Exception {
        conflist("10-red.conflist", "red", "1.1.0", "{\"type\":\"a\"}");
        conflist("20-blue.conflist", "blue", "1.1.0", "{\"type\":\"b\"}");
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir);
        networks.setup(sandbox);
        networks.setup(Sandbox.of("pod-2", "/var/run/netns/pod2"));

        networks.gc(List.of("pod-2"));

        assertThat(cacheEntries()).containsExactly("blue-pod-2-eth1", "red-pod-2-eth0");
        JsonObject gc = (JsonObject) Json.parse(b.calls().getLast().stdin());
        assertThat(b.calls().getLast().command()).isEqualTo("GC");
        assertThat(gc.get("cni.dev/valid-attachments").orElseThrow().toString())
                .isEqualTo("[{\"containerID\":\"pod-2\",\"ifname\":\"eth1\"}]");
        networks.status();
        assertThat(a.commands()).endsWith("GC", "STATUS");
    }

    // ------------------------------------------------------------------------------------------ time limits

    /** A plugin whose ADD never ends (until killed); its other commands succeed. */
    private void hangingPlugin(String name) throws IOException {
        ScriptPlugins.write(bin, name, """
                cat > /dev/null
                echo "$CNI_COMMAND $CNI_IFNAME" >> '%1$s/%2$s.log'
                if [ "$CNI_COMMAND" = ADD ]; then sleep 300 & wait; fi
                exit 0""".formatted(bin, name));
    }

    @Test
    void aSetupThatRunsOutOfTimeFailsWithCode11AndLeavesNothing() throws Exception {
        hangingPlugin("hang");
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-slow.conflist", "slow", "1.0.0", "{\"type\":\"hang\"}");
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir).withTimeout(Duration.ofMillis(800));

        long start = System.nanoTime();
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class, () -> networks.setup(sandbox));
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertThat(e.code()).isEqualTo(CniError.TRY_AGAIN_LATER);
        assertThat(e.timedOut()).isTrue();
        assertThat(e.error().msg()).isEqualTo("setup of sandbox pod-1: network \"slow\" (eth1) ran out of time "
                + "(its time limit of 800 ms); try again later");
        assertThat(e.getCause()).isInstanceOf(CniRuntimeException.class);
        assertThat(((CniRuntimeException) e.getCause()).code()).as("the runtime's own failure, libcni's code")
                .isEqualTo(CniError.UNKNOWN);
        assertThat(millis).isBetween(700L, 20_000L);
        assertThat(Files.readAllLines(bin.resolve("hang.log"))).containsExactly("ADD eth1", "DEL eth1");
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(cacheEntries()).isEmpty();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void interruptingASetupCancelsItRollsItBackAndKeepsTheInterrupt() throws Exception {
        hangingPlugin("hang");
        conflist("10-red.conflist", "red", "1.0.0", "{\"type\":\"a\"}");
        conflist("20-slow.conflist", "slow", "1.0.0", "{\"type\":\"hang\"}");
        SandboxNetworks networks = SandboxNetworks.load(runtime, confDir);
        CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                networks.setup(sandbox);
                interruptKept.completeExceptionally(new AssertionError("the setup succeeded"));
            } catch (CniRuntimeException e) {
                if (e.interrupted()) {
                    interruptKept.complete(Thread.currentThread().isInterrupted());
                } else {
                    interruptKept.completeExceptionally(e);
                }
            }
        });
        for (int i = 0; i < 1000 && !Files.exists(bin.resolve("hang.log")); i++) {
            Thread.sleep(10);
        }
        for (int i = 0; i < 1000 && !cacheEntries().contains("red-pod-1-eth0"); i++) {
            Thread.sleep(10);
        }
        assertThat(cacheEntries()).as("red is set up, slow still running").containsExactly("red-pod-1-eth0");
        caller.interrupt();

        try {
            assertThat(interruptKept.get()).as("the caller's interrupt status is set again").isTrue();
        } catch (ExecutionException e) {
            throw new AssertionError(e.getCause());
        }
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(Files.readAllLines(bin.resolve("hang.log"))).containsExactly("ADD eth1", "DEL eth1");
        assertThat(cacheEntries()).isEmpty();
    }

    // ------------------------------------------------------------------------------------------ options

    @Test
    void optionsFromTheEnvironmentReadCniPathNetconfpathAndTheCacheDirWithTheirDefaults() {
        CniRuntime.Options set = CniRuntime.Options.fromEnvironment(Map.of("CNI_PATH", "/a::/b:", "NETCONFPATH",
                "/etc/x", "JCNI_CACHE_DIR", "/tmp/cache"));
        CniRuntime.Options unset = CniRuntime.Options.fromEnvironment(Map.of("CNI_PATH", "", "NETCONFPATH", ""));

        assertThat(set.cniPath()).containsExactly(Path.of("/a"), Path.of("/b"));
        assertThat(set.confDir()).isEqualTo(Path.of("/etc/x"));
        assertThat(set.cacheDir()).isEqualTo(Path.of("/tmp/cache"));
        assertThat(unset.cniPath()).containsExactly(Path.of("/opt/cni/bin"));
        assertThat(unset.confDir()).isEqualTo(Path.of("/etc/cni/net.d"));
        assertThat(unset.cacheDir()).isEqualTo(Path.of("/var/lib/cni"));
        assertThat(unset.environment()).isSameAs(System.getenv());
        assertThat(set.withCacheDir(Path.of("/c")).confDir()).as("withers keep it").isEqualTo(Path.of("/etc/x"));
    }
}
