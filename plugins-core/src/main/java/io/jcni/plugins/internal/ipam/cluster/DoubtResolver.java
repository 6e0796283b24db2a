package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Undoes the {@link Doubt}s of this JVM: synchronously, at the start of any later call of the same attachment (the
 * store calls {@link #undo}), and in the background, on one daemon thread that runs while any doubt is outstanding and
 * retries with a growing pause (0.1 s to 2 s) until etcd answers.
 *
 * <p><b>The undo.</b> Two transactions. First the <em>fence</em>: the network registry key ({@code <prefix>/networks})
 * is written again with the value it holds, if it still holds it (compared by mod revision; absent, it is written as
 * {@code {}}, the empty registry). Every ADD write compares the registry's mod revision as it read it, so once the
 * fence is committed a doubtful write that was not applied before it can never be applied: its compare fails. This
 * does not rely on where the doubtful proposal is (the log of a member without quorum, a forwarded proposal in a
 * socket buffer of a stopped leader): raft orders it before or after the fence, and after it it fails. Then, for each
 * doubt, the <em>removal</em>: its address keys and its owner key are deleted (or the owner put back as it was) only if
 * they still hold exactly the values its write would have put, in one transaction. The write was either applied
 * before the fence (then its keys are removed here, unless a DEL already did) or never will be; a doubt is resolved
 * once its removal is answered, whether it removed anything or not.
 *
 * <p>A call of the same attachment and an undo never run at the same time ({@link NodeView#enter}): a repeated ADD is
 * never handed an address its undo then deletes. The fence costs every view of the prefix, in every JVM, one
 * transaction whose compare fails (it then reads), once per undo; undos happen only after etcd failed to answer.
 *
 * <p><b>Process-wide state, on purpose</b>: the views with doubts, and the thread (at most one, a daemon). A JVM that
 * dies with doubts outstanding loses them: a doubtful write that commits later leaves an owner key, which the
 * runtime's DEL of the failed ADD, or a CNI GC without the attachment, releases (as for an exec'd plugin).
 */
final class DoubtResolver implements Runnable {
    private static final Object LOCK = new Object();
    /** Views with doubts outstanding. Guarded by LOCK. */
    private static final Set<NodeView> PENDING = new LinkedHashSet<>();
    /** The resolver thread, null when none runs. Guarded by LOCK. */
    private static Thread thread;

    /** The pause between rounds, first and longest. */
    static final long FIRST_PAUSE_MILLIS = 100;
    static final long MAX_PAUSE_MILLIS = 2000;

    private DoubtResolver() {
    }

    /** {@code view} has a new doubt: the resolver thread runs until it is resolved. */
    static void schedule(NodeView view) {
        synchronized (LOCK) {
            PENDING.add(view);
            if (thread == null) {
                thread = new Thread(new DoubtResolver(), "cluster-ipam-undo");
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    @Override
    public void run() {
        long pause = FIRST_PAUSE_MILLIS;
        while (true) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                // A daemon: nobody interrupts it but the JVM's end. Go on.
            }
            List<NodeView> views;
            synchronized (LOCK) {
                views = new ArrayList<>(PENDING);
            }
            boolean failed = false;
            for (NodeView view : views) {
                failed |= !resolveSome(view);
            }
            synchronized (LOCK) {
                for (NodeView view : views) {
                    if (!view.hasDoubts()) {
                        PENDING.remove(view);
                    }
                }
                if (PENDING.isEmpty()) {
                    thread = null;
                    return;
                }
            }
            pause = failed ? Math.min(MAX_PAUSE_MILLIS, pause * 2) : FIRST_PAUSE_MILLIS;
        }
    }

    /** Undoes the doubts of {@code view} whose attachment has no call running; false if etcd did not answer. */
    private static boolean resolveSome(NodeView view) {
        for (String ownerKey : view.doubted()) {
            if (!view.tryEnter(ownerKey)) {
                continue; // a call of the attachment runs: it undoes them itself first
            }
            try {
                List<Doubt> doubts = view.doubts(ownerKey);
                if (doubts.isEmpty()) {
                    continue;
                }
                // One attempt's budget ({@code dialTimeoutSeconds}, at least 1 s), not a call's: a call of the
                // attachment that comes meanwhile waits for it, and the next round tries again.
                EtcdConfig config = doubts.getFirst().config;
                long budget = Math.max(1, config.dialTimeoutSeconds()) * 1_000_000_000L;
                EtcdClient client = new EtcdClient(config, System.nanoTime() + budget);
                try (ClusterEtcd etcd = new ClusterEtcd(client, new SplittableRandom())) {
                    undo(etcd, view, ownerKey, doubts);
                }
            } catch (IpamException | RuntimeException e) {
                // Not answered, refused, or a bug: the doubts stay, and the next round tries again. The thread
                // never dies with doubts outstanding.
                return false;
            } finally {
                view.exit(ownerKey);
            }
        }
        return true;
    }

    /**
     * Undoes {@code doubts}, the doubts of the attachment {@code ownerKey}: the fence, then each removal. The caller
     * runs the attachment ({@link NodeView#enter}). Throws if etcd did not answer (they stay in doubt, those that were
     * resolved aside).
     */
    static void undo(ClusterEtcd etcd, NodeView view, String ownerKey, List<Doubt> doubts) throws IpamException {
        if (doubts.isEmpty()) {
            return;
        }
        fence(etcd, doubts.getFirst());
        List<Doubt> done = new ArrayList<>(doubts.size());
        try {
            for (Doubt d : doubts) {
                if (!d.fenceOnly) {
                    remove(etcd, view, d);
                }
                done.add(d);
            }
        } finally {
            view.resolved(ownerKey, done);
        }
        // The fence changed the registry's revision: the next ADD reads rather than fail a compare.
        view.forget();
    }

    /** Writes the registry key again as it is, so that no ADD write sent before can be applied after. */
    private static void fence(ClusterEtcd etcd, Doubt d) throws IpamException {
        Kv registry = d.registry;
        for (int attempt = 0; attempt < ClusterStore.MAX_ATTEMPTS; attempt++) {
            byte[] value = registry == null ? "{}".getBytes(StandardCharsets.UTF_8) : registry.value;
            Txn txn = new Txn().modRevision(d.registryKey, AllocationRead.revisionOf(registry))
                    .put(d.registryKey, value, 0).rangeOnFailure(d.registryKey, null, false, 0);
            TxnResult result = etcd.call(txn);
            if (result.succeeded) {
                return;
            }
            List<Kv> now = result.range(0);
            registry = now.isEmpty() ? null : now.getFirst();
            etcd.backoff(attempt);
        }
        throw new IpamException(Reason.STORE_UNAVAILABLE, "cluster-ipam: the registry " + d.registryKey
                + " changed under every attempt to fence a write in doubt; try again");
    }

    /** Removes what the doubtful write left, if it is still exactly that. */
    private static void remove(ClusterEtcd etcd, NodeView view, Doubt d) throws IpamException {
        Txn txn = new Txn().value(d.ownerKey, d.ownerValue);
        for (String key : d.ipKeys) {
            txn.value(key, d.holder);
        }
        for (String key : d.ipKeys) {
            txn.delete(key);
        }
        if (d.previousOwner == null) {
            txn.delete(d.ownerKey);
        } else {
            txn.put(d.ownerKey, d.previousOwner, 0);
        }
        if (etcd.call(txn).succeeded) {
            view.released(d.ips);
        }
    }
}
