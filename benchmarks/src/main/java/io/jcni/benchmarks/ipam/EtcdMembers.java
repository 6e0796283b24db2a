package io.jcni.benchmarks.ipam;

import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real etcd members for the benchmarks (Debian's etcd-server): {@code size} members on free loopback ports, their data
 * on tmpfs ({@code /dev/shm}: fsync costs nothing there, so the figures are the plugin's and etcd's work, not a disk's),
 * killed and removed by {@link #close}, or when the JVM exits without it (a shutdown hook: a fork that JMH ends after
 * a failure).
 */
final class EtcdMembers implements AutoCloseable {
    private final Path dir;
    private final int[] client;
    private final List<Process> processes = new ArrayList<>();
    private final Thread onExit = new Thread(this::removeQuietly, "etcd-members-exit");

    EtcdMembers(int size) throws Exception {
        if (!Files.isExecutable(Path.of("/usr/bin/etcd"))) {
            throw new IllegalStateException("etcd is not installed (scripts/setup installs etcd-server)");
        }
        dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "jcni-bench-etcd");
        Runtime.getRuntime().addShutdownHook(onExit);
        client = new int[size];
        int[] peer = new int[size];
        StringBuilder initial = new StringBuilder();
        for (int i = 0; i < size; i++) {
            client[i] = freePort();
            peer[i] = freePort();
            initial.append(i == 0 ? "" : ",").append("m").append(i).append("=http://127.0.0.1:").append(peer[i]);
        }
        try {
            for (int i = 0; i < size; i++) {
                ProcessBuilder pb = new ProcessBuilder("/usr/bin/etcd", "--name", "m" + i, "--data-dir",
                        dir.resolve("m" + i).toString(), "--listen-client-urls", url(i), "--advertise-client-urls",
                        url(i), "--listen-peer-urls", "http://127.0.0.1:" + peer[i], "--initial-advertise-peer-urls",
                        "http://127.0.0.1:" + peer[i], "--initial-cluster", initial.toString(), "--log-level",
                        "error", "--quota-backend-bytes", Long.toString(4L << 30), "--max-txn-ops", "1024");
                pb.redirectErrorStream(true);
                pb.redirectOutput(dir.resolve("m" + i + ".log").toFile());
                synchronized (processes) {
                    processes.add(pb.start());
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    post("/v3/kv/put", "{\"key\":\"" + b64("/probe") + "\",\"value\":\"\"}");
                    break;
                } catch (IOException e) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("etcd did not start; logs in " + dir, e);
                    }
                    Thread.sleep(100);
                }
            }
        } catch (Exception | Error e) {
            closeAfter(e);
            throw e;
        }
    }

    String url(int i) {
        return "http://127.0.0.1:" + client[i];
    }

    /** The client URLs, as the elements of a JSON array. */
    String endpointsJson() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < client.length; i++) {
            sb.append(i == 0 ? "" : ",").append('"').append(url(i)).append('"');
        }
        return sb.toString();
    }

    /** A POST to the first member's JSON gateway; its answer. */
    String post(String path, String body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url(0) + path).toURL().openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(30000);
        c.setRequestMethod("POST");
        c.setDoOutput(true);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        if (c.getResponseCode() != 200) {
            throw new IOException(path + ": HTTP " + c.getResponseCode());
        }
        return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    private static final java.util.Set<Integer> GIVEN_PORTS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A free loopback port below 32768, where Linux's default ephemeral range starts: a port from {@code bind(0)}
     * lies inside it, and a member dialling its peers may take it as a source port before its owner binds it.
     */
    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(10000, 32768);
            if (!GIVEN_PORTS.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return port;
            } catch (IOException inUse) {
                // another listener has it
            }
        }
        throw new IOException("no free loopback port below 32768 after 500 tries");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException e) {
            // The JVM is exiting: the hook does the same.
        }
        remove();
    }

    /** {@link #close} while {@code failure} is being thrown: a failure to close is added to it, not thrown instead. */
    void closeAfter(Throwable failure) {
        try {
            close();
        } catch (IOException | InterruptedException | RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /** SIGKILL to every member started, then their data removed. */
    private void remove() throws IOException, InterruptedException {
        synchronized (processes) {
            for (Process p : processes) {
                p.destroyForcibly();
            }
            for (Process p : processes) {
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** {@link #remove} as the JVM exits without {@link #close}; a failure is only printed. */
    private void removeQuietly() {
        try {
            remove();
        } catch (IOException | InterruptedException | RuntimeException e) {
            System.err.println("etcd members in " + dir + ": " + e);
        }
    }
}
