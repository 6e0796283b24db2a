package io.jcni.it.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's podman (4.3, CNI backend) as a real CNI runtime, run so that it leaves the machine alone: one shell,
 * started in a test host's network namespace ({@code nsenter --net}) and in a mount namespace of its own whose mounts
 * never reach the machine ({@code unshare --mount --propagation slave}), runs every podman command of a test, one per
 * {@link #podman} call. Inside, {@code /run} and {@code /var/lib} are fresh tmpfs (so podman's container namespaces,
 * runc's state, its image blob cache and its CNI state land nowhere on the machine), with {@code /var/lib/cni} and
 * {@code /var/lib/containers} bind-mounted from the test's directory, where the test reads host-local's reservations
 * and libcni's cache. podman's own state is there too: {@code --root}, {@code --runroot}, {@code --network-config-dir},
 * and {@code CONTAINERS_CONF} (CNI backend, the plugin directories given, cgroupfs, a file event log, the temp dir).
 *
 * <p>Why one shell: podman keeps a container's network namespace as a bind mount under {@code /run/netns}; a later
 * podman command must see it, so every command runs in the same mount namespace, and that one must not be the
 * machine's (else {@code /run/netns}, {@code /run/runc}, {@code /run/libpod} and {@code /var/lib/containers} would
 * appear there). {@code ip netns exec} is not used: it remounts {@code /sys}, which takes away the cgroup mounts runc
 * needs. Facts of this machine (see the issue): runc, not crun (cgroup hybrid mode); ulimits passed on {@code run}.
 *
 * <p>Close it to end the shell (a still running container is removed first by the test, not here).
 */
public final class Podman implements AutoCloseable {
    private static final String MARK = "@@jcni-podman-exit ";

    private final Path dir;
    private final Process shell;
    private final Writer in;
    private final BufferedReader out;

    private Podman(Path dir, Process shell) {
        this.dir = dir;
        this.shell = shell;
        this.in = new OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8);
        this.out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
    }

    /** What one podman command printed (stdout and stderr, in order) and its exit status. */
    public record Result(int exit, String output) {
        public Result requireSuccess() {
            if (exit != 0) {
                throw new AssertionError("podman exited " + exit + ":\n" + output);
            }
            return this;
        }
    }

    /**
     * Starts the shell in {@code host}; podman's state goes under {@code dir}, its CNI plugins are searched in
     * {@code pluginDirs}. Skips the test without podman, runc, nsenter or unshare.
     */
    public static Podman start(TestHost host, Path dir, List<Path> pluginDirs) {
        Prerequisites.assumeRoot();
        for (String tool : List.of("podman", "runc", "nsenter", "unshare")) {
            Prerequisites.assumeCommand(tool);
        }
        try {
            for (String sub : List.of("var-lib-cni", "var-lib-containers", "tmp", "net.d")) {
                Files.createDirectories(dir.resolve(sub));
            }
            List<String> dirs = new ArrayList<>();
            for (Path p : pluginDirs) {
                dirs.add("\"" + p + "\"");
            }
            Files.writeString(dir.resolve("containers.conf"), "[network]\nnetwork_backend = \"cni\"\n"
                    + "cni_plugin_dirs = [" + String.join(", ", dirs) + "]\n"
                    + "network_config_dir = \"" + dir.resolve("net.d") + "\"\n"
                    + "[engine]\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n"
                    + "tmp_dir = \"" + dir.resolve("tmp") + "\"\n");
            String script = "set -u\n"
                    + "mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib || exit 90\n"
                    + "mkdir -p /var/lib/cni /var/lib/containers\n"
                    + "mount --bind '" + dir.resolve("var-lib-cni") + "' /var/lib/cni || exit 91\n"
                    + "mount --bind '" + dir.resolve("var-lib-containers") + "' /var/lib/containers || exit 92\n"
                    + "export CONTAINERS_CONF='" + dir.resolve("containers.conf") + "'\n"
                    + "podman() { command podman --root '" + dir.resolve("root") + "' --runroot '"
                    + dir.resolve("runroot") + "' --network-config-dir '" + dir.resolve("net.d")
                    + "' --runtime /usr/sbin/runc --cgroup-manager cgroupfs \"$@\"; }\n"
                    + "echo '" + MARK + "0'\n"
                    + "while IFS= read -r line; do eval \"$line\" </dev/null 2>&1; echo \"" + MARK + "$?\"; done\n";
            ProcessBuilder pb = new ProcessBuilder("nsenter", "--net=" + host.netns().path(), "unshare", "--mount",
                    "--propagation", "slave", "sh", "-c", script);
            pb.redirectErrorStream(true);
            Podman podman = new Podman(dir, pb.start());
            podman.await().requireSuccess();
            return podman;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code podman ARGS...} in the shell; every argument is passed as one word. */
    public Result podman(String... args) {
        StringBuilder line = new StringBuilder("podman");
        for (String a : args) {
            if (a.indexOf('\'') >= 0 || a.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("cannot quote for sh: " + a);
            }
            line.append(" '").append(a).append('\'');
        }
        try {
            in.write(line.append('\n').toString());
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the podman shell is gone", e);
        }
        return await();
    }

    /**
     * Runs {@code line} in the shell, as it is (a test's own text: variables, several commands): in podman's mount
     * namespace, where its namespaces and state are, e.g. {@code jcni gc --stale} as a node would run it.
     */
    public Result shell(String line) {
        if (line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("one line: " + line);
        }
        try {
            in.write(line + "\n");
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the podman shell is gone", e);
        }
        return await();
    }

    private Result await() {
        StringBuilder text = new StringBuilder();
        try {
            String l;
            while ((l = out.readLine()) != null) {
                if (l.startsWith(MARK)) {
                    return new Result(Integer.parseInt(l.substring(MARK.length()).strip()), text.toString());
                }
                text.append(l).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("the podman shell ended:\n" + text);
    }

    /** podman's state directory (host-local's reservations are under {@code var-lib-cni/networks}). */
    public Path dir() {
        return dir;
    }

    /** The reservation files host-local keeps for {@code network} (addresses only; lock and markers left out). */
    public List<String> reservations(String network) {
        return HostLocalFiles.reservations(dir.resolve("var-lib-cni/networks"), network);
    }

    /** Ends the shell (and with its mount namespace everything podman mounted). */
    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException ignored) {
            // the shell is gone already
        }
        try {
            if (!shell.waitFor(30, TimeUnit.SECONDS)) {
                shell.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shell.destroyForcibly();
        }
    }
}
