package io.jcni.it.support;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Runs the Go libcni driver ({@code it/src/test/go/libcni-driver}, built against Debian's libcni 1.1.2): the Go peer
 * of interop tests. Each method is one driver subcommand; see the driver's usage text for the exact semantics.
 * Instances are immutable; {@code with...} methods return a changed copy.
 */
public final class LibcniDriver {

    private final List<Path> cniPath;
    private final Path cacheDir;
    private final Map<String, String> env;
    private final Duration pluginTimeout;
    private final Duration processTimeout;
    private final String netns;

    private LibcniDriver(List<Path> cniPath, Path cacheDir, Map<String, String> env, Duration pluginTimeout,
            Duration processTimeout, String netns) {
        this.cniPath = List.copyOf(cniPath);
        this.cacheDir = cacheDir;
        this.env = Map.copyOf(env);
        this.pluginTimeout = pluginTimeout;
        this.processTimeout = processTimeout;
        this.netns = netns;
    }

    /**
     * A driver searching plugins in {@code cniPath} and caching results under {@code cacheDir} (never libcni's
     * default /var/lib/cni in tests). Skips the test if the Go tools were not built.
     */
    public static LibcniDriver create(List<Path> cniPath, Path cacheDir) {
        Prerequisites.assumeGoTools();
        return new LibcniDriver(cniPath, cacheDir, Map.of(), null, Processes.DEFAULT_TIMEOUT, null);
    }

    /**
     * The same driver run in the named namespace ({@code ip netns exec}), which is then the host of every plugin it
     * execs: see {@link TestHost#libcni}.
     */
    public LibcniDriver inNetns(String name) {
        return new LibcniDriver(cniPath, cacheDir, env, pluginTimeout, processTimeout, name);
    }

    /** Extra environment for the driver, which libcni passes on to every plugin it execs. */
    public LibcniDriver withEnv(Map<String, String> extra) {
        var merged = new HashMap<>(env);
        merged.putAll(extra);
        return new LibcniDriver(cniPath, cacheDir, merged, pluginTimeout, processTimeout, netns);
    }

    /** A deadline per command: libcni kills the plugin when it expires (the driver's {@code --timeout}). */
    public LibcniDriver withPluginTimeout(Duration timeout) {
        return new LibcniDriver(cniPath, cacheDir, env, timeout, processTimeout, netns);
    }

    public List<Path> cniPath() {
        return cniPath;
    }

    public Path cacheDir() {
        return cacheDir;
    }

    /** libcni's AddNetworkList; the answer is the result JSON. */
    public DriverOutcome add(Path conf, Path netns, Attachment attachment) {
        return attach("add", conf, netns, attachment);
    }

    /** libcni's CheckNetworkList; the answer is {@code {}}. */
    public DriverOutcome check(Path conf, Path netns, Attachment attachment) {
        return attach("check", conf, netns, attachment);
    }

    /** libcni's DelNetworkList; the answer is {@code {}}. */
    public DriverOutcome del(Path conf, Path netns, Attachment attachment) {
        return attach("del", conf, netns, attachment);
    }

    /**
     * libcni's DelNetworkList with {@code RuntimeConf.NetNS} empty, as containerd's go-cni removes a sandbox whose
     * namespace is gone: every plugin gets {@code CNI_NETNS=""} (and the cached result as prevResult). The attachment
     * needs its container ID (the default one is derived from the netns path).
     */
    public DriverOutcome delWithoutNetns(Path conf, Attachment attachment) {
        if (attachment.containerId() == null) {
            throw new IllegalArgumentException("a DEL without netns needs the attachment's container ID");
        }
        return run(withAttachment(new ArrayList<>(List.of("del", conf.toString(), "")), attachment));
    }

    /** libcni's GetVersionInfo; the answer is the plugin's version document. */
    public DriverOutcome version(String pluginType) {
        return run(List.of("version", pluginType));
    }

    /** libcni's ValidateNetworkList; the answer is {@code {"capabilities":[sorted]}}. */
    public DriverOutcome validate(Path conf) {
        return run(List.of("validate", conf.toString()));
    }

    /**
     * libcni's GetNetworkListCachedResult for the list in {@code conf}: the cached result converted to the list's
     * cniVersion, or JSON {@code null} when there is no cache file.
     */
    public DriverOutcome cachedResult(Path conf, Attachment attachment) {
        return run(withAttachment(new ArrayList<>(List.of("cached-result", conf.toString())), attachment));
    }

    /** As {@link #cachedResult(Path, Attachment)} for a network known only by name, converted to {@code cniVersion}. */
    public DriverOutcome cachedResult(String network, String cniVersion, Attachment attachment) {
        return run(withAttachment(
                new ArrayList<>(List.of("cached-result", network, "--cni-version", cniVersion)), attachment));
    }

    /**
     * libcni's GetNetworkListCachedConfig for a network name: {@code {"config": "<cached bytes>", "containerId",
     * "netns", "ifName", "cniArgs", "capabilityArgs"}} or JSON {@code null} when there is no cache file.
     */
    public DriverOutcome cachedConfig(String network, Attachment attachment) {
        return run(withAttachment(new ArrayList<>(List.of("cached-config", network)), attachment));
    }

    /**
     * {@code n} VERSION execs of {@code pluginType} through libcni (find, spawn, pipes, decode), timed one by one:
     * {@code {"durationsNs":[...], "medianNs", "minNs", "maxNs", "meanNs", ...}}.
     */
    public DriverOutcome benchVersion(String pluginType, int n) {
        return run(List.of("bench-exec", "--plugin", pluginType, "--n", Integer.toString(n), "--command", "VERSION"));
    }

    /**
     * {@code n} execs of {@code command} (ADD, CHECK or DEL) of {@code pluginType} with the plugin configuration
     * {@code conf} on stdin, through libcni's invoke package (no list semantics, no cache).
     */
    public DriverOutcome benchExec(String pluginType, String command, Path conf, Path netns, Attachment attachment,
            int n) {
        var args = new ArrayList<>(List.of("bench-exec", "--plugin", pluginType, "--n", Integer.toString(n),
                "--command", command, "--conf", conf.toString(), "--netns", netns.toString()));
        return run(withAttachment(args, attachment));
    }

    /**
     * What a Go runtime does with a result it holds: {@code create.CreateFromBytes} (read by the result's own
     * cniVersion) then {@code GetAsVersion(to)}; the answer is the converted result as {@code json.Marshal} prints it.
     */
    public DriverOutcome convert(Path resultFile, String to) {
        return run(List.of("convert", "--to", to, resultFile.toString()));
    }

    /** Any driver command line; the common flags (--cni-path, --cache-dir, --timeout) are appended. */
    public DriverOutcome run(List<String> arguments) {
        var command = new ArrayList<String>();
        if (netns != null) {
            command.addAll(List.of("ip", "netns", "exec", netns));
        }
        command.add(Locations.libcniDriver().toString());
        command.addAll(arguments);
        command.add("--cni-path=" + cniPath.stream().map(Path::toString).collect(Collectors.joining(":")));
        if (cacheDir != null) {
            command.add("--cache-dir=" + cacheDir);
        }
        if (pluginTimeout != null) {
            command.add("--timeout=" + pluginTimeout.toMillis() + "ms");
        }
        return DriverOutcome.of(Processes.run(command, env, null, processTimeout));
    }

    private DriverOutcome attach(String verb, Path conf, Path netns, Attachment attachment) {
        return run(withAttachment(new ArrayList<>(List.of(verb, conf.toString(), netns.toString())), attachment));
    }

    private static List<String> withAttachment(List<String> args, Attachment a) {
        if (a.containerId() != null) {
            args.add("--container-id=" + a.containerId());
        }
        if (a.ifName() != null) {
            args.add("--ifname=" + a.ifName());
        }
        if (a.cniArgs() != null) {
            args.add("--cni-args=" + a.cniArgs());
        }
        if (a.capabilityArgs() != null) {
            args.add("--cap-args=" + a.capabilityArgs());
        }
        return args;
    }
}
