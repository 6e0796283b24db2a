package io.jcni.it.leaks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.it.teardown.NodeState;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deadline-killed ADD leaves nothing once its rollback, the next DEL or {@code gc --stale} has run, and the caller
 * can tell which ({@link CniRuntimeException#rolledBack()}). jcni's runtime in this JVM drives jcni's bridge (with
 * ipMasq and host-local) on a test node, through the JVM launchers in the suite's first run and through the plugin
 * service in its second. What was measured before: an ADD with a 40 ms deadline through the launchers failed and its
 * rollback DEL, killed by the same deadline, left a {@code veth} on the host in no cache entry in 2 of 4 runs.
 *
 * <p>The other cases chain Go's trivial test plugin after the bridge, sleeping on each call, so that the bridge has made
 * its veth, reservation and rule when the deadline kills the call: a rollback that needs more time than the call had
 * (the runtime's own budget); one cut short (a budget shorter than a DEL) and finished by the next DEL or by
 * {@code gc --stale} from the ADD's journal; and a runtime killed mid-ADD ({@code jcni add}, SIGKILL).
 */
class DeadlineKilledAddTest {
    static final String TAG = "ddl";
    static final String NETWORK = "ddl-br";

    @TempDir
    Path tmp;

    @AutoClose
    StaleNode node;

    NodeState baseline;

    /** Go's trivial test plugin, sleeping {@code sleepMs} on every call. */
    static String sleeping(int sleepMs) {
        return "{\"type\":\"" + Locations.TRIVIAL_PLUGIN_TYPE + "\",\"sleepMs\":" + sleepMs + "}";
    }

    /** The node and the bridge network, with {@code next} (a plugin configuration) after the bridge, or not (null). */
    NetworkConfigList start(String next) throws Exception {
        Prerequisites.assumeGoTools();
        Prerequisites.assumeDistPlugins("bridge", "host-local");
        node = StaleNode.start(TAG, tmp.resolve("node"), List.of(Locations.distCniBin(), Locations.goBin()));
        String bridge = "{\"type\":\"bridge\",\"bridge\":\"" + StaleNode.link(TAG) + "\",\"isGateway\":true,"
                + "\"ipMasq\":true,\"ipam\":" + GcStaleMixTest.hostLocal(node, "10.233.1.0/24") + "}";
        String trivial = next == null ? "" : "," + next;
        String conflist = "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK + "\",\"plugins\":[" + bridge + trivial
                + "]}";
        node.network(NETWORK, conflist);
        NetworkConfigList list = CniJson.decodeNetworkConfigList(conflist.getBytes(StandardCharsets.UTF_8));
        // The bridge exists from the first attachment on, and stays: the node's state with it, without any attachment.
        TestNetns probe = node.host.container();
        NetworkConfigList bridgeOnly = CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.1.0\",\"name\":\""
                + NETWORK + "\",\"plugins\":[" + bridge + "]}").getBytes(StandardCharsets.UTF_8));
        RuntimeConf rt = new RuntimeConf("probe", probe.path().toString(), "eth0");
        node.runtime.addNetworkList(bridgeOnly, rt);
        node.runtime.delNetworkList(bridgeOnly, rt);
        probe.close();
        baseline = state();
        return list;
    }

    NodeState state() {
        return NodeState.read(node.host, node.ipamDir, node.cacheDir);
    }

    /** Nothing of any attachment is left: the node reads back as with the bridge alone. */
    void assertNothingLeft(String context) {
        NodeState now = state();
        assertThat(baseline.addedIn(now)).as(context + ": left on the node").isEmpty();
        assertThat(baseline.removedIn(now)).as(context + ": taken from the node").isEmpty();
        assertThat(node.journals()).as(context).isEmpty();
    }

    /** Something of the attachment is there: its host veth, its reservation, its journal. */
    void assertLeftovers(String context) {
        assertThat(node.links("veth")).as(context + ": the host end").hasSize(1);
        assertThat(node.reservations(NETWORK)).as(context).hasSize(1);
        assertThat(node.journals()).as(context).containsExactly(NETWORK + "-" + "ddl-1-eth0");
    }

    CniRuntime runtime(CniRuntime.Options options) {
        return CniRuntime.create(options.withCniPath(node.host.runtimeCniPath(tmp.resolve("host-bin"),
                node.cniPath)).withCacheDir(node.cacheDir));
    }

    @Test
    void aFortyMillisecondDeadlineLeavesNothingAndTheCallerCanTell() throws Exception {
        NetworkConfigList list = start(null);
        int failed = 0;
        for (int run = 1; run <= 4; run++) {
            TestNetns sandbox = node.host.container();
            RuntimeConf rt = new RuntimeConf("forty-" + run, sandbox.path().toString(), "eth0");
            try {
                node.runtime.withTimeout(Duration.ofMillis(40)).addNetworkList(list, rt);
                // Fast enough (the service can be): an attachment like any other.
                node.runtime.delNetworkList(list, rt);
            } catch (CniRuntimeException e) {
                failed++;
                assertThat(e.timedOut()).as(e.getMessage()).isTrue();
                if (e.rolledBack()) {
                    assertNothingLeft("run " + run + ": rolled back, says the exception");
                } else {
                    List<String> report = node.gcStale();
                    String removed = "removed " + NETWORK + " " + rt.containerId() + "/eth0 (unfinished ADD)";
                    assertThat(report).as("run " + run).anyMatch(l -> l.startsWith(removed));
                }
            }
            sandbox.close();
            assertNothingLeft("run " + run);
        }
        if (!Locations.viaService()) {
            assertThat(failed).as("through the launchers, 40 ms is never enough for a bridge ADD").isEqualTo(4);
        }
    }

    /**
     * The deadline kills the trivial plugin after the bridge made its veth, reservation and rule; the trivial
     * plugin's DEL alone takes longer than the call had. The rollback gets a budget of its own and completes (before,
     * it had what the call had, the trivial DEL was killed and the bridge's DEL never started).
     */
    @Test
    void aRollbackGetsItsOwnBudgetAndCompletesLongAfterTheDeadline() throws Exception {
        NetworkConfigList list = start(sleeping(8000));
        TestNetns sandbox = node.host.container();
        RuntimeConf rt = new RuntimeConf("ddl-1", sandbox.path().toString(), "eth0");
        CniRuntime runtime = runtime(CniRuntime.Options.of(List.of()).withRollbackTimeout(Duration.ofSeconds(60)));
        long start = System.nanoTime();

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofSeconds(6)).addNetworkList(list, rt));

        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(e.timedOut()).isTrue();
        assertThat(e.getSuppressed()).as("no rollback failure").isEmpty();
        assertThat(e.rolledBack()).isTrue();
        assertThat(took).as("the rollback ran past the call's 6 s").isGreaterThan(6000 + 7000);
        assertNothingLeft("after the rollback");
        runtime.close();
    }

    /** A rollback cut short: the caller is told, and its DEL of the attachment finishes what the rollback owed. */
    @Test
    void aRollbackCutShortIsFinishedByTheNextDel() throws Exception {
        NetworkConfigList list = start(sleeping(5000));
        TestNetns sandbox = node.host.container();
        RuntimeConf rt = new RuntimeConf("ddl-1", sandbox.path().toString(), "eth0");
        CniRuntime runtime = runtime(CniRuntime.Options.of(List.of()).withRollbackTimeout(Duration.ofMillis(1)));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofMillis(3500)).addNetworkList(list, rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.rolledBack()).isFalse();
        assertThat(e.getSuppressed()).isNotEmpty();
        assertLeftovers("after a rollback cut short");
        assertThat(node.cacheEntries()).as("a failed ADD has no cache entry").isEmpty();

        runtime.delNetworkList(list, rt);

        assertNothingLeft("after the DEL");
        runtime.close();
    }

    /** The same, finished by {@code gc --stale}, whatever the namespace (it is still there). */
    @Test
    void aRollbackCutShortIsFinishedByGcStale() throws Exception {
        NetworkConfigList list = start(sleeping(5000));
        TestNetns sandbox = node.host.container();
        RuntimeConf rt = new RuntimeConf("ddl-1", sandbox.path().toString(), "eth0");
        CniRuntime runtime = runtime(CniRuntime.Options.of(List.of()).withRollbackTimeout(Duration.ofMillis(1)));
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofMillis(3500)).addNetworkList(list, rt));
        assertThat(e.rolledBack()).isFalse();
        assertLeftovers("after a rollback cut short");

        List<String> report = node.gcStale();

        assertThat(report).contains("removed " + NETWORK + " ddl-1/eth0 (unfinished ADD) netns " + sandbox.path()
                + ": its rollback did not finish (2 DELs owed)");
        assertThat(sandbox.kernel().links()).as("the rollback entered the namespace: no eth0 left")
                .extracting(l -> l.name()).containsExactly("lo");
        assertNothingLeft("after gc --stale");
        runtime.close();
    }

    /** {@code jcni add} killed while its second plugin runs: its journal lets gc --stale undo the bridge's work. */
    @Test
    void aRuntimeKilledMidAddLeavesAJournalThatGcStaleFinishes() throws Exception {
        // It hangs in its ADD until killed; its DEL answers at once.
        start("{\"type\":\"" + Locations.TRIVIAL_PLUGIN_TYPE + "\",\"mode\":\"hang\",\"modeOn\":\"ADD\"}");
        TestNetns sandbox = node.host.container();
        List<String> command = new ArrayList<>(List.of(Locations.distJcni().toString(), "add", NETWORK,
                sandbox.path().toString(), "--container-id", "ddl-1", "--cache-dir", node.cacheDir.toString(),
                "--conf-dir", node.confDir.toString(), "--cni-path", Locations.distCniBin() + ":" + Locations.goBin()));
        Process jcni = new ProcessBuilder(node.host.command(command)).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("jcni-add.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (trivialPlugins("ddl-1").isEmpty()) {
                assertThat(jcni.isAlive()).as(Files.readString(tmp.resolve("jcni-add.log"))).isTrue();
                assertThat(System.nanoTime()).as("the trivial plugin started").isLessThan(deadline);
                Thread.sleep(50);
            }
            assertThat(node.journals()).containsExactly(NETWORK + "-ddl-1-eth0");
        } finally {
            StaleNode.kill(jcni);
            for (ProcessHandle plugin : trivialPlugins("ddl-1")) {
                plugin.destroyForcibly();
            }
        }
        assertLeftovers("after the runtime was killed");

        List<String> report = node.gcStale();

        assertThat(report).contains("removed " + NETWORK + " ddl-1/eth0 (unfinished ADD) netns " + sandbox.path()
                + ": its rollback did not finish (2 DELs owed)");
        assertNothingLeft("after gc --stale");
    }

    /** The trivial plugin processes adding {@code containerId} (from their environment). */
    static List<ProcessHandle> trivialPlugins(String containerId) {
        List<ProcessHandle> found = new ArrayList<>();
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            for (ProcessHandle p : all.toList()) {
                if (p.info().command().map(c -> c.endsWith("/" + Locations.TRIVIAL_PLUGIN_TYPE)).orElse(false)
                        && environ(p).contains("CNI_CONTAINERID=" + containerId + "\0")) {
                    found.add(p);
                }
            }
        }
        return found;
    }

    private static String environ(ProcessHandle p) {
        try (InputStream in = Files.newInputStream(Path.of("/proc", String.valueOf(p.pid()), "environ"))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
