package io.jcni.netlink.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jcni.netlink.Kernel;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.TestNamespace;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unix stream sockets as jcni's plugin service uses them: descriptors handed over with SCM_RIGHTS (and opened on the
 * receiving side through /proc/self/fd), peer credentials, timeouts, shutdown waking a blocked accept, an inherited
 * listening socket, interop with the JDK's own Unix sockets.
 */
class UnixSocketTest {
    @TempDir
    Path dir;

    @Test
    void bytesAndDescriptorsTravelTogetherAndTheReceiverOpensWhatTheSenderOpened() throws Exception {
        Path file = Files.writeString(dir.resolve("payload"), "handed over");
        Path path = dir.resolve("s.sock");
        try (UnixSocket listener = UnixSocket.listen(path, 4);
                UnixSocket client = UnixSocket.connect(path);
                UnixSocket server = listener.accept();
                Descriptor handed = Descriptor.openPath(file)) {
            byte[] message = "hello".getBytes(StandardCharsets.US_ASCII);
            client.send(message, 0, message.length, List.of(handed));
            byte[] buffer = new byte[64];
            UnixSocket.Received received = server.receive(buffer, 0, buffer.length, 4);
            try {
                assertThat(new String(buffer, 0, received.bytes(), StandardCharsets.US_ASCII)).isEqualTo("hello");
                assertThat(received.descriptors()).hasSize(1);
                assertThat(received.truncated()).isFalse();
                Descriptor got = received.descriptors().getFirst();
                assertThat(got.fd()).isNotEqualTo(handed.fd()).as("a new number in this process");
                assertThat(Files.readString(got.procPath())).isEqualTo("handed over");
            } finally {
                received.closeDescriptors();
            }
            assertThat(received.descriptors().getFirst().isOpen()).isFalse();
        }
    }

    @Test
    void descriptorsBeyondTheLimitAreClosedByTheKernelAndReported() throws Exception {
        Path path = dir.resolve("s.sock");
        long before = openDescriptors();
        try (UnixSocket listener = UnixSocket.listen(path, 4);
                UnixSocket client = UnixSocket.connect(path);
                UnixSocket server = listener.accept();
                Descriptor a = Descriptor.openPath(dir);
                Descriptor b = Descriptor.openPath(dir);
                Descriptor c = Descriptor.openPath(dir)) {
            client.send(new byte[] {1}, 0, 1, List.of(a, b, c));
            UnixSocket.Received received = server.receive(new byte[8], 0, 8, 1);
            received.closeDescriptors();
            assertThat(received.descriptors()).hasSize(1);
            assertThat(received.truncated()).isTrue();
            // Descriptors attached to bytes read without room for them are dropped too.
            client.send(new byte[] {2}, 0, 1, List.of(a, b));
            assertThat(server.read(new byte[8], 0, 8)).isEqualTo(1);
        }
        assertThat(openDescriptors()).as("nothing left open in this process").isEqualTo(before);
    }

    @Test
    void thePeerCredentialsAreThoseOfTheConnectingProcess() {
        Path path = dir.resolve("s.sock");
        try (UnixSocket listener = UnixSocket.listen(path, 4);
                UnixSocket client = UnixSocket.connect(path);
                UnixSocket server = listener.accept()) {
            PeerCredentials peer = server.peer();
            assertThat(peer.pid()).isEqualTo((int) ProcessHandle.current().pid());
            assertThat(peer.uid()).isEqualTo(Integer.parseInt(Kernel.sh("id", "-u").strip()));
            assertThat(client.peer().pid()).isEqualTo(peer.pid());
        }
    }

    @Test
    void aReceiveTimeoutIsEagainAndTheEndOfStreamIsZero() {
        Path path = dir.resolve("s.sock");
        try (UnixSocket listener = UnixSocket.listen(path, 4);
                UnixSocket client = UnixSocket.connect(path);
                UnixSocket server = listener.accept()) {
            server.timeouts(Duration.ofMillis(50), Duration.ofMillis(50));
            assertThatThrownBy(() -> server.read(new byte[8], 0, 8)).isInstanceOfSatisfying(KernelException.class,
                    e -> assertThat(UnixSocket.isTimeout(e)).as(e.getMessage()).isTrue());
            client.close();
            assertThat(server.read(new byte[8], 0, 8)).isZero();
            assertThatThrownBy(() -> server.send(new byte[] {1})).as("the peer has gone: no SIGPIPE, an error")
                    .isInstanceOfSatisfying(KernelException.class, e -> assertThat(e.errnoName())
                            .isIn("EPIPE", "ECONNRESET"));
        }
    }

    @Test
    void readFullyWaitsUntilTheDeadlineAndReportsAPeerThatClosedHalfway() {
        Path path = dir.resolve("f.sock");
        try (UnixSocket listener = UnixSocket.listen(path, 4);
                UnixSocket client = UnixSocket.connect(path);
                UnixSocket server = listener.accept()) {
            byte[] got = new byte[6];
            server.send("abc".getBytes(StandardCharsets.US_ASCII));
            long started = System.nanoTime();
            assertThatThrownBy(() -> client.readFully(got, 0, 6, System.currentTimeMillis() + 200))
                    .as("three of six bytes, then nothing: the deadline ends the wait")
                    .isInstanceOfSatisfying(KernelException.class,
                            e -> assertThat(UnixSocket.isTimeout(e)).as(e.getMessage()).isTrue());
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(150L, 5_000L);
            server.send("defghi".getBytes(StandardCharsets.US_ASCII));
            assertThat(client.readFully(got, 0, 6, System.currentTimeMillis() + 5_000)).isTrue();
            assertThat(new String(got, StandardCharsets.US_ASCII)).isEqualTo("defghi");
            server.send("xy".getBytes(StandardCharsets.US_ASCII));
            server.close();
            assertThat(client.readFully(got, 0, 6, System.currentTimeMillis() + 5_000)).as("the peer closed").isFalse();
        }
    }

    @Test
    void connectFailuresNameThePathAndTheReason() throws Exception {
        Path missing = dir.resolve("missing.sock");
        assertThatThrownBy(() -> UnixSocket.connect(missing)).isInstanceOfSatisfying(KernelException.class, e -> {
            assertThat(e.isNotFound()).isTrue();
            assertThat(e.getMessage()).isEqualTo("connect " + missing + ": ENOENT (No such file or directory)");
        });
        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(stale));
        }
        assertThatThrownBy(() -> UnixSocket.connect(stale)).hasMessage("connect " + stale
                + ": ECONNREFUSED (Connection refused)");
        Path tooLong = dir.resolve("x".repeat(120));
        assertThatThrownBy(() -> UnixSocket.connect(tooLong)).hasMessageContaining("ENAMETOOLONG");
    }

    @Test
    void shutdownWakesAThreadBlockedInAccept() throws Exception {
        Path path = dir.resolve("s.sock");
        try (UnixSocket listener = UnixSocket.listen(path, 4)) {
            CompletableFuture<Throwable> accepting = CompletableFuture.supplyAsync(() -> {
                try {
                    listener.accept().close();
                    return null;
                } catch (KernelException e) {
                    return e;
                }
            }, runnable -> Thread.ofPlatform().start(runnable));
            Thread.sleep(100);
            listener.shutdown();
            Throwable failure = assertTimeoutPreemptively(Duration.ofSeconds(10),
                    () -> accepting.get(10, TimeUnit.SECONDS));
            assertThat(failure).isInstanceOf(KernelException.class);
        }
    }

    @Test
    void interoperatesWithTheJdksUnixSockets() throws Exception {
        Path path = dir.resolve("jdk.sock");
        try (ServerSocketChannel jdk = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            jdk.bind(UnixDomainSocketAddress.of(path));
            try (UnixSocket client = UnixSocket.connect(path); SocketChannel accepted = jdk.accept()) {
                client.send("ping".getBytes(StandardCharsets.US_ASCII));
                ByteBuffer in = ByteBuffer.allocate(16);
                accepted.read(in);
                assertThat(new String(in.array(), 0, in.position(), StandardCharsets.US_ASCII)).isEqualTo("ping");
            }
        }
        assertThatThrownBy(() -> UnixSocket.connect(dir.resolve("nobody.sock")))
                .isInstanceOfSatisfying(KernelException.class, e -> assertThat(e.isNotFound()).isTrue());
        assertThatThrownBy(() -> UnixSocket.listen(dir.resolve("x".repeat(120)), 1))
                .isInstanceOfSatisfying(KernelException.class, e -> assertThat(e.errnoName()).isEqualTo("ENAMETOOLONG"));
    }

    @Test
    void anInheritedDescriptorIsAdoptedOnlyIfItIsAListeningUnixStreamSocket() throws Exception {
        Path path = dir.resolve("s.sock");
        try (UnixSocket listener = UnixSocket.listen(path, 4)) {
            // The same socket under its number, as systemd would pass it.
            UnixSocket adopted = UnixSocket.inherited(listener.fd());
            try (UnixSocket client = UnixSocket.connect(path); UnixSocket server = adopted.accept()) {
                assertThat(server.peer().pid()).isEqualTo((int) ProcessHandle.current().pid());
            }
            try (UnixSocket client = UnixSocket.connect(path)) {
                assertThatThrownBy(() -> UnixSocket.inherited(client.fd())).as("connected, not listening")
                        .isInstanceOfSatisfying(KernelException.class,
                                e -> assertThat(e.getMessage()).contains("not a listening Unix stream socket"));
            }
        }
        try (Descriptor file = Descriptor.openPath(dir)) {
            assertThatThrownBy(() -> UnixSocket.inherited(file.fd())).isInstanceOf(KernelException.class);
        }
    }

    @Test
    void aNamespaceHandedOverAsADescriptorOpensWithTheChecksOfAPathAndItsName() throws Exception {
        Kernel.assumeRoot();
        try (TestNamespace t = TestNamespace.create();
                Descriptor handed = Descriptor.openPath(Path.of("/run/netns", t.name));
                NetNs opened = NetNs.openDescriptor(handed, Path.of("/as/the/client/saw/it"))) {
            assertThat(opened.isSame(t.ns)).isTrue();
            assertThat(opened.path()).isEqualTo(Path.of("/as/the/client/saw/it"));
        }
        Kernel.sh("mkfifo", dir.resolve("fifo").toString());
        try (Descriptor fifo = Descriptor.openPath(dir.resolve("fifo"))) {
            assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThatThrownBy(
                    () -> NetNs.openDescriptor(fifo, Path.of("/x/fifo"))).isInstanceOfSatisfying(
                    NetlinkException.class, e -> assertThat(e.getMessage())
                            .isEqualTo("open netns /x/fifo: EINVAL (Invalid argument): not a namespace file (a FIFO)")));
        }
    }

    private static long openDescriptors() throws Exception {
        try (var files = Files.list(Path.of("/proc/self/fd"))) {
            return files.count();
        }
    }
}
