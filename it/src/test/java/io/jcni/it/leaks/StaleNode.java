package io.jcni.it.leaks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The node of a leak test: a {@link TestHost}, a client namespace linked to it ({@value #NODE} on the host's side,
 * {@value #CLIENT} on the client's) from which published ports are reached, a LAN namespace behind a veth
 * ({@code mx0} in the host, {@code mx1} in the LAN with {@value #LAN_PEER}/24) that macvlan attaches to, and the
 * directories a node keeps CNI state in: the configuration directory, the runtime's cache, host-local's and tuning's.
 * Runtimes on it: jcni's {@code CniRuntime} in this JVM with its plugins run in the host, Go libcni's driver in the
 * host, and {@code dist/bin/jcni} in the host for {@code gc --stale}.
 *
 * <p>Sandboxes: named namespaces ({@code ip netns add}, a bind mount under {@code /var/run/netns}, as containerd,
 * CRI-O and podman make them) or a process's ({@code unshare --net sleep}, {@code /proc/PID/ns/net}, as
 * {@code ctr run --cni} records it). Closing kills the processes it started, then deletes the host.
 */
final class StaleNode implements AutoCloseable {
    static final String NODE = "172.31.252.1";
    static final String CLIENT = "172.31.252.2";
    static final String LAN_PEER = "10.232.3.1";

    final TestHost host;
    final TestNetns client;
    final TestNetns lan;
    final Path dir;
    final Path confDir;
    final Path cacheDir;
    final Path ipamDir;
    final Path tuningDir;
    final List<Path> cniPath;
    final CniRuntime runtime;
    final LibcniDriver libcni;
    private final List<Process> processes = new ArrayList<>();

    private StaleNode(TestHost host, TestNetns client, TestNetns lan, Path dir, List<Path> cniPath) {
        this.host = host;
        this.client = client;
        this.lan = lan;
        this.dir = dir;
        this.confDir = dir.resolve("net.d");
        this.cacheDir = dir.resolve("cache");
        this.ipamDir = dir.resolve("ipam");
        this.tuningDir = dir.resolve("tuning");
        this.cniPath = List.copyOf(cniPath);
        this.runtime = CniRuntime.create(CniRuntime.Options.of(host.runtimeCniPath(dir.resolve("host-bin"),
                cniPath)).withCacheDir(cacheDir));
        this.libcni = host.libcni(cniPath, cacheDir);
    }

    /** A node whose plugins are found in {@code cniPath}; its files under {@code dir}. */
    static StaleNode start(String tag, Path dir, List<Path> cniPath) throws IOException {
        Prerequisites.assumeRoot();
        for (String tool : List.of("ip", "nft", "tc", "unshare", "nsenter")) {
            Prerequisites.assumeCommand(tool);
        }
        Prerequisites.assumeJcniCli();
        Files.createDirectories(dir.resolve("net.d"));
        TestHost host = TestHost.create(tag);
        try {
            TestNetns client = host.linkedClient(NODE + "/24", CLIENT + "/24");
            TestNetns lan = host.container();
            host.exec("ip", "link", "add", "mx0", "type", "veth", "peer", "name", "mx1", "netns", lan.name())
                    .requireSuccess();
            host.exec("ip", "link", "set", "mx0", "up").requireSuccess();
            lan.exec("ip", "addr", "add", LAN_PEER + "/24", "dev", "mx1").requireSuccess();
            lan.exec("ip", "link", "set", "mx1", "up").requireSuccess();
            return new StaleNode(host, client, lan, dir, cniPath);
        } catch (RuntimeException | Error e) {
            host.close();
            throw e;
        }
    }

    /** Writes a network's configuration into the node's configuration directory. */
    Path network(String name, String conflist) throws IOException {
        return Files.writeString(confDir.resolve(name + ".conflist"), conflist);
    }

    /** {@code dist/bin/jcni ARGS...} in the host with the node's directories and plugins. */
    ProcessResult jcni(List<String> args, Map<String, String> env) {
        List<String> command = new ArrayList<>(List.of(Locations.distJcni().toString()));
        command.addAll(args);
        command.addAll(List.of("--cache-dir", cacheDir.toString(), "--conf-dir", confDir.toString(), "--cni-path",
                String.join(":", cniPath.stream().map(Path::toString).toList())));
        return host.run(command, env, null, Duration.ofMinutes(10));
    }

    /** {@code jcni gc --stale ARGS...} in the host; fails the test unless it exits 0. Its stdout's lines. */
    List<String> gcStale(String... args) {
        List<String> all = new ArrayList<>(List.of("gc", "--stale"));
        all.addAll(List.of(args));
        ProcessResult gc = jcni(all, Map.of());
        assertThat(gc.exitCode()).as(gc.describe()).isZero();
        return gc.stdout().lines().toList();
    }

    /**
     * A sandbox that is a process's namespace: {@code unshare --net sleep}, in its own fresh network namespace, with
     * {@code lo} down; killed by {@link #close()} if the test did not.
     */
    Process processSandbox() {
        try {
            Process p = new ProcessBuilder("unshare", "--net", "--", "sleep", "2147483647")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            processes.add(p);
            Path ns = Path.of("/proc", String.valueOf(p.pid()), "ns", "net");
            for (int i = 0; i < 500; i++) {
                if (Files.exists(ns) && !Files.readSymbolicLink(ns).equals(Files.readSymbolicLink(
                        Path.of("/proc/self/ns/net")))) {
                    return p;
                }
                Thread.sleep(10);
            }
            throw new AssertionError("unshare --net did not make its namespace");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** A process that holds the namespace at {@code path} ({@code nsenter --net=PATH sleep}); its path. */
    Path hold(Path path) {
        try {
            Process p = new ProcessBuilder("nsenter", "--net=" + path, "sleep", "2147483647")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            processes.add(p);
            Path ns = Path.of("/proc", String.valueOf(p.pid()), "ns", "net");
            for (int i = 0; i < 500; i++) {
                if (Files.exists(ns) && Files.readAttributes(ns, "unix:dev,ino").equals(
                        Files.readAttributes(path, "unix:dev,ino"))) {
                    return ns;
                }
                Thread.sleep(10);
            }
            throw new AssertionError("nsenter did not enter " + path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Kills {@code p} and waits until its pid is gone. */
    static void kill(Process p) {
        p.destroyForcibly();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The entries of the runtime's result cache. */
    List<String> cacheEntries() {
        return list(cacheDir.resolve("results"));
    }

    /** The unfinished ADDs' journals. */
    List<String> journals() {
        return list(cacheDir.resolve("journal"));
    }

    /** host-local's reservations of {@code network}. */
    List<String> reservations(String network) {
        return HostLocalFiles.reservations(ipamDir, network);
    }

    /** The node's links whose names start with {@code prefix}. */
    List<String> links(String prefix) {
        return host.kernel().links().stream().map(l -> l.name()).filter(n -> n.startsWith(prefix)).toList();
    }

    /** {@code nft list ruleset} of the host. */
    String ruleset() {
        return host.exec("nft", "list", "ruleset").requireSuccess().stdout();
    }

    /** bandwidth's ifb of an attachment, named as Go's and jcni's name it: {@code bwp} + SHA-512(network + id). */
    static String ifb(String network, String containerId) {
        try {
            byte[] sum = MessageDigest.getInstance("SHA-512").digest((network + containerId)
                    .getBytes(StandardCharsets.UTF_8));
            return "bwp" + HexFormat.of().formatHex(sum).substring(0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The host ends a result names (interfaces without sandbox whose name is a veth's). */
    static List<String> hostEnds(JsonNode result) {
        return result.path("interfaces").valueStream().filter(i -> i.path("sandbox").asText().isEmpty())
                .map(i -> i.path("name").asText()).filter(n -> n.startsWith("veth")).toList();
    }

    /** The first IPv4 address of a result, without its prefix length. */
    static String ip(JsonNode result) {
        String address = result.path("ips").get(0).path("address").asText();
        return address.substring(0, address.indexOf('/'));
    }

    /** Every file under the node's state directories, but lock files (buckets and gates are made once, kept). */
    TreeSet<String> stateFiles() {
        TreeSet<String> files = new TreeSet<>();
        for (Path d : List.of(cacheDir, ipamDir, tuningDir)) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (Stream<Path> walk = Files.walk(d)) {
                walk.filter(Files::isRegularFile).filter(f -> !f.getParent().getFileName().toString().equals("locks"))
                        .forEach(f -> files.add(dir.relativize(f).toString()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }

    private static List<String> list(Path d) {
        if (!Files.isDirectory(d)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(d)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> !n.startsWith(".")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until {@code link} is gone from the host (the kernel destroys a dead namespace's veths asynchronously). */
    void awaitGone(String link) {
        for (int i = 0; i < 500 && host.kernel().link(link).isPresent(); i++) {
            sleep(20);
        }
        assertThat(host.kernel().link(link)).as("%s after its namespace went", link).isEmpty();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        runtime.close();
        host.close();
    }

    /** A link name for {@code tag} (a bridge). */
    static String link(String tag) {
        return Names.link(tag);
    }
}
