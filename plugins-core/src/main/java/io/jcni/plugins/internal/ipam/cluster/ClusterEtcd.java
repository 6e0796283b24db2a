package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.CallStart;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The store's side of etcd for one call: transactions whose failures are already {@link IpamException}s, the
 * compare-and-swap commit that tells a lost race from a failure, the lease of this call, and the backoff between
 * retries. Not thread-safe (one per call, as its {@link EtcdClient} is).
 */
final class ClusterEtcd implements AutoCloseable {
    private final EtcdClient etcd;
    private final SplittableRandom random;
    /** A lease granted during this call, reused by its retries (0: none). */
    private long grantedLease;
    /** Requests sent to etcd by this call (its cost in round trips; read by tests). */
    private int requests;
    /**
     * When the plugin call began ({@link System#nanoTime()}; {@link CallStart}): for an IPAM delegate run
     * in-process, the call of the plugin that delegated to it.
     */
    private final long callStarted;
    /**
     * The node's shared quorum read ({@link #quorum}), told of this call's other requests too: each answered one
     * proves a quorum as a quorum read sent when it was sent would (every one of them is a linearizable read or a
     * write that raft committed), and one that got no answer drops that proof.
     */
    private final QuorumRead shared;

    ClusterEtcd(EtcdClient etcd, SplittableRandom random, QuorumRead shared) {
        this.etcd = etcd;
        this.random = random;
        this.shared = shared;
        this.callStarted = CallStart.started();
    }

    /** One transaction, its answer or silence told to {@link #shared}. */
    private TxnResult txn(Txn txn, boolean orSlow) throws EtcdException {
        long sent = System.nanoTime();
        try {
            TxnResult result = orSlow ? etcd.txnOrSlow(txn) : etcd.txn(txn);
            shared.answered(sent);
            return result;
        } catch (EtcdException e) {
            if (e.kind() == EtcdException.Kind.UNAVAILABLE || e.kind() == EtcdException.Kind.SLOW) {
                shared.unanswered();
            }
            throw e;
        }
    }

    /** Runs a transaction whose outcome the caller reads (a read, or a write whose compares cannot fail). */
    TxnResult call(Txn txn) throws IpamException {
        requests++;
        try {
            return txn(txn, false);
        } catch (EtcdException e) {
            throw failure(e);
        }
    }

    /** The keys of one range read: {@code [from, end)}, or the key {@code from} alone when {@code end} is null. */
    List<Kv> range(String from, String end, boolean keysOnly) throws IpamException {
        return call(new Txn().range(from, end, keysOnly, 0)).range(0);
    }

    /**
     * Returns once a linearizable read sent after this call began (or within {@link QuorumRead}'s grace before) was
     * answered: this call's own read of {@code key} (keys only), or another request of this JVM's calls of the node
     * that proves as much ({@link #shared}), sent for both or before this call asked. Throws what this call's own
     * read would have thrown.
     */
    void quorum(String key) throws IpamException {
        Txn read = new Txn().range(key, null, true, 0);
        try {
            shared.await(new QuorumRead.Caller() {
                @Override
                public void read() throws EtcdException {
                    requests++;
                    etcd.txn(read);
                }

                @Override
                public long deadline() {
                    return etcd.deadline();
                }

                @Override
                public long started() {
                    return callStarted;
                }

                @Override
                public EtcdException timedOut(String why) {
                    return etcd.timedOut(why);
                }
            });
        } catch (EtcdException e) {
            throw failure(e);
        }
    }

    /** The call's deadline ({@link System#nanoTime()}). */
    long deadline() {
        return etcd.deadline();
    }

    /** The configuration of this call's client. */
    EtcdConfig config() {
        return etcd.config();
    }

    /** The keys under {@code prefix}. */
    List<Kv> prefix(String prefix, boolean keysOnly) throws IpamException {
        return range(prefix, EtcdClient.prefixEnd(prefix), keysOnly);
    }

    /**
     * Runs a write; false if a compare failed (another call won the race). A lease that expired in between counts as
     * a lost race: it is granted again on the retry.
     */
    boolean commit(Txn write) throws IpamException {
        requests++;
        try {
            return txn(write, false).succeeded;
        } catch (EtcdException e) {
            if (e.kind() == EtcdException.Kind.LEASE_NOT_FOUND) {
                grantedLease = 0;
                return false;
            }
            throw failure(e);
        }
    }

    /**
     * Runs a write whose failure branch reads what a retry needs: its outcome, or null if it failed on a lease that
     * expired in between (a lost race, as for {@link #commit}) or, when {@code unread} (nothing was read before it),
     * if its first attempt did not answer quickly ({@link EtcdClient#txnOrSlow}): the caller reads, which waits out
     * an election, before it writes again.
     */
    TxnResult attempt(Txn write, boolean unread) throws IpamException {
        requests++;
        try {
            return txn(write, unread);
        } catch (EtcdException e) {
            if (e.kind() == EtcdException.Kind.LEASE_NOT_FOUND) {
                grantedLease = 0;
                return null;
            }
            if (e.kind() == EtcdException.Kind.SLOW) {
                return null;
            }
            throw failure(e);
        }
    }

    /** This call's lease of {@code ttlSeconds}, granted on first use. */
    long lease(long ttlSeconds) throws IpamException {
        if (grantedLease == 0) {
            requests++;
            try {
                grantedLease = etcd.grantLease(ttlSeconds);
            } catch (EtcdException e) {
                throw failure(e);
            }
        }
        return grantedLease;
    }

    /** The requests this call sent to etcd so far (its round trips, authentication aside). */
    int requests() {
        return requests;
    }

    /** A short random sleep after the {@code attempt}th lost race, growing with the attempts. */
    void backoff(int attempt) {
        long micros = random.nextLong(200L + 100L * Math.min(attempt, 50));
        try {
            Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static IpamException failure(EtcdException e) {
        Reason reason = switch (e.kind()) {
            case UNAVAILABLE -> Reason.STORE_UNAVAILABLE;
            case AUTH, CONFIG -> Reason.STORE_REFUSED;
            case CORRUPT -> Reason.STORE_CORRUPT;
            default -> Reason.STORE_FAILURE;
        };
        return new IpamException(reason, "cluster-ipam: " + e.getMessage(), e);
    }

    static IpamException corrupt(String key, String problem) {
        return new IpamException(Reason.STORE_CORRUPT, "cluster-ipam: etcd key " + printable(key) + " " + problem
                + "; nothing was changed (remove or repair the key)");
    }

    static String printable(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 100));
        for (int i = 0; i < s.length() && i < 100; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return s.length() > 100 ? sb + "..." : sb.toString();
    }

    @Override
    public void close() {
        etcd.close();
    }
}
