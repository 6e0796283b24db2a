package io.jcni.plugins.sdk;

import io.jcni.plugins.internal.CallStart;
import io.jcni.plugins.internal.trace.CallSpan;
import io.jcni.plugins.internal.trace.PhaseSink;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniNames;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Command;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import io.jcni.spec.VersionInfo;
import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The plugin skeleton: the only code that knows about the environment, stdin, stdout and exit statuses. A plugin is
 * a {@link CniPlugin} handed to {@link #of}; {@link #main()} runs it as an exec'd program, {@link #run} runs it inside
 * a JVM with exactly the same inputs and outputs (the in-process path shares every line of this class).
 *
 * <h2>What a call goes through, in order</h2>
 * <ol>
 * <li>{@code CNI_COMMAND} empty: the "about" line on stderr, exit 0 (libcni's skel does the same). Unknown command:
 * code 4.</li>
 * <li>Required variables, as the spec and libcni's skel require them: ADD and CHECK need {@code CNI_CONTAINERID,
 * CNI_NETNS, CNI_IFNAME, CNI_PATH}; DEL the same without {@code CNI_NETNS}; GC and STATUS only {@code CNI_PATH};
 * VERSION nothing. All missing ones are named in one code-4 error ({@code required env variables [CNI_NETNS,CNI_PATH]
 * missing}).</li>
 * <li>stdin (not read for VERSION), decoded as a plugin configuration (code 6 for malformed JSON, 7 for invalid
 * values, 1 for a malformed version); a network name is required (7). ADD, CHECK and DEL: container ID (3 missing,
 * 4 malformed) and interface name (4).</li>
 * <li>Version: the config's {@code cniVersion} must be one the plugin supports (1, "incompatible CNI versions"); CHECK
 * needs 0.4.0 or later, GC and STATUS 1.1.0 or later (1).</li>
 * <li>ADD and DEL: refused (code 8) when {@code CNI_NETNS} is this process's own network namespace, before the handler
 * runs and so before any side effect, unless {@code CNI_NETNS_OVERRIDE} is {@code 1} or {@code true}.</li>
 * <li>The handler. ADD's result is converted to the config's version and printed indented, as libcni prints it;
 * VERSION prints the supported versions.</li>
 * </ol>
 * Every failure is the spec's error JSON on stdout (with the config's {@code cniVersion} when known) and status 1. An
 * exception other than {@link CniException} escaping a handler is a bug: code 999 naming it, stack trace on stderr.
 * Nothing but the result or the error ever reaches stdout.
 *
 * <p>The exec path is kept cheap: no reflection, no lambdas, no indy string concatenation (the module is compiled with
 * {@code -XDstringConcat=inline}); a test scans the bytecode.
 */
public final class Skel implements InProcessPlugin {
    /** Set to {@code 1} or {@code true} to let ADD/DEL run on the plugin's own network namespace. */
    public static final String NETNS_OVERRIDE = "CNI_NETNS_OVERRIDE";

    private static final String[] ATTACHMENT_VARS = {"CNI_CONTAINERID", "CNI_NETNS", "CNI_IFNAME"};

    private final String type;
    private final CniPlugin plugin;
    private final List<CniVersion> versions;
    private final InProcessPlugins delegates;

    private Skel(String type, CniPlugin plugin, List<CniVersion> versions, InProcessPlugins delegates) {
        this.type = type;
        this.plugin = plugin;
        this.versions = versions;
        this.delegates = delegates;
    }

    /**
     * A skeleton running {@code plugin} as plugin {@code type} (the executable's name, used in log lines and the
     * about text), accepting configurations of exactly the given versions.
     */
    public static Skel of(String type, CniPlugin plugin, List<CniVersion> supportedVersions) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(plugin, "plugin");
        List<CniVersion> versions = List.copyOf(supportedVersions);
        if (versions.isEmpty()) {
            throw new IllegalArgumentException("a plugin supports at least one version");
        }
        return new Skel(type, plugin, versions, InProcessPlugins.none());
    }

    /**
     * This skeleton with delegates that may run in-process: when a delegate's executable in CNI_PATH is a jcni
     * launcher of one of these types, {@link CniRequest#delegation()} runs it in this JVM instead of exec'ing it.
     */
    public Skel withDelegates(InProcessPlugins inProcess) {
        return new Skel(type, plugin, versions, Objects.requireNonNull(inProcess, "inProcess"));
    }

    InProcessPlugins delegates() {
        return delegates;
    }

    public String type() {
        return type;
    }

    public List<CniVersion> supportedVersions() {
        return versions;
    }

    /** The VERSION answer: the highest supported version and the whole list. */
    public VersionInfo versionInfo() {
        CniVersion highest = versions.get(0);
        for (CniVersion v : versions) {
            if (v.compareTo(highest) > 0) {
                highest = v;
            }
        }
        return VersionInfo.of(highest, versions);
    }

    /**
     * The exec entry point: reads the process environment and stdin, writes stdout and stderr, and ends the process
     * with the status. {@code System.out} is pointed at stderr first, so nothing a library prints can corrupt the
     * result.
     *
     * <p>Returns normally on success (the JVM then exits 0) and halts with status 1 on failure, never through
     * {@link System#exit}: {@code Runtime.exit} initializes the platform logging framework (a service lookup and a
     * read of the module image) to log the exit, which costs milliseconds at every plugin call. No shutdown hooks
     * are skipped: the plugins register none, and stdout and stderr are flushed first.
     */
    public void main() {
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        PrintStream stderr = System.err;
        System.setOut(stderr);
        int status = run(System.getenv(), new FileInputStream(FileDescriptor.in), stdout, stderr, "exec");
        stderr.flush();
        if (status != 0) {
            Runtime.getRuntime().halt(status);
        }
    }

    /**
     * Runs one call in this JVM, as an exec would: the {@link InProcessPlugin} contract. Thread-safe as long as the
     * plugin's handlers are (jcni's keep no state between calls).
     *
     * @param env    the complete environment the plugin would see
     * @param stdin  the bytes the plugin would read on stdin
     * @param stdout receives the result, version info or error JSON
     * @param stderr receives log lines
     * @return the exit status an exec would have: 0 or 1
     */
    @Override
    public int run(Map<String, String> env, byte[] stdin, OutputStream stdout, OutputStream stderr) {
        return run(env, new ByteArrayInputStream(stdin), stdout, stderr, "in-process");
    }

    /**
     * Runs one call on behalf of another process, as {@link #run(Map, byte[], OutputStream, OutputStream)} does, with
     * {@code CNI_NETNS} as that process opened it ({@link CallerNetns}): jcni's plugin service runs its clients' calls
     * this way. The host runs the call on a thread in the caller's network namespace (the plugin's "host" side).
     */
    public int run(Map<String, String> env, byte[] stdin, OutputStream stdout, OutputStream stderr,
            CallerNetns netns) {
        try (CallerNetns.Scope scope = CallerNetns.enter(value(env, "CNI_NETNS"), netns)) {
            return run(env, new ByteArrayInputStream(stdin), stdout, stderr, "via service");
        }
    }

    /**
     * One call, traced when the environment names an OTLP endpoint ({@link CallSpan}): the call's span continues the
     * runtime's {@code TRACEPARENT} and is the parent its delegates see; without an endpoint, nothing changes.
     */
    private int run(Map<String, String> env, InputStream stdin, OutputStream stdout, OutputStream stderr,
            String mode) {
        if (!CallStart.begin()) {
            return traced(env, stdin, stdout, stderr, mode); // an in-process delegate: its caller's call goes on
        }
        try {
            return traced(env, stdin, stdout, stderr, mode);
        } finally {
            CallStart.end();
        }
    }

    private int traced(Map<String, String> env, InputStream stdin, OutputStream stdout, OutputStream stderr,
            String mode) {
        CallSpan span = CallSpan.start(type, env);
        if (span == null) {
            return run(env, stdin, stdout, stderr, mode, null);
        }
        span.attribute("cni.container_id", env.get("CNI_CONTAINERID"));
        span.attribute("cni.ifname", env.get("CNI_IFNAME"));
        span.attribute("jcni.mode", mode);
        try {
            return run(span.environment(env), stdin, stdout, stderr, mode, span);
        } finally {
            String command = env.get("CNI_COMMAND");
            span.end(command == null ? "" : command, stderr);
        }
    }

    private int run(Map<String, String> env, InputStream stdin, OutputStream stdout, OutputStream stderr,
            String mode, CallSpan span) {
        PluginLog log = new PluginLog(type, stderr, isTrue(env.get(PluginLog.DEBUG_ENV)));
        CniVersion errorVersion = null;
        byte[] answer;
        try {
            String commandText = value(env, "CNI_COMMAND");
            if (commandText.isEmpty()) {
                about(stderr);
                return 0;
            }
            Command command = Command.parse(commandText);
            if (command == null) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "unknown CNI_COMMAND: " + commandText);
            }
            requireVariables(env, command);
            if (log.debugEnabled()) {
                log.debug(commandText + " " + mode + ", pid " + ProcessHandle.current().pid());
            }
            if (command == Command.VERSION) {
                answer = versionAnswer();
            } else {
                byte[] input = readStdin(stdin);
                PluginConfig config = CniJson.decodePluginConfig(input);
                if (config.cniVersion().isSupported()) {
                    errorVersion = config.cniVersion();
                }
                config.requireName();
                if (span != null) {
                    span.attribute("cni.network", config.name());
                }
                CniRequest request = request(command, env, input, config, log, stderr);
                checkVersion(command, config.cniVersion());
                if (command == Command.ADD || command == Command.DEL) {
                    refuseOwnNetns(env, request.netns());
                }
                answer = call(command, request, log, span);
            }
        } catch (CniException e) {
            return fail(e.error(), errorVersion, stdout, log, span);
        } catch (OutOfMemoryError e) {
            log.failure("out of memory", e);
            return fail(new CniError(CniError.TRY_AGAIN_LATER, "plugin " + type + " ran out of memory",
                    "the JVM's heap could not hold this call; what it did was undone"), errorVersion, stdout, log,
                    span);
        } catch (Throwable bug) {
            log.failure("internal error", bug);
            return fail(new CniError(CniError.INTERNAL, "internal error in plugin " + type + bugText(bug),
                    "see the plugin's stderr for the stack trace"), errorVersion, stdout, log, span);
        }
        try {
            stdout.write(answer);
            stdout.flush();
            return 0;
        } catch (IOException e) {
            log.failure("cannot write the result to stdout", e);
            return 1;
        }
    }

    /**
     * What an unexpected exception says, for an error message: its own message, never its Java class name (that goes
     * to stderr with the stack trace).
     */
    static String bugText(Throwable bug) {
        String message = bug.getMessage();
        return message == null || message.isBlank() ? "" : ": " + message;
    }

    /**
     * What {@code CniJson.encode(versionInfo())} prints, written directly: VERSION is the one answer that needs no
     * JSON library (versions are digits and dots), and sparing it Jackson's initialization saves start-up time on the
     * call runtimes make most often. A test holds the two byte-for-byte equal.
     */
    byte[] versionAnswer() {
        VersionInfo info = versionInfo();
        StringBuilder json = new StringBuilder(160).append("{\"cniVersion\":\"").append(info.cniVersion())
                .append("\",\"supportedVersions\":[");
        List<String> supported = info.supportedVersions();
        for (int i = 0; i < supported.size(); i++) {
            json.append(i == 0 ? "\"" : ",\"").append(supported.get(i)).append('"');
        }
        return json.append("]}\n").toString().getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Runs the handler, timed in debug mode ({@link Timing}: the line is written when the handler returns). The
     * request's {@link Rollback} is committed only when the whole command succeeded (for ADD: including the conversion
     * of its result), and run otherwise: an ADD that fails anywhere, even in the skel after the handler returned,
     * leaves nothing behind.
     */
    private byte[] call(Command command, CniRequest request, PluginLog log, CallSpan span) throws CniException {
        PhaseSink sink = PhaseSink.current();
        Timing timing = log.debugEnabled() || span != null || sink != null ? Timing.begin() : null;
        try {
            CniResult result;
            try {
                result = handle(command, request);
            } finally {
                if (span != null) {
                    timing.phasesTo(span);
                }
                if (sink != null) {
                    timing.phasesTo(type, sink);
                }
            }
            if (timing != null && log.debugEnabled()) {
                log.debug("timing " + command.name() + ": " + timing.line());
            }
            byte[] answer = result == null ? new byte[0] : CniJson.encode(result.convertTo(request.cniVersion()));
            refuseIfCancelled(command);
            request.commitRollback();
            return answer;
        } finally {
            if (timing != null) {
                timing.end();
            }
            request.closeRollback();
        }
    }

    /**
     * A call whose thread was interrupted (its host cancelled it: a runtime's deadline, a plugin service whose client
     * went away) is not committed even when its handler finished: nobody waits for its result any more, and an ADD
     * that nobody knows succeeded would keep its address and interfaces. It fails instead, and its rollback runs.
     */
    private void refuseIfCancelled(Command command) throws CniException {
        if (Thread.currentThread().isInterrupted()) {
            throw new CniException(CniError.TRY_AGAIN_LATER, command.name() + " of plugin " + type
                    + " was cancelled before it could complete", "its caller cancelled it or its deadline passed;"
                    + " what it did was undone");
        }
    }

    /** The plugin's handler of {@code command}; ADD's result, null for the others. */
    private CniResult handle(Command command, CniRequest request) throws CniException {
        switch (command) {
            case ADD: {
                CniResult result = plugin.add(request);
                if (result == null) {
                    throw new IllegalStateException("ADD handler returned no result");
                }
                requireConsistent(result);
                return result;
            }
            case DEL:
                plugin.del(request);
                return null;
            case CHECK:
                plugin.check(request);
                return null;
            case GC:
                plugin.gc(request);
                return null;
            case STATUS:
                plugin.status(request);
                return null;
            default:
                throw new IllegalStateException("not a handler command: " + command);
        }
    }

    /**
     * What runtimes accept from other plugins (libcni passes an interface index outside {@code interfaces} on, and so
     * does jcni's runtime, with a warning) is still a bug in a plugin of this SDK: refused with code 999 before it is
     * printed, and the ADD is rolled back.
     */
    private void requireConsistent(CniResult result) throws CniException {
        if (result instanceof Result modern) {
            List<String> problems = modern.interfaceIndexProblems();
            if (!problems.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "plugin " + type + " made an invalid result: "
                        + String.join(", ", problems));
            }
        }
    }

    private CniRequest request(Command command, Map<String, String> env, byte[] input, PluginConfig config,
            PluginLog log, OutputStream stderr) throws CniException {
        String containerId = "";
        String ifName = "";
        String netns = "";
        if (command.hasAttachment()) {
            containerId = CniNames.requireContainerId(value(env, "CNI_CONTAINERID"));
            ifName = CniNames.requireInterfaceName(EnvironmentText.get(env, "CNI_IFNAME"));
            netns = value(env, "CNI_NETNS");
            if (!ifName.equals(value(env, "CNI_IFNAME"))) {
                // Re-decoded from the raw environment: delegates run in-process inherit the name as text.
                Map<String, String> decoded = new HashMap<>(env);
                decoded.put("CNI_IFNAME", ifName);
                env = Collections.unmodifiableMap(decoded);
            }
        }
        return new CniRequest(this, command, env, containerId, netns, ifName, value(env, "CNI_ARGS"),
                value(env, "CNI_PATH"), input, config, log, stderr);
    }

    /** The required-variable table of libcni's skel, extended to GC and STATUS as spec 1.1.0 defines them. */
    private static void requireVariables(Map<String, String> env, Command command) throws CniException {
        if (command == Command.VERSION) {
            return;
        }
        List<String> missing = new ArrayList<>(4);
        if (command.hasAttachment()) {
            for (String name : ATTACHMENT_VARS) {
                if (command == Command.DEL && name.equals("CNI_NETNS")) {
                    continue;
                }
                if (value(env, name).isEmpty()) {
                    missing.add(name);
                }
            }
        }
        if (value(env, "CNI_PATH").isEmpty()) {
            missing.add("CNI_PATH");
        }
        if (!missing.isEmpty()) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES,
                    "required env variables [" + String.join(",", missing) + "] missing");
        }
    }

    /** libcni's order and messages: the verb's minimum version first, then the plugin's list. */
    private void checkVersion(Command command, CniVersion version) throws CniException {
        CniVersion minimum = command == Command.CHECK ? CniVersion.V0_4_0
                : command == Command.GC || command == Command.STATUS ? CniVersion.V1_1_0 : null;
        if (minimum != null) {
            if (version.before(minimum)) {
                throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                        "config version does not allow " + command.name());
            }
            boolean reachable = false;
            for (CniVersion supported : versions) {
                reachable |= supported.atLeast(version);
            }
            if (!reachable) {
                throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                        "plugin version does not allow " + command.name());
            }
        }
        if (!versions.contains(version)) {
            StringBuilder details = new StringBuilder("config is \"").append(version).append("\", plugin supports [");
            for (int i = 0; i < versions.size(); i++) {
                details.append(i == 0 ? "\"" : " \"").append(versions.get(i)).append('"');
            }
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION, "incompatible CNI versions",
                    details.append(']').toString());
        }
    }

    private static void refuseOwnNetns(Map<String, String> env, String netns) throws CniException {
        if (netns.isEmpty() || isTrue(env.get(NETNS_OVERRIDE))) {
            return;
        }
        if (NetnsIdentity.check(netns) == NetnsIdentity.Verdict.OWN) {
            throw new CniException(CniError.INVALID_NETNS,
                    "plugin's netns and netns from CNI_NETNS should not be the same",
                    "CNI_NETNS=" + netns + " is the plugin's own network namespace; set " + NETNS_OVERRIDE
                            + "=1 to allow it");
        }
    }

    private static byte[] readStdin(InputStream stdin) throws CniException {
        try {
            // One byte over the codec's limit is enough for the codec to name the problem.
            return stdin.readNBytes(CniJson.MAX_DOCUMENT_BYTES + 1);
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "error reading from stdin: " + e.getMessage());
        }
    }

    private int fail(CniError error, CniVersion version, OutputStream stdout, PluginLog log, CallSpan span) {
        CniError printed = version != null && error.cniVersion().isEmpty() ? error.withCniVersion(version) : error;
        if (span != null) {
            span.failed(printed.code(), printed.message());
        }
        log.debug("error " + printed.code() + ": " + printed.message());
        try {
            stdout.write(CniJson.encode(printed));
            stdout.flush();
        } catch (IOException e) {
            log.failure("cannot write the error to stdout", e);
        }
        return 1;
    }

    private void about(OutputStream stderr) {
        StringBuilder text = new StringBuilder("CNI plugin ").append(type).append(" (jcni)\n")
                .append("CNI protocol versions supported: ");
        for (int i = 0; i < versions.size(); i++) {
            text.append(i == 0 ? "" : ", ").append(versions.get(i));
        }
        try {
            stderr.write(text.append('\n').toString().getBytes(StandardCharsets.UTF_8));
            stderr.flush();
        } catch (IOException ignored) {
            // stderr is gone; the exit status still says "nothing done".
        }
    }

    private static String value(Map<String, String> env, String name) {
        String value = env.get(name);
        return value == null ? "" : value;
    }

    static boolean isTrue(String value) {
        return value != null && (value.equals("1") || value.toLowerCase(Locale.ROOT).equals("true"));
    }
}
