package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Link;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.pkg.locks.AttachmentLocks;
import io.jcni.plugins.testing.Worlds;
import io.jcni.runtime.JcniLaunchers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin service in this JVM, on a socket in a temp dir, driven by {@link TestClient} (the protocol of the C
 * client): answers as an exec would, refusals that never stop it, the order of acceptance and locking, and the
 * namespaces a call runs in.
 */
class ServiceTest {
    static final String BUILD_ID = "test-build-1";

    @TempDir
    Path dir;

    private PluginService service;
    private Path socket;
    private final ExecutorService clients = Executors.newCachedThreadPool();

    PluginService start(Set<Integer> uids, int maxCalls, int queue, Duration ioTimeout) throws Exception {
        socket = dir.resolve("run/plugins.sock");
        service = PluginService.bind(new PluginService.Settings(socket, uids, maxCalls, queue, BUILD_ID, ioTimeout,
                false), new ServiceLog(System.err, false));
        return service;
    }

    PluginService start() throws Exception {
        return start(us(), 8, 64, Duration.ofSeconds(10));
    }

    /** Root and this JVM's user (the same when the tests run as root). */
    static Set<Integer> us() throws Exception {
        return new java.util.HashSet<>(java.util.List.of(0, uid()));
    }

    @AfterEach
    void stop() {
        clients.shutdownNow();
        if (service != null) {
            service.stop(Duration.ofSeconds(10));
        }
    }

    static int uid() throws Exception {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    }

    @Test
    void theSocketIsPrivateAndRemovedAtTheEnd() throws Exception {
        start();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())))
                .isEqualTo("rwx------");
        service.stop(Duration.ofSeconds(5));
        assertThat(socket).doesNotExist();
    }

    @Test
    void aVersionCallIsAcceptedThenAnsweredWithWhatAnExecPrints() throws Exception {
        start();
        TestClient.Reply reply = TestClient.call("VERSION").send(socket);
        assertThat(reply.accepted()).isTrue();
        assertThat(reply.kind()).isEqualTo('R');
        assertThat(reply.status()).isZero();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PluginRegistry.skel("host-local").run(Map.of("CNI_COMMAND", "VERSION"), new byte[0], out,
                new ByteArrayOutputStream());
        assertThat(reply.stdout()).isEqualTo(out.toString(StandardCharsets.UTF_8)).startsWith("{\"cniVersion\":");
        assertThat(service.stats().calls.sum()).isEqualTo(1);
    }

    @Test
    void aClientOfAnotherBuildOrProtocolIsToldSoAndNothingRuns() throws Exception {
        start();
        TestClient other = TestClient.call("VERSION");
        other.buildId = "another-build";
        TestClient.Reply reply = other.send(socket);
        assertThat(reply.accepted()).isFalse();
        assertThat(reply.kind()).isEqualTo('M');
        assertThat(reply.stdout()).isEqualTo(BUILD_ID);
        TestClient newer = TestClient.call("VERSION");
        newer.protocol = Protocol.VERSION + 1;
        assertThat(newer.send(socket).kind()).isEqualTo('M');
        assertThat(service.stats().calls.sum()).isZero();
        assertThat(service.stats().mismatched.sum()).isEqualTo(2);
    }

    @Test
    void malformedOversizedAndTruncatedRequestsAreRefusedAndTheServiceGoesOn() throws Exception {
        start();
        TestClient client = TestClient.call("VERSION");
        byte[] garbage = client.frame();
        garbage[0] = 'X';
        TestClient.Reply notOurs = sendRaw(garbage, client);
        assertThat(notOurs.accepted()).isFalse();
        assertThat(notOurs.status()).isEqualTo(1);
        assertThat(notOurs.stdout()).contains("\"code\": 5").contains("not a jcni plugin client");

        byte[] huge = client.frame();
        Protocol.view(huge).putInt(12, 1 << 30);
        assertThat(sendRaw(huge, client).stdout()).contains("request too large: environment of 1073741824 bytes");

        TestClient noDescriptor = TestClient.call("VERSION");
        byte[] claims = noDescriptor.frame();
        noDescriptor.ownNetns = null;
        assertThat(sendRaw(claims, noDescriptor).stdout()).contains("5 expected").contains("4 descriptors");

        try (UnixSocket conn = UnixSocket.connect(socket)) {
            byte[] frame = client.frame();
            conn.send(frame, 0, frame.length / 2, java.util.List.of()); // and gone
        }
        TestClient.Reply fine = TestClient.call("VERSION").send(socket);
        assertThat(fine.status()).isZero();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (service.stats().malformed.sum() < 4 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(service.stats().malformed.sum()).isEqualTo(4);
        assertThat(service.stats().calls.sum()).isEqualTo(1);
    }

    private TestClient.Reply sendRaw(byte[] frame, TestClient client) {
        try (UnixSocket conn = UnixSocket.connect(socket)) {
            return client.send(conn, frame);
        }
    }

    @Test
    void beyondTheRunningAndWaitingCallsAConnectionGetsErrorElevenAtOnce() throws Exception {
        start(us(), 1, 1, Duration.ofSeconds(30));
        try (UnixSocket running = UnixSocket.connect(socket); UnixSocket waiting = UnixSocket.connect(socket)) {
            awaitInFlight(2);
            TestClient.Reply busy = TestClient.call("VERSION").send(socket);
            assertThat(busy.accepted()).isFalse();
            assertThat(busy.status()).isEqualTo(1);
            assertThat(busy.stdout()).contains("\"code\": 11").contains("the jcni plugin service is busy");
            assertThat(service.stats().busy.sum()).isEqualTo(1);
        }
        // The two idle connections end; the service serves again.
        awaitInFlight(0);
        assertThat(TestClient.call("VERSION").send(socket).status()).isZero();
    }

    @Test
    void aClientThatStallsHoldsItsCallThreadOnlyUntilTheTimeout() throws Exception {
        start(us(), 1, 4, Duration.ofMillis(500));
        try (UnixSocket stalled = UnixSocket.connect(socket)) {
            byte[] frame = TestClient.call("VERSION").frame();
            stalled.send(frame, 0, 10, java.util.List.of());
            CompletableFuture<TestClient.Reply> next = CompletableFuture.supplyAsync(
                    () -> TestClient.call("VERSION").send(socket), clients);
            TestClient.Reply reply = next.get(30, TimeUnit.SECONDS);
            assertThat(reply.status()).as("served once the stalled one timed out").isZero();
            TestClient.Reply dropped = TestClient.Reply.read(stalled);
            assertThat(dropped.accepted()).isFalse();
            assertThat(dropped.stdout()).as("the stalled client was told and dropped")
                    .contains("\"code\": 5").contains("the request did not arrive in time");
        }
    }

    @Test
    void aPeerWhoseUidIsNotAllowedGetsAClearErrorAndTheServiceGoesOn() throws Exception {
        start(Set.of(424242), 4, 4, Duration.ofSeconds(10));
        for (int i = 0; i < 3; i++) {
            TestClient.Reply reply = TestClient.call("VERSION").send(socket);
            assertThat(reply.accepted()).isFalse();
            assertThat(reply.status()).isEqualTo(1);
            assertThat(reply.stdout()).contains("does not serve uid " + uid());
        }
        assertThat(service.stats().denied.sum()).isEqualTo(3);
        assertThat(service.stats().calls.sum()).isZero();
    }

    @Test
    void anUnknownTypeIsAnsweredAsTheLauncherAnswersIt() throws Exception {
        start();
        TestClient.Reply reply = TestClient.call("VERSION").type("nonesuch").send(socket);
        assertThat(reply.status()).isEqualTo(1);
        assertThat(reply.stdout()).contains("\"code\": 999").contains("unknown plugin type \\\"nonesuch\\\"");
    }

    @Test
    void callsOnOneAttachmentWaitForEachOtherAndCallsOnOthersDoNot() throws Exception {
        start();
        AttachmentLocks.Held held = service.attachments().tryAcquire("c1", "eth0");
        CompletableFuture<TestClient.Reply> first;
        try {
            first = CompletableFuture.supplyAsync(() -> hostLocalAdd("c1").send(socket), clients);
            TestClient.Reply other = hostLocalAdd("c2").send(socket);
            assertThat(other.status()).as(other.stdout() + other.stderr()).isZero();
            Thread.sleep(300);
            assertThat(first).as("the call on the held attachment waits").isNotDone();
        } finally {
            held.close();
        }
        TestClient.Reply reply = first.get(30, TimeUnit.SECONDS);
        assertThat(reply.status()).as(reply.stdout()).isZero();
        assertThat(reply.stdout()).contains("10.251.0.");
    }

    /**
     * A GC waits for the ADDs, DELs and CHECKs in flight, and new ones wait for it: a runtime that killed a client on
     * its timeout sends its GC while the service still runs that ADD, and the GC must see the reservation it made
     * (here: an ADD held on its attachment lock, then a GC with no valid attachment, which releases it).
     */
    @Test
    void aGcWaitsForTheCallsInFlightAndThenCollectsWhatTheyMade() throws Exception {
        start();
        AttachmentLocks.Held held = service.attachments().tryAcquire("c1", "eth0");
        CompletableFuture<TestClient.Reply> add;
        CompletableFuture<TestClient.Reply> gc;
        try {
            add = CompletableFuture.supplyAsync(() -> hostLocalAdd("c1").send(socket), clients);
            awaitInFlight(1);
            TestClient collect = TestClient.call("GC").type("host-local").env("CNI_PATH", dir.toString())
                    .stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"svc\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                            + "\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\",\"ranges\":[[{\"subnet\":"
                            + "\"10.251.0.0/24\"}]]},\"cni.dev/valid-attachments\":[]}");
            gc = CompletableFuture.supplyAsync(() -> collect.send(socket), clients);
            awaitInFlight(2);
            Thread.sleep(300);
            assertThat(gc).as("GC waits for the ADD in flight").isNotDone();
        } finally {
            held.close();
        }
        TestClient.Reply added = add.get(30, TimeUnit.SECONDS);
        assertThat(added.status()).as(added.stdout() + added.stderr()).isZero();
        TestClient.Reply collected = gc.get(30, TimeUnit.SECONDS);
        assertThat(collected.status()).as(collected.stdout() + collected.stderr()).isZero();
        try (var files = Files.list(dir.resolve("ipam/svc"))) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("10.251.")))
                    .as("the GC ran after the ADD and released its address").isEmpty();
        }
    }

    private TestClient hostLocalAdd(String container) {
        TestClient c = TestClient.call("ADD").env("CNI_CONTAINERID", container).env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", dir.toString()).env("CNI_NETNS", "/var/run/netns/unused")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                        + "\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\",\"ranges\":[[{\"subnet\":"
                        + "\"10.251.0.0/24\"}]]}}");
        c.netnsState = Protocol.NETNS_UNOPENED;
        return c;
    }

    @Test
    void aNamespaceTheClientFoundMissingIsMissingForThePlugin() throws Exception {
        start();
        TestClient add = TestClient.call("ADD").type("loopback").env("CNI_CONTAINERID", "c1").env("CNI_IFNAME", "lo")
                .env("CNI_PATH", dir.toString()).env("CNI_NETNS", "/var/run/netns/gone")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"loopback\"}");
        add.netnsState = Protocol.NETNS_ABSENT;
        TestClient.Reply reply = add.send(socket);
        assertThat(reply.status()).isEqualTo(1);
        assertThat(reply.stdout()).contains("\"code\": 8")
                .contains("failed to open netns \\\"/var/run/netns/gone\\\": no such file");
        add.env.put("CNI_COMMAND", "DEL");
        assertThat(add.send(socket).status()).as("DEL of a namespace that is gone succeeds").isZero();
    }

    /**
     * The runtime's namespace is the plugin's host side, wherever the service runs; CNI_NETNS is the descriptor the
     * client opened, while the result and messages name the path as the runtime gave it.
     */
    @Test
    void theCallRunsInTheClientsNamespaceOnTheContainerNamespaceItHandedOver() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates network namespaces and links");
        start();
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path ipam = Files.writeString(bin.resolve("host-local"), "#!/bin/sh\n"
                + JcniLaunchers.markerLine("host-local") + "\nexit 1\n");
        assertThat(ipam.toFile().setExecutable(true)).isTrue();
        try (NetNs clientNs = NetNs.create(); NetNs container = NetNs.create()) {
            String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"bridge\",\"bridge\":\"jcnisvc0\","
                    + "\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\","
                    + "\"ranges\":[[{\"subnet\":\"10.252.0.0/24\"}]]}}";
            TestClient add = TestClient.call("ADD").type("bridge").env("CNI_CONTAINERID", "c1")
                    .env("CNI_IFNAME", "eth0").env("CNI_PATH", bin.toString())
                    .netns("/var/run/netns/as-the-runtime-named-it", container.path()).stdin(conf);
            add.ownNetns = clientNs.path();
            TestClient.Reply reply = add.send(socket);
            assertThat(reply.status()).as(reply.stdout() + reply.stderr()).isZero();
            assertThat(reply.stdout()).contains("\"sandbox\": \"/var/run/netns/as-the-runtime-named-it\"");
            try (NetlinkHandle host = Netlink.open(clientNs); NetlinkHandle inside = Netlink.open(container);
                    NetlinkHandle own = Netlink.open()) {
                assertThat(host.findLink("jcnisvc0")).as("the bridge is in the client's namespace").isPresent();
                assertThat(own.findLink("jcnisvc0")).as("and not in the service's").isEmpty();
                Optional<Link> eth0 = inside.findLink("eth0");
                assertThat(eth0).isPresent();
            }
            add.env.put("CNI_COMMAND", "DEL");
            TestClient.Reply del = add.send(socket);
            assertThat(del.status()).as(del.stdout() + del.stderr()).isZero();
            try (NetlinkHandle inside = Netlink.open(container)) {
                assertThat(inside.findLink("eth0")).isEmpty();
            }

            // The client's own namespace handed over as CNI_NETNS: refused as an exec'd plugin refuses it.
            TestClient own = TestClient.call("ADD").type("loopback").env("CNI_CONTAINERID", "c2")
                    .env("CNI_IFNAME", "lo").env("CNI_PATH", bin.toString())
                    .netns("/proc/1/ns/net-as-named", clientNs.path())
                    .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"loopback\"}");
            own.ownNetns = clientNs.path();
            TestClient.Reply refused = own.send(socket);
            assertThat(refused.status()).isEqualTo(1);
            assertThat(refused.stdout()).contains("\"code\": 8")
                    .contains("plugin's netns and netns from CNI_NETNS should not be the same");
        }
    }

    /**
     * A client whose mount namespace mounts something else where a plugin keeps state (podman in a mount namespace of
     * its own, with its own /var/lib/cni) is told 'E': nothing runs in the service, whose files are not the ones the
     * caller looks at. A namespace as `ip netns exec` makes it (all the same mounts, its own /sys) is served.
     */
    @Test
    void aClientThatSeesOtherFilesIsSentToItsJvmLauncherAndAnIpNetnsExecOneIsServed() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates mount namespaces");
        start();
        Path state = Files.createDirectories(dir.resolve("state"));
        Process own = inMountNamespace("mount -t tmpfs jcni-test " + state);
        Process likeIpNetnsExec = inMountNamespace("umount -l /sys && mount -t sysfs none /sys");
        try {
            TestClient elsewhere = TestClient.call("VERSION");
            elsewhere.mountNs = Path.of("/proc/" + own.pid() + "/ns/mnt");
            elsewhere.mountInfo = Path.of("/proc/" + own.pid() + "/mountinfo");
            TestClient.Reply reply = elsewhere.send(socket);
            assertThat(reply.accepted()).isFalse();
            assertThat(reply.kind()).isEqualTo('E');
            assertThat(reply.stdout()).contains("client has").contains(state.toString());
            assertThat(service.stats().elsewhere.sum()).isEqualTo(1);

            TestClient netnsExec = TestClient.call("VERSION");
            netnsExec.mountNs = Path.of("/proc/" + likeIpNetnsExec.pid() + "/ns/mnt");
            netnsExec.mountInfo = Path.of("/proc/" + likeIpNetnsExec.pid() + "/mountinfo");
            TestClient.Reply served = netnsExec.send(socket);
            assertThat(served.kind()).isEqualTo('R');
            assertThat(served.status()).isZero();

            TestClient silent = TestClient.call("VERSION");
            silent.mountNs = null;
            assertThat(silent.send(socket).kind()).as("a client that does not say what it sees").isEqualTo('E');
            assertThat(service.stats().calls.sum()).isEqualTo(1);
        } finally {
            own.destroyForcibly().waitFor();
            likeIpNetnsExec.destroyForcibly().waitFor();
        }
    }

    @Test
    void theMountsThatDecideWhichFilesAPluginSees() {
        String info = """
                22 1 0:21 / / rw,relatime shared:1 - overlay overlay rw
                23 22 0:22 / /sys rw - sysfs sysfs rw
                24 23 0:23 / /sys/fs/cgroup rw - cgroup2 cgroup rw
                25 22 0:4 net:[4026532300] /run/netns/a rw - nsfs nsfs rw
                26 22 8:1 /etc/netns/a/resolv.conf /etc/resolv.conf rw - ext4 /dev/sda1 rw
                27 22 0:40 / /var/lib/cni rw,relatime - tmpfs jcni-test rw
                28 22 8:1 /etc/hosts /etc/hosts rw master:3 - ext4 /dev/sda1 rw
                """;
        assertThat(MountView.mounts(info)).containsExactly("0:21 / /", "0:40 / /var/lib/cni",
                "8:1 /etc/hosts /etc/hosts");
    }

    /** A process in a mount namespace of its own (private below /), after {@code command} ran there. */
    private static Process inMountNamespace(String command) throws Exception {
        Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c",
                command + " && echo ready && exec sleep 60").redirectErrorStream(true).start();
        java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8));
        String line = out.readLine();
        if (!"ready".equals(line)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("could not set up a mount namespace with " + command + ": " + line);
        }
        return p;
    }

    /**
     * sysfs lists the devices of the namespace it was mounted for, so a plugin reading /sys (host-device's
     * kernelpath) reads the client's: here a fake tree, whose one device the plugin then looks for.
     */
    @Test
    void hostDeviceReadsTheSysfsTheClientHandedOver() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates network namespaces");
        start();
        Path sys = dir.resolve("fake-sys");
        Files.createDirectories(sys.resolve("devices/virtual/net/jcnifake0"));
        try (NetNs clientNs = NetNs.create(); NetNs container = NetNs.create()) {
            TestClient add = TestClient.call("ADD").type("host-device").env("CNI_CONTAINERID", "c1")
                    .env("CNI_IFNAME", "net1").env("CNI_PATH", dir.toString())
                    .netns("/var/run/netns/c1", container.path())
                    .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"host-device\","
                            + "\"kernelpath\":\"/sys/devices/virtual\"}");
            add.ownNetns = clientNs.path();
            add.sysfs = sys;
            TestClient.Reply reply = add.send(socket);
            assertThat(reply.status()).isEqualTo(1);
            assertThat(reply.stdout()).as("the device listed in the handed-over sysfs").contains("jcnifake0");
        }
    }

    /**
     * A delegate the plugin execs gets the client's environment with JCNI_SERVICE_SOCKET=off: a jcni client among the
     * delegates (one this service does not run in-process) must not come back to the service, where it would wait for
     * a call thread held by its own caller.
     */
    @Test
    void aDelegateTheServiceExecsNeverComesBackToIt() throws Exception {
        start();
        Path bin = Files.createDirectory(dir.resolve("bin"));
        Path record = dir.resolve("delegate-env");
        Path ipam = Files.writeString(bin.resolve("recorder"), "#!/bin/sh\nenv > '" + record + "'\ncat >/dev/null\n");
        assertThat(ipam.toFile().setExecutable(true)).isTrue();
        // bridge's DEL releases its IPAM first, also without a namespace (nothing else to do here without root).
        TestClient del = TestClient.call("DEL").type("bridge").env("CNI_CONTAINERID", "c1").env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", bin.toString()).env("JCNI_SERVICE_SOCKET", socket.toString())
                .env("JCNI_MARK", "from-the-client")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"svc\",\"type\":\"bridge\",\"ipam\":"
                        + "{\"type\":\"recorder\"}}");
        TestClient.Reply reply = del.send(socket);
        assertThat(reply.status()).as(reply.stdout() + reply.stderr()).isZero();
        assertThat(Files.readAllLines(record)).contains("JCNI_SERVICE_SOCKET=off", "JCNI_MARK=from-the-client",
                "CNI_COMMAND=DEL");
    }

    /**
     * Many calls at once in one JVM: 32 host-local ADDs for different containers, in debug mode, each get an address
     * of their own, reserved for their container, and their own timing line (Timing is per thread) and nothing of
     * another call's output.
     */
    @Test
    void concurrentCallsGetTheirOwnResultsLogsAndAddresses() throws Exception {
        start();
        int n = 32;
        java.util.List<CompletableFuture<TestClient.Reply>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            TestClient c = hostLocalAdd("par-" + i).env("JCNI_DEBUG", "1");
            calls.add(CompletableFuture.supplyAsync(() -> c.send(socket), clients));
        }
        java.util.Set<String> addresses = new java.util.HashSet<>();
        for (int i = 0; i < n; i++) {
            TestClient.Reply reply = calls.get(i).get(60, TimeUnit.SECONDS);
            assertThat(reply.status()).as(reply.stdout() + reply.stderr()).isZero();
            String address = reply.stdout().replaceAll("(?s).*\"address\": \"([0-9.]+)/24\".*", "$1");
            addresses.add(address);
            assertThat(Files.readString(dir.resolve("ipam/svc").resolve(address))).isEqualTo("par-" + i + "\r\neth0");
            assertThat(reply.stderr().lines().filter(l -> l.contains("timing ADD:")).count()).as(reply.stderr())
                    .isEqualTo(1);
            assertThat(reply.stderr()).doesNotContain("par-" + ((i + 1) % n) + "\"");
        }
        assertThat(addresses).hasSize(n);
    }

    private void awaitInFlight(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (service.inFlight() != n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(service.inFlight()).isEqualTo(n);
    }

}
