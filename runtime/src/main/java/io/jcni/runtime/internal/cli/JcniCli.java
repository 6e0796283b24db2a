package io.jcni.runtime.internal.cli;

import io.jcni.runtime.CachedAttachment;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.JcniLaunchers;
import io.jcni.runtime.NetworkConfigs;
import io.jcni.runtime.RuntimeConf;
import io.jcni.runtime.StaleOptions;
import io.jcni.runtime.StaleReport;
import io.jcni.runtime.internal.exec.PluginLocator;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.VersionInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code jcni}: a cnitool-compatible command line over {@link CniRuntime}. Run it as
 * {@code java -m io.jcni.runtime/io.jcni.runtime.internal.cli.JcniCli} or through {@code dist/bin/jcni}.
 *
 * <p>The argument parser is written by hand: a reflective framework would cost start-up time on every call.
 */
public final class JcniCli {
    /** Exit status: the operation succeeded. */
    public static final int OK = 0;
    /** Exit status: a plugin or the runtime reported a CNI error (printed with its code). */
    public static final int FAILED = 1;
    /** Exit status: the command line is wrong. */
    public static final int USAGE = 2;
    /** Exit status: the configuration is missing or invalid (network not found, bad file, no CNI_PATH). */
    public static final int CONFIG = 3;

    static final String USAGE_TEXT = """
            Usage:
              jcni [options] add|check|del <network> <netns>   run a network list for a container
              jcni [options] gc <network> [<netns>]            garbage-collect a network (spec 1.1.0)
              jcni [options] gc --stale [--dry-run] [<network>]
                                                        remove what attachments whose namespace is gone left
                                                        behind, then garbage-collect (every network when none
                                                        is named)
              jcni [options] status <network> [<netns>]        ask a network's plugins whether they are ready
              jcni [options] version <plugin-type>             print a plugin's supported versions
              jcni [options] validate <network|file>           check plugins exist and support the version
              jcni convert --to <version> [<file>|-]           convert a result JSON to another CNI version
              jcni serve [options]                             run the plugin service (jcni serve --help)
              jcni stats [<address>]                           the service's figures as a table: calls,
                                                        errors, p50/p99 per plugin type and command;
                                                        <address> as given to serve --metrics-address
                                                        (default $JCNI_METRICS_ADDRESS)
              jcni --help | --version

            <network> is the name of a configuration in $NETCONFPATH; <netns> the path of a network namespace
            (e.g. /var/run/netns/blue); for del it may be "" (the namespace is gone; needs --container-id). add
            prints the result as JSON.

            Environment (as cnitool):
              NETCONFPATH  directory of .conflist/.conf/.json files (default /etc/cni/net.d)
              CNI_PATH     plugin directories, colon separated (required for plugin commands)
              CNI_IFNAME   interface name in the container (default eth0)
              CNI_ARGS     extra arguments, K=V;K2=V2
              CAP_ARGS     capability arguments as a JSON object, e.g. {"portMappings":[...]}

            Options:
              --container-id ID   container ID (default: cnitool-<hex of the first 10 bytes of the SHA-512 of
                                  the absolute netns path>)
              --ifname NAME       interface name (overrides CNI_IFNAME)
              --cache-dir DIR     result cache directory (default /var/lib/cni)
              --conf-dir DIR      configuration directory (overrides NETCONFPATH)
              --cni-path PATH     plugin directories (overrides CNI_PATH)
              --timeout DURATION  kill a plugin that runs longer, e.g. 30s, 500ms (default: no limit)
              --no-rollback       add: when a plugin fails, leave what the plugins before it made for a later
                                  del (as cnitool does) instead of deleting it at once
              --valid ID/IFNAME   gc: an attachment that is still valid (repeatable). Without it, every attachment
                                  in the result cache is valid and only plugin state not known to the cache goes
              --stale             gc: judge every cached attachment by its namespace (gone: the path is missing
                                  or no longer a namespace) and DEL those that are gone, with the configuration
                                  and arguments they were added with; finish the rollbacks of failed ADDs; then
                                  GC each network with what is left as valid. Kept, and listed: live namespaces,
                                  paths that cannot be judged (/proc/PID/..., pids are reused), busy attachments.
                                  Prints one line per attachment and network
              --dry-run           gc --stale: list what would be removed, change nothing
              --to VERSION        convert: the target version

            Exit status: 0 success; 1 the operation failed (the CNI error code and message are printed, plugin
            stderr passes through); 2 bad command line; 3 configuration not found or invalid.
            """;

    private final Map<String, String> env;
    private final InputStream in;
    private final PrintStream out;
    private final PrintStream err;

    private JcniCli(Map<String, String> env, InputStream in, PrintStream out, PrintStream err) {
        this.env = env;
        this.in = in;
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        // The runtime's warnings are the command's to print, as "jcni: warning: ..." lines (see RuntimeLog).
        io.jcni.runtime.internal.RuntimeLog.toConsole(System.err);
        int status = run(List.of(args), System.getenv(), System.in, System.out, System.err);
        System.out.flush();
        System.err.flush();
        System.exit(status);
    }

    /** Runs one command line; returns the exit status. Never throws and never prints a stack trace. */
    public static int run(List<String> args, Map<String, String> env, InputStream in, PrintStream out,
            PrintStream err) {
        JcniCli cli = new JcniCli(env, in, out, err);
        try {
            return cli.dispatch(Arguments.parse(args));
        } catch (UsageException e) {
            err.println("jcni: " + e.getMessage());
            err.println("Run 'jcni --help' for usage.");
            return USAGE;
        } catch (ConfigException e) {
            err.println("jcni: " + e.getMessage());
            return CONFIG;
        } catch (CniRuntimeException e) {
            cli.report(e.getMessage(), e.error());
            return FAILED;
        } catch (RuntimeException e) {
            err.println("jcni: internal error: " + e);
            return FAILED;
        }
    }

    private int dispatch(Arguments a) throws UsageException, ConfigException, CniRuntimeException {
        if (a.flag("help")) {
            out.print(USAGE_TEXT);
            return OK;
        }
        if (a.flag("version")) {
            out.println("jcni " + JcniLaunchers.version());
            return OK;
        }
        if (a.positional().isEmpty()) {
            throw new UsageException("missing command");
        }
        String command = a.positional().getFirst();
        List<String> operands = a.positional().subList(1, a.positional().size());
        return switch (command) {
            case "add", "check", "del" -> attach(command, operands, a);
            case "gc" -> gc(operands, a);
            case "status" -> status(operands, a);
            case "version" -> version(operands, a);
            case "validate" -> validate(operands, a);
            case "convert" -> convert(operands, a);
            case "stats" -> stats(operands, a);
            // dist/bin/jcni starts the service itself, in the plugins' module, which this one does not read.
            case "serve" -> throw new UsageException("serve runs from dist/bin/jcni (it needs jcni's plugins)");
            case "help" -> {
                out.print(USAGE_TEXT);
                yield OK;
            }
            default -> throw new UsageException("unknown command \"" + command + "\"");
        };
    }

    // ------------------------------------------------------------------------------------------ commands

    private int stats(List<String> operands, Arguments a) throws UsageException, CniRuntimeException {
        a.allowOnly();
        requireCount("stats", operands, 0, 1, "[<address>]");
        String address = operands.isEmpty() ? env.get("JCNI_METRICS_ADDRESS") : operands.get(0);
        if (address == null || address.isEmpty()) {
            throw new UsageException("stats needs the service's metrics address (HOST:PORT or a socket path), "
                    + "as an argument or in JCNI_METRICS_ADDRESS");
        }
        String text;
        try {
            text = StatsTable.fetch(address);
        } catch (IOException e) {
            String msg = "cannot read the service's metrics at " + address + ": " + e.getMessage();
            throw new CniRuntimeException(msg, new CniError(CniError.IO_FAILURE, msg,
                    "is jcni serve running with --metrics-address " + address + "?"), e);
        }
        out.print(StatsTable.format(StatsTable.parse(text)));
        return OK;
    }

    private int attach(String command, List<String> operands, Arguments a)
            throws UsageException, ConfigException, CniRuntimeException {
        a.allowOnly("container-id", "ifname", "cache-dir", "conf-dir", "cni-path", "timeout", "no-rollback");
        requireCount(command, operands, 2, 2, "<network> <netns>");
        if (a.flag("no-rollback") && !command.equals("add")) {
            throw new UsageException("--no-rollback applies to add only");
        }
        NetworkConfigList list = network(operands.get(0), a);
        RuntimeConf rt = runtimeConf(command, operands.get(1), a);
        CniRuntime runtime = runtime(a);
        switch (command) {
            case "add" -> {
                CniResult result = runtime.addNetworkList(list, rt);
                out.println(new String(CniJson.encode(result), StandardCharsets.UTF_8));
            }
            case "check" -> runtime.checkNetworkList(list, rt);
            default -> runtime.delNetworkList(list, rt);
        }
        return OK;
    }

    private int gc(List<String> operands, Arguments a) throws UsageException, ConfigException, CniRuntimeException {
        if (a.flag("stale")) {
            return gcStale(operands, a);
        }
        if (a.flag("dry-run")) {
            throw new UsageException("--dry-run applies to gc --stale only");
        }
        a.allowOnly("cache-dir", "conf-dir", "cni-path", "timeout", "valid");
        requireCount("gc", operands, 1, 2, "<network> [<netns>]");
        NetworkConfigList list = network(operands.get(0), a);
        CniRuntime runtime = runtime(a);
        List<GcAttachment> valid = new ArrayList<>();
        if (a.values("valid").isEmpty()) {
            for (CachedAttachment attachment : runtime.cachedAttachments()) {
                if (attachment.network().equals(list.name())) {
                    valid.add(attachment.runtimeConf().attachment());
                }
            }
        } else {
            for (String value : a.values("valid")) {
                int slash = value.lastIndexOf('/');
                if (slash <= 0 || slash == value.length() - 1) {
                    throw new UsageException("--valid takes CONTAINERID/IFNAME, got \"" + value + "\"");
                }
                valid.add(new GcAttachment(value.substring(0, slash), value.substring(slash + 1)));
            }
        }
        runtime.gcNetworkList(list, valid);
        return OK;
    }

    /**
     * {@code gc --stale [--dry-run] [<network>]}: {@link CniRuntime#gcStale} on the named network, or on every network
     * of the configuration directory and every network in the cache; one line per attachment and network on stdout.
     */
    private int gcStale(List<String> operands, Arguments a)
            throws UsageException, ConfigException, CniRuntimeException {
        a.allowOnly("cache-dir", "conf-dir", "cni-path", "timeout", "stale", "dry-run");
        requireCount("gc --stale", operands, 0, 1, "[<network>]");
        List<NetworkConfigList> networks = new ArrayList<>();
        boolean everyNetwork = operands.isEmpty();
        if (everyNetwork) {
            NetworkConfigs configs = configs(a);
            for (NetworkConfigs.Problem problem : configs.problems()) {
                err.println("jcni: warning: " + problem.file() + ": " + problem.message() + " (not collected)");
            }
            for (NetworkConfigs.Network network : configs.networks()) {
                networks.add(network.list());
            }
        } else {
            networks.add(network(operands.getFirst(), a));
        }
        StaleReport report = runtime(a).gcStale(networks, StaleOptions.of().withDryRun(a.flag("dry-run"))
                .withEveryCachedNetwork(everyNetwork));
        for (String line : report.lines()) {
            out.println(line);
        }
        for (StaleReport.Entry failed : report.with(StaleReport.Action.FAILED)) {
            if (failed.failure() != null) {
                report(failed.failure().getMessage(), failed.failure().error());
            }
        }
        for (StaleReport.NetworkGc gc : report.networks()) {
            if (gc.failure() != null) {
                report(gc.failure().getMessage(), gc.failure().error());
            }
        }
        return report.failed() ? FAILED : OK;
    }

    private int status(List<String> operands, Arguments a)
            throws UsageException, ConfigException, CniRuntimeException {
        a.allowOnly("conf-dir", "cni-path", "timeout", "cache-dir");
        requireCount("status", operands, 1, 2, "<network> [<netns>]");
        runtime(a).statusNetworkList(network(operands.get(0), a));
        return OK;
    }

    private int version(List<String> operands, Arguments a)
            throws UsageException, ConfigException, CniRuntimeException {
        a.allowOnly("cni-path", "timeout");
        requireCount("version", operands, 1, 1, "<plugin-type>");
        VersionInfo info = runtime(a).versionInfo(operands.getFirst());
        out.println(new String(CniJson.encodeIndented(CniJson.toJson(info)), StandardCharsets.UTF_8));
        return OK;
    }

    private int validate(List<String> operands, Arguments a)
            throws UsageException, ConfigException, CniRuntimeException {
        a.allowOnly("conf-dir", "cni-path", "timeout");
        requireCount("validate", operands, 1, 1, "<network|file>");
        String target = operands.getFirst();
        NetworkConfigList list;
        if (target.indexOf('/') >= 0 || Files.isRegularFile(Path.of(target))) {
            try {
                list = NetworkConfigs.loadFile(Path.of(target));
            } catch (CniRuntimeException e) {
                throw new ConfigException(e.getMessage());
            }
        } else {
            list = network(target, a);
        }
        List<String> capabilities = runtime(a).validateNetworkList(list);
        List<Json> types = new ArrayList<>();
        for (var plugin : list.plugins()) {
            types.add(Json.of(plugin.type()));
        }
        List<Json> caps = new ArrayList<>();
        for (String capability : capabilities) {
            caps.add(Json.of(capability));
        }
        JsonObject report = JsonObject.of("name", Json.of(list.name()), "cniVersion",
                Json.of(list.cniVersion().toString()), "plugins", new JsonArray(types), "capabilities",
                new JsonArray(caps));
        out.println(new String(CniJson.encodeIndented(report), StandardCharsets.UTF_8));
        return OK;
    }

    private int convert(List<String> operands, Arguments a) throws UsageException, CniRuntimeException {
        a.allowOnly("to");
        requireCount("convert", operands, 0, 1, "--to <version> [<file>|-]");
        String to = a.value("to");
        if (to == null) {
            throw new UsageException("convert needs --to <version>");
        }
        String source = operands.isEmpty() ? "-" : operands.getFirst();
        byte[] input;
        try {
            // Read as far as the limit only (the decoder refuses more). What is named here is read whatever it is
            // (a FIFO, /dev/stdin): the user asked for it.
            if (source.equals("-")) {
                input = in.readNBytes(CniJson.MAX_DOCUMENT_BYTES + 1);
            } else {
                try (InputStream file = Files.newInputStream(Path.of(source))) {
                    input = file.readNBytes(CniJson.MAX_DOCUMENT_BYTES + 1);
                }
            }
        } catch (IOException e) {
            throw new CniRuntimeException("cannot read " + (source.equals("-") ? "stdin" : source) + ": "
                    + IoText.reason(e), new CniError(CniError.IO_FAILURE, "cannot read input", IoText.reason(e)), e);
        }
        try {
            CniVersion target = CniVersion.parseSupported(to, "--to");
            List<String> warnings = new ArrayList<>(0);
            CniResult converted = CniJson.decodeResult(input, null, warnings).convertTo(target);
            for (String warning : warnings) {
                err.println("jcni: warning: " + warning + "; accepted, as Go libcni accepts it");
            }
            out.println(new String(CniJson.encode(converted), StandardCharsets.UTF_8));
            return OK;
        } catch (CniException e) {
            throw new CniRuntimeException("convert: " + e.getMessage(), e.error(), e);
        }
    }

    // ------------------------------------------------------------------------------------------ inputs

    private NetworkConfigList network(String name, Arguments a) throws ConfigException {
        try {
            return configs(a).require(name);
        } catch (CniRuntimeException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    /** The configuration directory's networks: --conf-dir, else $NETCONFPATH, else /etc/cni/net.d. */
    private NetworkConfigs configs(Arguments a) throws ConfigException {
        String dir = a.value("conf-dir");
        if (dir == null) {
            dir = env.getOrDefault("NETCONFPATH", "");
        }
        if (dir.isEmpty()) {
            dir = "/etc/cni/net.d";
        }
        try {
            return NetworkConfigs.load(Path.of(dir));
        } catch (CniRuntimeException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    /**
     * The attachment of {@code add}, {@code check} or {@code del}. An empty {@code <netns>} is {@code CNI_NETNS=""},
     * for {@code del} only (the spec lets DEL run without a namespace, as containerd's does once a sandbox's namespace
     * is gone), and then needs {@code --container-id}: cnitool's ID is derived from the path. cnitool itself would
     * make "" the working directory.
     */
    private RuntimeConf runtimeConf(String command, String netnsArgument, Arguments a) throws UsageException {
        String containerId = a.value("container-id");
        String netns;
        if (netnsArgument.isEmpty()) {
            if (!command.equals("del")) {
                throw new UsageException(command + " needs the path of a network namespace; only del runs without"
                        + " one (<netns> \"\")");
            }
            if (containerId == null) {
                throw new UsageException("del without a network namespace needs --container-id: the default"
                        + " container ID is derived from the namespace's path");
            }
            netns = "";
        } else {
            netns = Path.of(netnsArgument).toAbsolutePath().normalize().toString();
        }
        if (containerId == null) {
            containerId = cnitoolContainerId(netns);
        }
        String ifName = a.value("ifname");
        if (ifName == null) {
            ifName = env.getOrDefault("CNI_IFNAME", "");
        }
        if (ifName.isEmpty()) {
            ifName = "eth0";
        }
        CniArgs args;
        try {
            args = CniArgs.parse(env.getOrDefault("CNI_ARGS", ""));
        } catch (CniException e) {
            throw new UsageException(e.getMessage());
        }
        JsonObject capabilityArgs = JsonObject.EMPTY;
        String caps = env.getOrDefault("CAP_ARGS", "");
        if (!caps.isEmpty()) {
            try {
                if (!(Json.parse(caps) instanceof JsonObject object)) {
                    throw new UsageException("CAP_ARGS must be a JSON object");
                }
                capabilityArgs = object;
            } catch (CniException e) {
                throw new UsageException("CAP_ARGS: " + e.getMessage());
            }
        }
        return new RuntimeConf(containerId, netns, ifName, args, capabilityArgs);
    }

    /** cnitool's container ID: {@code cnitool-} and the hex of the first 10 bytes of SHA-512 of the netns path. */
    static String cnitoolContainerId(String absoluteNetns) {
        try {
            byte[] sum = MessageDigest.getInstance("SHA-512").digest(absoluteNetns.getBytes(StandardCharsets.UTF_8));
            return "cnitool-" + HexFormat.of().formatHex(sum, 0, 10);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-512", e);
        }
    }

    private CniRuntime runtime(Arguments a) throws ConfigException, UsageException {
        String path = a.value("cni-path");
        if (path == null) {
            path = env.getOrDefault("CNI_PATH", "");
        }
        List<Path> cniPath = PluginLocator.splitPath(path);
        if (cniPath.isEmpty()) {
            throw new ConfigException("CNI_PATH is not set: export CNI_PATH=<plugin directories> (e.g. /opt/cni/bin) "
                    + "or pass --cni-path");
        }
        CniRuntime.Options options = CniRuntime.Options.of(cniPath).withStderr(err).withEnvironment(env);
        String cacheDir = a.value("cache-dir");
        if (cacheDir != null) {
            options = options.withCacheDir(Path.of(cacheDir));
        }
        String timeout = a.value("timeout");
        if (timeout != null) {
            options = options.withPluginTimeout(parseDuration(timeout));
        }
        if (a.flag("no-rollback")) {
            options = options.withDeleteOnAddFailure(false);
        }
        return CniRuntime.create(options);
    }

    /** {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}; a bare number is seconds. */
    static Duration parseDuration(String text) throws UsageException {
        int unit = 0;
        while (unit < text.length() && Character.isDigit(text.charAt(unit))) {
            unit++;
        }
        if (unit == 0 || unit > 9) {
            throw new UsageException("invalid duration \"" + text + "\": expected e.g. 500ms, 30s, 2m");
        }
        long amount = Long.parseLong(text.substring(0, unit));
        return switch (text.substring(unit)) {
            case "ms" -> Duration.ofMillis(amount);
            case "", "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> throw new UsageException("invalid duration \"" + text + "\": expected e.g. 500ms, 30s, 2m");
        };
    }

    private static void requireCount(String command, List<String> operands, int min, int max, String synopsis)
            throws UsageException {
        if (operands.size() < min || operands.size() > max) {
            throw new UsageException(command + " takes " + synopsis + ", got " + operands.size() + " argument"
                    + (operands.size() == 1 ? "" : "s"));
        }
    }

    private void report(String message, CniError error) {
        err.println("jcni: " + message);
        String meaning = CniError.describe(error.code());
        err.println("jcni: CNI error code " + error.code() + (meaning.isEmpty() ? "" : " (" + meaning + ")"));
    }

    // ------------------------------------------------------------------------------------------ parsing

    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    static final class ConfigException extends Exception {
        private static final long serialVersionUID = 1L;

        ConfigException(String message) {
            super(message);
        }
    }

    /** Options ({@code --name value}, {@code --name=value}, flags) anywhere; {@code --} ends them. */
    record Arguments(List<String> positional, Map<String, List<String>> options) {
        private static final List<String> FLAGS = List.of("help", "version", "no-rollback", "stale", "dry-run");
        /** Flags every command accepts; the others must be allowed by name. */
        private static final List<String> GLOBAL_FLAGS = List.of("help", "version");
        private static final List<String> VALUED = List.of("container-id", "ifname", "cache-dir", "conf-dir",
                "cni-path", "timeout", "valid", "to");

        static Arguments parse(List<String> args) throws UsageException {
            List<String> positional = new ArrayList<>();
            Map<String, List<String>> options = new LinkedHashMap<>();
            boolean optionsEnded = false;
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (optionsEnded || !arg.startsWith("-") || arg.equals("-")) {
                    positional.add(arg);
                    continue;
                }
                if (arg.equals("--")) {
                    optionsEnded = true;
                    continue;
                }
                if (arg.equals("-h")) {
                    arg = "--help";
                }
                if (!arg.startsWith("--")) {
                    throw new UsageException("unknown option \"" + arg + "\"");
                }
                String name = arg.substring(2);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (FLAGS.contains(name)) {
                    if (value != null) {
                        throw new UsageException("--" + name + " takes no value");
                    }
                    options.computeIfAbsent(name, k -> new ArrayList<>()).add("");
                } else if (VALUED.contains(name)) {
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new UsageException("--" + name + " needs a value");
                        }
                        value = args.get(++i);
                    }
                    options.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
                } else {
                    throw new UsageException("unknown option \"--" + name + "\"");
                }
            }
            return new Arguments(List.copyOf(positional), options);
        }

        boolean flag(String name) {
            return options.containsKey(name);
        }

        /** The last value of a valued option, or null. */
        String value(String name) {
            List<String> values = options.get(name);
            return values == null ? null : values.getLast();
        }

        List<String> values(String name) {
            return options.getOrDefault(name, List.of());
        }

        /** Refuses options that mean nothing to the command, so a typo'd intent is not silently ignored. */
        void allowOnly(String... names) throws UsageException {
            List<String> allowed = List.of(names);
            for (String name : options.keySet()) {
                if (!allowed.contains(name) && !GLOBAL_FLAGS.contains(name)) {
                    throw new UsageException("--" + name + " does not apply to this command");
                }
            }
        }
    }
}
