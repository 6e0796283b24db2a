package io.jcni.runtime.internal;

import io.jcni.runtime.CachedAttachment;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.runtime.StaleOptions;
import io.jcni.runtime.StaleReport;
import io.jcni.runtime.StaleReport.Action;
import io.jcni.runtime.StaleReport.Entry;
import io.jcni.runtime.StaleReport.GcAction;
import io.jcni.runtime.StaleReport.NetworkGc;
import io.jcni.runtime.StaleReport.Source;
import io.jcni.runtime.internal.cache.AddJournal;
import io.jcni.runtime.internal.cache.AttachmentLocks;
import io.jcni.runtime.internal.cache.CollectionGates;
import io.jcni.runtime.internal.cache.ResultCache;
import io.jcni.runtime.internal.exec.Deadline;
import io.jcni.runtime.internal.stale.HostLinks;
import io.jcni.runtime.internal.stale.InFlightCalls;
import io.jcni.runtime.internal.stale.Namespaces;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import io.jcni.spec.NetworkConfigList;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * One run of {@link io.jcni.runtime.CniRuntime#gcStale}: judge, remove, collect (the rules are in that method's
 * comment and the README's "Leaks, and how jcni prevents them"). Single use, single thread.
 */
final class StaleCollector {
    /**
     * How long a collection waits, between its first look at the plugin processes and its listing of the cache, for
     * an ADD it may have caught between its last plugin and its cache write (a few milliseconds in Go's libcni).
     */
    private static final long SETTLE_MILLIS = 100;
    /** How long a collection waits for a network's ADDs in flight before it skips that network's GC. */
    private static final long GATE_WAIT_NANOS = 30_000_000_000L;

    private final RuntimeImpl runtime;
    private final List<NetworkConfigList> networks;
    private final StaleOptions options;
    private final Map<String, NetworkConfigList> byName = new LinkedHashMap<>();
    private final Namespaces namespaces = Namespaces.probe();
    private final HostLinks links = HostLinks.read();
    private final List<Entry> entries = new ArrayList<>();
    /** Host interfaces that several cached attachments record (a bridge): no attachment's own host end. */
    private final Set<String> sharedHostInterfaces = new java.util.HashSet<>();

    StaleCollector(RuntimeImpl runtime, List<NetworkConfigList> networks, StaleOptions options) {
        this.runtime = runtime;
        this.networks = List.copyOf(networks);
        this.options = options;
        for (NetworkConfigList list : networks) {
            byName.putIfAbsent(list.name(), list);
        }
    }

    StaleReport run() throws CniRuntimeException {
        Set<GcAttachment> inFlight = new LinkedHashSet<>(InFlightCalls.sample());
        List<ResultCache.Listed> cached = listCache();
        Set<String> seen = new java.util.HashSet<>();
        for (ResultCache.Listed listed : cached) {
            for (String name : HostLinks.hostInterfaces(listed.result())) {
                if (!seen.add(name)) {
                    sharedHostInterfaces.add(name);
                }
            }
        }
        for (ResultCache.Listed listed : cached) {
            if (inScope(listed.attachment().network())) {
                judgeCached(listed);
            }
        }
        for (AddJournal.Entry unfinished : listJournals()) {
            if (inScope(unfinished.network())) {
                judgeJournal(unfinished);
            }
        }
        List<NetworkGc> collections = new ArrayList<>();
        for (NetworkConfigList list : byName.values()) {
            collections.add(collect(list, inFlight));
        }
        return new StaleReport(options.dryRun(), entries, collections);
    }

    private boolean inScope(String network) {
        return options.everyCachedNetwork() || byName.containsKey(network);
    }

    // ------------------------------------------------------------------------------------------ cached attachments

    private void judgeCached(ResultCache.Listed listed) {
        CachedAttachment attachment = listed.attachment();
        RuntimeConf rt = attachment.runtimeConf();
        Namespaces.Verdict verdict = judge(rt.netns(), listed.result());
        if (verdict.state() != Namespaces.State.GONE) {
            entries.add(entry(Source.CACHE, attachment.network(), rt, Action.KEPT, verdict.reason(), null));
            return;
        }
        if (options.dryRun()) {
            entries.add(entry(Source.CACHE, attachment.network(), rt, Action.WOULD_REMOVE, verdict.reason(), null));
            return;
        }
        Optional<AttachmentLocks.Held> lock = tryLock(rt);
        if (lock.isEmpty()) {
            entries.add(entry(Source.CACHE, attachment.network(), rt, Action.KEPT,
                    "busy: another operation on it is in progress", null));
            return;
        }
        try (AttachmentLocks.Held _ = lock.get()) {
            if (!stillCached(attachment)) {
                return; // deleted meanwhile by its runtime: nothing of ours to report
            }
            Net net;
            try {
                net = cachedNetwork(attachment);
            } catch (CniRuntimeException e) {
                entries.add(entry(Source.CACHE, attachment.network(), rt, Action.FAILED, e.getMessage(), e));
                return;
            }
            try {
                runtime.delStale(net, rt.withNetns(""), runtime.step());
                entries.add(entry(Source.CACHE, attachment.network(), rt, Action.REMOVED, verdict.reason(), null));
            } catch (CniRuntimeException e) {
                entries.add(entry(Source.CACHE, attachment.network(), rt, Action.FAILED,
                        verdict.reason() + "; DEL failed: " + e.getMessage(), e));
            }
        }
    }

    /**
     * The configuration the attachment was added with; if that cannot be read, the network's current configuration
     * of the same name, when it was given.
     */
    private Net cachedNetwork(CachedAttachment attachment) throws CniRuntimeException {
        try {
            return Net.decode(attachment.config()).named(attachment.network());
        } catch (CniException e) {
            NetworkConfigList current = byName.get(attachment.network());
            if (current != null) {
                return Net.of(current);
            }
            throw new CniRuntimeException("its cached configuration does not decode (" + e.getMessage()
                    + ") and network \"" + attachment.network() + "\" is not configured any more", e.error(), e);
        }
    }

    private boolean stillCached(CachedAttachment attachment) {
        try {
            return runtime.cache().exists(attachment.network(), attachment.runtimeConf());
        } catch (CniException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------------------------------ failed ADDs

    private void judgeJournal(AddJournal.Entry listed) {
        RuntimeConf rt = listed.runtimeConf();
        Optional<AttachmentLocks.Held> lock = options.dryRun() ? Optional.empty() : tryLock(rt);
        if (!options.dryRun() && lock.isEmpty()) {
            entries.add(entry(Source.JOURNAL, listed.network(), rt, Action.KEPT,
                    "busy: its ADD (or another operation on it) is in progress", null));
            return;
        }
        try (AttachmentLocks.Held _ = lock.orElse(null)) {
            AddJournal.Entry unfinished = options.dryRun() ? listed : reread(listed);
            if (unfinished == null) {
                return; // its ADD finished meanwhile
            }
            if (cachedNow(unfinished)) {
                // The ADD completed and cached its result; only the journal's removal was cut short.
                if (!options.dryRun()) {
                    deleteQuietly(unfinished);
                }
                return;
            }
            String reason;
            if (unfinished.leftForCaller()) {
                Namespaces.Verdict verdict = judge(rt.netns(), unfinished.lastResult());
                if (verdict.state() != Namespaces.State.GONE) {
                    entries.add(entry(Source.JOURNAL, unfinished.network(), rt, Action.KEPT,
                            "left for its caller's DEL (no rollback), " + verdict.reason(), null));
                    return;
                }
                reason = "left for its caller's DEL (no rollback), " + verdict.reason();
            } else {
                reason = "its rollback did not finish (" + unfinished.toDelete().size() + " DEL"
                        + (unfinished.toDelete().size() == 1 ? "" : "s") + " owed)";
            }
            if (options.dryRun()) {
                entries.add(entry(Source.JOURNAL, unfinished.network(), rt, Action.WOULD_REMOVE, reason, null));
                return;
            }
            try {
                runtime.finishRollback(unfinished, namespaces, runtime.step());
                entries.add(entry(Source.JOURNAL, unfinished.network(), rt, Action.REMOVED, reason, null));
            } catch (CniRuntimeException e) {
                entries.add(entry(Source.JOURNAL, unfinished.network(), rt, Action.FAILED,
                        reason + "; " + e.getMessage(), e));
            }
        }
    }

    private AddJournal.Entry reread(AddJournal.Entry listed) {
        RuntimeConf rt = listed.runtimeConf();
        try {
            return runtime.journal().read(listed.network(), rt.containerId(), rt.ifName()).orElse(null);
        } catch (CniException e) {
            return null;
        }
    }

    private boolean cachedNow(AddJournal.Entry unfinished) {
        try {
            return runtime.cache().exists(unfinished.network(), unfinished.runtimeConf());
        } catch (CniException e) {
            return false;
        }
    }

    private void deleteQuietly(AddJournal.Entry unfinished) {
        RuntimeConf rt = unfinished.runtimeConf();
        try {
            runtime.journal().delete(unfinished.network(), rt.containerId(), rt.ifName());
        } catch (IOException e) {
            // Tried again at the next run.
        }
    }

    // ------------------------------------------------------------------------------------------ the plugins' GC

    /**
     * A network's GC, its valid attachments listed while its gate is held (no jcni ADD of the network in flight):
     * every attachment still in the cache or in a journal (what was kept, what failed, what was added meanwhile), and
     * every attachment a plugin process is adding or checking, sampled at the start, before the listing and after a
     * pause.
     */
    private NetworkGc collect(NetworkConfigList list, Set<GcAttachment> inFlight) {
        if (list.disableGC()) {
            return new NetworkGc(list.name(), GcAction.SKIPPED, List.of(), "disableGC is set", null);
        }
        if (!list.cniVersion().supportsGcAndStatus()) {
            return new NetworkGc(list.name(), GcAction.SKIPPED, List.of(), "version " + list.cniVersion()
                    + " has no GC (1.1.0 and later)", null);
        }
        if (options.dryRun()) {
            return new NetworkGc(list.name(), GcAction.WOULD_COLLECT, valid(list.name(), inFlight), "", null);
        }
        CollectionGates.Held gate;
        try {
            gate = runtime.gates().enterCollection(list.name(), GATE_WAIT_NANOS);
        } catch (IOException | TimeoutException e) {
            return new NetworkGc(list.name(), GcAction.SKIPPED, List.of(), "its gate was not free: "
                    + e.getMessage(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new NetworkGc(list.name(), GcAction.SKIPPED, List.of(), "interrupted", null);
        }
        try (CollectionGates.Held _ = gate) {
            Set<GcAttachment> calls = new LinkedHashSet<>(inFlight);
            calls.addAll(InFlightCalls.sample());
            pause();
            calls.addAll(InFlightCalls.sample());
            List<GcAttachment> valid = valid(list.name(), calls);
            try {
                Deadline deadline = runtime.step();
                runtime.collect(Net.of(list), valid, deadline);
                return new NetworkGc(list.name(), GcAction.COLLECTED, valid, "", null);
            } catch (CniRuntimeException e) {
                return new NetworkGc(list.name(), GcAction.FAILED, valid, e.getMessage(), e);
            }
        }
    }

    /** What a network's GC must spare: its cached attachments and journals as they are now, and the calls in flight. */
    private List<GcAttachment> valid(String network, Set<GcAttachment> inFlight) {
        Set<GcAttachment> valid = new LinkedHashSet<>();
        try {
            for (ResultCache.Listed listed : runtime.cache().listed()) {
                if (listed.attachment().network().equals(network)) {
                    valid.add(listed.attachment().runtimeConf().attachment());
                }
            }
            for (AddJournal.Entry unfinished : runtime.journal().entries()) {
                if (unfinished.network().equals(network)) {
                    valid.add(unfinished.runtimeConf().attachment());
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("the cache could be listed a moment ago: " + e.getMessage(), e);
        }
        if (options.dryRun()) {
            // What this run would have removed is not valid any more by then.
            for (Entry entry : entries) {
                if (entry.network().equals(network) && entry.action() == Action.WOULD_REMOVE) {
                    valid.remove(entry.attachment());
                }
            }
        }
        valid.addAll(inFlight);
        return List.copyOf(valid);
    }

    private static void pause() {
        try {
            Thread.sleep(SETTLE_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------------ judging

    /**
     * The attachment's namespace, from every path it recorded: the cache's {@code netns} and the {@code sandbox} of
     * its result's interfaces. Live if one is live, gone only if all are gone (and none is recorded: cannot judge);
     * a gone one whose host end survives is not gone after all ({@link HostLinks}).
     */
    private Namespaces.Verdict judge(String netns, JsonObject result) {
        Set<String> paths = new LinkedHashSet<>();
        if (!netns.isEmpty()) {
            paths.add(netns);
        }
        paths.addAll(sandboxes(result));
        if (paths.isEmpty()) {
            return new Namespaces.Verdict(Namespaces.State.UNKNOWN, "no namespace recorded (neither the cache entry"
                    + " nor its result names one)");
        }
        Namespaces.Verdict gone = null;
        Namespaces.Verdict unknown = null;
        for (String path : paths) {
            Namespaces.Verdict verdict = namespaces.judge(path);
            Namespaces.Verdict named = path.equals(netns) ? verdict
                    : new Namespaces.Verdict(verdict.state(), "sandbox " + path + ": " + verdict.reason());
            switch (verdict.state()) {
                case LIVE -> {
                    return named;
                }
                case UNKNOWN -> unknown = unknown == null ? named : unknown;
                case GONE -> gone = gone == null ? named : gone;
            }
        }
        if (unknown != null) {
            return unknown;
        }
        Optional<String> holder = links.liveHostEnd(result, sharedHostInterfaces);
        if (holder.isPresent()) {
            return new Namespaces.Verdict(Namespaces.State.UNKNOWN, gone.reason() + ", but " + holder.get());
        }
        return gone;
    }

    /** The {@code sandbox} paths of a result's interfaces (Go libcni 1.1.2 records the namespace only there). */
    private static List<String> sandboxes(JsonObject result) {
        List<String> paths = new ArrayList<>();
        if (result != null && result.get("interfaces").orElse(Json.NULL) instanceof JsonArray interfaces) {
            for (Json element : interfaces.elements()) {
                if (element instanceof JsonObject link && link.get("sandbox").orElse(Json.NULL) instanceof JsonString s
                        && !s.value().isEmpty() && !paths.contains(s.value())) {
                    paths.add(s.value());
                }
            }
        }
        return paths;
    }

    private Optional<AttachmentLocks.Held> tryLock(RuntimeConf rt) {
        try {
            return runtime.locks().tryAcquire(rt.containerId(), rt.ifName());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Entry entry(Source source, String network, RuntimeConf rt, Action action, String reason,
            CniRuntimeException failure) {
        return new Entry(source, network, rt.containerId(), rt.ifName(), rt.netns(), action, reason, failure);
    }

    private List<ResultCache.Listed> listCache() throws CniRuntimeException {
        try {
            return runtime.cache().listed();
        } catch (IOException e) {
            throw new CniRuntimeException("cannot list cached attachments in " + runtime.cache().resultsDir() + ": "
                    + e.getMessage(), new CniError(CniError.IO_FAILURE, "cannot list cached attachments",
                    e.getMessage()), e);
        }
    }

    private List<AddJournal.Entry> listJournals() throws CniRuntimeException {
        try {
            return runtime.journal().entries();
        } catch (IOException e) {
            throw new CniRuntimeException("cannot list ADD journals in " + runtime.journal().dir() + ": "
                    + e.getMessage(), new CniError(CniError.IO_FAILURE, "cannot list ADD journals", e.getMessage()),
                    e);
        }
    }
}
