package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.spec.CniJson;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon's socket against clients that misbehave: frames of length 0 or beyond the limit, bytes that are not
 * JSON, requests of another protocol version, unknown commands, missing or malformed fields, a client that connects
 * and sends nothing. Each gets an error frame (or, for silence, a closed connection) and the daemon goes on serving;
 * no request leaves a lock or a lease behind.
 */
class DaemonServerTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private LeaseManager manager;
    private DaemonServer server;
    private Thread serving;
    private Path socket;

    @BeforeEach
    void start() throws IOException {
        PrintStream log = new PrintStream(logBytes, true, StandardCharsets.UTF_8);
        manager = LeaseManager.start(LeaseManager.Settings.defaults(dir.resolve("state")), log);
        socket = dir.resolve("run/dhcp.sock");
        server = DaemonServer.bind(socket, manager, log, 500);
        serving = new Thread(server::serve, "test-dhcp-daemon");
        serving.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        server.close();
        manager.close();
        serving.join(5000);
    }

    private JsonObject exchange(byte[] raw) throws Exception {
        try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            c.connect(UnixDomainSocketAddress.of(socket));
            ByteBuffer out = ByteBuffer.wrap(raw);
            while (out.hasRemaining()) {
                c.write(out);
            }
            return (JsonObject) CniJson.parse(DaemonProtocol.read(c));
        }
    }

    private static byte[] frame(byte[] body) {
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    private static byte[] frame(String json) {
        return frame(json.getBytes(StandardCharsets.UTF_8));
    }

    private static String error(JsonObject reply) throws Exception {
        ConfigNode error = ConfigNode.root(reply).requireField("error");
        return error.requireField("code").asLong(0, 1000) + " " + error.requireString("msg");
    }

    private void assertStillServes() throws Exception {
        JsonObject status = exchange(frame(DaemonProtocol.request(DaemonProtocol.STATUS, "", "", "", "", "",
                JsonObject.EMPTY, null).toString()));
        assertThat(status.has("error")).as(status.toString()).isFalse();
        assertThat(manager.locksInUse()).isZero();
        assertThat(manager.leaseCount()).isZero();
    }

    @Test
    void theSocketIsPrivateToRootAndItsGroup() throws Exception {
        assertThat(Files.getAttribute(socket, "unix:mode")).isEqualTo(0140660);
        assertThat(Files.getPosixFilePermissions(socket.getParent()).toString()).isEqualTo(
                "[OWNER_READ, OWNER_WRITE, OWNER_EXECUTE]");
        assertStillServes();
    }

    @Test
    void framesOutOfBoundsAreRefusedBeforeAnythingIsRead() throws Exception {
        assertThat(error(exchange(new byte[] {0, 0, 0, 0}))).isEqualTo(
                "6 dhcp daemon: bad request: a frame of 0 bytes (1 to 4194304 allowed)");
        assertThat(error(exchange(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff}))).isEqualTo(
                "6 dhcp daemon: bad request: a frame of 4294967295 bytes (1 to 4194304 allowed)");
        assertThat(error(exchange(new byte[] {0, 0x40, 0, 1}))).contains("a frame of 4194305 bytes");
        assertStillServes();
    }

    @Test
    void whatIsNotARequestGetsItsErrorAndTheDaemonGoesOn() throws Exception {
        assertThat(error(exchange(frame(new byte[] {'{', (byte) 0xc3})))).startsWith("6 ");
        assertThat(error(exchange(frame("[1,2,3]")))).isEqualTo("6 request: expected object, got array");
        assertThat(error(exchange(frame("{\"jcniDhcp\":2,\"command\":\"STATUS\"}")))).isEqualTo(
                "1 dhcp daemon protocol version 2 is not 1");
        assertThat(error(exchange(frame("{\"jcniDhcp\":1,\"command\":\"REBOOT\"}")))).isEqualTo(
                "6 unknown dhcp daemon command \"REBOOT\"");
        assertThat(error(exchange(frame("{\"jcniDhcp\":1,\"command\":\"ADD\",\"network\":\"n\",\"containerId\":\"c\","
                + "\"ifName\":\"eth0\"}")))).isEqualTo("4 ADD without a netns");
        assertThat(error(exchange(frame("{\"jcniDhcp\":1,\"command\":\"DEL\",\"network\":\"n\",\"containerId\":"
                + "\"../../etc\",\"ifName\":\"eth0\"}")))).isEqualTo("4 invalid characters in containerID");
        assertThat(error(exchange(frame("{\"jcniDhcp\":1,\"command\":\"DEL\",\"network\":\"n\",\"containerId\":\"c\","
                + "\"ifName\":\"a/b\"}")))).isEqualTo("4 interface name contains / or : or whitespace characters");
        assertThat(error(exchange(frame("{\"jcniDhcp\":1,\"command\":\"GC\",\"network\":\"n\"}")))).isEqualTo(
                "7 GC without cni.dev/valid-attachments");
        assertThat(error(exchange(frame("{\"jcniDhcp\":1,\"command\":\"ADD\",\"network\":\"n\",\"containerId\":\"c\","
                + "\"ifName\":\"eth0\",\"netns\":\"/x\",\"ipam\":{\"provide\":[{\"option\":\"nope\"}]}}"))))
                .startsWith("7 Can not parse option \"nope\"");
        assertStillServes();
        assertThat(Files.list(dir.resolve("state"))).isEmpty();
    }

    @Test
    void aClientThatSendsNothingIsClosedAfterTheRequestTimeLimit() throws Exception {
        try (SocketChannel silent = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            long start = System.nanoTime();
            int read = silent.read(ByteBuffer.allocate(1));
            assertThat(read).as("closed by the daemon").isEqualTo(-1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(400L, 5000L);
        }
        // A half frame, then silence: the same.
        try (SocketChannel half = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            half.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 50, '{'}));
            assertThat(half.read(ByteBuffer.allocate(1))).isEqualTo(-1);
        }
        assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains(
                "a client sent no complete request within 500 ms");
        assertStillServes();
    }

    @Test
    void delOfAnAttachmentWithoutLeaseSucceedsAndCheckSaysThereIsNone() throws Exception {
        JsonObject del = exchange(frame(DaemonProtocol.request(DaemonProtocol.DEL, "net", "c1", "", "eth0", "",
                JsonObject.EMPTY, null).toString()));
        assertThat(del).isEqualTo(DaemonProtocol.ok());
        JsonObject check = exchange(frame(DaemonProtocol.request(DaemonProtocol.CHECK, "net", "c1", "", "eth0", "",
                JsonObject.EMPTY, null).toString()));
        assertThat(error(check)).isEqualTo("100 dhcp: no lease for c1/net/eth0");
        JsonObject gc = exchange(frame(DaemonProtocol.request(DaemonProtocol.GC, "net", "", "", "", "",
                JsonObject.EMPTY, java.util.List.of()).toString()));
        assertThat(gc).isEqualTo(DaemonProtocol.ok());
        assertThat(Json.parse(DaemonProtocol.ok().toString())).isEqualTo(DaemonProtocol.ok());
        assertStillServes();
    }

    /**
     * Decided in issue 23 (shared with Go, whose daemon accepts any): a socket directory others can write is refused,
     * since whoever writes there can put a socket of theirs in the daemon's place between two runs.
     */
    @Test
    void aSocketDirectoryOthersCanWriteIsRefused() throws Exception {
        for (String mode : new String[] {"rwxrwxrwx", "rwxrwx---"}) {
            Path open = Files.createDirectory(dir.resolve("open-" + mode.hashCode()));
            Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString(mode));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> DaemonServer.bind(open.resolve("dhcp.sock"),
                    manager, new PrintStream(new ByteArrayOutputStream()))).hasMessageContaining("is writable by others");
            assertThat(open.resolve("dhcp.sock")).doesNotExist();
        }
    }

    /**
     * Decided in issue 23 (Go's plugin talks to whatever listens on daemonSocketPath): the plugin asks only a daemon
     * running as root or as its own user. A listener of another user (here uid 65534) is refused with code 5 before
     * anything is sent to it.
     */
    @Test
    void thePluginRefusesADaemonOfAnotherUser() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(io.jcni.plugins.testing.Worlds.root(), "needs root: setpriv");
        Path shared = Files.createTempDirectory(Path.of("/tmp"), "jcni-dhcp-trust-");
        Files.setPosixFilePermissions(shared, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path theirs = Files.createDirectory(shared.resolve("theirs"));
        Files.setAttribute(theirs, "unix:uid", 65534);
        Path fake = theirs.resolve("dhcp.sock");
        Path received = theirs.resolve("received");
        Process impostor = new ProcessBuilder("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", "import socket,sys\n"
                        + "s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); print('ready', flush=True)\n"
                        + "c,_=s.accept(); d=c.recv(65536); open(sys.argv[2],'wb').write(d)\n",
                fake.toString(), received.toString()).redirectErrorStream(true).start();
        try {
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(impostor.getInputStream(),
                    StandardCharsets.UTF_8)).readLine();
            assertThat(line).isEqualTo("ready");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> DaemonClient.call(fake,
                    DaemonProtocol.request(DaemonProtocol.STATUS, "", "", "", "", "", JsonObject.EMPTY, null), 2000))
                    .isInstanceOfSatisfying(io.jcni.spec.CniException.class, e -> {
                        assertThat(e.error().code()).isEqualTo(5);
                        assertThat(e.getMessage()).contains("runs as uid 65534, neither root nor this plugin's user");
                    });
            impostor.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(received).as("nothing was sent to it").satisfiesAnyOf(
                    r -> assertThat(r).doesNotExist(), r -> assertThat(Files.size(r)).isZero());
        } finally {
            impostor.destroyForcibly().waitFor();
            try (java.util.stream.Stream<Path> files = Files.walk(shared)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void aStaleSocketIsReplacedAndALiveOneRefused() throws Exception {
        // Live: this test's server answers on it.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DaemonServer.bind(socket, manager,
                new PrintStream(new ByteArrayOutputStream()))).hasMessage("another daemon answers on " + socket);
        // Not a socket: refused, left alone.
        Path file = dir.resolve("file.sock");
        Files.writeString(file, "x");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DaemonServer.bind(file, manager,
                new PrintStream(new ByteArrayOutputStream()))).hasMessageContaining("is not a socket");
        assertThat(Files.readString(file)).isEqualTo("x");
        // Stale: bound by a daemon that is gone (the file stays when a process is killed).
        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel old = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            old.bind(UnixDomainSocketAddress.of(stale));
        }
        assertThat(stale).exists();
        try (DaemonServer replacing = DaemonServer.bind(stale, manager, new PrintStream(new ByteArrayOutputStream()))) {
            assertThat(replacing.path()).isEqualTo(stale);
        }
        assertThat(stale).as("removed on close").doesNotExist();
    }
}
