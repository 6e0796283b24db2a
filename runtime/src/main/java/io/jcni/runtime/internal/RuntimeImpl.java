package io.jcni.runtime.internal;

import io.jcni.runtime.CachedAttachment;
import io.jcni.runtime.CachedConfig;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.runtime.RuntimeConf;
import io.jcni.runtime.StaleOptions;
import io.jcni.runtime.StaleReport;
import io.jcni.runtime.TraceContext;
import io.jcni.runtime.internal.cache.AddJournal;
import io.jcni.runtime.internal.cache.AttachmentLocks;
import io.jcni.runtime.internal.cache.CollectionGates;
import io.jcni.runtime.internal.cache.ResultCache;
import io.jcni.runtime.internal.exec.Deadline;
import io.jcni.runtime.internal.exec.GoText;
import io.jcni.runtime.internal.events.PluginCallEvent;
import io.jcni.runtime.internal.exec.PluginFailure;
import io.jcni.runtime.internal.exec.PluginInvoker;
import io.jcni.runtime.internal.exec.PluginLocator;
import io.jcni.runtime.internal.exec.PluginOutput;
import io.jcni.runtime.internal.exec.ProcessRunner;
import io.jcni.runtime.internal.exec.WarmSpawner;
import io.jcni.runtime.internal.stale.Namespaces;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniNames;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Command;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.VersionInfo;
import java.io.IOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link CniRuntime}: list semantics, configuration derivation, cache and locks over the exec engine. A runtime made
 * by {@link CniRuntime#create} and the views {@link #withTimeout} and {@link #withDeadline} make of it share one
 * engine (invoker, launch helpers, cache, locks) and differ only in the time limit each call starts with.
 */
public final class RuntimeImpl implements CniRuntime {
    private static final byte[] VERSION_STDIN =
            ("{\"cniVersion\":\"" + CniVersion.LATEST + "\"}").getBytes(StandardCharsets.UTF_8);

    private final Options options;
    private final PluginInvoker invoker;
    private final WarmSpawner spawner;
    private final ResultCache cache;
    private final AttachmentLocks locks;
    private final AddJournal journal;
    private final CollectionGates gates;
    private final String cniPath;
    private final long timeoutNanos;
    private final long rollbackNanos;
    private final AtomicBoolean closed;
    /** Each call's limit: a timeout from its start, an instant, or neither (both null). */
    private final Duration callTimeout;
    private final Instant callDeadline;
    /** Handed to every plugin of this view's calls, or null. */
    private final TraceContext traceContext;

    public RuntimeImpl(Options options) {
        this.options = options;
        this.spawner = WarmSpawner.create(options.environment(), options.launchHelpers(), options.launchHelper());
        this.invoker = new PluginInvoker(ProcessRunner.INTERRUPTIBLE, options.stderr(), spawner);
        this.cache = new ResultCache(options.cacheDir());
        this.locks = new AttachmentLocks(options.cacheDir());
        this.journal = new AddJournal(options.cacheDir());
        this.gates = new CollectionGates(options.cacheDir());
        this.cniPath = PluginLocator.joinPath(options.cniPath());
        this.timeoutNanos = options.pluginTimeout().toNanos();
        this.rollbackNanos = options.rollbackTimeout().toNanos();
        this.closed = new AtomicBoolean();
        this.callTimeout = null;
        this.callDeadline = null;
        this.traceContext = null;
    }

    private RuntimeImpl(RuntimeImpl base, Duration callTimeout, Instant callDeadline) {
        this(base, callTimeout, callDeadline, base.traceContext);
    }

    private RuntimeImpl(RuntimeImpl base, Duration callTimeout, Instant callDeadline, TraceContext traceContext) {
        this.options = base.options;
        this.spawner = base.spawner;
        this.invoker = base.invoker;
        this.cache = base.cache;
        this.locks = base.locks;
        this.journal = base.journal;
        this.gates = base.gates;
        this.cniPath = base.cniPath;
        this.timeoutNanos = base.timeoutNanos;
        this.rollbackNanos = base.rollbackNanos;
        this.closed = base.closed;
        this.callTimeout = callTimeout;
        this.callDeadline = callDeadline;
        this.traceContext = traceContext;
    }

    @Override
    public CniRuntime withTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive: " + timeout);
        }
        return new RuntimeImpl(this, timeout, null);
    }

    @Override
    public CniRuntime withDeadline(Instant deadline) {
        return new RuntimeImpl(this, null, Objects.requireNonNull(deadline, "deadline"));
    }

    @Override
    public CniRuntime withTraceContext(TraceContext context) {
        return new RuntimeImpl(this, callTimeout, callDeadline, context);
    }

    /** Stops the launch helpers; calls after this one are refused. Views share it: closing one closes nothing. */
    @Override
    public void close() {
        if (callTimeout != null || callDeadline != null || traceContext != null) {
            return;
        }
        if (closed.compareAndSet(false, true) && spawner != null) {
            spawner.close();
        }
    }

    /** The limit of a call starting now; refuses calls on a closed runtime. */
    private Deadline begin() {
        if (closed.get()) {
            throw new IllegalStateException("this CniRuntime is closed");
        }
        return callTimeout != null ? Deadline.after(callTimeout)
                : callDeadline != null ? Deadline.at(callDeadline) : Deadline.NONE;
    }

    /** The CNI_* values of a verb that concerns no attachment (GC, STATUS): all empty. */
    private static final RuntimeConf NO_ATTACHMENT = new RuntimeConf("", "", "");

    // ============================================================================================ lists

    @Override
    public CniResult addNetworkList(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException {
        return add(Net.of(list), rt, begin());
    }

    @Override
    public void checkNetworkList(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException {
        check(Net.of(list), rt, begin());
    }

    @Override
    public void delNetworkList(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException {
        del(Net.of(list), rt, begin());
    }

    @Override
    public CniResult addNetwork(PluginConfig net, RuntimeConf rt) throws CniRuntimeException {
        return add(Net.of(net), rt, begin());
    }

    @Override
    public void checkNetwork(PluginConfig net, RuntimeConf rt) throws CniRuntimeException {
        check(Net.of(net), rt, begin());
    }

    @Override
    public void delNetwork(PluginConfig net, RuntimeConf rt) throws CniRuntimeException {
        del(Net.of(net), rt, begin());
    }

    private CniResult add(Net net, RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        requireAttachment(net.name(), rt);
        requireRunnable(net);
        try (AttachmentLocks.Held _ = lock(rt, deadline)) {
            CollectionGates.Held gate = null;
            AddJournal.Writer record;
            try {
                requireNotAdded(net, rt);
                finishEarlierAdd(net.name(), rt, deadline);
                gate = enterAdd(net.name(), deadline);
                record = openJournal(net, rt);
            } catch (CniRuntimeException e) {
                if (gate != null) {
                    gate.close();
                }
                throw withRollback(e, true); // no plugin ran: nothing of this ADD is left
            }
            try (CollectionGates.Held _ = gate; AddJournal.Writer _ = record) {
                return addPlugins(net, rt, deadline, record);
            }
        }
    }

    /**
     * The plugins of an ADD, each recorded in the journal before it starts, then the cached result; on failure the
     * rollback ({@link #cleanUp}).
     */
    private CniResult addPlugins(Net net, RuntimeConf rt, Deadline deadline, AddJournal.Writer record)
            throws CniRuntimeException {
        CniResult result = null;
        int added = 0;
        for (PluginConfig plugin : net.plugins()) {
            String context = "plugin " + describe(plugin) + " failed (add): ";
            try {
                record.started(added);
            } catch (IOException e) {
                throw cleanUp(net, rt, result, added, false, new CniRuntimeException("cannot record the ADD in "
                        + record.file() + ": " + e.getMessage(), new CniError(CniError.IO_FAILURE,
                        "cannot record the ADD before starting plugin " + plugin.type(), e.getMessage()), e),
                        deadline, record);
            }
            boolean exited0 = false;
            try {
                byte[] out = call(context, net, plugin, Command.ADD, result, rt, deadline);
                // The plugin exited 0: what it made is this ADD's to undo, whatever its output turns out to be.
                exited0 = true;
                added++;
                result = decodeResult(context, plugin, out, net.version());
                record.added(added - 1, result);
            } catch (CniRuntimeException e) {
                // A plugin the runtime killed (time limit, interrupt) could not undo its partial work: it gets
                // the rollback's DEL too. One that failed by itself did undo it, and gets none (see cleanUp).
                boolean stopped = stopped(e);
                if (!exited0 && !stopped) {
                    record.failed(added);
                }
                throw cleanUp(net, rt, result, stopped ? added + 1 : added, false, e, deadline, record);
            }
        }
        try {
            cache.write(net.name(), rt, net.bytes(), result);
        } catch (IOException | CniException e) {
            // A cancelled call can be interrupted here, in the cache file's fsync (ClosedByInterruptException,
            // which has no message): say so, and put the interrupt in the cause chain as for a plugin's failure.
            String why = e instanceof ClosedByInterruptException ? "interrupted while writing it"
                    : String.valueOf(e.getMessage());
            Throwable cause = e;
            if (Thread.currentThread().isInterrupted() && !causedBy(e, InterruptedException.class)) {
                cause = new InterruptedException("the calling thread was interrupted").initCause(e);
            }
            throw cleanUp(net, rt, result, added, true, new CniRuntimeException("failed to set network \""
                    + net.name() + "\" cached result: " + why, new CniError(CniError.IO_FAILURE,
                    "failed to set network \"" + net.name() + "\" cached result", why), cause), deadline,
                    record);
        }
        try {
            record.discard();
        } catch (IOException e) {
            // A journal beside its cached result only says the ADD completed: the next call on the attachment, or
            // gc --stale, drops it. The ADD succeeded.
        }
        return result;
    }

    /**
     * The journal of an ADD about to run its first plugin ({@link AddJournal}), with the namespace's identity so that
     * a later rollback enters it only while the path still names it. An ADD that cannot record what it starts does
     * not start (code 5).
     */
    private AddJournal.Writer openJournal(Net net, RuntimeConf rt) throws CniRuntimeException {
        try {
            return journal.open(net.name(), rt, Namespaces.identity(rt.netns()), net.bytes());
        } catch (IOException e) {
            String msg = "cannot record the ADD of " + rt.containerId() + "/" + rt.ifName() + " in "
                    + journal.file(net.name(), rt.containerId(), rt.ifName()) + ": " + e.getMessage();
            throw new CniRuntimeException(msg, new CniError(CniError.IO_FAILURE, "cannot record the ADD",
                    e.getMessage()), e);
        }
    }

    /**
     * The network's collection gate, shared ({@link CollectionGates}): a GC of the network in progress ends first,
     * and none starts until this ADD's result is cached. Waited for until the deadline (code 11 then).
     */
    private CollectionGates.Held enterAdd(String network, Deadline deadline) throws CniRuntimeException {
        try {
            return gates.enterAdd(network, deadline.limited() ? Math.max(1, deadline.remainingNanos()) : 0);
        } catch (IOException e) {
            throw new CniRuntimeException("cannot take network \"" + network + "\"'s collection gate: "
                    + e.getMessage(), new CniError(CniError.IO_FAILURE, "cannot take the network's gate",
                    e.getMessage()), e);
        } catch (TimeoutException e) {
            String msg = "network \"" + network + "\" is being collected: the call's deadline ("
                    + deadline.budgetMillis() + " ms) passed while waiting for its GC";
            throw new CniRuntimeException(msg, new CniError(CniError.TRY_AGAIN_LATER, msg, e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CniRuntimeException("interrupted while waiting for network \"" + network + "\"'s GC",
                    new CniError(CniError.INTERNAL, "interrupted"), e);
        }
    }

    /**
     * Before an ADD: the rollback an earlier ADD of this attachment left unfinished (its journal) is finished first,
     * so that the new ADD neither trips over what the old one made nor leaves it behind. If it cannot be finished
     * now, the new ADD fails with that failure, having done nothing.
     */
    private void finishEarlierAdd(String network, RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        if (!journal.exists(network, rt.containerId(), rt.ifName())) {
            return;
        }
        Optional<AddJournal.Entry> earlier;
        try {
            earlier = journal.read(network, rt.containerId(), rt.ifName());
        } catch (CniException e) {
            throw runtimeSide(e);
        }
        if (earlier.isPresent()) {
            finishRollback(earlier.get(), Namespaces.probe(), deadline);
        }
    }

    /**
     * Refuses, before any plugin runs, an ADD of an attachment whose cache entry exists. The spec says a runtime must
     * not ADD the same (CNI_CONTAINERID, CNI_IFNAME) twice without a DEL in between; running the plugins anyway
     * would fail on what the first ADD made ("eth0 already exists") and the rollback would then have nothing of
     * this ADD's to undo, or, with plugins that answer a repeated ADD with what they already hold, report success
     * for state no DEL of this call could tell apart. Refused rather than answered from the cache: a cached result
     * says what existed after the first ADD, not what exists now. Code 4: the variables name an attachment in use.
     */
    private void requireNotAdded(Net net, RuntimeConf rt) throws CniRuntimeException {
        try {
            if (!cache.exists(net.name(), rt)) {
                return;
            }
            String msg = "attachment (CNI_CONTAINERID \"" + rt.containerId() + "\", CNI_IFNAME \"" + rt.ifName()
                    + "\") of network \"" + net.name() + "\" is already added";
            throw new CniRuntimeException(msg, new CniError(CniError.INVALID_ENVIRONMENT_VARIABLES, msg,
                    "its cached result is " + cache.file(net.name(), rt.containerId(), rt.ifName())
                            + "; DEL the attachment before adding it again"), null);
        } catch (CniException e) {
            throw runtimeSide(e);
        }
    }

    /**
     * After a failed ADD: DEL, in reverse order, of the plugins whose ADD succeeded in this call (they exited 0), so
     * that what they made does not leak; prevResult is the last result the ADD produced (0.4.0 and later), the best
     * account there is of what exists. The plugin that failed gets no DEL, nor do the plugins after it: a DEL deletes
     * by name (the container's eth0, the attachment's reservation), and a plugin that failed because the name was
     * taken ("eth0 already exists") would then destroy what was there before this ADD. A failing plugin undoes its
     * own partial work (jcni's plugins do, by construction; Go's reference plugins mostly do). Unlike a normal DEL,
     * the cleanup goes on past failures, to release as much as it can; each failure is attached to the ADD failure,
     * which is what the caller gets. The cache entry is removed only if this ADD wrote it ({@code cacheWritten}: the
     * write failed after the rename) and the cleanup succeeded; an entry that existed before refused the ADD.
     *
     * <p>{@code toDelete} counts from the first plugin: those that succeeded, plus the one the runtime killed if it
     * was killed while it ran. The cleanup runs after an ADD that ran out of time or was cancelled too: with the
     * thread's interrupt status cleared (and set again afterwards), so that the interrupt that cancelled the ADD does
     * not also cut its rollback short, and under a budget of its own: as long as the call's, and at least
     * {@link Options#rollbackTimeout()} (each plugin too, also past its {@link Options#pluginTimeout()}). A new
     * interrupt during the cleanup stops it. Every DEL that succeeds is recorded in the ADD's journal; when all did,
     * the journal goes and the failure says {@link CniRuntimeException#rolledBack()}. Otherwise the journal stays for
     * the next ADD or DEL of the attachment, or gc --stale, to finish.
     */
    private CniRuntimeException cleanUp(Net net, RuntimeConf rt, CniResult lastResult, int toDelete,
            boolean cacheWritten, CniRuntimeException failure, Deadline deadline, AddJournal.Writer record) {
        if (!options.deleteOnAddFailure()) {
            if (toDelete == 0 && !cacheWritten) {
                discard(record);
                return withRollback(failure, true);
            }
            record.leftForCaller();
            record.close();
            return withRollback(failure, false);
        }
        boolean interrupted = Thread.interrupted();
        try {
            Deadline budget = deadline.forRollback(rollbackNanos);
            long pluginLimit = timeoutNanos == 0 ? 0 : Math.max(timeoutNanos, rollbackNanos);
            CniResult prev = net.version().supportsCheck() ? lastResult : null;
            boolean clean = true;
            for (int i = toDelete - 1; i >= 0; i--) {
                PluginConfig plugin = net.plugins().get(i);
                try {
                    call("cleanup after failed ADD: plugin " + describe(plugin) + " failed (delete): ", net, plugin,
                            Command.DEL, prev, rt, budget, pluginLimit);
                    record.deleted(i);
                } catch (CniRuntimeException e) {
                    clean = false;
                    failure.addSuppressed(e);
                }
            }
            if (clean && cacheWritten) {
                try {
                    cache.delete(net.name(), rt);
                } catch (IOException | CniException e) {
                    clean = false;
                    failure.addSuppressed(e);
                }
            }
            if (clean) {
                discard(record);
            } else {
                record.close(); // unfinished: the next ADD or DEL of the attachment, or gc --stale, finishes it
            }
            return withRollback(failure, clean);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void discard(AddJournal.Writer record) {
        try {
            record.discard();
        } catch (IOException e) {
            // It only names DELs that were done: finishing it again later is harmless.
        }
    }

    /** {@code failure} as the caller gets it, saying whether the failed ADD left nothing ({@code rolledBack}). */
    static CniRuntimeException withRollback(CniRuntimeException failure, boolean rolledBack) {
        if (failure.rolledBack() == rolledBack) {
            return failure;
        }
        CniRuntimeException e = new CniRuntimeException(failure.getMessage(), failure.error(), failure.fromPlugin(),
                failure.pluginType(), failure.stderr(), failure.getCause(), rolledBack);
        e.setStackTrace(failure.getStackTrace());
        for (Throwable suppressed : failure.getSuppressed()) {
            e.addSuppressed(suppressed);
        }
        return e;
    }

    /** Whether the failure is of a plugin the runtime killed while it ran. */
    private static boolean stopped(CniRuntimeException e) {
        int depth = 0;
        for (Throwable t = e.getCause(); t != null && depth < 8; t = t.getCause(), depth++) {
            if (t instanceof PluginFailure failure) {
                return failure.stopped();
            }
        }
        return false;
    }

    private void check(Net net, RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        if (!net.version().supportsCheck()) {
            throw new CniRuntimeException("configuration version \"" + net.version()
                    + "\" does not support the CHECK command", new CniError(CniError.INCOMPATIBLE_CNI_VERSION,
                    "configuration version \"" + net.version() + "\" does not support the CHECK command"), null);
        }
        if (net.disableCheck()) {
            return;
        }
        requireAttachment(net.name(), rt);
        requireRunnable(net);
        try (AttachmentLocks.Held _ = lock(rt, deadline)) {
            CniResult cached = cachedForOperation(net, rt);
            for (PluginConfig plugin : net.plugins()) {
                call("plugin " + describe(plugin) + " failed (check): ", net, plugin, Command.CHECK, cached, rt,
                        deadline);
            }
        }
    }

    private void del(Net net, RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        requireAttachment(net.name(), rt);
        requireRunnable(net);
        try (AttachmentLocks.Held _ = lock(rt, deadline)) {
            delLocked(net, rt, deadline);
        }
    }

    private void delLocked(Net net, RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        CniResult cached = null;
        boolean journaled = journal.exists(net.name(), rt.containerId(), rt.ifName());
        if (net.version().supportsCheck()) {
            try {
                cached = cache.result(net.name(), rt, net.version()).orElse(null);
            } catch (CniException e) {
                // Deliberate (libcni 1.1.2 fails here, later libcni versions do as jcni): an unreadable cache file
                // must not make the attachment undeletable. The plugins run without prevResult; the file goes.
                RuntimeLog.log(RuntimeLog.CACHE, System.Logger.Level.WARNING, "DEL of " + net.name() + " "
                        + rt.containerId() + "/" + rt.ifName() + ": the cached result cannot be read, the plugins run"
                        + " without prevResult", e);
                cached = null;
            }
            if (cached == null && journaled) {
                cached = journaledResult(net, rt);
            }
        }
        for (int i = net.plugins().size() - 1; i >= 0; i--) {
            PluginConfig plugin = net.plugins().get(i);
            call("plugin " + describe(plugin) + " failed (delete): ", net, plugin, Command.DEL, cached, rt, deadline);
        }
        try {
            cache.delete(net.name(), rt);
            if (journaled) {
                // A failed ADD's unfinished rollback: this DEL, of every plugin, has done what it owed.
                journal.delete(net.name(), rt.containerId(), rt.ifName());
            }
        } catch (IOException | CniException e) {
            throw new CniRuntimeException("failed to remove network \"" + net.name() + "\" cached result: "
                    + e.getMessage(), new CniError(CniError.IO_FAILURE, "failed to remove cached result",
                    e.getMessage()), e);
        }
    }

    /**
     * prevResult for the DEL of an attachment without a cache entry whose failed ADD left a journal: the last result
     * that ADD got (what it made, as far as the runtime knows), or null.
     */
    private CniResult journaledResult(Net net, RuntimeConf rt) {
        try {
            Optional<AddJournal.Entry> entry = journal.read(net.name(), rt.containerId(), rt.ifName());
            if (entry.isPresent() && entry.get().lastResult() != null) {
                return CniJson.decodeResult(entry.get().lastResult(), null).convertTo(net.version());
            }
        } catch (CniException e) {
            // As an unreadable cache entry: the plugins run without prevResult.
        }
        return null;
    }

    @Override
    public void gcNetworkList(NetworkConfigList list, List<GcAttachment> validAttachments)
            throws CniRuntimeException {
        Deadline deadline = begin();
        if (list.disableGC()) {
            return;
        }
        Net net = Net.of(list).withValidAttachments(validAttachments);
        requireRunnable(net);
        List<CniRuntimeException> errors = new ArrayList<>();
        Set<GcAttachment> valid = new HashSet<>(validAttachments);
        for (CachedAttachment stale : allCachedAttachments()) {
            RuntimeConf rt = stale.runtimeConf();
            if (!stale.network().equals(list.name()) || valid.contains(rt.attachment())) {
                continue;
            }
            try {
                del(net, rt, deadline);
            } catch (CniRuntimeException e) {
                errors.add(new CniRuntimeException("failed to delete stale attachment " + rt.containerId() + " "
                        + rt.ifName() + ": " + e.getMessage(), e.error(), e.fromPlugin(), e.pluginType(),
                        e.stderr(), e));
            }
        }
        if (net.version().supportsGcAndStatus()) {
            gcPlugins(net, errors, deadline);
        }
        throwAll(errors);
    }

    /** GC to every plugin of {@code net} with its valid attachments, going on past failures (collected). */
    private void gcPlugins(Net net, List<CniRuntimeException> errors, Deadline deadline) {
        for (PluginConfig plugin : net.plugins()) {
            try {
                call("failed to GC plugin " + plugin.type() + ": ", net, plugin, Command.GC, null, NO_ATTACHMENT,
                        deadline);
            } catch (CniRuntimeException e) {
                errors.add(e);
            }
        }
    }

    // ============================================================================================ stale attachments

    @Override
    public StaleReport gcStale(List<NetworkConfigList> networks, StaleOptions staleOptions)
            throws CniRuntimeException {
        begin();
        Objects.requireNonNull(networks, "networks");
        Objects.requireNonNull(staleOptions, "options");
        return new StaleCollector(this, networks, staleOptions).run();
    }

    // What StaleCollector uses of the engine; each step runs under a limit of its own (begin()).

    ResultCache cache() {
        return cache;
    }

    AddJournal journal() {
        return journal;
    }

    AttachmentLocks locks() {
        return locks;
    }

    CollectionGates gates() {
        return gates;
    }

    /** The limit of one step of a collection (one DEL, one network's GC), as of a call starting now. */
    Deadline step() {
        return begin();
    }

    /** DEL of a stale attachment (the collector holds its lock; taking it again is reentrant). */
    void delStale(Net net, RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        requireRunnable(net);
        del(net, rt, deadline);
    }

    /** GC to every plugin of {@code net} with {@code valid} as its valid attachments; failures together. */
    void collect(Net net, List<GcAttachment> valid, Deadline deadline) throws CniRuntimeException {
        requireRunnable(net);
        List<CniRuntimeException> errors = new ArrayList<>();
        gcPlugins(net.withValidAttachments(valid), errors, deadline);
        throwAll(errors);
    }

    /**
     * Finishes what a failed ADD's journal says it still owes: DEL, in reverse order, to each plugin that was started
     * and did not fail by itself, less those its rollback already deleted, with the ADD's configuration and arguments
     * and its last result as prevResult; then the journal goes. The DELs enter the namespace only if its path still
     * names the namespace the ADD had ({@link Namespaces#stillNames}), else they run with {@code CNI_NETNS=""} (a
     * path made again for another namespace, or a pid reused, must never have its interfaces deleted). Goes on past
     * failures, as a rollback does, and then throws them together, leaving the journal. The caller holds the
     * attachment's lock.
     */
    void finishRollback(AddJournal.Entry entry, Namespaces namespaces, Deadline deadline)
            throws CniRuntimeException {
        RuntimeConf recorded = entry.runtimeConf();
        String who = recorded.containerId() + "/" + recorded.ifName();
        Net net;
        try {
            net = Net.decode(entry.config()).named(entry.network());
        } catch (CniException e) {
            throw new CniRuntimeException("cannot finish the rollback of a failed ADD of " + who + " in network \""
                    + entry.network() + "\": its journal's configuration does not decode: " + e.getMessage(),
                    e.error(), e);
        }
        requireAttachment(net.name(), recorded);
        requireRunnable(net);
        RuntimeConf rt = namespaces.stillNames(recorded.netns(), entry.netnsId()) ? recorded : recorded.withNetns("");
        CniResult prev = null;
        if (entry.lastResult() != null && net.version().supportsCheck()) {
            try {
                prev = CniJson.decodeResult(entry.lastResult(), null).convertTo(net.version());
            } catch (CniException e) {
                prev = null; // as an unreadable cache entry: the DELs run without prevResult
            }
        }
        List<CniRuntimeException> errors = new ArrayList<>();
        for (int i : entry.toDelete()) {
            if (i >= net.plugins().size()) {
                continue;
            }
            PluginConfig plugin = net.plugins().get(i);
            try {
                call("finishing the rollback of a failed ADD of " + who + ": plugin " + describe(plugin)
                        + " failed (delete): ", net, plugin, Command.DEL, prev, rt, deadline);
            } catch (CniRuntimeException e) {
                errors.add(e);
            }
        }
        if (errors.isEmpty()) {
            try {
                journal.delete(net.name(), recorded.containerId(), recorded.ifName());
            } catch (IOException e) {
                errors.add(new CniRuntimeException("cannot remove the journal of " + who + ": " + e.getMessage(),
                        new CniError(CniError.IO_FAILURE, "cannot remove the journal", e.getMessage()), e));
            }
        }
        throwAll(errors);
    }

    @Override
    public void statusNetworkList(NetworkConfigList list) throws CniRuntimeException {
        Deadline deadline = begin();
        Net net = Net.of(list);
        if (!net.version().supportsGcAndStatus()) {
            return;
        }
        requireRunnable(net);
        for (PluginConfig plugin : net.plugins()) {
            call("plugin " + describe(plugin) + " failed (status): ", net, plugin, Command.STATUS, null,
                    NO_ATTACHMENT, deadline);
        }
    }

    @Override
    public List<String> validateNetworkList(NetworkConfigList list) throws CniRuntimeException {
        return validate(Net.of(list), begin());
    }

    @Override
    public List<String> validateNetwork(PluginConfig net) throws CniRuntimeException {
        return validate(Net.of(net), begin());
    }

    private List<String> validate(Net net, Deadline deadline) throws CniRuntimeException {
        List<CniRuntimeException> errors = new ArrayList<>();
        if (!net.version().isSupported()) {
            errors.add(unsupportedVersion(net));
        }
        if (net.plugins().isEmpty()) {
            errors.add(noPlugins(net));
        }
        TreeSet<String> capabilities = new TreeSet<>();
        for (PluginConfig plugin : net.plugins()) {
            try {
                VersionInfo info = versionInfo(plugin.type(), deadline);
                if (!info.supports(net.version())) {
                    String msg = "plugin " + plugin.type() + " does not support config version \"" + net.version()
                            + "\"";
                    errors.add(new CniRuntimeException(msg, new CniError(CniError.INCOMPATIBLE_CNI_VERSION, msg,
                            "it supports " + info.supportedVersions()), false, plugin.type(), "", null));
                }
            } catch (CniRuntimeException e) {
                errors.add(e);
            }
            capabilities.addAll(plugin.enabledCapabilities());
        }
        throwAll(errors);
        return List.copyOf(capabilities);
    }

    @Override
    public VersionInfo versionInfo(String pluginType) throws CniRuntimeException {
        return versionInfo(pluginType, begin());
    }

    private VersionInfo versionInfo(String pluginType, Deadline deadline) throws CniRuntimeException {
        // libcni's VERSION call: dummy values for plugins built on an older skel that insists on them.
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CNI_COMMAND", Command.VERSION.name());
        env.put("CNI_CONTAINERID", "");
        env.put("CNI_NETNS", "dummy");
        env.put("CNI_ARGS", "");
        env.put("CNI_IFNAME", "dummy");
        env.put("CNI_PATH", "dummy");
        byte[] out;
        try {
            out = run(pluginType, VERSION_STDIN, env, deadline, timeoutNanos);
        } catch (PluginFailure e) {
            if (e.error().message().equals("unknown CNI_COMMAND: VERSION")) {
                return new VersionInfo("0.1.0", List.of("0.1.0"));
            }
            throw failed("", pluginType, e);
        }
        try {
            return PluginOutput.versionInfo(out);
        } catch (PluginFailure e) {
            throw failed("", pluginType, e);
        }
    }

    // ============================================================================================ cache

    @Override
    public Optional<CniResult> cachedResult(NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException {
        return cachedResult(list.name(), list.cniVersion(), rt);
    }

    @Override
    public Optional<CniResult> cachedResult(String network, CniVersion version, RuntimeConf rt)
            throws CniRuntimeException {
        begin();
        requireAttachment(network, rt);
        try {
            return cache.result(network, rt, version);
        } catch (CniException e) {
            throw runtimeSide(e);
        }
    }

    @Override
    public Optional<CachedConfig> cachedConfig(String network, RuntimeConf rt) throws CniRuntimeException {
        begin();
        requireAttachment(network, rt);
        try {
            return cache.config(network, rt);
        } catch (CniException e) {
            throw runtimeSide(e);
        }
    }

    @Override
    public List<CachedAttachment> cachedAttachments() throws CniRuntimeException {
        begin();
        return allCachedAttachments();
    }

    @Override
    public List<CachedAttachment> cachedAttachments(String containerId) throws CniRuntimeException {
        begin();
        try {
            CniNames.requireContainerId(containerId);
        } catch (CniException e) {
            throw runtimeSide(e);
        }
        return attachments(containerId);
    }

    private List<CachedAttachment> allCachedAttachments() throws CniRuntimeException {
        return attachments("");
    }

    /** The cache's attachments of {@code containerId}, or all for "". */
    private List<CachedAttachment> attachments(String containerId) throws CniRuntimeException {
        try {
            return cache.attachments(containerId);
        } catch (IOException e) {
            throw new CniRuntimeException("cannot list cached attachments in " + cache.resultsDir() + ": "
                    + e.getMessage(), new CniError(CniError.IO_FAILURE, "cannot list cached attachments",
                    e.getMessage()), e);
        }
    }

    /** The cached result for CHECK (which fails on an unreadable cache, as libcni's does). */
    private CniResult cachedForOperation(Net net, RuntimeConf rt) throws CniRuntimeException {
        try {
            return cache.result(net.name(), rt, net.version()).orElse(null);
        } catch (CniException e) {
            throw new CniRuntimeException("failed to get network \"" + net.name() + "\" cached result: "
                    + e.getMessage(), e.error(), e);
        }
    }

    // ============================================================================================ execution

    /**
     * One plugin call of a list operation, and the one place its failures are turned into what the caller reports:
     * the plugin's stdin derived for {@code command} (see {@link #stdin}), the plugin run, and any failure on the way
     * (a configuration that cannot be derived, a plugin that cannot be found, started or waited for, its error result)
     * thrown as a {@link CniRuntimeException} whose message is {@code context} followed by the failure's, with its
     * error, plugin type and stderr. Returns the plugin's stdout.
     */
    private byte[] call(String context, Net net, PluginConfig plugin, Command command, CniResult prev,
            RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        return call(context, net, plugin, command, prev, rt, deadline, timeoutNanos);
    }

    /** As above, with {@code pluginLimitNanos} as the plugin's own limit (a rollback's may be longer). */
    private byte[] call(String context, Net net, PluginConfig plugin, Command command, CniResult prev,
            RuntimeConf rt, Deadline deadline, long pluginLimitNanos) throws CniRuntimeException {
        PluginCallEvent event = new PluginCallEvent();
        event.begin();
        CniError error = null;
        try {
            return invoke(plugin.type(), command, stdin(net, plugin, command, prev, rt), rt, deadline,
                    pluginLimitNanos);
        } catch (PluginFailure e) {
            error = e.error();
            throw failed(context, plugin.type(), e);
        } catch (CniException e) {
            error = e.error();
            throw failed(context, plugin.type(), e);
        } finally {
            if (event.shouldCommit()) {
                event.network = net.name();
                event.pluginType = plugin.type();
                event.command = command.name();
                event.containerId = rt.containerId();
                event.ifName = rt.ifName();
                event.errorCode = error == null ? 0 : error.code();
                event.error = error == null ? null : error.msg();
                event.commit();
            }
        }
    }

    /**
     * ADD's stdout as a result of the network's version. Output that is not a result fails as a failed call does,
     * with {@code context} (code 6 for output that does not decode, the conversion's code for a result that cannot be
     * converted). What libcni accepts although the spec does not allow it (an interface index outside
     * {@code interfaces}, a 0.x {@code version} that contradicts its address) is accepted and passed on, with one
     * warning each ({@link RuntimeLog#RESULTS}): a runtime must not fail a container that Go runtimes start.
     */
    private CniResult decodeResult(String context, PluginConfig plugin, byte[] out, CniVersion version)
            throws CniRuntimeException {
        List<String> warnings = new ArrayList<>(0);
        CniResult result;
        try {
            result = PluginOutput.result(out, version, version, warnings);
        } catch (PluginFailure e) {
            throw failed(context, plugin.type(), e);
        }
        for (String warning : warnings) {
            RuntimeLog.log(RuntimeLog.RESULTS, System.Logger.Level.WARNING, "plugin " + describe(plugin)
                    + " (add) printed " + warning + "; accepted and passed on, as Go libcni does");
        }
        return result;
    }

    /**
     * A plugin's stdin for {@code command}. ADD, CHECK and DEL: the execution configuration ({@link #execConfig}),
     * with {@code prev} as prevResult when set. GC: the plugin's configuration with the network's name and version,
     * without capabilities, and the network's valid attachments. STATUS: the same without the attachments.
     */
    private static byte[] stdin(Net net, PluginConfig plugin, Command command, CniResult prev, RuntimeConf rt)
            throws CniException {
        return switch (command) {
            case GC -> CniJson.encode(baseConfig(net, plugin).withValidAttachments(net.validAttachments()));
            case STATUS -> CniJson.encode(baseConfig(net, plugin));
            default -> execConfig(net, plugin, prev, rt);
        };
    }

    /**
     * The execution configuration (spec section 3, "Deriving execution configuration from plugin configuration"): the
     * plugin's configuration with {@code name} and {@code cniVersion} of the network, {@code capabilities} removed,
     * {@code runtimeConfig} set to the capability arguments its enabled capabilities select (left as it is when none
     * do), and {@code prevResult} when there is one; all other keys unchanged and in place.
     */
    private static byte[] execConfig(Net net, PluginConfig plugin, CniResult prev, RuntimeConf rt)
            throws CniException {
        PluginConfig config = baseConfig(net, plugin);
        JsonObject runtimeConfig = runtimeConfig(plugin, rt.capabilityArgs());
        if (!runtimeConfig.isEmpty()) {
            config = config.withRuntimeConfig(runtimeConfig);
        }
        if (prev != null) {
            config = config.withPrevResult(prev.convertTo(net.version()));
        }
        return CniJson.encode(config);
    }

    private static PluginConfig baseConfig(Net net, PluginConfig plugin) throws CniException {
        return plugin.withName(net.name()).withCniVersion(net.version()).withoutCapabilities();
    }

    /** The capability arguments whose capability the plugin enables, in the plugin's capability order. */
    static JsonObject runtimeConfig(PluginConfig plugin, JsonObject capabilityArgs) {
        if (capabilityArgs.isEmpty()) {
            return JsonObject.EMPTY;
        }
        LinkedHashMap<String, Json> selected = new LinkedHashMap<>();
        for (String capability : plugin.enabledCapabilities()) {
            Optional<Json> value = capabilityArgs.get(capability);
            if (value.isPresent()) {
                selected.put(capability, value.get());
            }
        }
        return selected.isEmpty() ? JsonObject.EMPTY : JsonObject.of(selected);
    }

    private byte[] invoke(String type, Command command, byte[] stdin, RuntimeConf rt, Deadline deadline,
            long pluginLimitNanos) throws PluginFailure {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("CNI_COMMAND", command.name());
        env.put("CNI_CONTAINERID", rt.containerId());
        env.put("CNI_NETNS", rt.netns());
        env.put("CNI_ARGS", rt.args().toString());
        env.put("CNI_IFNAME", rt.ifName());
        env.put("CNI_PATH", cniPath);
        if (traceContext != null) {
            env.put("TRACEPARENT", traceContext.traceparent());
            if (!traceContext.tracestate().isEmpty()) {
                env.put("TRACESTATE", traceContext.tracestate());
            }
            if (!traceContext.baggage().isEmpty()) {
                env.put("BAGGAGE", traceContext.baggage());
            }
        }
        return run(type, stdin, env, deadline, pluginLimitNanos);
    }

    private byte[] run(String type, byte[] stdin, Map<String, String> cniEnv, Deadline deadline,
            long pluginLimitNanos) throws PluginFailure {
        Optional<InProcessPlugin> inProcess = options.inProcess().find(type);
        if (inProcess.isPresent()) {
            Map<String, String> env = new HashMap<>(options.environment());
            env.putAll(cniEnv);
            return invoker.inProcess(type, inProcess.get(), stdin, env, pluginLimitNanos, deadline);
        }
        return invoker.exec(PluginLocator.find(type, options.cniPath()), stdin, options.environment(), cniEnv,
                pluginLimitNanos, deadline);
    }

    // ============================================================================================ checks and errors

    /**
     * The names become CNI_* values and the cache file's name, so they are checked before anything runs (libcni checks
     * them at ADD only; jcni for every verb that touches the cache, so no name can reach outside it).
     */
    private static void requireAttachment(String network, RuntimeConf rt) throws CniRuntimeException {
        try {
            CniNames.requireContainerId(rt.containerId());
            CniNames.requireNetworkName(network);
            CniNames.requireInterfaceName(rt.ifName());
        } catch (CniException e) {
            throw runtimeSide(e);
        }
    }

    private static void requireRunnable(Net net) throws CniRuntimeException {
        if (!net.version().isSupported()) {
            throw unsupportedVersion(net);
        }
        if (net.plugins().isEmpty()) {
            throw noPlugins(net);
        }
    }

    private static CniRuntimeException unsupportedVersion(Net net) {
        String msg = "network \"" + net.name() + "\": unsupported CNI version \"" + net.version() + "\"";
        return new CniRuntimeException(msg, new CniError(CniError.INCOMPATIBLE_CNI_VERSION, msg,
                "jcni supports " + CniVersion.SUPPORTED), null);
    }

    private static CniRuntimeException noPlugins(Net net) {
        String msg = "network \"" + net.name() + "\" has no plugins";
        return new CniRuntimeException(msg, new CniError(CniError.INVALID_NETWORK_CONFIG, msg), null);
    }

    /**
     * The attachment's lock, waited for until the deadline: an operation on the same attachment that holds it longer
     * makes this one fail with code 11 (try again later), as the spec's code for a transient condition.
     */
    private AttachmentLocks.Held lock(RuntimeConf rt, Deadline deadline) throws CniRuntimeException {
        String attachment = rt.containerId() + "/" + rt.ifName();
        try {
            return locks.acquire(rt.containerId(), rt.ifName(),
                    deadline.limited() ? Math.max(1, deadline.remainingNanos()) : 0);
        } catch (IOException e) {
            throw new CniRuntimeException("cannot lock attachment " + attachment + ": " + e.getMessage(),
                    new CniError(CniError.IO_FAILURE, "cannot lock attachment", e.getMessage()), e);
        } catch (TimeoutException e) {
            String msg = "attachment " + attachment + " is busy: the call's deadline (" + deadline.budgetMillis()
                    + " ms) passed while waiting for another operation on it";
            throw new CniRuntimeException(msg, new CniError(CniError.TRY_AGAIN_LATER, msg, e.getMessage()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CniRuntimeException("interrupted while waiting for attachment " + attachment,
                    new CniError(CniError.INTERNAL, "interrupted"), e);
        }
    }

    /** libcni's {@code pluginDescription}: {@code type="bridge"}, plus {@code name="x"} if the plugin has one. */
    static String describe(PluginConfig plugin) {
        String out = "type=" + GoText.quote(plugin.type().getBytes(StandardCharsets.UTF_8));
        return plugin.name().isEmpty() ? out
                : out + " name=" + GoText.quote(plugin.name().getBytes(StandardCharsets.UTF_8));
    }

    /** A failure of the runtime's side (names, cache) that concerns no plugin, with the error as it is. */
    private static CniRuntimeException runtimeSide(CniException e) {
        return new CniRuntimeException(e.getMessage(), e.error(), e);
    }

    /**
     * A plugin call's failure as the caller gets it. When the calling thread is interrupted (the call was cancelled)
     * and nothing in the failure says so yet (an in-process plugin that stopped at the interrupt reports its own
     * error), an {@link InterruptedException} is put in the cause chain, so that {@link
     * CniRuntimeException#interrupted()} tells.
     */
    private static CniRuntimeException failed(String prefix, String type, PluginFailure e) {
        Throwable cause = e;
        if (Thread.currentThread().isInterrupted() && !causedBy(e, InterruptedException.class)) {
            InterruptedException interrupted = new InterruptedException("the calling thread was interrupted");
            interrupted.initCause(e);
            cause = interrupted;
        }
        return new CniRuntimeException(prefix + e.getMessage(), e.error(), e.fromPlugin(), type, e.stderrText(),
                cause);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        int depth = 0;
        for (Throwable t = e; t != null && depth < 16; t = t.getCause(), depth++) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static CniRuntimeException failed(String prefix, String type, CniException e) {
        return new CniRuntimeException(prefix + e.getMessage(), e.error(), false, type, "", e);
    }

    /**
     * Reports collected failures together, as libcni's {@code errors.Join}: the message lists each on its own line;
     * the first is the cause and gives the error code, all are suppressed exceptions for inspection.
     */
    private static void throwAll(List<CniRuntimeException> errors) throws CniRuntimeException {
        if (errors.isEmpty()) {
            return;
        }
        if (errors.size() == 1) {
            throw errors.getFirst();
        }
        StringBuilder message = new StringBuilder();
        for (CniRuntimeException e : errors) {
            if (!message.isEmpty()) {
                message.append('\n');
            }
            message.append(e.getMessage());
        }
        CniRuntimeException first = errors.getFirst();
        CniRuntimeException all = new CniRuntimeException(message.toString(), first.error(), first.fromPlugin(),
                first.pluginType(), first.stderr(), first);
        for (CniRuntimeException e : errors) {
            all.addSuppressed(e);
        }
        throw all;
    }
}
