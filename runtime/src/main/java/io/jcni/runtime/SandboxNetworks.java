package io.jcni.runtime;

import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniNames;
import io.jcni.spec.CniResult;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Every network of a sandbox at once: the Java counterpart of containerd's go-cni
 * ({@code github.com/containerd/go-cni}, what containerd and its CRI plugin call), built on {@link CniRuntime}, which
 * stays libcni's counterpart.
 *
 * <p>The networks are those of a configuration directory, in file-name order ({@code .conf}, {@code .conflist} and
 * {@code .json} alike, as go-cni's {@code WithAllConf} sorts them), each with its interface: {@code eth0},
 * {@code eth1}, ... ({@link Config#interfacePrefix()}, go-cni's {@code WithInterfacePrefix}), optionally preceded by a
 * loopback network on {@code lo} ({@link Config#loopback()}, go-cni's {@code WithLoNetwork}) and limited in number
 * ({@link Config#maxNetworks()}, go-cni's {@code WithPluginMaxConfNum}; containerd sets 1, the default here is all).
 *
 * {@snippet :
 * CniRuntime.Options options = CniRuntime.Options.fromEnvironment();     // CNI_PATH, NETCONFPATH, JCNI_CACHE_DIR
 * try (CniRuntime cni = CniRuntime.create(options)) {
 *     SandboxNetworks networks = SandboxNetworks.load(cni, options.confDir()).withTimeout(Duration.ofSeconds(60));
 *     Sandbox sandbox = Sandbox.of("pod-1234", "/var/run/netns/pod-1234")
 *             .withPortMappings(List.of(new PortMapping(8080, 80, "tcp")));
 *     SandboxResult result = networks.setup(sandbox);                    // eth0, eth1, ... in parallel
 *     result.interfaces().get("eth0").ips();                             // its addresses
 *     networks.check(sandbox);
 *     networks.remove(sandbox);
 * }
 * }
 *
 * <h2>Operations</h2>
 * <ul>
 * <li>{@link #setup} ADDs the sandbox to every network in parallel, {@link #setupSerially} one after the other in
 * order (go-cni's {@code Setup} and {@code SetupSerially}). Both return the {@link SandboxResult}, by interface.</li>
 * <li>{@link #check} CHECKs every network in order and stops at the first failure (go-cni's {@code Check}).</li>
 * <li>{@link #remove} DELs every network, in the reverse order (go-cni goes forward; the reverse undoes a chain of
 * networks in the order it was built), and goes on past failures: what can be removed is removed, and the first
 * failure is thrown with the others {@linkplain Throwable#getSuppressed() suppressed}. DEL is idempotent: call it
 * again.
 * It works with {@link Sandbox#netns()} "" once the namespace is gone, as containerd's does.</li>
 * <li>{@link #status} asks every network's plugins whether they are ready (STATUS), {@link #gc} collects what the
 * networks hold for sandboxes not listed (GC, for every network with its interface name).</li>
 * </ul>
 *
 * <h2>Failures and rollback</h2>
 * Every failure is a {@link CniRuntimeException} whose message names the sandbox, the network and its interface,
 * followed by {@link CniRuntime}'s message; its {@link CniRuntimeException#error()} is the plugin's error unchanged
 * (see {@link CniRuntimeException} for the codes), except for time limits, below. A setup that fails leaves nothing of
 * itself: the network that failed is rolled back by {@link CniRuntime} (its plugins that succeeded get DEL, see
 * {@link CniRuntime.Options#withDeleteOnAddFailure}), and every other network this setup ADDed is deleted, in reverse
 * order, with a budget of its own as long as the {@link #withTimeout timeout}; failures of that cleanup are attached as
 * suppressed. A network that was set up before (a second setup of the same sandbox is refused with code 4 for each
 * network) is never touched. go-cni rolls nothing back and leaves it to the caller's {@code Remove}; calling
 * {@link #remove} after a failed setup is still right and harmless. In a parallel setup every network runs to its end
 * before the rollback; the failure of the first network (in order) that failed is thrown, the others suppressed.
 *
 * <h2>Time limits</h2>
 * {@link #withTimeout} bounds each operation as a whole (a setup of three networks in parallel or in series, a remove
 * of all of them): its deadline is passed to every runtime call ({@link CniRuntime#withDeadline}), so plugins still
 * running then are killed (or interrupted, in-process) and the setup rolled back. A failure caused by a time limit
 * (this one, the runtime's {@link CniRuntime.Options#pluginTimeout()}, or a view's deadline) has code 11,
 * {@link CniError#TRY_AGAIN_LATER}, with a message saying which operation ran out of time, and
 * {@link CniRuntimeException#timedOut()} true; the runtime's own failure (libcni's code 0 and text) is its cause.
 * Switch on {@code e.code() == CniError.TRY_AGAIN_LATER} or {@code e.timedOut()}. Interrupting the calling thread
 * cancels an operation in the same way ({@link CniRuntimeException#interrupted()}).
 *
 * <p>Thread-safe and immutable: the networks are read once, by {@link #load}. A changed directory needs a new
 * {@code load} (go-cni's {@code Load} again). Closing is the {@link CniRuntime}'s business.
 */
public final class SandboxNetworks {

    /** The name of the loopback network ({@link Config#loopback()}), go-cni's. */
    public static final String LOOPBACK_NETWORK = "cni-loopback";

    /**
     * How the networks are numbered and which are loaded.
     *
     * @param interfacePrefix the interface name before the network's index ({@code eth}: {@code eth0}, {@code eth1})
     * @param maxNetworks     how many networks of the directory to load, in file-name order; 0 for all
     * @param loopback        whether to set up a loopback network ({@value #LOOPBACK_NETWORK}, plugin
     *                        {@code loopback}, version 1.0.0, interface {@code lo}) first; its plugin must be in
     *                        CNI_PATH (or in-process). go-cni's uses version 0.3.1, which cannot be checked; 1.0.0 is
     *                        the newest Debian's Go loopback serves, and jcni's serves it too
     */
    public record Config(String interfacePrefix, int maxNetworks, boolean loopback) {
        /** {@code eth0}, {@code eth1}, ... for every network, no loopback network. */
        public static final Config DEFAULTS = new Config("eth", 0, false);

        public Config {
            Objects.requireNonNull(interfacePrefix, "interfacePrefix");
            try {
                CniNames.requireInterfaceName(interfacePrefix + "0");
            } catch (CniException e) {
                throw new IllegalArgumentException("interfacePrefix \"" + interfacePrefix + "\": " + e.getMessage(),
                        e);
            }
            if (maxNetworks < 0) {
                throw new IllegalArgumentException("maxNetworks must not be negative: " + maxNetworks);
            }
        }

        public Config withInterfacePrefix(String prefix) {
            return new Config(prefix, maxNetworks, loopback);
        }

        public Config withMaxNetworks(int max) {
            return new Config(interfacePrefix, max, loopback);
        }

        public Config withLoopback(boolean enabled) {
            return new Config(interfacePrefix, maxNetworks, enabled);
        }
    }

    /**
     * One network of the sandbox.
     *
     * @param list   its configuration
     * @param ifName the sandbox's interface on it
     * @param file   the file it was loaded from, or null (the loopback network, or a list given to {@link #of})
     */
    public record Network(NetworkConfigList list, String ifName, Path file) {
        public Network {
            Objects.requireNonNull(list, "list");
            Objects.requireNonNull(ifName, "ifName");
        }

        /** The network's name. */
        public String name() {
            return list.name();
        }
    }

    private final CniRuntime runtime;
    private final List<Network> networks;
    private final Duration timeout;

    private SandboxNetworks(CniRuntime runtime, List<Network> networks, Duration timeout) {
        this.runtime = runtime;
        this.networks = List.copyOf(networks);
        this.timeout = timeout;
    }

    /** {@link #load(CniRuntime, Path, Config)} with {@link Config#DEFAULTS}. */
    public static SandboxNetworks load(CniRuntime runtime, Path confDir) throws CniRuntimeException {
        return load(runtime, confDir, Config.DEFAULTS);
    }

    /**
     * The networks configured in {@code confDir}: every {@code .conf}, {@code .conflist} and {@code .json} file (not
     * recursively), in file-name order, each read as {@link NetworkConfigs#loadFile} reads it, numbered from
     * {@code <prefix>0}; the loopback network first if configured.
     *
     * <p>Unlike {@link NetworkConfigs#load}, which reports a bad file and goes on, a file that cannot be loaded fails
     * the whole load, as in go-cni: skipping it would renumber the interfaces of the networks after it.
     *
     * @throws CniRuntimeException code 7 when the directory holds no configuration (go-cni's "no network config
     *                             found"); the file's own failure (5, 6, 7, 1), naming it; 5 if the directory cannot
     *                             be listed
     */
    public static SandboxNetworks load(CniRuntime runtime, Path confDir, Config config) throws CniRuntimeException {
        Objects.requireNonNull(runtime, "runtime");
        Objects.requireNonNull(config, "config");
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(confDir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if ((name.endsWith(".conf") || name.endsWith(".conflist") || name.endsWith(".json"))
                        && !Files.isDirectory(entry)) {
                    files.add(entry);
                }
            }
        } catch (NoSuchFileException | NotDirectoryException e) {
            // no directory: no configuration, reported below
        } catch (IOException e) {
            throw new CniRuntimeException("cannot read network configurations in " + confDir + ": "
                    + IoText.reason(e), new CniError(CniError.IO_FAILURE, "cannot read network configurations",
                    IoText.reason(e)), e);
        }
        if (files.isEmpty()) {
            String msg = "no network config found in " + confDir;
            throw new CniRuntimeException(msg, new CniError(CniError.INVALID_NETWORK_CONFIG, msg), null);
        }
        Collections.sort(files);
        List<Network> networks = new ArrayList<>();
        if (config.loopback()) {
            networks.add(loopback());
        }
        for (int i = 0; i < files.size() && (config.maxNetworks() == 0 || i < config.maxNetworks()); i++) {
            Path file = files.get(i);
            networks.add(new Network(NetworkConfigs.loadFile(file), config.interfacePrefix() + i, file));
        }
        return new SandboxNetworks(runtime, networks, Duration.ZERO);
    }

    /**
     * These networks in this order, numbered from {@code <prefix>0} (go-cni's {@code WithConfListBytes}); the loopback
     * network first if configured; {@link Config#maxNetworks()} is not applied.
     *
     * @throws IllegalArgumentException if {@code lists} is empty
     */
    public static SandboxNetworks of(CniRuntime runtime, List<NetworkConfigList> lists, Config config) {
        Objects.requireNonNull(runtime, "runtime");
        if (lists.isEmpty()) {
            throw new IllegalArgumentException("no networks");
        }
        List<Network> networks = new ArrayList<>();
        if (config.loopback()) {
            networks.add(loopback());
        }
        for (int i = 0; i < lists.size(); i++) {
            networks.add(new Network(lists.get(i), config.interfacePrefix() + i, null));
        }
        return new SandboxNetworks(runtime, networks, Duration.ZERO);
    }

    private static Network loopback() {
        try {
            return new Network(NetworkConfigList.decode(("{\"cniVersion\":\"1.0.0\",\"name\":\"" + LOOPBACK_NETWORK
                    + "\",\"plugins\":[{\"type\":\"loopback\"}]}").getBytes(StandardCharsets.UTF_8)),
                    "lo", null);
        } catch (CniException e) {
            throw new IllegalStateException("the loopback network's configuration", e);
        }
    }

    /**
     * These networks with every operation bounded by {@code timeout}, from its start to its end (see "Time limits");
     * replaces any limit this one has. {@link Duration#ZERO} takes the limit away.
     *
     * @throws IllegalArgumentException if {@code timeout} is negative
     */
    public SandboxNetworks withTimeout(Duration timeout) {
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative: " + timeout);
        }
        return new SandboxNetworks(runtime, networks, timeout);
    }

    /** The networks in the order they are set up, each with its interface name. */
    public List<Network> networks() {
        return networks;
    }

    /** The time limit of each operation, {@link Duration#ZERO} for none. */
    public Duration timeout() {
        return timeout;
    }

    // ------------------------------------------------------------------------------------------ operations

    /**
     * ADDs the sandbox to every network in parallel, one thread per network (go-cni's {@code Setup}); see "Failures
     * and rollback" for what a failure leaves.
     */
    public SandboxResult setup(Sandbox sandbox) throws CniRuntimeException {
        return setup(sandbox, true);
    }

    /** ADDs the sandbox to every network one after the other, in order (go-cni's {@code SetupSerially}). */
    public SandboxResult setupSerially(Sandbox sandbox) throws CniRuntimeException {
        return setup(sandbox, false);
    }

    /** CHECKs every network in order; the first failure is thrown (go-cni's {@code Check}). */
    public void check(Sandbox sandbox) throws CniRuntimeException {
        CniRuntime calls = bounded();
        for (Network network : networks) {
            try {
                calls.checkNetworkList(network.list(), sandbox.runtimeConf(network.ifName()));
            } catch (CniRuntimeException e) {
                throw failure("check", sandbox.id(), network, e);
            }
        }
    }

    /**
     * DELs every network in reverse order, going on past failures (go-cni's {@code Remove}; see "Operations"). Works
     * for a sandbox that was never set up, or only partly: DEL of what is not there succeeds.
     */
    public void remove(Sandbox sandbox) throws CniRuntimeException {
        CniRuntime calls = bounded();
        List<CniRuntimeException> failures = new ArrayList<>();
        for (Network network : networks.reversed()) {
            try {
                calls.delNetworkList(network.list(), sandbox.runtimeConf(network.ifName()));
            } catch (CniRuntimeException e) {
                failures.add(failure("remove", sandbox.id(), network, e));
            }
        }
        throwFirst(failures);
    }

    /**
     * STATUS of every network (spec 1.1.0; a no-op for older versions): the first failure is thrown, the others
     * suppressed. A plugin that is not ready answers 50 or 51.
     */
    public void status() throws CniRuntimeException {
        CniRuntime calls = bounded();
        List<CniRuntimeException> failures = new ArrayList<>();
        for (Network network : networks) {
            try {
                calls.statusNetworkList(network.list());
            } catch (CniRuntimeException e) {
                failures.add(failure("status", "", network, e));
            }
        }
        throwFirst(failures);
    }

    /**
     * GC of every network (spec 1.1.0): the attachments of the sandboxes {@code validSandboxIds} (each with the
     * network's interface name) stay, everything else the networks' plugins and the result cache hold goes (see
     * {@link CniRuntime#gcNetworkList}). Goes on past failures: the first is thrown, the others suppressed.
     */
    public void gc(Collection<String> validSandboxIds) throws CniRuntimeException {
        CniRuntime calls = bounded();
        List<CniRuntimeException> failures = new ArrayList<>();
        for (Network network : networks) {
            List<GcAttachment> valid = new ArrayList<>(validSandboxIds.size());
            for (String id : validSandboxIds) {
                valid.add(new GcAttachment(id, network.ifName()));
            }
            try {
                calls.gcNetworkList(network.list(), valid);
            } catch (CniRuntimeException e) {
                failures.add(failure("gc", "", network, e));
            }
        }
        throwFirst(failures);
    }

    // ------------------------------------------------------------------------------------------ setup

    private SandboxResult setup(Sandbox sandbox, boolean parallel) throws CniRuntimeException {
        CniRuntime calls = bounded();
        int n = networks.size();
        CniResult[] results = new CniResult[n];
        RuntimeException[] failures = new RuntimeException[n];
        if (parallel && n > 1) {
            ThreadFactory threads = Thread.ofPlatform().name("jcni-setup-" + sandbox.id() + "-", 0).factory();
            // close() waits for every ADD; interrupted, it interrupts them (each cancels and rolls back its network),
            // waits for them all the same and sets this thread's interrupt status again.
            try (ExecutorService pool = Executors.newThreadPerTaskExecutor(threads)) {
                for (int i = 0; i < n; i++) {
                    pool.execute(new Add(calls, networks.get(i), sandbox, results, failures, i));
                }
            }
        } else {
            for (int i = 0; i < n; i++) {
                new Add(calls, networks.get(i), sandbox, results, failures, i).run();
                if (failures[i] != null) {
                    break;
                }
            }
        }
        RuntimeException first = null;
        List<Integer> added = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (failures[i] != null) {
                RuntimeException failure = failures[i] instanceof CniRuntimeException e
                        ? failure("setup", sandbox.id(), networks.get(i), e) : failures[i];
                if (first == null) {
                    first = failure;
                } else {
                    first.addSuppressed(failure);
                }
            } else if (results[i] != null) {
                added.add(i);
            }
        }
        if (first != null) {
            rollback(sandbox, added, first);
            throw first;
        }
        List<SandboxResult.NetworkResult> each = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Network network = networks.get(i);
            each.add(new SandboxResult.NetworkResult(network.name(), network.ifName(), Result.from(results[i])));
        }
        return SandboxResult.of(each);
    }

    /** One network's ADD: its result or its failure into the shared arrays (each task writes only its index). */
    private record Add(CniRuntime calls, Network network, Sandbox sandbox, CniResult[] results,
            RuntimeException[] failures, int index) implements Runnable {
        @Override
        public void run() {
            try {
                results[index] = calls.addNetworkList(network.list(), sandbox.runtimeConf(network.ifName()));
            } catch (RuntimeException e) {
                failures[index] = e;
            }
        }
    }

    /**
     * DELs the networks {@code added} of this failed setup, newest first, with a fresh budget as long as the timeout
     * and the interrupt status cleared (an interrupt that cancelled the setup must not cut its cleanup short; it is set
     * again afterwards). Failures are attached to {@code failure}.
     */
    private void rollback(Sandbox sandbox, List<Integer> added, RuntimeException failure) {
        if (added.isEmpty()) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            CniRuntime calls = timeout.isZero() ? runtime : runtime.withTimeout(timeout);
            for (int i : added.reversed()) {
                Network network = networks.get(i);
                try {
                    calls.delNetworkList(network.list(), sandbox.runtimeConf(network.ifName()));
                } catch (CniRuntimeException e) {
                    failure.addSuppressed(failure("rollback of setup", sandbox.id(), network, e));
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    /** The runtime with this operation's deadline, if there is a time limit. */
    private CniRuntime bounded() {
        return timeout.isZero() ? runtime : runtime.withDeadline(Instant.now().plus(timeout));
    }

    /**
     * {@code e} as the caller gets it: its message prefixed with the operation, sandbox, network and interface; its
     * error unchanged, except that a failure caused by a time limit gets code 11 (see "Time limits").
     */
    private CniRuntimeException failure(String operation, String sandboxId, Network network, CniRuntimeException e) {
        String where = operation + (sandboxId.isEmpty() ? "" : " of sandbox " + sandboxId) + ": network \""
                + network.name() + "\" (" + network.ifName() + ")";
        CniError error = e.error();
        if (e.timedOut() && error.code() != CniError.TRY_AGAIN_LATER) {
            String limit = timeout.isZero() ? "a time limit" : "its time limit of " + timeout.toMillis() + " ms";
            String msg = where + " ran out of time (" + limit + "); try again later";
            error = new CniError(error.cniVersion(), CniError.TRY_AGAIN_LATER, msg, e.getMessage());
            return new CniRuntimeException(msg + ": " + e.getMessage(), error, e.fromPlugin(), e.pluginType(),
                    e.stderr(), e);
        }
        return new CniRuntimeException(where + ": " + e.getMessage(), error, e.fromPlugin(), e.pluginType(),
                e.stderr(), e);
    }

    private static void throwFirst(List<CniRuntimeException> failures) throws CniRuntimeException {
        if (failures.isEmpty()) {
            return;
        }
        CniRuntimeException first = failures.getFirst();
        for (CniRuntimeException other : failures.subList(1, failures.size())) {
            first.addSuppressed(other);
        }
        throw first;
    }
}
