package io.jcni.it.service;

import io.jcni.it.support.Locations;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the service's isolation tests share (issue 23): a {@code jcni serve} of the dist on a socket in the test's
 * directory, the dist's plugin clients run against it as a runtime runs them, host-local networks whose calls are the
 * measured "legitimate" ones, and the hostile peers: an IPAM delegate that never answers (it writes its pid so the
 * test can end it) and a FIFO as cluster-ipam's credentials file. Everything lives under {@code dir}.
 */
final class ServiceLab implements AutoCloseable {
    final Path dir;
    final Path bin;
    final PluginServiceProcess service;
    private final List<Process> background = Collections.synchronizedList(new ArrayList<>());
    private final List<Path> pidFiles = new ArrayList<>();

    private ServiceLab(Path dir, PluginServiceProcess service) throws IOException {
        this.dir = dir;
        this.bin = Files.createDirectories(dir.resolve("bin"));
        this.service = service;
    }

    static ServiceLab start(Path dir, String... serviceArgs) throws IOException {
        PluginServiceProcess service = PluginServiceProcess.start(dir.resolve("svc/plugins.sock"),
                List.of(serviceArgs), Map.of());
        return new ServiceLab(dir, service);
    }

    /** A network's configuration for host-local, called directly as a plugin delegates to it. */
    String hostLocal(String network, String subnet) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\",\"ranges\":[[{\"subnet\":\"" + subnet
                + "\"}]]}}";
    }

    /** The same with {@code cni.dev/valid-attachments} for GC. */
    static String withValid(String conf, String json) {
        return conf.substring(0, conf.length() - 1) + ",\"cni.dev/valid-attachments\":" + json + "}";
    }

    /** One plugin call through the dist's client of {@code type}, as a runtime execs it. */
    ProcessResult call(String type, String command, String conf, String container, Duration timeout) {
        return Processes.run(List.of(Locations.distPlugin(type).toString()), env(command, container), conf, timeout);
    }

    /** The environment a runtime gives the client. */
    Map<String, String> env(String command, String container) {
        Map<String, String> env = new HashMap<>(service.clientEnv());
        env.put("CNI_COMMAND", command);
        env.put("CNI_PATH", bin + ":" + Locations.distCniBin());
        if (!command.equals("GC") && !command.equals("STATUS") && !command.equals("VERSION")) {
            env.put("CNI_CONTAINERID", container);
            env.put("CNI_IFNAME", "eth0");
            env.put("CNI_NETNS", "/var/run/netns/jcni-unused-" + container);
        }
        return env;
    }

    /** Starts a client and leaves it running (a runtime waiting on a call); {@link #close} ends it. */
    Process startClient(String type, String command, String conf, String container) {
        ProcessBuilder builder = new ProcessBuilder(Locations.distPlugin(type).toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(env(command, container));
        try {
            Process p = builder.start();
            try (var in = p.getOutputStream()) {
                in.write(conf.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
            background.add(p);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * An IPAM plugin {@code name} in {@link #bin} that records its pid in a file and never answers: the delegate that
     * hangs. Its pid file lets {@link #close} end what the service did not.
     */
    Path hangingIpam(String name) throws IOException {
        Path pids = dir.resolve(name + ".pids");
        pidFiles.add(pids);
        Path script = Files.writeString(bin.resolve(name), "#!/bin/sh\necho $$ >> '" + pids + "'\nexec sleep 3600\n");
        if (!script.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + script + " executable");
        }
        return pids;
    }

    /** bridge's DEL releases IPAM first, also without a namespace: with {@code ipam} hanging, a call that hangs. */
    static String bridgeWithIpam(String network, String ipam) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"bridge\":\"jcnilab0\","
                + "\"ipam\":{\"type\":\"" + ipam + "\"}}";
    }

    /** A FIFO with a writer that keeps it open for as long as the lab lives. */
    Path fifo(String name) throws IOException, InterruptedException {
        Path fifo = dir.resolve(name);
        if (new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() != 0) {
            throw new IOException("mkfifo " + fifo + " failed");
        }
        background.add(new ProcessBuilder("sh", "-c", "exec 3<>'" + fifo + "'; exec sleep 3600").start());
        return fifo;
    }

    /** cluster-ipam with {@code credentialsFile} a FIFO: read before any etcd request, so no etcd is needed. */
    static String clusterIpamWithCredentials(String network, Path credentials) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"cluster-ipam\",\"subnet\":\"10.99.0.0/24\",\"nodeName\":\"lab\",\"etcd\":{\"endpoints\":"
                + "[\"http://127.0.0.1:9\"],\"credentialsFile\":\"" + credentials + "\"}}}";
    }

    /** The build id the dist's clients send (a raw request of this build is served). */
    static String buildId() throws IOException {
        return Files.readString(Locations.dist().resolve("image/lib/jcni-build-id")).strip();
    }

    /**
     * A request frame as the C client builds it (protocol 2, see its header comment), for hostile peers that send it
     * whole, in parts, or altered. Descriptors go with {@link #send}.
     */
    static byte[] frame(String buildId, String type, Map<String, String> env, byte[] stdin, int flags) {
        java.io.ByteArrayOutputStream envBytes = new java.io.ByteArrayOutputStream();
        for (Map.Entry<String, String> e : env.entrySet()) {
            envBytes.writeBytes((e.getKey() + "=" + e.getValue()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            envBytes.write(0);
        }
        byte[] id = buildId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] t = type.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(24 + id.length + t.length + envBytes.size()
                + stdin.length).order(java.nio.ByteOrder.nativeOrder());
        b.put("JCNI".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).putShort((short) 2).put((byte) 0)
                .put((byte) (flags | (stdin.length > 0 ? 2 : 0))).putShort((short) id.length)
                .putShort((short) t.length).putInt(envBytes.size()).putInt(stdin.length).putInt(0).put(id).put(t)
                .put(envBytes.toByteArray()).put(stdin);
        return b.array();
    }

    /** Flags of a frame carrying the client's network namespace, mount namespace and table, root and cwd. */
    static final int ALL_DESCRIPTORS = 1 | 8 | 16 | 32;

    /**
     * Connects, sends {@code frame} with the descriptors of {@code paths} (opened {@code O_PATH}, in order), and
     * returns what came back until the service closed (or {@code timeout} passed): the raw reply bytes.
     */
    byte[] send(byte[] frame, List<Path> paths, Duration timeout) {
        try (io.jcni.netlink.sys.UnixSocket conn = io.jcni.netlink.sys.UnixSocket.connect(service.socket())) {
            conn.timeouts(timeout, timeout);
            List<io.jcni.netlink.sys.Descriptor> fds = new ArrayList<>();
            try {
                for (Path p : paths) {
                    fds.add(io.jcni.netlink.sys.Descriptor.openPath(p));
                }
                conn.send(frame, 0, frame.length, fds);
            } catch (io.jcni.netlink.KernelException e) {
                // refused before it was all read: the reply is there all the same
            } finally {
                fds.forEach(io.jcni.netlink.sys.Descriptor::close);
            }
            return readAll(conn);
        }
    }

    static byte[] readAll(io.jcni.netlink.sys.UnixSocket conn) {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[65536];
        try {
            for (int n; (n = conn.read(buffer, 0, buffer.length)) > 0; ) {
                all.write(buffer, 0, n);
            }
        } catch (io.jcni.netlink.KernelException e) {
            // reset or timeout: what arrived is the answer
        }
        return all.toByteArray();
    }

    /** Nearest-rank percentile of durations, in milliseconds. */
    static double percentile(List<Duration> values, int p) {
        List<Duration> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, rank - 1)).toNanos() / 1e6;
    }

    @Override
    public void close() throws IOException {
        synchronized (background) {
            for (Process p : background) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        service.close();
        for (Path pids : pidFiles) {
            if (Files.exists(pids)) {
                for (String pid : Files.readAllLines(pids)) {
                    try {
                        ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                    } catch (NumberFormatException e) {
                        // a line torn by a kill: nothing to end
                    }
                }
            }
        }
    }
}
