package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.testing.Worlds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, harm 1 and 6: one hung call must not stall the service. Each test is named for what it guards; on the
 * service before the fix (a client's call ran to its end whatever happened to the client, GC took a service-wide
 * lock and waited for every call, the pool had a fixed number of threads, a request was read with a timeout per
 * read, the mount table descriptor was read whatever it was) each of them hangs or fails.
 *
 * <p>The hung calls are real: a delegate (IPAM) that never answers, exec'd by the plugin the service runs; for a call
 * that stays hung after it was cancelled, a delegate that leaves a process holding its stdout open, so that the
 * service's read of the delegate's output cannot end when the delegate is killed. Their processes are killed by pid
 * at the end.
 */
class ServiceIsolationTest {
    @TempDir
    Path dir;

    private PluginService service;
    private Path socket;
    private final ExecutorService clients = Executors.newCachedThreadPool();
    private final List<Path> pidFiles = new ArrayList<>();

    private PluginService start(int maxCalls, Duration callTimeout, Duration waitTimeout, Duration hungGrace,
            Duration ioTimeout) throws Exception {
        socket = dir.resolve("run/plugins.sock");
        service = PluginService.bind(new PluginService.Settings(socket, ServiceTest.us(), maxCalls, 64,
                ServiceTest.BUILD_ID, ioTimeout, callTimeout, waitTimeout, hungGrace, false),
                new ServiceLog(System.err, false));
        return service;
    }

    @AfterEach
    void stop() throws Exception {
        for (Path pids : pidFiles) {
            if (Files.exists(pids)) {
                for (String pid : Files.readAllLines(pids)) {
                    ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
        clients.shutdownNow();
        if (service != null) {
            service.stop(Duration.ofSeconds(2));
        }
    }

    /** An IPAM plugin that writes its pid (and those of what it starts) to a file, then never answers. */
    private Path hangingIpam(String name, boolean orphanHoldsStdout) throws Exception {
        return hangingIpam(name, orphanHoldsStdout, "");
    }

    /** The same, hanging only on {@code command} (answering the others with success), or on every one with "". */
    private Path hangingIpam(String name, boolean orphanHoldsStdout, String command) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path pids = dir.resolve(name + ".pids");
        pidFiles.add(pids);
        String orphan = orphanHoldsStdout
                // A subshell starts the sleeper and exits: the sleeper is nobody's descendant any more (killing the
                // plugin's tree cannot reach it) and keeps the plugin's stdout open.
                ? "( sleep 600 & echo $! >> '" + pids + "' )\n"
                : "";
        String only = command.isEmpty() ? "" : "[ \"$CNI_COMMAND\" = " + command + " ] || exit 0\n";
        Path script = Files.writeString(bin.resolve(name), "#!/bin/sh\n" + only + "echo $$ >> '" + pids + "'\n"
                + orphan + "exec sleep 600\n");
        assertThat(script.toFile().setExecutable(true)).isTrue();
        return pids;
    }

    /** bridge's DEL releases its IPAM first, also without a namespace: a call that hangs in its delegate. */
    private TestClient hangingDel(String network, String container, String ipamType) {
        return TestClient.call("DEL").type("bridge").env("CNI_CONTAINERID", container).env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", dir.resolve("bin").toString())
                .stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":"
                        + "{\"type\":\"" + ipamType + "\"}}");
    }

    private TestClient hostLocal(String command, String network, String container) {
        TestClient c = TestClient.call(command).env("CNI_CONTAINERID", container).env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", dir.toString()).env("CNI_NETNS", "/var/run/netns/unused")
                .stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":{"
                        + "\"type\":\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\",\"ranges\":[[{"
                        + "\"subnet\":\"10.253.0.0/24\"}]]}" + (command.equals("GC")
                        ? ",\"cni.dev/valid-attachments\":[]" : "") + "}");
        c.netnsState = Protocol.NETNS_UNOPENED;
        return c;
    }

    /** Sends {@code client}'s request on a connection of its own and returns the connection, left open. */
    private UnixSocket sendOnly(TestClient client) {
        return client.start(socket);
    }

    private static void awaitTrue(String what, java.util.function.BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("timed out waiting: " + what).isNegative();
            Thread.sleep(20);
        }
    }

    private static boolean alive(Path pids, int line) {
        try {
            List<String> all = Files.readAllLines(pids);
            return all.size() > line && ProcessHandle.of(Long.parseLong(all.get(line).strip()))
                    .map(ProcessHandle::isAlive).orElse(false);
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /**
     * A runtime that times out kills the client, not the call; before, the call ran on, its delegate forever. Now the
     * call is cancelled when the client goes: the delegate is killed, the plugin fails, and its own rollback removes
     * what the ADD made (the bridge and the veth pair).
     */
    @Test
    void aCallWhoseClientIsGoneIsCancelledItsDelegateKilledAndItsAddRolledBack() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates network namespaces and links");
        start(4, Duration.ofMinutes(5), Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(10));
        Path pids = hangingIpam("hang-ipam", false, "ADD");
        try (NetNs clientNs = NetNs.create(); NetNs container = NetNs.create()) {
            TestClient add = TestClient.call("ADD").type("bridge").env("CNI_CONTAINERID", "c1")
                    .env("CNI_IFNAME", "eth0").env("CNI_PATH", dir.resolve("bin").toString())
                    .netns("/var/run/netns/c1", container.path())
                    .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"bridge\",\"bridge\":\"jcnihang0\","
                            + "\"ipam\":{\"type\":\"hang-ipam\"}}");
            add.ownNetns = clientNs.path();
            try (UnixSocket conn = sendOnly(add)) {
                awaitTrue("the delegate runs", () -> alive(pids, 0));
                try (NetlinkHandle host = Netlink.open(clientNs)) {
                    assertThat(host.findLink("jcnihang0")).as("the ADD made its bridge before its IPAM").isPresent();
                }
            } // the client is killed: its connection closes
            awaitTrue("the delegate is killed", () -> !alive(pids, 0));
            awaitTrue("the call ended", () -> service.inFlight() == 0);
            try (NetlinkHandle host = Netlink.open(clientNs); NetlinkHandle inside = Netlink.open(container)) {
                assertThat(host.findLink("jcnihang0")).as("the rollback removed the bridge").isEmpty();
                assertThat(inside.findLink("eth0")).as("and the veth pair").isEmpty();
            }
            assertThat(service.stats().abandoned.sum()).isEqualTo(1);
            assertThat(service.stats().hung.sum()).as("it ended when cancelled").isZero();
        }
    }

    /**
     * A call whose client waits for ever is bounded by the call timeout: its delegate is killed at the deadline, and
     * the rollback that follows (its IPAM DEL, which hangs as the ADD did) gets as long again, then is stopped too.
     * The client gets code 11 naming the timeout, and nothing of the ADD is left. Before, the call (and its thread)
     * waited for the delegate for ever.
     */
    @Test
    void aCallAndItsRollbackAreBoundedByTheCallTimeout() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates network namespaces and links");
        start(4, Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(20), Duration.ofSeconds(10));
        Path pids = hangingIpam("hang-ipam", false);
        try (NetNs clientNs = NetNs.create(); NetNs container = NetNs.create()) {
            TestClient add = TestClient.call("ADD").type("bridge").env("CNI_CONTAINERID", "c1")
                    .env("CNI_IFNAME", "eth0").env("CNI_PATH", dir.resolve("bin").toString())
                    .netns("/var/run/netns/c1", container.path())
                    .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"bridge\",\"bridge\":\"jcnihang1\","
                            + "\"ipam\":{\"type\":\"hang-ipam\"}}");
            add.ownNetns = clientNs.path();
            long t0 = System.nanoTime();
            TestClient.Reply reply = CompletableFuture.supplyAsync(() -> add.send(socket), clients)
                    .get(60, TimeUnit.SECONDS);
            assertThat(reply.accepted()).isTrue();
            assertThat(reply.status()).isEqualTo(1);
            assertThat(reply.stdout()).contains("\"code\": 11").contains("ran longer than 2 s");
            assertThat(System.nanoTime() - t0).as("the ADD's 2 s, then its rollback's 2 s")
                    .isBetween(TimeUnit.SECONDS.toNanos(3), TimeUnit.SECONDS.toNanos(30));
            assertThat(Files.readAllLines(pids)).as("the ADD and the rollback's DEL ran").hasSize(2);
            assertThat(alive(pids, 0) || alive(pids, 1)).as("both were killed").isFalse();
            try (NetlinkHandle host = Netlink.open(clientNs)) {
                assertThat(host.findLink("jcnihang1")).as("the rollback removed the bridge").isEmpty();
            }
            assertThat(service.stats().timedOut.sum()).isEqualTo(1);
        }
    }

    /**
     * With a call hung in a delegate on network "stuck" (its client waiting), a GC of another network runs at once
     * and a GC of "stuck" gives up at its deadline with code 11, after which that network's calls run again. Before,
     * the GC took the service-wide write lock: it, and every later ADD, DEL and CHECK of every network, waited for the
     * hung call.
     */
    @Test
    void aGcWaitsOnlyForItsOwnNetworkAndOnlyUntilItsDeadline() throws Exception {
        start(4, Duration.ofMinutes(5), Duration.ofMillis(1500), Duration.ofSeconds(5), Duration.ofSeconds(10));
        Path pids = hangingIpam("hang-ipam", false);
        try (UnixSocket hung = sendOnly(hangingDel("stuck", "c-hung", "hang-ipam"))) {
            awaitTrue("the hung call runs", () -> alive(pids, 0));

            long t0 = System.nanoTime();
            TestClient.Reply other = hostLocal("GC", "other", "").send(socket);
            assertThat(other.status()).as(other.stdout() + other.stderr()).isZero();
            assertThat(System.nanoTime() - t0).as("another network's GC does not wait")
                    .isLessThan(TimeUnit.MILLISECONDS.toNanos(1000));

            CompletableFuture<TestClient.Reply> gc = CompletableFuture.supplyAsync(
                    () -> hostLocal("GC", "stuck", "").send(socket), clients);
            TestClient.Reply add = hostLocal("ADD", "other", "c2").send(socket);
            assertThat(add.status()).as("another network's ADD runs beside the GC waiting: " + add.stdout()).isZero();
            TestClient.Reply waited = gc.get(30, TimeUnit.SECONDS);
            assertThat(waited.status()).isEqualTo(1);
            assertThat(waited.stdout()).contains("\"code\": 11").contains("still running");
            assertThat(System.nanoTime() - t0).as("the GC gave up at its deadline")
                    .isLessThan(TimeUnit.SECONDS.toNanos(20));

            TestClient.Reply sameNetwork = hostLocal("ADD", "stuck", "c3").send(socket);
            assertThat(sameNetwork.status()).as("its network's calls run again: " + sameNetwork.stdout()).isZero();
            assertThat(alive(pids, 0)).as("the hung call is still there").isTrue();
            assertThat(service.stats().waitedOut.sum()).isEqualTo(1);
        }
    }

    /**
     * Calls that stay hung after their cancellation (a delegate that left a process holding its stdout: killing the
     * delegate does not end the read) are written off: counted, their network's GC no longer waits for them, and
     * each gets a call thread in its place. Before, three such calls took all three call threads for good.
     */
    @Test
    void hungCallsAreCountedAndNeverTakeEveryCallThread() throws Exception {
        start(3, Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofMillis(300), Duration.ofSeconds(10));
        Path pids = hangingIpam("orphan-ipam", true);
        for (int i = 0; i < 3; i++) {
            int running = i;
            try (UnixSocket conn = sendOnly(hangingDel("stuck", "c-hung-" + i, "orphan-ipam"))) {
                awaitTrue("the hung call runs", () -> {
                    try {
                        return Files.exists(pids) && Files.readAllLines(pids).size() >= 2 * (running + 1);
                    } catch (java.io.IOException e) {
                        return false;
                    }
                });
            } // client killed
            int hung = i + 1;
            awaitTrue("written off as hung", () -> service.stats().hung.sum() == hung);
        }
        assertThat(service.stats().hungNow.get()).isEqualTo(3);
        assertThat(service.stats().abandoned.sum()).isEqualTo(3);

        TestClient.Reply add = hostLocal("ADD", "stuck", "c-new").send(socket);
        assertThat(add.status()).as("a new call runs with every pool thread hung: " + add.stdout()).isZero();
        TestClient.Reply gc = hostLocal("GC", "stuck", "").send(socket);
        assertThat(gc.status()).as("a GC of their network no longer waits for them: " + gc.stdout()).isZero();

        // The orphans end: the hung calls end too, and their threads are given back.
        for (String pid : Files.readAllLines(pids)) {
            ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
        }
        awaitTrue("the hung calls end", () -> service.stats().hungNow.get() == 0);
        awaitTrue("nothing in flight", () -> service.inFlight() == 0);
    }

    /**
     * A request is read under one deadline: a client that sends a byte every 300 ms is dropped at the 1 s deadline,
     * where a timeout per read let it hold a call thread for as long as it kept sending (52 s in the report).
     */
    @Test
    void aRequestTricklingInIsDroppedAtItsDeadlineNotAfterItsLastByte() throws Exception {
        start(2, Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(1));
        byte[] frame = TestClient.call("VERSION").frame();
        long t0 = System.nanoTime();
        try (UnixSocket conn = UnixSocket.connect(socket)) {
            CompletableFuture<TestClient.Reply> reply = CompletableFuture.supplyAsync(() -> TestClient.Reply.read(conn),
                    clients);
            try {
                for (int i = 0; i < frame.length && !reply.isDone(); i++) {
                    conn.send(frame, i, 1, List.of());
                    Thread.sleep(300);
                }
            } catch (io.jcni.netlink.KernelException e) {
                // the service closed the connection
            }
            TestClient.Reply dropped = reply.get(30, TimeUnit.SECONDS);
            assertThat(dropped.stdout()).contains("the request did not arrive in time");
        }
        assertThat(System.nanoTime() - t0).as("dropped at the deadline").isLessThan(TimeUnit.SECONDS.toNanos(4));
    }

    /**
     * The descriptors a client hands over are checked for their kind before anything reads them: a FIFO whose writer
     * stays open, handed over as the mount table, blocked a call thread; {@code /dev/zero} there exhausted the heap.
     * Both are refused at once, and the service goes on. (The client claims another mount namespace, so that the
     * service would compare mount tables.)
     */
    @Test
    void aFifoOrDeviceHandedOverAsTheMountTableIsRefusedWithoutBeingRead() throws Exception {
        start(2, Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10));
        Path fifo = dir.resolve("mountinfo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        Process writer = new ProcessBuilder("sh", "-c", "exec 3>'" + fifo + "'; sleep 600").start();
        Process other = new ProcessBuilder("unshare", "--mount", "sleep", "600").start();
        try {
            Path otherMountNs = Path.of("/proc/" + other.pid() + "/ns/mnt");
            awaitTrue("the other mount namespace exists", () -> {
                try {
                    return !Files.readSymbolicLink(otherMountNs).equals(Files.readSymbolicLink(
                            Path.of("/proc/self/ns/mnt")));
                } catch (java.io.IOException e) {
                    return false;
                }
            });
            for (Path table : List.of(fifo, Path.of("/dev/zero"))) {
                TestClient client = TestClient.call("VERSION");
                client.mountNs = otherMountNs;
                client.mountInfo = table;
                CompletableFuture<TestClient.Reply> reply = CompletableFuture.supplyAsync(() -> client.send(socket),
                        clients);
                TestClient.Reply refused = reply.get(10, TimeUnit.SECONDS);
                assertThat(refused.accepted()).isFalse();
                assertThat(refused.stdout()).as(table.toString()).contains("\"code\": 5")
                        .contains("the client's mount table is not a /proc/PID/mountinfo file");
            }
            assertThat(TestClient.call("VERSION").send(socket).status()).isZero();
            assertThat(service.stats().malformed.sum()).isEqualTo(2);
        } finally {
            writer.destroyForcibly().waitFor();
            other.destroyForcibly().waitFor();
        }
    }

    /** A chrooted client sees other files: it is sent to its JVM launcher ('E'), as one in other mounts is. */
    @Test
    void aChrootedClientIsSentToItsJvmLauncher() throws Exception {
        start(2, Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10));
        TestClient chrooted = TestClient.call("VERSION");
        chrooted.root = Files.createDirectories(dir.resolve("jail"));
        TestClient.Reply reply = chrooted.send(socket);
        assertThat(reply.kind()).isEqualTo('E');
        assertThat(reply.stdout()).contains("chroot");
        assertThat(service.stats().calls.sum()).isZero();
    }

    /**
     * Issue 23, item 8: paths are resolved where the caller resolves them. A relative {@code dataDir} was resolved in
     * the service's working directory, so the reservations of a client elsewhere landed there; now the call runs in
     * the client's working directory (on its thread alone), as an exec'd plugin does, and so does a delegate it
     * execs.
     */
    @Test
    void relativePathsAreResolvedInTheClientsWorkingDirectoryAsAnExecWould() throws Exception {
        start(2, Duration.ofMinutes(5), Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10));
        Path clientCwd = Files.createDirectories(dir.resolve("client-cwd"));
        TestClient add = TestClient.call("ADD").env("CNI_CONTAINERID", "rel").env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", dir.toString()).env("CNI_NETNS", "/var/run/netns/unused")
                .stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"relnet\",\"type\":\"bridge\",\"ipam\":{"
                        + "\"type\":\"host-local\",\"dataDir\":\"relative-ipam\",\"ranges\":[[{"
                        + "\"subnet\":\"10.250.0.0/24\"}]]}}");
        add.netnsState = Protocol.NETNS_UNOPENED;
        add.cwd = clientCwd;
        TestClient.Reply reply = add.send(socket);
        assertThat(reply.status()).as(reply.stdout()).isZero();
        try (java.util.stream.Stream<Path> files = Files.list(clientCwd.resolve("relative-ipam/relnet"))) {
            assertThat(files.map(f -> f.getFileName().toString())).contains("10.250.0.2");
        }
        assertThat(Path.of("relative-ipam")).as("nothing in the service's own working directory").doesNotExist();

        Path bin = Files.createDirectories(dir.resolve("cwd-bin"));
        Path where = dir.resolve("delegate-cwd");
        Path recorder = Files.writeString(bin.resolve("pwd-ipam"), "#!/bin/sh\npwd > '" + where + "'\n");
        assertThat(recorder.toFile().setExecutable(true)).isTrue();
        TestClient del = TestClient.call("DEL").type("bridge").env("CNI_CONTAINERID", "rel").env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", "../cwd-bin")
                .stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"relnet\",\"type\":\"bridge\",\"ipam\":{"
                        + "\"type\":\"pwd-ipam\"}}");
        del.cwd = clientCwd;
        TestClient.Reply deleted = del.send(socket);
        assertThat(deleted.status()).as("a relative CNI_PATH found from there: " + deleted.stdout()).isZero();
        assertThat(Files.readString(where).strip()).as("the delegate runs there too").isEqualTo(clientCwd.toString());
    }

    static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
