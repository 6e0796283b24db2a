package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.spec.CniJson;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link CniRuntime#gcStale} on namespace paths that are files of this test (gone, a plain file left, /proc paths,
 * and, as root, a real namespace bind-mounted), with scripts as plugins: who gets DEL (with what), what is kept and
 * why, what the plugins' GC is told is valid. The kernel side (veths, rules, reservations) is in {@code it}.
 */
class GcStaleTest {
    @TempDir
    Path tmp;

    Path bin;
    Path cacheDir;
    Path netns;
    FakePlugin a;
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    CniRuntime runtime;

    @BeforeEach
    void plugins() throws IOException {
        bin = Files.createDirectory(tmp.resolve("bin"));
        netns = Files.createDirectory(tmp.resolve("netns"));
        cacheDir = tmp.resolve("cache");
        a = FakePlugin.create(bin, "a");
        runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir).withStderr(stderr));
    }

    static NetworkConfigList list(String name, String version, String... types) {
        StringBuilder plugins = new StringBuilder();
        for (String type : types) {
            plugins.append(plugins.isEmpty() ? "" : ",").append("{\"type\":\"").append(type).append("\"}");
        }
        return CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"" + version + "\",\"name\":\"" + name
                + "\",\"plugins\":[" + plugins + "]}").getBytes(StandardCharsets.UTF_8));
    }

    /** A result naming {@code sandbox} as its container interface's namespace. */
    static String result(String sandbox) {
        return "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"" + sandbox
                + "\"}],\"ips\":[{\"address\":\"10.1.0.2/24\",\"interface\":0}]}";
    }

    /** ADD of {@code id} with namespace {@code path} (the result names it too). */
    private void add(NetworkConfigList list, String id, String path) throws IOException {
        a.answer("ADD", result(path));
        runtime.addNetworkList(list, new RuntimeConf(id, path, "eth0"));
    }

    private List<String> delsOf(FakePlugin plugin) {
        List<String> ids = new ArrayList<>();
        for (FakePlugin.Call call : plugin.calls()) {
            if (call.command().equals("DEL")) {
                ids.add(call.containerId() + " netns=" + call.netns());
            }
        }
        return ids;
    }

    private List<String> cached() throws IOException {
        try (var files = Files.list(cacheDir.resolve("results"))) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void attachmentsWhoseNamespaceIsGoneGetDelWithTheirCachedArgumentsAndTheRestStays() throws Exception {
        NetworkConfigList net = list("net1", "1.0.0", "a");
        Files.writeString(netns.resolve("plain"), "");
        add(net, "gone", netns.resolve("gone").toString());
        add(net, "plain", netns.resolve("plain").toString());
        add(net, "proc-live", "/proc/self/ns/net");
        add(net, "proc-gone", "/proc/4194999/ns/net");
        add(net, "relative", "cni-1234");
        RuntimeConf withArgs = new RuntimeConf("args", netns.resolve("args").toString(), "eth0")
                .withArgs(io.jcni.spec.CniArgs.parse("K8S_POD_NAME=web"))
                .withCapabilityArgs(JsonObject.of("portMappings", Json.array()));
        a.answer("ADD", result(withArgs.netns()));
        runtime.addNetworkList(net, withArgs);

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

        assertThat(report.failed()).isFalse();
        assertThat(report.with(StaleReport.Action.REMOVED)).extracting(StaleReport.Entry::containerId)
                .containsExactly("args", "gone", "plain", "proc-gone");
        assertThat(report.with(StaleReport.Action.KEPT)).extracting(StaleReport.Entry::containerId)
                .containsExactly("proc-live", "relative");
        assertThat(report.lines()).contains("removed net1 gone/eth0 netns " + netns.resolve("gone")
                + ": no such file");
        assertThat(report.lines()).anyMatch(l -> l.startsWith("removed net1 plain/eth0") && l.endsWith(
                "no longer a namespace (the bind mount is gone, a plain file is left)"));
        assertThat(report.lines()).anyMatch(l -> l.startsWith("kept net1 proc-live/eth0") && l.contains(
                "pids are reused"));
        assertThat(report.lines()).anyMatch(l -> l.startsWith("kept net1 relative/eth0") && l.endsWith(
                "not a path: cni-1234"));
        assertThat(report.lines()).contains("gc net1: skipped: version 1.0.0 has no GC (1.1.0 and later)");
        // DEL without the namespace, with what the attachment was added with.
        assertThat(delsOf(a)).containsExactly("args netns=", "gone netns=", "plain netns=", "proc-gone netns=");
        FakePlugin.Call argsDel = a.calls().stream().filter(c -> c.command().equals("DEL")).findFirst().orElseThrow();
        assertThat(argsDel.args()).isEqualTo("K8S_POD_NAME=web");
        assertThat(argsDel.stdin()).contains("\"prevResult\"").contains("10.1.0.2/24");
        assertThat(cached()).containsExactly("net1-proc-live-eth0", "net1-relative-eth0");
    }

    @Test
    void aDryRunListsWhatWouldGoAndChangesNothing() throws Exception {
        NetworkConfigList net = list("net1", "1.1.0", "a");
        add(net, "gone", netns.resolve("gone").toString());
        add(net, "live", "/proc/self/ns/net");

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of().withDryRun(true));

        assertThat(report.dryRun()).isTrue();
        assertThat(report.lines()).anyMatch(l -> l.startsWith("would remove net1 gone/eth0"));
        assertThat(report.lines()).anyMatch(l -> l.startsWith("gc net1: would collect, "));
        assertThat(report.networks().getFirst().valid()).extracting(io.jcni.spec.GcAttachment::containerId)
                .contains("live").doesNotContain("gone");
        assertThat(a.commands()).containsExactly("ADD", "ADD");
        assertThat(cached()).containsExactly("net1-gone-eth0", "net1-live-eth0");
    }

    @Test
    void aLibcniEntryWithoutNetnsIsJudgedByItsResultsSandboxAndKeptWhenItHasNone() throws Exception {
        NetworkConfigList net = list("net1", "1.0.0", "a");
        // As Go libcni 1.1.2 writes them (containerd 1.6, podman 4): no "netns" key.
        writeLibcniEntry(net, "by-sandbox", result(netns.resolve("gone").toString()));
        writeLibcniEntry(net, "no-sandbox", "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.1.0.9/24\"}]}");

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

        assertThat(report.with(StaleReport.Action.REMOVED)).extracting(StaleReport.Entry::containerId)
                .containsExactly("by-sandbox");
        assertThat(report.lines()).anyMatch(l -> l.startsWith("kept net1 no-sandbox/eth0 netns -:")
                && l.endsWith("no namespace recorded (neither the cache entry nor its result names one)"));
        assertThat(delsOf(a)).containsExactly("by-sandbox netns=");
    }

    private void writeLibcniEntry(NetworkConfigList net, String id, String result) throws IOException {
        Path results = Files.createDirectories(cacheDir.resolve("results"));
        String json = "{\"kind\":\"cniCacheV1\",\"containerId\":\"" + id + "\",\"config\":\""
                + Base64.getEncoder().encodeToString(net.bytes()) + "\",\"ifName\":\"eth0\",\"networkName\":\""
                + net.name() + "\",\"result\":" + result + "}";
        Files.writeString(results.resolve(net.name() + "-" + id + "-eth0"), json);
    }

    @Test
    void aBusyAttachmentIsKeptAndValid() throws Exception {
        NetworkConfigList net = list("net1", "1.1.0", "a");
        add(net, "busy", netns.resolve("gone").toString());
        a.gate("CHECK");
        ExecutorService threads = Executors.newCachedThreadPool();
        Future<?> check = threads.submit(() -> runtime.checkNetworkList(net, new RuntimeConf("busy",
                netns.resolve("gone").toString(), "eth0")));
        waitFor(() -> a.commands().contains("CHECK"));

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

        a.openGate();
        check.get(30, TimeUnit.SECONDS);
        threads.shutdown();
        assertThat(report.lines()).anyMatch(l -> l.startsWith("kept net1 busy/eth0") && l.contains("busy"));
        assertThat(report.networks().getFirst().valid()).extracting(io.jcni.spec.GcAttachment::containerId)
                .contains("busy");
        assertThat(delsOf(a)).isEmpty();
    }

    @Test
    void theGcOfA110NetworkSparesWhatIsLeftInTheCacheAndRunsAfterTheRemovals() throws Exception {
        NetworkConfigList net = list("net1", "1.1.0", "a");
        add(net, "gone", netns.resolve("gone").toString());
        add(net, "live", "/proc/self/ns/net");

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

        // (Plugin calls of other tests on this machine, seen in flight, may be valid too.)
        assertThat(report.networks()).singleElement().satisfies(gc -> {
            assertThat(gc.action()).isEqualTo(StaleReport.GcAction.COLLECTED);
            assertThat(gc.valid()).extracting(io.jcni.spec.GcAttachment::containerId).contains("live")
                    .doesNotContain("gone");
        });
        assertThat(a.commands()).containsExactly("ADD", "ADD", "DEL", "GC");
        assertThat(a.calls().getLast().stdin()).contains("\"cni.dev/valid-attachments\":[")
                .contains("{\"containerID\":\"live\",\"ifname\":\"eth0\"}").doesNotContain("\"gone\"");
    }

    @Test
    void everyCachedNetworkAlsoCleansNetworksNoLongerConfiguredWithTheirCachedConfiguration() throws Exception {
        FakePlugin old = FakePlugin.create(bin, "old");
        old.answer("ADD", result(netns.resolve("gone").toString()));
        runtime.addNetworkList(list("removed", "1.0.0", "old"), new RuntimeConf("x", netns.resolve("gone")
                .toString(), "eth0"));
        NetworkConfigList current = list("net1", "1.1.0", "a");

        StaleReport named = runtime.gcStale(List.of(current), StaleOptions.of());
        assertThat(named.attachments()).as("another network's attachment is not judged").isEmpty();

        StaleReport every = runtime.gcStale(List.of(current), StaleOptions.of().withEveryCachedNetwork(true));
        assertThat(every.lines()).anyMatch(l -> l.startsWith("removed removed x/eth0"));
        assertThat(old.commands()).containsExactly("ADD", "DEL");
        assertThat(a.commands()).containsExactly("GC", "GC");
    }

    @Test
    void aFailingDelIsReportedLeftInTheCacheAndValid() throws Exception {
        NetworkConfigList net = list("net1", "1.1.0", "a");
        add(net, "gone", netns.resolve("gone").toString());
        a.fail("DEL", "{\"code\":11,\"msg\":\"daemon down\"}", 1);

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

        assertThat(report.failed()).isTrue();
        assertThat(report.with(StaleReport.Action.FAILED)).singleElement().satisfies(e -> {
            assertThat(e.failure().code()).isEqualTo(11);
            assertThat(e.reason()).contains("DEL failed: plugin type=\"a\" failed (delete): daemon down");
        });
        assertThat(report.networks().getFirst().valid()).extracting(io.jcni.spec.GcAttachment::containerId)
                .contains("gone");
        assertThat(cached()).containsExactly("net1-gone-eth0");
    }

    @Test
    void aFailedAddsJournalIsFinishedWhateverItsNamespace() throws Exception {
        NetworkConfigList net = list("net1", "1.0.0", "a", "b");
        FakePlugin b = FakePlugin.create(bin, "b").fail("ADD", "{\"code\":7,\"msg\":\"no\"}", 1);
        a.answer("ADD", result("/proc/self/ns/net")).fail("DEL", "{\"code\":11,\"msg\":\"later\"}", 1);
        RuntimeConf rt = new RuntimeConf("failed", "/proc/self/ns/net", "eth0");
        try {
            runtime.addNetworkList(net, rt);
        } catch (CniRuntimeException e) {
            assertThat(e.rolledBack()).isFalse();
        }
        a.answer("DEL", "");

        StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

        assertThat(report.attachments()).singleElement().satisfies(e -> {
            assertThat(e.source()).isEqualTo(StaleReport.Source.JOURNAL);
            assertThat(e.action()).isEqualTo(StaleReport.Action.REMOVED);
            assertThat(e.line()).isEqualTo("removed net1 failed/eth0 (unfinished ADD) netns /proc/self/ns/net: its "
                    + "rollback did not finish (1 DEL owed)");
        });
        // The namespace is still the one the ADD had, so the DEL enters it.
        assertThat(delsOf(a)).containsExactly("failed netns=/proc/self/ns/net", "failed netns=/proc/self/ns/net");
        assertThat(b.commands()).containsExactly("ADD");
        assertThat(cacheDir.resolve("journal/net1-failed-eth0")).doesNotExist();
    }

    @Test
    void aJournalOfAnAddStillRunningIsKeptAndItsAttachmentValid() throws Exception {
        NetworkConfigList net = list("net1", "1.1.0", "a");
        a.answer("ADD", result(netns.resolve("gone").toString())).gate("ADD");
        // Threads of their own: the common pool may have a single thread on a small machine.
        ExecutorService threads = Executors.newCachedThreadPool();
        Future<?> adding = threads.submit(() -> runtime.addNetworkList(net,
                new RuntimeConf("adding", netns.resolve("gone").toString(), "eth0")));
        waitFor(() -> a.commands().contains("ADD"));

        Future<StaleReport> collecting = threads.submit(() -> runtime.gcStale(List.of(net), StaleOptions.of()));
        Thread.sleep(300);
        assertThat(collecting).as("the GC waits for the network's ADD in flight").isNotDone();
        a.openGate();
        adding.get(30, TimeUnit.SECONDS);
        StaleReport report = collecting.get(60, TimeUnit.SECONDS);

        assertThat(report.lines()).anyMatch(l -> l.startsWith("kept net1 adding/eth0 (unfinished ADD)")
                && l.contains("busy"));
        assertThat(report.networks().getFirst().valid()).extracting(io.jcni.spec.GcAttachment::containerId)
                .contains("adding");
        assertThat(a.commands()).containsExactly("ADD", "GC");
        threads.shutdown();
    }

    @Test
    void aRealNamespaceIsLiveAndANameMadeAgainIsNotEnteredByAFinishedRollback() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(isRoot(), "needs root (bind-mounts a namespace file)");
        Path live = netns.resolve("live");
        Files.writeString(live, "");
        mount("/proc/self/ns/net", live);
        try {
            NetworkConfigList net = list("net1", "1.0.0", "a");
            add(net, "live", live.toString());

            StaleReport report = runtime.gcStale(List.of(net), StaleOptions.of());

            assertThat(report.lines()).containsExactly("kept net1 live/eth0 netns " + live + ": a namespace",
                    "gc net1: skipped: version 1.0.0 has no GC (1.1.0 and later)");
        } finally {
            umount(live);
        }
    }

    private static boolean isRoot() {
        try {
            return "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes())
                    .strip());
        } catch (IOException e) {
            return false;
        }
    }

    private static void mount(String source, Path target) throws Exception {
        Process p = new ProcessBuilder("mount", "--bind", source, target.toString()).inheritIO().start();
        assertThat(p.waitFor()).isZero();
    }

    private static void umount(Path target) throws Exception {
        new ProcessBuilder("umount", target.toString()).inheritIO().start().waitFor();
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 3000 && !condition.getAsBoolean(); i++) {
            Thread.sleep(10);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }
}
