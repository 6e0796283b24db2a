package io.jcni.it.support;

import java.io.IOException;
import java.net.URI;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

    private EtcdCluster(Path dir, int size, List<String> extraArgs) throws IOException {
        this.dir = dir;
        this.clientPorts = new int[size];
        this.peerPorts = new int[size];
        this.members = new Process[size];
        this.extraArgs = extraArgs;
        boolean tls = extraArgs.contains("--cert-file");
        this.tlsPorts = new int[tls ? size : 0];
        for (int i = 0; i < size; i++) {
            clientPorts[i] = LoopbackPorts.next();
            peerPorts[i] = LoopbackPorts.next();
            if (tls) {
                tlsPorts[i] = LoopbackPorts.next();
            }
        }
    }

    public static void assumeInstalled() {
        Prerequisites.require(Files.isExecutable(Path.of("/usr/bin/etcd")),
                () -> "etcd (scripts/setup installs etcd-server)");
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

    public String clientUrl(int i) {
        return "http://127.0.0.1:" + clientPorts[i];
    }

    /** The https client URL of member {@code i} (a cluster started with {@code --cert-file} etc.). */
    public String tlsUrl(int i) {
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

    public String endpointsCsv() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < clientPorts.length; i++) {
            sb.append(i == 0 ? "" : ",").append(clientUrl(i));
        }
        return sb.toString();
    }

    public void startMember(int i) throws IOException {
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
    public void kill(int i) throws InterruptedException {
        Process p = members[i];
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            members[i] = null;
        }
    }

    public void awaitHealthy() throws Exception {
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
    public String post(int i, String path, String body) throws IOException {
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

    /** Every key under {@code prefix} (read from the first member that is up). */
    public List<String> keys(String prefix) throws Exception {
        return rangeValues(prefix, true);
    }

    /** Every {@code key=value} under {@code prefix}. */
    public List<String> entries(String prefix) throws Exception {
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

    public void put(String key, String value) throws Exception {
        post(firstUp(), "/v3/kv/put", "{\"key\":\"" + b64(key) + "\",\"value\":\"" + b64(value) + "\"}");
    }

    private int firstUp() {
        for (int i = 0; i < members.length; i++) {
            if (members[i] != null) {
                return i;
            }
        }
        throw new IllegalStateException("no member is up");
    }

    public static String b64(String s) {
        return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }

    public int size() {
        return members.length;
    }

    @Override
    public void close() throws InterruptedException {
        for (int i = 0; i < members.length; i++) {
            kill(i);
        }
    }
}
