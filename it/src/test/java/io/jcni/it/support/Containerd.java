package io.jcni.it.support;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Debian's containerd 1.6 as a real CNI runtime on a test's own node, leaving the machine alone: its CRI plugin (driven
 * through {@link #cri()}) and {@code ctr run --cni} (through {@link #ctr}) exec the CNI plugins the test chose, in the
 * test host's network namespace (the node), with the CNI state read back from the test's directory.
 *
 * <p>How it is kept off the machine (the harness's files are in {@code src/test/containerd}):
 * <ul>
 * <li>a holder process ({@code sleep}) owns a private mount namespace inside the node's network namespace
 * ({@code nsenter --net} then {@code unshare --mount --propagation slave}); {@code node-mounts.sh} gives it the node's
 * own sysfs (with the machine's cgroup hierarchies), a tmpfs on {@code /run} (containerd's shim sockets and runc's
 * state), {@code /etc/cni/net.d}, {@code /opt/cni/bin}, {@code /var/lib/cni} and {@code /run/cni} bound from this
 * harness's directory (made in overlays where the machine has no such directory), and an empty
 * {@code /usr/lib/cni} (Debian's ctr searches it too, which would run Debian's Go plugins silently);</li>
 * <li>containerd, ctr and a test's plugin service run in that namespace ({@code nsenter -t HOLDER -m -n}):
 * containerd's root, state and socket are under the directory ({@code containerd-config.toml});</li>
 * <li>containers get cgroups under {@link #cgroupParent()} (pass it as the pod's {@code cgroupParent}, and to
 * {@code ctr run --cgroup}), which {@link #close()} removes from every hierarchy, as it stops every process of the
 * mount namespace and of those cgroups.</li>
 * </ul>
 * The image ({@link #IMAGE}: busybox-static, built by {@code busybox-image.sh}, nothing is pulled) is imported into
 * the namespaces {@code k8s.io} (the CRI's, where it is also the sandbox image) and {@code default} (ctr's).
 *
 * <p>Fails, never skips, when containerd, runc, ctr, Debian's Python with grpcio, or busybox-static is missing: a
 * containerd test must not pass by not running. Close it before the test host.
 */
public final class Containerd implements AutoCloseable {
    /** The image every pod and container runs: busybox-static, whose command sleeps. */
    public static final String IMAGE = "localhost/jcni/busybox:1";
    /** The network's name in {@code cni-conf-template.json}. */
    public static final String NETWORK = "containerd-net";
    /** The file containerd renders the template into, in the CNI configuration directory. */
    public static final String RENDERED_CONFLIST = "10-containerd-net.conflist";

    private static final Duration START = Duration.ofSeconds(60);

    private final Path dir;
    private final Process holder;
    private final String mountNamespace;
    private final String cgroupParent;
    private final List<Process> background = new ArrayList<>();
    private Process containerd;
    private CriClient cri;
    private boolean closed;

    private Containerd(Path dir, Process holder, String mountNamespace, String cgroupParent) {
        this.dir = dir;
        this.holder = holder;
        this.mountNamespace = mountNamespace;
        this.cgroupParent = cgroupParent;
    }

    /**
     * What containerd runs with.
     *
     * @param plugins what goes into the node's {@code /opt/cni/bin}: each a directory (its executables are copied)
     *     or one executable; none: the node keeps the {@code /opt/cni/bin} its mount namespace has (an installation's)
     * @param cniTemplate the CNI configuration template containerd renders when it gets a pod CIDR
     * @param env containerd's environment on top of this JVM's (the plugins it execs inherit it)
     * @param mountNamespace null, or the mount namespace (a namespace file) the node's own is made in, instead of the
     *     machine's: the node then sees what is mounted there, e.g. a package installed in an {@link InstallRoot}
     */
    public record Options(List<Path> plugins, Path cniTemplate, Map<String, String> env, Path mountNamespace) {
        public Options {
            plugins = List.copyOf(plugins);
            env = Map.copyOf(env);
        }

        /** The plugins of {@code dir}, the harness's template, no extra environment. */
        public static Options plugins(Path dir) {
            return new Options(List.of(dir), Locations.containerdSupport().resolve("cni-conf-template.json"),
                    Map.of(), null);
        }

        /**
         * The plugins installed in {@code mountNamespace}'s {@code /opt/cni/bin} (none copied), the harness's
         * template, no extra environment.
         */
        public static Options installedIn(Path mountNamespace) {
            return new Options(List.of(), Locations.containerdSupport().resolve("cni-conf-template.json"), Map.of(),
                    java.util.Objects.requireNonNull(mountNamespace, "mountNamespace"));
        }

        public Options withPlugins(List<Path> more) {
            List<Path> all = new ArrayList<>(plugins);
            all.addAll(more);
            return new Options(all, cniTemplate, env, mountNamespace);
        }

        public Options withTemplate(Path template) {
            return new Options(plugins, template, env, mountNamespace);
        }

        public Options withEnv(Map<String, String> more) {
            Map<String, String> all = new HashMap<>(env);
            all.putAll(more);
            return new Options(plugins, cniTemplate, all, mountNamespace);
        }
    }

    /** Starts containerd on {@code node}, its files under {@code dir}, and imports {@link #IMAGE}. */
    public static Containerd start(TestHost node, Path dir, Options options) {
        Prerequisites.assumeRoot();
        requireTools();
        Path support = Locations.containerdSupport();
        Containerd started = null;
        try {
            Files.createDirectories(dir);
            if (!options.plugins().isEmpty()) {
                installPlugins(options.plugins(), dir.resolve("opt-cni-bin"));
            }
            Files.writeString(dir.resolve("config.toml"), Files.readString(support.resolve("containerd-config.toml"))
                    .replace("@DIR@", dir.toString()).replace("@IMAGE@", IMAGE)
                    .replace("@CNI_TEMPLATE@", options.cniTemplate().toAbsolutePath().toString()));
            Processes.run(List.of(support.resolve("busybox-image.sh").toString(), dir.resolve("image.tar").toString(),
                    IMAGE), Map.of("TMPDIR", dir.toString()), null, START).requireSuccess();

            List<String> holderCommand = new ArrayList<>(List.of("nsenter", "--net=" + node.netns().path()));
            if (options.mountNamespace() != null) {
                holderCommand.add("--mount=" + options.mountNamespace());
            }
            holderCommand.addAll(List.of("unshare", "--mount", "--propagation", "slave",
                    support.resolve("node-mounts.sh").toString(), dir.toString(), "sh", "-c",
                    "echo ready; exec sleep 2147483647"));
            ProcessBuilder holderBuilder = new ProcessBuilder(holderCommand).redirectErrorStream(true);
            if (options.plugins().isEmpty()) {
                holderBuilder.environment().put("NODE_KEEP_OPT_CNI_BIN", "1");
            }
            Process holder = holderBuilder.start();
            BufferedReader said = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
            String first = said.readLine();
            if (!"ready".equals(first)) {
                StringBuilder text = new StringBuilder(String.valueOf(first));
                for (String l; (l = said.readLine()) != null; ) {
                    text.append('\n').append(l);
                }
                holder.destroyForcibly();
                throw new AssertionError("the node's mount namespace could not be set up:\n" + text);
            }
            String mnt = Files.readSymbolicLink(Path.of("/proc", String.valueOf(holder.pid()), "ns", "mnt"))
                    .toString();
            started = new Containerd(dir, holder, mnt, "/jcni-ctr-" + Names.randomHex(8));
            started.startContainerd(options.env());
            for (String namespace : List.of("k8s.io", "default")) {
                started.ctr("-n", namespace, "images", "import", dir.resolve("image.tar").toString())
                        .requireSuccess();
            }
            return started;
        } catch (IOException e) {
            if (started != null) {
                started.close();
            }
            throw new UncheckedIOException(e);
        } catch (RuntimeException | Error e) {
            if (started != null) {
                started.close();
            }
            throw e;
        }
    }

    private static void requireTools() {
        for (String tool : List.of("containerd", "ctr", "nsenter", "unshare", "tar", "sha256sum")) {
            Prerequisites.assumeCommand(tool);
        }
        for (Path file : List.of(Locations.containerd(), Path.of("/usr/sbin/runc"), Path.of("/bin/busybox"),
                Locations.debianPython())) {
            Prerequisites.require(Files.isExecutable(file), () -> file + ", which the containerd tests need: "
                    + "scripts/setup installs it (containerd, runc, busybox-static, python3-grpcio, python3-protobuf)");
        }
    }

    private static void installPlugins(List<Path> sources, Path binDir) throws IOException {
        Files.createDirectories(binDir);
        for (Path source : sources) {
            List<Path> files;
            if (Files.isDirectory(source)) {
                try (Stream<Path> listed = Files.list(source)) {
                    files = listed.filter(f -> Files.isRegularFile(f) && Files.isExecutable(f)).sorted().toList();
                }
            } else {
                files = List.of(source);
            }
            if (files.isEmpty()) {
                throw new AssertionError("no plugins in " + source);
            }
            for (Path file : files) {
                // A copy, as a node installs plugins (cp dist/cni/bin/* /opt/cni/bin): jcni's clients work as copies.
                Files.copy(file, binDir.resolve(file.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private void startContainerd(Map<String, String> env) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(inNode(List.of("containerd", "--config",
                dir.resolve("config.toml").toString()))).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("containerd.log").toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(env);
        containerd = builder.start();
        long deadline = System.nanoTime() + START.toNanos();
        while (true) {
            if (Files.exists(socket()) && ctr("version").succeeded()) {
                return;
            }
            if (!containerd.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("containerd did not start:\n" + log());
            }
            sleep(50);
        }
    }

    /** {@code command} prefixed to run in the node: its network namespace and the harness's mount namespace. */
    public List<String> inNode(List<String> command) {
        List<String> full = new ArrayList<>(List.of("nsenter", "-t", String.valueOf(holder.pid()), "-m", "-n"));
        full.addAll(command);
        return full;
    }

    /** Runs {@code ctr --address SOCKET ARGS...} in the node. */
    public ProcessResult ctr(String... args) {
        List<String> command = new ArrayList<>(List.of("ctr", "--address", socket().toString()));
        command.addAll(List.of(args));
        return Processes.run(inNode(command), Map.of(), null, START);
    }

    /**
     * Starts {@code ctr --address SOCKET ARGS...} in the node without waiting for it (e.g. {@code ctr run}), its
     * output to {@code log}; {@link #close()} kills it if it still runs.
     */
    public Process ctrInBackground(Path log, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>(List.of("ctr", "--address", socket().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(inNode(command)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(env);
        try {
            Process process = builder.start();
            background.add(process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /**
     * SIGKILL of containerd alone, as a crash: its shims and the containers they run live on, and nothing of its CNI
     * teardown runs. {@link #close()} still ends them all.
     */
    public void kill() {
        if (containerd != null && containerd.isAlive()) {
            containerd.destroyForcibly();
            waitFor(containerd, Duration.ofSeconds(20));
        }
    }

    /** The CRI client on containerd's socket (started at the first call). */
    public CriClient cri() {
        if (cri == null) {
            cri = CriClient.start(socket());
        }
        return cri;
    }

    public Path socket() {
        return dir.resolve("containerd.sock");
    }

    /** The node's {@code /etc/cni/net.d}. */
    public Path cniConfDir() {
        return dir.resolve("etc-cni-net.d");
    }

    /**
     * The node's {@code /var/lib/cni}: host-local's reservations ({@code networks/}), libcni's cache
     * ({@code results/}).
     */
    public Path cniState() {
        return dir.resolve("var-lib-cni");
    }

    /** The node's {@code /opt/cni/bin}. */
    public Path pluginDir() {
        return dir.resolve("opt-cni-bin");
    }

    /** The cgroup path under which pods and containers must go ({@code LinuxPodSandboxConfig.cgroup_parent}). */
    public String cgroupParent() {
        return cgroupParent;
    }

    /** What containerd wrote so far, the stderr of the plugins it ran included. */
    public String log() {
        try {
            Path log = dir.resolve("containerd.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(containerd's log is unreadable: " + e.getMessage() + ")";
        }
    }

    /**
     * Stops containerd (SIGTERM), then kills whatever is left in the node's mount namespace (shims, a plugin service,
     * ctr) or in {@link #cgroupParent()} (containers), ends the holder and removes the cgroups. Fails if a process or
     * a cgroup remains. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (cri != null) {
            cri.close();
        }
        for (Process p : background) {
            p.destroyForcibly();
        }
        if (containerd != null && containerd.isAlive()) {
            containerd.destroy();
            waitFor(containerd, Duration.ofSeconds(20));
        }
        List<Long> left;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        do {
            left = ours();
            for (long pid : left) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            if (!left.isEmpty()) {
                sleep(100);
            }
        } while (!left.isEmpty() && System.nanoTime() < deadline);
        holder.destroyForcibly();
        waitFor(holder, Duration.ofSeconds(10));
        List<Path> cgroups = removeCgroups();
        if (!left.isEmpty() || !cgroups.isEmpty()) {
            throw new AssertionError("containerd's node left processes " + ours() + " and cgroups " + cgroups);
        }
    }

    /** The processes of the node's mount namespace (but the holder) and of the containers' cgroups. */
    private List<Long> ours() {
        List<Long> pids = new ArrayList<>();
        try (Stream<ProcessHandle> all = ProcessHandle.allProcesses()) {
            for (ProcessHandle p : all.toList()) {
                if (p.pid() != holder.pid() && (inMountNamespace(p.pid()) || inCgroups(p.pid()))) {
                    pids.add(p.pid());
                }
            }
        }
        return pids;
    }

    private boolean inMountNamespace(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", String.valueOf(pid), "ns", "mnt")).toString()
                    .equals(mountNamespace);
        } catch (IOException e) {
            return false; // gone, or a kernel thread
        }
    }

    private boolean inCgroups(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "cgroup"))) {
                String path = line.substring(line.indexOf(':', line.indexOf(':') + 1) + 1);
                if (path.equals(cgroupParent) || path.startsWith(cgroupParent + "/")) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Removes {@link #cgroupParent()} from every hierarchy, deepest first; what could not be removed. */
    private List<Path> removeCgroups() {
        List<Path> left = new ArrayList<>();
        Path root = Path.of("/sys/fs/cgroup");
        try (Stream<Path> hierarchies = Files.list(root)) {
            for (Path hierarchy : hierarchies.toList()) {
                Path top = hierarchy.resolve(cgroupParent.substring(1));
                if (!Files.isDirectory(top)) {
                    continue;
                }
                for (int attempt = 0; attempt < 50 && Files.isDirectory(top); attempt++) {
                    try (Stream<Path> tree = Files.walk(top)) {
                        for (Path d : tree.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
                            try {
                                Files.delete(d); // rmdir: a cgroup's control files go with it
                            } catch (IOException busy) {
                                // a process leaving it; tried again
                            }
                        }
                    } catch (IOException | UncheckedIOException gone) {
                        // removed while walking
                    }
                    if (Files.isDirectory(top)) {
                        sleep(100);
                    }
                }
                if (Files.isDirectory(top)) {
                    left.add(top);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + root, e);
        }
        return left;
    }

    private static void waitFor(Process process, Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "containerd in " + dir;
    }
}
