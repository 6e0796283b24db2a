package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.contents;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.set;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.who;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real processes ({@link StoreWorker}) and threads sharing one network directory; SIGKILL in the middle of an ADD. */
class StoreProcessTest {

    private static final String V4 = "10.7.0.0/24";
    private static final String V6 = "fd07::/120";

    @TempDir
    Path dataDir;

    private Path dir() {
        return dataDir.resolve("net1");
    }

    /** A JVM running StoreWorker from the classes this test runs from. */
    private Process worker(String... args) throws IOException {
        // The store locks with flock(2) through netlink-ffm, so the worker needs it and its native-access grant; its
        // addresses print through spec-model's IpText.
        String cp = location(StoreWorker.class) + java.io.File.pathSeparator + location(HostLocalStore.class)
                + java.io.File.pathSeparator + location(io.jcni.netlink.sys.FileLocks.class)
                + java.io.File.pathSeparator + location(io.jcni.spec.IpText.class);
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-XX:TieredStopAtLevel=1", "-Xshare:auto", "--enable-native-access=ALL-UNNAMED",
                "--illegal-native-access=deny", "-cp", cp, StoreWorker.class.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> outputOf(Process p) throws Exception {
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                lines.add(line);
            }
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("worker exit status, output " + lines).isZero();
        return lines;
    }

    @Test
    void twoProcessesOfAHundredParallelAddsGetTwoHundredDistinctAddressesAndDelsLeaveNothing() throws Exception {
        Process a = worker("alloc", dataDir.toString(), "net1", "a", "100", "8", V4, V6);
        Process b = worker("alloc", dataDir.toString(), "net1", "b", "100", "8", V4, V6);
        List<String> lines = new ArrayList<>(outputOf(a));
        lines.addAll(outputOf(b));
        assertThat(lines).hasSize(200);
        Set<String> v4 = new HashSet<>();
        Set<String> v6 = new HashSet<>();
        for (String line : lines) {
            String[] f = line.split(" ");
            assertThat(f[0]).isEqualTo("OK");
            v4.add(f[2]);
            v6.add(f[3]);
        }
        assertThat(v4).hasSize(200).allSatisfy(ip -> assertThat(ip).startsWith("10.7.0."));
        assertThat(v6).hasSize(200).allSatisfy(ip -> assertThat(ip).startsWith("fd07::"));
        assertThat(Fixtures.reserved(dir())).hasSize(400);
        // Each file names the container its process was told it got.
        for (String line : lines) {
            String[] f = line.split(" ");
            assertThat(contents(dir())).containsEntry(f[2], f[1] + "\r\neth0").containsEntry(f[3], f[1] + "\r\neth0");
        }

        Process ra = worker("release", dataDir.toString(), "net1", "a", "100", "8");
        Process rb = worker("release", dataDir.toString(), "net1", "b", "100", "8");
        List<String> released = new ArrayList<>(outputOf(ra));
        released.addAll(outputOf(rb));
        assertThat(released).hasSize(200).allSatisfy(l -> assertThat(l).endsWith(" 2"));
        assertThat(contents(dir()).keySet()).containsExactly("last_reserved_ip.0", "last_reserved_ip.1", "lock");
    }

    @Test
    void threadsWithTheirOwnStoresAndOneSharedStoreNeverHandOutAnAddressTwice() throws Exception {
        List<RangeSet> sets = List.of(set(V4), set(V6));
        try (HostLocalStore shared = HostLocalStore.open(dataDir, "net1");
                ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<List<Allocation>>> results = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                results.add(pool.submit(() -> {
                    if (n % 2 == 0) {
                        return shared.allocate(who("t" + n), sets, List.of(), OnExisting.REUSE);
                    }
                    try (HostLocalStore own = HostLocalStore.open(dataDir, "net1")) {
                        return own.allocate(who("t" + n), sets, List.of(), OnExisting.REUSE);
                    }
                }));
            }
            Set<IpAddress> seen = new HashSet<>();
            for (Future<List<Allocation>> f : results) {
                for (Allocation a : f.get()) {
                    assertThat(seen.add(a.address())).as("handed out twice: " + a.address()).isTrue();
                }
            }
            assertThat(seen).hasSize(400);
            List<Future<List<IpAddress>>> releases = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                releases.add(pool.submit(() -> shared.release(who("t" + n))));
            }
            for (Future<List<IpAddress>> f : releases) {
                assertThat(f.get()).hasSize(2);
            }
        }
        assertThat(contents(dir()).keySet()).containsExactly("last_reserved_ip.0", "last_reserved_ip.1", "lock");
    }

    /**
     * SIGKILL at each point of an ADD: with the reservation file created but still empty, complete but unknown to
     * the index, and after all file changes but before the index commit. A later DEL must release everything.
     */
    @ParameterizedTest(name = "killed at {0}")
    @ValueSource(strings = {Failpoints.CREATED_EMPTY, Failpoints.WRITTEN, Failpoints.BEFORE_COMMIT})
    void killMinus9InTheMiddleOfAnAddThenDelLeavesNothing(String point) throws Exception {
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            store.allocate(who("before"), List.of(set(V4), set(V6)), List.of(), OnExisting.REUSE);
        }
        Process p = worker("stop", dataDir.toString(), "net1", "victim", point, V4, V6);
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(r.readLine()).isEqualTo("AT " + point);
            p.toHandle().destroyForcibly(); // SIGKILL
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(p.exitValue()).isEqualTo(137);
        if (point.equals(Failpoints.CREATED_EMPTY)) {
            assertThat(contents(dir())).containsValue(""); // the torn file is there
        }
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            store.release(who("victim"));
            store.release(who("before"));
            // The directory is clean, and the next ADD starts where the killed one would have gone on.
            assertThat(contents(dir()).keySet()).containsExactly("last_reserved_ip.0", "last_reserved_ip.1", "lock");
            assertThat(store.allocate(who("after"), List.of(set(V4), set(V6)), List.of(), OnExisting.REUSE))
                    .hasSize(2);
        }
    }

    /** Kills at random moments of a process that allocates in a loop; DEL of every started ADD leaves nothing. */
    @Test
    void killMinus9AtRandomMomentsThenDelOfEveryStartedAddLeavesNothing() throws Exception {
        Random rnd = new Random(11);
        Set<String> started = new HashSet<>();
        for (int round = 0; round < 6; round++) {
            Process p = worker("loop", dataDir.toString(), "net1", "r" + round, V4, V6);
            BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            int lines = 5 + rnd.nextInt(30);
            for (int i = 0; i < lines; i++) {
                String line = r.readLine();
                assertThat(line).startsWith("BEGIN ");
                started.add(line.substring(6));
            }
            Thread.sleep(rnd.nextInt(3));
            p.toHandle().destroyForcibly(); // SIGKILL, keeping our end of the pipe readable
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
            // Lines printed before the kill still name started ADDs.
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("BEGIN ")) {
                    started.add(line.substring(6));
                }
            }
            r.close();
        }
        assertThat(Fixtures.reserved(dir())).isNotEmpty();
        try (HostLocalStore store = HostLocalStore.open(dataDir, "net1")) {
            for (String id : started) {
                store.release(who(id));
            }
        }
        assertThat(contents(dir()).keySet()).containsExactly("last_reserved_ip.0", "last_reserved_ip.1", "lock");
    }
}
