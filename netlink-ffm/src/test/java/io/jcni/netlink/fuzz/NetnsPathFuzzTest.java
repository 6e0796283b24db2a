package io.jcni.netlink.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Fuzzing of the CNI_NETNS check ({@link NetNs#open}): a path of any kind (a regular file of any bytes, a FIFO, a
 * directory, a device, a socket, other namespaces' files, links to any of them or to nothing, a name of any bytes).
 *
 * <p>Properties checked on every input: the open finishes (nothing at the path can block it); it succeeds exactly for
 * a network namespace (then the same one the path names), and otherwise fails as NOT_FOUND (nothing there) or INVALID
 * naming what is there, in a message without a Java exception class name.
 *
 * <p>Byte 0 picks the kind (see {@link #place}), the rest is the kind's content or name. The committed corpus under
 * {@code src/test/resources/io/jcni/netlink/fuzz/NetnsPathFuzzTestInputs/<method>/} runs in every build; to fuzz:
 * <pre>JAZZER_FUZZ=1 ./mvnw -B -pl netlink-ffm test -Dtest='NetnsPathFuzzTest' -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration=10m</pre>
 */
class NetnsPathFuzzTest {
    private static final String[] OTHER_NAMESPACES = {"uts", "ipc", "mnt", "pid", "user", "cgroup", "time"};

    private enum Outcome { NETWORK_NAMESPACE, NOT_FOUND, INVALID }

    @FuzzTest(maxDuration = "5m")
    void openAPathOfAnyKind(byte[] data) throws Exception {
        Path dir = Files.createTempDirectory("jcni-fuzz-netns");
        List<Path> fifos = new ArrayList<>();
        List<AutoCloseable> sockets = new ArrayList<>();
        ExecutorService opener = Executors.newSingleThreadExecutor();
        try {
            int kind = data.length == 0 ? 0 : data[0] & 0xff;
            byte[] rest = data.length == 0 ? new byte[0] : java.util.Arrays.copyOfRange(data, 1, data.length);
            Path path = dir.resolve("ns");
            Outcome expected = place(kind, rest, dir, path, fifos, sockets);
            if (expected == null) {
                return; // a name Java cannot express as a path
            }
            Path target = path;
            Future<Outcome> open = opener.submit(() -> open(target));
            Outcome actual;
            try {
                actual = open.get(20, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("NetNs.open blocked on kind " + kind % 12, e);
            }
            assertThat(actual).as("kind %d", kind % 12).isEqualTo(expected);
        } finally {
            for (Path fifo : fifos) {
                // Releases an open stuck on a FIFO (the bug this guards against); O_RDWR never blocks.
                FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            }
            for (AutoCloseable socket : sockets) {
                socket.close();
            }
            opener.shutdownNow();
            deleteTree(dir);
        }
    }

    private static Outcome open(Path path) {
        try (NetNs ns = NetNs.open(path); NetNs current = NetNs.current()) {
            assertThat(ns.isSame(current)).as("the only network namespace offered is this process's").isTrue();
            return Outcome.NETWORK_NAMESPACE;
        } catch (NetlinkException e) {
            assertThat(e.getMessage()).doesNotContain("java.").doesNotContain("Exception");
            if (e.isNotFound()) {
                return Outcome.NOT_FOUND;
            }
            assertThat(e.kind()).as(e.getMessage()).isEqualTo(NetlinkException.Kind.INVALID);
            assertThat(e.getMessage()).containsAnyOf("not a namespace file (", "a namespace of another type");
            return Outcome.INVALID;
        }
    }

    /**
     * Kinds: 0 a regular file holding the rest; 1 a FIFO; 2 a directory; 3 a link to a FIFO; 4 a link to this
     * process's network namespace; 5 another namespace of this process (the rest picks which); 6 a link to
     * {@code /dev/null}; 7 a Unix socket; 8 nothing; 9 a dangling link; 10 a link to the thread's own; 11 a
     * regular file whose name is the rest's bytes.
     */
    private static Outcome place(int kind, byte[] rest, Path dir, Path path, List<Path> fifos,
            List<AutoCloseable> sockets) throws Exception {
        switch (kind % 12) {
            case 0 -> {
                Files.write(path, rest);
                return Outcome.INVALID;
            }
            case 1 -> {
                fifo(path, fifos);
                return Outcome.INVALID;
            }
            case 2 -> {
                Files.createDirectory(path);
                return Outcome.INVALID;
            }
            case 3 -> {
                Files.createSymbolicLink(path, fifo(dir.resolve("fifo"), fifos));
                return Outcome.INVALID;
            }
            case 4 -> {
                Files.createSymbolicLink(path, Path.of("/proc/self/ns/net"));
                return Outcome.NETWORK_NAMESPACE;
            }
            case 5 -> {
                String other = OTHER_NAMESPACES[(rest.length == 0 ? 0 : rest[0] & 0xff) % OTHER_NAMESPACES.length];
                Path file = Path.of("/proc/self/ns", other);
                if (!Files.exists(file)) {
                    return null;
                }
                Files.createSymbolicLink(path, file);
                return Outcome.INVALID;
            }
            case 6 -> {
                Files.createSymbolicLink(path, Path.of("/dev/null"));
                return Outcome.INVALID;
            }
            case 7 -> {
                ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                socket.bind(UnixDomainSocketAddress.of(path));
                sockets.add(socket);
                return Outcome.INVALID;
            }
            case 8 -> {
                return Outcome.NOT_FOUND;
            }
            case 9 -> {
                Files.createSymbolicLink(path, dir.resolve("missing"));
                return Outcome.NOT_FOUND;
            }
            case 10 -> {
                Files.createSymbolicLink(path, Path.of("/proc/thread-self/ns/net"));
                return Outcome.NETWORK_NAMESPACE;
            }
            default -> {
                String name = new String(rest, StandardCharsets.UTF_8);
                if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0 || name.equals(".")
                        || name.equals("..") || name.getBytes(StandardCharsets.UTF_8).length > 200) {
                    return null;
                }
                try {
                    Files.writeString(dir.resolve(name), "x");
                    Files.createSymbolicLink(path, dir.resolve(name));
                } catch (InvalidPathException e) {
                    return null;
                }
                return Outcome.INVALID;
            }
        }
    }

    private static Path fifo(Path path, List<Path> fifos) throws Exception {
        assertThat(new ProcessBuilder("mkfifo", path.toString()).start().waitFor()).isZero();
        fifos.add(path);
        return path;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
