package io.jcni.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
 * <p>Close it to remove what containers are left and end the shell.
 */
public final class Podman implements AutoCloseable {
    private final Path dir;
    private final ShellSession shell;

    private Podman(Path dir, ShellSession shell) {
        this.dir = dir;
        this.shell = shell;
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
        return start(host, dir, pluginDirs, null, Map.of());
    }

    /**
     * As {@link #start(TestHost, Path, List)}, with podman's own mount namespace made inside {@code mountNamespace}
     * (a namespace file such as {@link ShellSession#mountNamespace()}: podman sees what is mounted there, e.g. a
     * package installed in an {@link InstallRoot}) when it is not null, and {@code env} exported for every podman
     * command (and so for the plugins it runs).
     */
    public static Podman start(TestHost host, Path dir, List<Path> pluginDirs, Path mountNamespace,
            Map<String, String> env) {
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
            StringBuilder exports = new StringBuilder();
            for (Map.Entry<String, String> variable : env.entrySet()) {
                exports.append("export ").append(variable.getKey()).append('=')
                        .append(ShellSession.quote(variable.getValue())).append('\n');
            }
            String setup = "mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /var/lib || exit 90\n"
                    + "mkdir -p /var/lib/cni /var/lib/containers\n"
                    + "mount --bind '" + dir.resolve("var-lib-cni") + "' /var/lib/cni || exit 91\n"
                    + "mount --bind '" + dir.resolve("var-lib-containers") + "' /var/lib/containers || exit 92\n"
                    + "export CONTAINERS_CONF='" + dir.resolve("containers.conf") + "'\n"
                    + exports
                    + "podman() { command podman --root '" + dir.resolve("root") + "' --runroot '"
                    + dir.resolve("runroot") + "' --network-config-dir '" + dir.resolve("net.d")
                    + "' --runtime /usr/sbin/runc --cgroup-manager cgroupfs \"$@\"; }";
            List<String> prefix = new ArrayList<>(List.of("nsenter", "--net=" + host.netns().path()));
            if (mountNamespace != null) {
                prefix.add("--mount=" + mountNamespace);
            }
            prefix.addAll(List.of("unshare", "--mount", "--propagation", "slave"));
            return new Podman(dir, ShellSession.start(prefix, setup));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code podman ARGS...} in the shell; every argument is passed as one word. */
    public Result podman(String... args) {
        List<String> words = new ArrayList<>(List.of("podman"));
        words.addAll(List.of(args));
        ShellSession.Result result = shell.run(ShellSession.quote(words));
        return new Result(result.exit(), result.output());
    }

    /**
     * Runs {@code line} in the shell, as it is (a test's own text: variables, several commands): in podman's mount
     * namespace, where its namespaces and state are, e.g. {@code jcni gc --stale} as a node would run it.
     */
    public Result shell(String line) {
        if (line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("one line: " + line);
        }
        ShellSession.Result result = shell.run(line);
        return new Result(result.exit(), result.output());
    }

    /** podman's state directory (host-local's reservations are under {@code var-lib-cni/networks}). */
    public Path dir() {
        return dir;
    }

    /** The reservation files host-local keeps for {@code network} (addresses only; lock and markers left out). */
    public List<String> reservations(String network) {
        return HostLocalFiles.reservations(dir.resolve("var-lib-cni/networks"), network);
    }

    /**
     * Removes every container still there (a test that failed half-way leaves them running: conmon, the container's
     * processes and their cgroups would outlive the test), then ends the shell, and with its mount namespace
     * everything podman mounted.
     */
    @Override
    public void close() {
        try {
            shell.run("podman rm -a -f -t 0 >/dev/null 2>&1");
        } finally {
            shell.close();
        }
    }
}
