package io.jcni.runtime;

import io.jcni.runtime.internal.RuntimeImpl;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.VersionInfo;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The CNI runtime library: what a container runtime links to attach containers to networks (Java's libcni).
 *
 * <p>Operations execute plugins exactly as the spec's section 3 says (1.1.0 for GC and STATUS): for each plugin of the
 * list, the runtime derives the execution configuration by injecting the list's {@code name} and {@code cniVersion},
 * setting {@code runtimeConfig} to the capability arguments the plugin's {@code capabilities} enable, setting
 * {@code prevResult}, and <em>removing {@code capabilities}</em> (as the spec requires; libcni 1.1 leaves it in); every
 * other field passes through unchanged, in its order. Plugins are looked up in the CNI_PATH directories (or run
 * in-process, see {@link Options#withInProcess}) and exec'd with this process's environment plus the CNI_* variables.
 *
 * <p>Concurrency: the object is thread-safe. Operations on different attachments run in parallel; operations on the
 * same attachment (container ID and interface) are serialized, also across processes sharing the cache directory.
 *
 * <h2>Failures</h2>
 * Every operation throws {@link CniRuntimeException} (unchecked, a {@link io.jcni.spec.CniException}) with the CNI
 * error to act on: the plugin's own code and message when a plugin failed, libcni's texts otherwise. Nothing else is
 * thrown for bad input or failing plugins; {@link IllegalStateException} means the runtime is closed.
 *
 * <h2>Deadlines and cancellation</h2>
 * Go's libcni takes a {@code context.Context} per call; here a call's time limit comes from the runtime it is made on:
 * {@link #withTimeout} (each call, from its start) or {@link #withDeadline} (an instant), views that share this
 * runtime's plugins, cache and locks. What a limit does:
 * <ul>
 * <li>Waiting for the attachment's lock (another operation on the same container and interface) ends at the
 * deadline: code 11, "try again later".</li>
 * <li>A plugin is not started once the deadline has passed (code 0, libcni's {@code context deadline exceeded}).</li>
 * <li>An exec'd plugin still running at the deadline is killed with its descendants (code 0, libcni's
 * {@code signal: killed}), as {@link Options#pluginTimeout()} kills it at its own limit; the earlier of the two
 * applies. A plugin delegating to another (IPAM) is killed with its delegate.</li>
 * <li>An in-process plugin cannot be killed: at its limit the thread running it is interrupted. jcni's plugins then
 * stop at their next interruptible point (waiting for a host-local or attachment lock, for a delegated plugin, which
 * is killed, or in the sleeps of bridge's port wait and IPv6 address settling), fail, and undo what they made, as on
 * any failure. Netlink requests and replies, namespace switches, sysctl and file writes are not interruptible: they
 * finish first (each is short and bounded by the kernel). An in-process plugin that finishes in spite of the
 * interrupt has succeeded.</li>
 * <li>An ADD that fails this way is rolled back like any failed ADD ({@link Options#withDeleteOnAddFailure}), and
 * the plugin the runtime killed gets the DEL as well: it could not undo its partial work itself. The rollback gets a
 * budget of its own, as long as the call's and at least {@link Options#rollbackTimeout()} (10 s by default), so the
 * call may return that much later than its deadline; a rollback cut short even so is recorded and finished later
 * (see {@link CniRuntimeException#rolledBack()}). A DEL, CHECK, GC or STATUS that runs out of time simply fails:
 * DEL is idempotent, so call it again.</li>
 * <li>The failure says so: {@link CniRuntimeException#timedOut()}, and whether the rollback completed:
 * {@link CniRuntimeException#rolledBack()}.</li>
 * </ul>
 * Cancellation is Java's: interrupt the thread that runs the call (e.g. {@code Future.cancel(true)}). It works as a
 * deadline that has just passed: exec'd plugins are killed, in-process ones interrupted, the ADD rolled back (the
 * rollback runs with the interrupt status cleared, and a second interrupt stops it). The call then throws
 * {@link CniRuntimeException} with {@link CniRuntimeException#interrupted()} true, and the thread's interrupt status
 * set. Without a limit and without an interrupt, a call waits as long as its plugins run, as libcni's with
 * {@code context.Background()}.
 *
 * <h2>Closing</h2>
 * A runtime is {@link AutoCloseable}: {@link #close()} stops the launch helpers it keeps ({@link
 * Options#launchHelpers()}); calls after that are refused with {@link IllegalStateException}. What it made on the node
 * (cache entries, attachments) is not touched. Closing a view made by {@link #withTimeout} or {@link #withDeadline}
 * does nothing: close the runtime {@link #create} returned.
 *
 * <p>Differences from libcni 1.1.2, each deliberate: an ADD of an attachment that is already in the result cache is
 * refused before any plugin runs; a failed ADD is rolled back by a DEL of the plugins whose ADD succeeded in that call
 * ({@link Options#withDeleteOnAddFailure}); results are converted to the list's version before they are passed on or
 * cached; CHECK failures name the plugin like ADD and DEL failures; a corrupt cache file does not block DEL; a plugin's
 * stderr reaches the sink also when it fails; {@code cniVersions} picks the highest version jcni supports.
 *
 * <p>Why the rollback is safe (libcni and cnitool roll nothing back, leaving it to the caller's DEL): it never
 * touches what existed before the ADD. A repeated ADD is refused before any plugin runs, so an existing attachment's
 * interface, reservation and cache entry are never in reach; the plugin that failed gets no DEL (a DEL works by name,
 * so after "eth0 already exists" it would delete the eth0 that was there), nor do the plugins after it; only plugins
 * that completed their ADD in this call are sent DEL, and what they report is what this ADD made. The exception: a
 * plugin the runtime killed while its ADD ran (time limit, deadline, cancellation) gets the DEL too, since it had no
 * chance to undo its partial work; it was running this ADD of an attachment not added before. The one assumption:
 * a plugin that succeeds made what its DEL removes. An IPAM plugin that answers a repeated ADD with the reservation the
 * attachment already holds (jcni's host-local does) breaks it only if the same (container, interface) is ADDed again
 * while its cache entry is gone, which the spec forbids ("must not call ADD twice without a DEL").
 */
public interface CniRuntime extends AutoCloseable {

    /**
     * A runtime with these options. In-process plugins that need native access were checked when they were obtained
     * ({@code io.jcni.plugins.Plugins.inProcess()} fails at once, naming the JVM flag, when it is missing).
     */
    static CniRuntime create(Options options) {
        return new RuntimeImpl(Objects.requireNonNull(options, "options"));
    }

    /**
     * This runtime with a time limit on every call made through the returned view: each call must be over within
     * {@code timeout} of its start (see "Deadlines and cancellation"). The view shares this runtime's plugins, cache,
     * locks and helpers and replaces any limit this one has. Cheap: make one per call if calls need different limits.
     *
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     */
    CniRuntime withTimeout(Duration timeout);

    /**
     * This runtime with every call made through the returned view ending by {@code deadline} (see "Deadlines and
     * cancellation"); a deadline in the past fails every call at once. Measured on the monotonic clock from the moment
     * each call starts, so a wall-clock step during a call does not move it.
     */
    CniRuntime withDeadline(Instant deadline);

    /**
     * This runtime with {@code context} handed to every plugin that calls through the returned view make, as
     * {@code TRACEPARENT}, {@code TRACESTATE} and {@code BAGGAGE} in its environment (libcni's trace propagation),
     * replacing any the options' environment sets; null hands none. The view keeps this one's time limit and shares its
     * engine. Make one per call: the context is the caller's current span.
     */
    CniRuntime withTraceContext(TraceContext context);

    // ------------------------------------------------------------------------------------------ network lists

    /**
     * ADD: runs the plugins in order, each getting the previous one's result as {@code prevResult}, caches the final
     * result for CHECK and DEL, and returns it (in the list's version). An attachment that already has a cache entry
     * is refused with code 4 before any plugin runs (DEL it first). On failure nothing is cached and, unless disabled,
     * the plugins whose ADD succeeded in this call are deleted in reverse order so that nothing of this ADD leaks; the
     * ADD failure is reported, with any failure of that cleanup attached as suppressed.
     */
    CniResult addNetworkList(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException;

    /**
     * CHECK: runs the plugins in order with the cached ADD result as {@code prevResult}. Refused for versions before
     * 0.4.0 (libcni's {@code configuration version "0.3.1" does not support the CHECK command}); a no-op when the list
     * sets {@code disableCheck}.
     */
    void checkNetworkList(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException;

    /**
     * DEL: runs the plugins in reverse order with the cached ADD result as {@code prevResult} (0.4.0 and later), then
     * removes the cache entry. Stops at the first failure, as the spec says. A cache file that cannot be read is not
     * an obstacle: the plugins run without {@code prevResult}.
     */
    void delNetworkList(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException;

    /**
     * GC (spec 1.1.0): first deletes the cached attachments of this network that are not in {@code validAttachments}
     * (as libcni does), then, for 1.1.0 lists, sends GC to every plugin with {@code cni.dev/valid-attachments} (and the
     * legacy {@code cni.dev/attachments}). Continues past failures and reports them all together (the first as the
     * exception, the others suppressed). A no-op when the list sets {@code disableGC}.
     */
    void gcNetworkList(NetworkConfigList list, List<GcAttachment> validAttachments) throws CniRuntimeException;

    /**
     * Reclaims what attachments that can no longer be live left on the node, without the runtime's help
     * ({@code jcni gc --stale}): for the runtimes whose DEL failed or never came (a killed runtime, a pod removed
     * while a plugin failed, a reboot).
     *
     * <ol>
     * <li>Every cached attachment of {@code networks} (or of any network, with
     * {@link StaleOptions#everyCachedNetwork()}) is judged by the namespace it recorded: the cache entry's
     * {@code netns}, and the {@code sandbox} of its result's interfaces (Go libcni before 1.2, which containerd 1.6
     * and podman 4 use, records no {@code netns}; its result does). It is stale when every recorded path is gone
     * (missing, or no longer on nsfs) and no host end it recorded survives (a veth's host end lives as long as its
     * namespace, see the README). Stale ones get DEL with the configuration, CNI_ARGS and capability arguments
     * they were added with, and {@code CNI_NETNS=""}; their cache entries go.</li>
     * <li>ADDs that failed and whose rollback did not finish (their journal, see
     * {@link CniRuntimeException#rolledBack()}) are finished, whatever their namespace: a failed ADD is not an
     * attachment. One left for its caller's DEL ({@link Options#withDeleteOnAddFailure} off) is judged as a cached
     * attachment instead.</li>
     * <li>Then each network of {@code networks} of version 1.1.0 or later gets GC, with every attachment still in the
     * cache, every ADD in flight (its journal, or a plugin process adding it now) as {@code valid-attachments}: its
     * plugins release the reservations, rules, host veths, ifbs and leases that no such attachment owns. The
     * network's ADDs by jcni runtimes wait meanwhile.</li>
     * </ol>
     * Never removed: an attachment whose namespace path exists as a namespace; one that cannot be judged (a path
     * under {@code /proc} that exists, since pids are reused; no recorded path; a path that cannot be examined); one
     * whose lock is held (an operation on it is in progress). Each is reported with the reason, and counts as valid.
     * Paths are resolved in this process's mount namespace and host ends looked up in its network namespace: call it
     * where the runtime that made the attachments runs.
     *
     * <p>Failures of single DELs or GCs are in the report, not thrown ({@link StaleReport#failed()}); a view's time
     * limit applies to each DEL and each GC.
     *
     * @throws CniRuntimeException if the cache or the journals cannot be listed (code 5)
     */
    StaleReport gcStale(List<NetworkConfigList> networks, StaleOptions options) throws CniRuntimeException;

    /**
     * STATUS (spec 1.1.0): asks each plugin whether it is ready for ADD; a plugin's error (e.g. 50 "plugin not
     * available") comes back unchanged in {@link CniRuntimeException#error()}. A no-op before 1.1.0.
     */
    void statusNetworkList(NetworkConfigList list) throws CniRuntimeException;

    /**
     * Checks that every plugin exists and supports the list's version (asking each its VERSION) and that jcni supports
     * it too; returns the union of the enabled capabilities, sorted. All problems are collected into one failure.
     */
    List<String> validateNetworkList(NetworkConfigList list) throws CniRuntimeException;

    // ------------------------------------------------------------------------------------------ single plugin configs

    /** ADD of a single plugin configuration (a {@code .conf}); its own {@code name} and {@code cniVersion} apply. */
    CniResult addNetwork(PluginConfig net, RuntimeConf rt) throws CniRuntimeException;

    void checkNetwork(PluginConfig net, RuntimeConf rt) throws CniRuntimeException;

    void delNetwork(PluginConfig net, RuntimeConf rt) throws CniRuntimeException;

    /** As {@link #validateNetworkList} for one plugin configuration. */
    List<String> validateNetwork(PluginConfig net) throws CniRuntimeException;

    // ------------------------------------------------------------------------------------------ plugins and cache

    /** The plugin's answer to VERSION (a plugin that predates VERSION supports 0.1.0). */
    VersionInfo versionInfo(String pluginType) throws CniRuntimeException;

    /** The cached ADD result of this attachment of the list's network, converted to the list's version. */
    Optional<CniResult> cachedResult(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException;

    /** The cached ADD result of this attachment of the network named {@code network}, converted to {@code version}. */
    Optional<CniResult> cachedResult(String network, CniVersion version, RuntimeConf rt) throws CniRuntimeException;

    /** The configuration and arguments the cached ADD of this attachment ran with. */
    Optional<CachedConfig> cachedConfig(String network, RuntimeConf rt) throws CniRuntimeException;

    /**
     * Every attachment in the result cache, sorted by file name (libcni's {@code GetCachedAttachments("")}). Files that
     * are not readable cache entries are skipped, as libcni skips them.
     */
    List<CachedAttachment> cachedAttachments() throws CniRuntimeException;

    /**
     * The attachments of one container in the result cache, as {@link #cachedAttachments()}.
     *
     * @throws CniRuntimeException code 3 or 4 if {@code containerId} is not a valid container ID ("" included: ask
     *                             {@link #cachedAttachments()} for all)
     */
    List<CachedAttachment> cachedAttachments(String containerId) throws CniRuntimeException;

    /**
     * Stops the launch helpers and refuses later calls (see "Closing"); idempotent, and a no-op on a view. Declares no
     * checked exception: nothing it does can fail in a way a caller could act on.
     */
    @Override
    void close();

    /**
     * How a runtime runs plugins. Build with {@link #of(List)} and the {@code with...} methods.
     *
     * @param cniPath              directories searched for plugin executables, in order
     * @param cacheDir             where results and locks live (libcni's default {@code /var/lib/cni})
     * @param pluginTimeout        how long one plugin may run: an exec'd plugin is then killed with its children, an
     *                             in-process one interrupted (see "Deadlines and cancellation"); zero for no limit
     *                             (libcni's default). A call's deadline, when earlier, applies instead
     * @param stderr               where plugins' stderr goes (each call's output in one write)
     * @param inProcess            plugin types to run in this JVM instead of exec'ing them; for those, CNI_PATH is not
     *                             consulted
     * @param deleteOnAddFailure   after a failed ADD, run DEL in reverse for the plugins whose ADD succeeded in that
     *                             call, never for the one that failed unless the runtime killed it (default true);
     *                             false leaves everything to the caller's DEL, as libcni does
     *                             ({@code jcni --no-rollback})
     * @param environment          the environment plugins inherit (default: this process's); the CNI_* variables are
     *                             set on top
     * @param launchHelpers        how many launch helpers to keep started ahead of time (default 0: none). The JDK
     *                             starts each process through an extra helper exec, ~0.5-0.7 ms per plugin exec here;
     *                             a pre-started helper (a {@code dash} process waiting on its stdin, which then execs
     *                             the plugin in place) takes that off the critical path, for one idle process per
     *                             helper and the same CPU spent in the background. Plugins see exactly what a direct
     *                             spawn gives them; where that cannot be guaranteed (no dash, an environment with
     *                             {@code IFS}, {@code OPTIND} or {@code PPID}) plugins are spawned directly. Worth it
     *                             for long-lived runtimes where the latency of each ADD counts
     * @param launchHelper         the program launch helpers run: null for {@code dash}, which becomes the plugin
     *                             (one dash per call, started ahead); jcni's native helper
     *                             ({@code dist/libexec/jcni-launch-helper}, built with the plugins) stays resident,
     *                             starts each plugin itself (vfork) and hands back its stdout, stderr and status in
     *                             one message, so a call costs one write and one read here and no JDK spawn at all
     *                             (measured: as fast as Go libcni's exec); it sets no shell variables, so it serves
     *                             every environment
     * @param confDir              where the networks are configured ({@code NETCONFPATH}; default
     *                             {@link #DEFAULT_CONF_DIR}): the runtime itself never reads it; it is the directory
     *                             {@link SandboxNetworks#load(CniRuntime, Path)} and {@link NetworkConfigs#load} are
     *                             given by callers that take their settings from {@link #fromEnvironment()}
     * @param rollbackTimeout      the least time a failed ADD's rollback gets, whatever is left of the call's limit
     *                             (see {@link #withRollbackTimeout})
     */
    record Options(List<Path> cniPath, Path cacheDir, Duration pluginTimeout, OutputStream stderr,
            InProcessPlugins inProcess, boolean deleteOnAddFailure, Map<String, String> environment,
            int launchHelpers, Path launchHelper, Path confDir, Duration rollbackTimeout) {

        /** How long a failed ADD's rollback may take at least, whatever was left of the call's own limit. */
        public static final Duration DEFAULT_ROLLBACK_TIMEOUT = Duration.ofSeconds(10);

        /** libcni's default cache directory. */
        public static final Path DEFAULT_CACHE_DIR = Path.of("/var/lib/cni");

        /** Where runtimes look for network configurations by default (cnitool's, go-cni's and containerd's). */
        public static final Path DEFAULT_CONF_DIR = Path.of("/etc/cni/net.d");

        /** Where runtimes look for plugins by default (go-cni's and containerd's {@code /opt/cni/bin}). */
        public static final List<Path> DEFAULT_CNI_PATH = List.of(Path.of("/opt/cni/bin"));

        /**
         * The environment variable {@link #fromEnvironment()} reads the cache directory from. jcni's own: CNI defines
         * none (libcni's cache directory is set in code, containerd's in its configuration).
         */
        public static final String CACHE_DIR_VARIABLE = "JCNI_CACHE_DIR";

        public Options {
            cniPath = List.copyOf(cniPath);
            Objects.requireNonNull(cacheDir, "cacheDir");
            Objects.requireNonNull(pluginTimeout, "pluginTimeout");
            if (pluginTimeout.isNegative()) {
                throw new IllegalArgumentException("pluginTimeout must not be negative: " + pluginTimeout);
            }
            Objects.requireNonNull(stderr, "stderr");
            Objects.requireNonNull(inProcess, "inProcess");
            // System.getenv() itself is kept (not copied): the exec engine then starts plugins from the inherited
            // environment without rebuilding it.
            environment = environment == System.getenv() ? environment : Map.copyOf(environment);
            if (launchHelpers < 0) {
                throw new IllegalArgumentException("launchHelpers must not be negative: " + launchHelpers);
            }
            Objects.requireNonNull(confDir, "confDir");
            Objects.requireNonNull(rollbackTimeout, "rollbackTimeout");
            if (rollbackTimeout.isNegative() || rollbackTimeout.isZero()) {
                throw new IllegalArgumentException("rollbackTimeout must be positive: " + rollbackTimeout);
            }
        }

        /**
         * The options without a configuration directory and rollback timeout, as they were in 0.1.0: they are
         * {@link #DEFAULT_CONF_DIR} and {@link #DEFAULT_ROLLBACK_TIMEOUT}. Kept so that code calling the canonical
         * constructor of 0.1.0 still compiles.
         */
        public Options(List<Path> cniPath, Path cacheDir, Duration pluginTimeout, OutputStream stderr,
                InProcessPlugins inProcess, boolean deleteOnAddFailure, Map<String, String> environment,
                int launchHelpers, Path launchHelper) {
            this(cniPath, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment, launchHelpers,
                    launchHelper, DEFAULT_CONF_DIR, DEFAULT_ROLLBACK_TIMEOUT);
        }

        /**
         * Defaults: cache in {@link #DEFAULT_CACHE_DIR}, no timeout, stderr to {@link System#err}, no in-process
         * plugins, cleanup after a failed ADD, this process's environment, no launch helpers, configurations in
         * {@link #DEFAULT_CONF_DIR}.
         */
        public static Options of(List<Path> cniPath) {
            return new Options(cniPath, DEFAULT_CACHE_DIR, Duration.ZERO, System.err, InProcessPlugins.none(), true,
                    System.getenv(), 0, null, DEFAULT_CONF_DIR, DEFAULT_ROLLBACK_TIMEOUT);
        }

        /**
         * The defaults of {@link #of}, with the directories a runtime takes from its environment, as cnitool and
         * go-cni's users take them: {@code CNI_PATH} (directories separated by {@code :}, empty entries skipped;
         * unset or empty: {@link #DEFAULT_CNI_PATH}), {@code NETCONFPATH} ({@link #confDir()}; unset or empty:
         * {@link #DEFAULT_CONF_DIR}) and {@value #CACHE_DIR_VARIABLE} ({@link #cacheDir()}; unset or empty:
         * {@link #DEFAULT_CACHE_DIR}). Plugins inherit this process's environment, as with {@link #of}.
         */
        public static Options fromEnvironment() {
            return fromEnvironment(System.getenv());
        }

        /** As {@link #fromEnvironment()}, reading the three variables from {@code env}. */
        public static Options fromEnvironment(Map<String, String> env) {
            List<Path> cniPath = new ArrayList<>();
            for (String dir : env.getOrDefault("CNI_PATH", "").split(":")) {
                if (!dir.isEmpty()) {
                    cniPath.add(Path.of(dir));
                }
            }
            String confDir = env.getOrDefault("NETCONFPATH", "");
            String cacheDir = env.getOrDefault(CACHE_DIR_VARIABLE, "");
            return of(cniPath.isEmpty() ? DEFAULT_CNI_PATH : cniPath)
                    .withConfDir(confDir.isEmpty() ? DEFAULT_CONF_DIR : Path.of(confDir))
                    .withCacheDir(cacheDir.isEmpty() ? DEFAULT_CACHE_DIR : Path.of(cacheDir));
        }

        public Options withCniPath(List<Path> dirs) {
            return new Options(dirs, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }

        public Options withCacheDir(Path dir) {
            return new Options(cniPath, dir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }

        public Options withPluginTimeout(Duration timeout) {
            return new Options(cniPath, cacheDir, timeout, stderr, inProcess, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }

        public Options withStderr(OutputStream sink) {
            return new Options(cniPath, cacheDir, pluginTimeout, sink, inProcess, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }

        public Options withInProcess(InProcessPlugins plugins) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, plugins, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }

        public Options withDeleteOnAddFailure(boolean enabled) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, inProcess, enabled, environment,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }

        public Options withLaunchHelpers(int count) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment,
                    count, launchHelper, confDir, rollbackTimeout);
        }

        /** {@code count} launch helpers running {@code helper}, jcni's native launch helper (see the parameter). */
        public Options withLaunchHelpers(int count, Path helper) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment,
                    count, Objects.requireNonNull(helper, "helper"), confDir, rollbackTimeout);
        }

        /** The network configuration directory ({@link #confDir()}). */
        public Options withConfDir(Path dir) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, dir, rollbackTimeout);
        }

        /**
         * The least time a failed ADD's rollback gets (default {@link #DEFAULT_ROLLBACK_TIMEOUT}): its DELs run until
         * then or until a budget as long as the call's own has passed, whichever is later, each plugin for at least
         * this long too. An ADD that ran out of its deadline thus still gets its rollback done, at the price of
         * returning later; one cut short anyway is finished later (see {@link CniRuntimeException#rolledBack()}).
         */
        public Options withRollbackTimeout(Duration timeout) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, environment,
                    launchHelpers, launchHelper, confDir, timeout);
        }

        public Options withEnvironment(Map<String, String> env) {
            return new Options(cniPath, cacheDir, pluginTimeout, stderr, inProcess, deleteOnAddFailure, env,
                    launchHelpers, launchHelper, confDir, rollbackTimeout);
        }
    }
}
