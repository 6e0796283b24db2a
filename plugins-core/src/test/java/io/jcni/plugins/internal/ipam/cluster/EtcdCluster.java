package io.jcni.plugins.internal.ipam.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Real etcd members (Debian's {@code etcd-server}, installed by {@code scripts/setup}) on free loopback ports with
 * their data in a directory of the caller's, started and stopped by the test. {@link #close} kills every member
 * it started. Nothing here talks to etcd through the plugin's client: reads go through the JDK's {@code
 * HttpURLConnection}, so a bug in the plugin's client cannot hide one in the store.
 */
public final class EtcdCluster implements AutoCloseable {
    private final Path dir;
    private final int[] clientPorts;
    private final int[] peerPorts;
    private final Process[] members;
    private final List<String> extraArgs;
    /** With TLS: one more client listener per member, https, beside the plain one the test itself uses. */
    private final int[] tlsPorts;
    /** Members stopped with SIGSTOP: not asked by the test's own reads. */
    private final boolean[] stopped;

    private EtcdCluster(Path dir, int size, List<String> extraArgs) throws IOException {
        this.dir = dir;
        this.clientPorts = new int[size];
        this.peerPorts = new int[size];
        this.members = new Process[size];
        this.stopped = new boolean[size];
        this.extraArgs = extraArgs;
        boolean tls = extraArgs.contains("--cert-file");
        this.tlsPorts = new int[tls ? size : 0];
        for (int i = 0; i < size; i++) {
            clientPorts[i] = freePort();
            peerPorts[i] = freePort();
            if (tls) {
                tlsPorts[i] = freePort();
            }
        }
    }

    static void assumeInstalled() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/etcd")),
                "etcd is not installed (scripts/setup installs etcd-server)");
    }

    /** {@code size} members, started, with a leader. */
    public static EtcdCluster start(Path dir, int size) throws Exception {
        return start(dir, size, List.of());
    }

    public static EtcdCluster start(Path dir, int size, List<String> extraArgs) throws Exception {
        assumeInstalled();
        for (int attempt = 1; ; attempt++) {
            EtcdCluster cluster = new EtcdCluster(dir, size, extraArgs);
            try {
                for (int i = 0; i < size; i++) {
                    cluster.startMember(i);
                }
                cluster.awaitHealthy();
                return cluster;
            } catch (MemberExited e) {
                cluster.close();
                if (attempt == 3) {
                    throw e;
                }
                // A member lost a port to another listener: new ports, a new data directory.
                cluster.wipeData();
            } catch (Exception | Error e) {
                cluster.close();
                throw e;
            }
        }
    }

    /** A member's process ended while the cluster was being started. */
    static final class MemberExited extends IllegalStateException {
        MemberExited(String message) {
            super(message);
        }
    }

    private void wipeData() throws IOException {
        for (int i = 0; i < members.length; i++) {
            Path data = dir.resolve("m" + i);
            if (Files.exists(data)) {
                try (var walk = Files.walk(data)) {
                    for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    /** The last lines of member {@code i}'s log, for a failure message. */
    private String logTail(int i) {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("m" + i + ".log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static final java.util.Set<Integer> GIVEN_PORTS = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A free loopback port below 32768, where Linux's default ephemeral range starts. A port from {@code bind(0)}
     * lies inside that range, so a member dialling its peers may take it as a source port before the member meant to
     * listen on it binds, and that member exits with "address already in use".
     */
    private static int freePort() throws IOException {
        for (int attempt = 0; attempt < 500; attempt++) {
            int port = java.util.concurrent.ThreadLocalRandom.current().nextInt(10000, 32768);
            if (!GIVEN_PORTS.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
                return port;
            } catch (IOException inUse) {
                // another listener has it
            }
        }
        throw new IOException("no free loopback port below 32768 after 500 tries");
    }

    String clientUrl(int i) {
        return "http://127.0.0.1:" + clientPorts[i];
    }

    /** The https client URL of member {@code i} (a cluster started with {@code --cert-file} etc.). */
    String tlsUrl(int i) {
        return "https://127.0.0.1:" + tlsPorts[i];
    }

    /** The members' client URLs as a JSON array's elements: {@code "http://...","http://..."}. */
    public String endpointsJson() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < clientPorts.length; i++) {
            sb.append(i == 0 ? "" : ",").append('"').append(clientUrl(i)).append('"');
        }
        return sb.toString();
    }

    String endpointsCsv() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < clientPorts.length; i++) {
            sb.append(i == 0 ? "" : ",").append(clientUrl(i));
        }
        return sb.toString();
    }

    void startMember(int i) throws IOException {
        StringBuilder initial = new StringBuilder();
        for (int k = 0; k < clientPorts.length; k++) {
            initial.append(k == 0 ? "" : ",").append("m").append(k).append("=http://127.0.0.1:").append(peerPorts[k]);
        }
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/etcd", "--name", "m" + i,
                "--data-dir", dir.resolve("m" + i).toString(),
                "--listen-client-urls", clientUrl(i) + (tlsPorts.length > 0 ? "," + tlsUrl(i) : ""),
                "--advertise-client-urls", tlsPorts.length > 0 ? tlsUrl(i) : clientUrl(i),
                "--listen-peer-urls", "http://127.0.0.1:" + peerPorts[i],
                "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPorts[i],
                "--initial-cluster", initial.toString(), "--initial-cluster-state", "new",
                "--initial-cluster-token", "jcni-test-" + ProcessHandle.current().pid() + "-" + clientPorts[0],
                "--heartbeat-interval", "50", "--election-timeout", "500", "--log-level", "warn",
                "--unsafe-no-fsync"));
        cmd.addAll(extraArgs);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("m" + i + ".log").toFile()));
        Files.createDirectories(dir);
        members[i] = pb.start();
    }

    /** SIGKILL of member {@code i}. */
    void kill(int i) throws InterruptedException {
        Process p = members[i];
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            members[i] = null;
        }
    }

    /**
     * SIGSTOP of member {@code i}: the process stops, its kernel still accepts connections (the listen backlog), and
     * nothing answers them. {@link #resume} (and {@link #close}) sends SIGCONT.
     */
    public void stop(int i) throws Exception {
        signal(i, "-STOP");
        stopped[i] = true;
    }

    public void resume(int i) throws Exception {
        signal(i, "-CONT");
        stopped[i] = false;
    }

    private void signal(int i, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(members[i].pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill " + signal + " " + members[i].pid() + " failed");
        }
    }

    /** The index of the member that is the leader now (asked of each member that answers). */
    public int leader() throws Exception {
        for (int i = 0; i < members.length; i++) {
            if (members[i] == null) {
                continue;
            }
            io.jcni.spec.JsonObject status = (io.jcni.spec.JsonObject) io.jcni.spec.Json.parse(post(i,
                    "/v3/maintenance/status", "{}"));
            String me = ((io.jcni.spec.JsonString) ((io.jcni.spec.JsonObject) status.get("header").orElseThrow())
                    .get("member_id").orElseThrow()).value();
            String leader = ((io.jcni.spec.JsonString) status.get("leader").orElseThrow()).value();
            if (me.equals(leader)) {
                return i;
            }
        }
        throw new IllegalStateException("no member says it leads");
    }

    void awaitHealthy() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            try {
                for (int i = 0; i < members.length; i++) {
                    if (members[i] != null) {
                        post(i, "/v3/kv/put", "{\"key\":\"" + b64("/health-probe") + "\",\"value\":\"\"}");
                    }
                }
                return;
            } catch (IOException | RuntimeException e) {
                for (int i = 0; i < members.length; i++) {
                    if (members[i] != null && !members[i].isAlive()) {
                        throw new MemberExited("etcd member m" + i + " exited with " + members[i].exitValue()
                                + " while starting; its log in " + dir + " ends:\n" + logTail(i));
                    }
                }
                if (System.nanoTime() > deadline) {
                    StringBuilder tails = new StringBuilder();
                    for (int i = 0; i < members.length; i++) {
                        tails.append("\nm").append(i).append(": ").append(logTail(i));
                    }
                    throw new IllegalStateException("etcd did not become healthy in 30 s; logs in " + dir + tails, e);
                }
                Thread.sleep(100);
            }
        }
    }

    /** A POST to member {@code i}'s gateway; its JSON answer, or IllegalStateException if it is not 200. */
    String post(int i, String path, String body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(clientUrl(i) + path).toURL().openConnection();
        try {
            c.setConnectTimeout(2000);
            c.setReadTimeout(5000);
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            c.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
            int status = c.getResponseCode();
            if (status != 200) {
                byte[] err = c.getErrorStream() == null ? new byte[0] : c.getErrorStream().readAllBytes();
                throw new IllegalStateException(path + ": " + status + " " + new String(err, StandardCharsets.UTF_8));
            }
            return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }

    /** Revokes lease {@code id} (as its TTL running out would), through member 0. */
    public void revokeLease(long id) throws IOException {
        post(0, "/v3/lease/revoke", "{\"ID\":\"" + id + "\"}");
    }

    /** Every key under {@code prefix} (read from the first member that is up). */
    public List<String> keys(String prefix) throws Exception {
        return rangeValues(prefix, true);
    }

    /** Every {@code key=value} under {@code prefix}. */
    List<String> entries(String prefix) throws Exception {
        return rangeValues(prefix, false);
    }

    private List<String> rangeValues(String prefix, boolean keysOnly) throws Exception {
        String end = prefix.substring(0, prefix.length() - 1) + (char) (prefix.charAt(prefix.length() - 1) + 1);
        String body = "{\"key\":\"" + b64(prefix) + "\",\"range_end\":\"" + b64(end) + "\""
                + (keysOnly ? ",\"keys_only\":true" : "") + "}";
        String answer = post(firstUp(), "/v3/kv/range", body);
        List<String> out = new ArrayList<>();
        io.jcni.spec.JsonObject json = (io.jcni.spec.JsonObject) io.jcni.spec.Json.parse(answer);
        if (json.get("kvs").isEmpty()) {
            return out;
        }
        for (io.jcni.spec.Json element : ((io.jcni.spec.JsonArray) json.get("kvs").get()).elements()) {
            io.jcni.spec.JsonObject kv = (io.jcni.spec.JsonObject) element;
            String key = new String(Base64.getDecoder().decode(text(kv, "key")), StandardCharsets.UTF_8);
            if (keysOnly) {
                out.add(key);
            } else {
                out.add(key + "=" + new String(Base64.getDecoder().decode(text(kv, "value")), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static String text(io.jcni.spec.JsonObject o, String key) {
        return o.get(key).map(v -> ((io.jcni.spec.JsonString) v).value()).orElse("");
    }

    void put(String key, String value) throws Exception {
        post(firstUp(), "/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\"}");
    }

    private int firstUp() {
        for (int i = 0; i < members.length; i++) {
            if (members[i] != null && !stopped[i]) {
                return i;
            }
        }
        throw new IllegalStateException("no member is up");
    }

    static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    int size() {
        return members.length;
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < members.length; i++) {
            kill(i); // SIGKILL ends a stopped process too
        }
    }
}
