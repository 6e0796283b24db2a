package io.jcni.runtime.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jcni.runtime.NetworkConfigs;
import io.jcni.spec.CniJson;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Fuzzing of the configuration file checks: a directory of up to four entries of any kind (regular files with any
 * bytes, valid networks, FIFOs, directories, sparse files over the size limit, links to each other, to a device, a
 * socket, dangling links), loaded as {@code jcni} loads NETCONFPATH.
 *
 * <p>Properties checked on every input: the load finishes (a FIFO or device must never block it); every entry that is
 * not a regular file, or is over the limit, is reported as a problem naming what it is, never read; a valid network
 * loads whatever sits beside it; no problem text carries a Java exception class name.
 *
 * <p>The input is read as a small program: byte 0 gives the number of entries (1-4), then per entry a kind byte, a
 * suffix byte ({@code .conflist}, {@code .conf}, {@code .json}) and the kind's operands (see {@link #build}). The
 * committed corpus under {@code src/test/resources/io/jcni/runtime/fuzz/ConfigFileFuzzTestInputs/<method>/} runs as
 * regression tests in every build; to fuzz:
 * <pre>JAZZER_FUZZ=1 ./mvnw -B -pl runtime -am test -Dtest='ConfigFileFuzzTest' -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration=10m</pre>
 */
class ConfigFileFuzzTest {
    private static final String[] SUFFIXES = {".conflist", ".conf", ".json"};
    private static final int KINDS = 8;

    /** What loading an entry must give. */
    private record Expected(String network, String problem) {
        static Expected network(String name) {
            return new Expected(name, null);
        }

        static Expected problem(String text) {
            return new Expected(null, text);
        }

        static final Expected IGNORED = new Expected(null, null);
        /** A regular file of arbitrary bytes: a network or a decoding problem, never a file-kind problem. */
        static final Expected ANY_CONTENT = new Expected("", "");
    }

    /** Reads the input program. */
    private static final class Program {
        private final byte[] data;
        private int at;

        Program(byte[] data) {
            this.data = data;
        }

        int next() {
            return at < data.length ? data[at++] & 0xff : 0;
        }

        byte[] take(int n) {
            int end = Math.min(data.length, at + n);
            byte[] out = java.util.Arrays.copyOfRange(data, Math.min(at, end), end);
            at = end;
            return out;
        }
    }

    @FuzzTest(maxDuration = "5m")
    void loadADirectoryOfAnyFiles(byte[] data) throws Exception {
        Path dir = Files.createTempDirectory("jcni-fuzz-conf");
        List<Path> fifos = new ArrayList<>();
        List<AutoCloseable> sockets = new ArrayList<>();
        ExecutorService loader = Executors.newSingleThreadExecutor();
        try {
            Map<Path, Expected> expected = build(new Program(data), dir, fifos, sockets);
            Future<NetworkConfigs> load = loader.submit(() -> NetworkConfigs.load(dir));
            NetworkConfigs configs;
            try {
                configs = load.get(20, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("NetworkConfigs.load blocked on " + expected, e);
            }
            check(configs, expected);
        } finally {
            for (Path fifo : fifos) {
                // Releases a load stuck in open(2) on a FIFO (the bug this guards against); O_RDWR never blocks.
                FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
            }
            for (AutoCloseable socket : sockets) {
                socket.close();
            }
            loader.shutdownNow();
            deleteTree(dir);
        }
    }

    /**
     * Kinds: 0 a regular file of {@code n} arbitrary bytes (operand n, then the bytes); 1 a FIFO; 2 a directory; 3 a
     * sparse file over the limit by {@code n * 64 KiB + 1} bytes; 4 a link to the previous entry (a dangling one for
     * the first); 5 a link to {@code /dev/null}; 6 a Unix socket; 7 a valid network named {@code net<i>}.
     */
    private static Map<Path, Expected> build(Program p, Path dir, List<Path> fifos, List<AutoCloseable> sockets)
            throws Exception {
        Map<Path, Expected> expected = new LinkedHashMap<>();
        int entries = (p.next() & 3) + 1;
        Path previous = null;
        for (int i = 0; i < entries; i++) {
            int kind = p.next() % KINDS;
            String suffix = SUFFIXES[p.next() % SUFFIXES.length];
            Path file = dir.resolve(i + suffix);
            Expected outcome;
            switch (kind) {
                case 0 -> {
                    Files.write(file, p.take(p.next()));
                    outcome = Expected.ANY_CONTENT;
                }
                case 1 -> {
                    assertThat(new ProcessBuilder("mkfifo", file.toString()).start().waitFor()).isZero();
                    fifos.add(file);
                    outcome = Expected.problem("not a regular file (a FIFO)");
                }
                case 2 -> {
                    Files.createDirectory(file);
                    outcome = Expected.IGNORED;
                }
                case 3 -> {
                    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                        f.setLength(CniJson.MAX_DOCUMENT_BYTES + 1L + ((long) p.next() << 16));
                    }
                    outcome = Expected.problem("too large to read");
                }
                case 4 -> {
                    if (previous == null) {
                        Files.createSymbolicLink(file, dir.resolve("missing"));
                        outcome = Expected.problem("No such file or directory");
                    } else {
                        Files.createSymbolicLink(file, previous);
                        outcome = linkTo(expected.get(previous), suffix, previous);
                    }
                }
                case 5 -> {
                    Files.createSymbolicLink(file, Path.of("/dev/null"));
                    outcome = Expected.problem("not a regular file (a character device)");
                }
                case 6 -> {
                    ServerSocketChannel socket = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                    socket.bind(UnixDomainSocketAddress.of(file));
                    sockets.add(socket);
                    outcome = Expected.problem("not a regular file (a socket)");
                }
                default -> {
                    String name = "net" + i;
                    Files.writeString(file, suffix.equals(".conflist")
                            ? "{\"cniVersion\":\"1.0.0\",\"name\":\"" + name + "\",\"plugins\":[{\"type\":\"b\"}]}"
                            : "{\"cniVersion\":\"1.0.0\",\"name\":\"" + name + "\",\"type\":\"b\"}");
                    outcome = Expected.network(name);
                }
            }
            expected.put(file, outcome);
            previous = file;
        }
        return expected;
    }

    /** A link reads as its target, except that a network's text decodes differently under another suffix. */
    private static Expected linkTo(Expected target, String suffix, Path targetFile) {
        if (target.network() != null && !target.network().isEmpty()
                && !suffix.equals(".conflist") == !targetFile.toString().endsWith(".conflist")) {
            return target;
        }
        if (target.network() != null && !target.network().isEmpty()) {
            return Expected.ANY_CONTENT;
        }
        return target;
    }

    private static void check(NetworkConfigs configs, Map<Path, Expected> expected) {
        for (NetworkConfigs.Problem problem : configs.problems()) {
            assertThat(problem.message()).as("problem text").doesNotContain("java.").doesNotContain("Exception");
        }
        for (Map.Entry<Path, Expected> entry : expected.entrySet()) {
            Path file = entry.getKey();
            Expected want = entry.getValue();
            List<String> problems = configs.problems().stream().filter(p -> p.file().equals(file))
                    .map(NetworkConfigs.Problem::message).toList();
            List<String> networks = configs.networks().stream().filter(n -> n.file().equals(file))
                    .map(n -> n.list().name()).toList();
            if (want == Expected.IGNORED) {
                assertThat(problems).as("problems of %s", file).isEmpty();
                assertThat(networks).as("networks of %s", file).isEmpty();
            } else if (want == Expected.ANY_CONTENT) {
                assertThat(problems.size() + networks.size()).as("outcomes of %s", file).isEqualTo(1);
                assertThat(problems).as("a regular file is read").noneMatch(m -> m.contains("not a regular file")
                        || m.contains("too large to read"));
            } else if (want.network() != null) {
                assertThat(networks).as("networks of %s", file).containsExactly(want.network());
                assertThat(problems).isEmpty();
            } else {
                assertThat(problems).as("problems of %s", file).singleElement()
                        .satisfies(m -> assertThat(m).startsWith("error reading " + file + ": ")
                                .contains(want.problem()));
                assertThat(networks).isEmpty();
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
