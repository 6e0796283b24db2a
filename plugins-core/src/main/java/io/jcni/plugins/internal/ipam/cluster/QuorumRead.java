package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The linearizable read that a warm ADD sends before its write ({@link ClusterStore}), shared by the concurrent ADDs
 * of one node in one JVM. Its answer is not used: it only proves that etcd had a quorum at a moment after the call
 * began, so that a call that begins while etcd has none never sends its write blind to a member without one (such a
 * write can commit after the call answered code 11). Any linearizable read sent after the call began proves that as
 * well as the call's own would; one sent long before it does not (it may have been served before the quorum was
 * lost). "The call" is the plugin call ({@link io.jcni.plugins.internal.CallStart}): for cluster-ipam delegated to
 * in-process by bridge, bridge's call, whose bridge, veth and namespace work comes before its IPAM. The node's other
 * requests prove as much when answered ({@link #answered}): each of them is a linearizable read or a write that raft
 * committed, so etcd had a quorum between its send and its answer. So a call counts on a request sent after it began:
 * one already answered (the latest answered request was sent after the call began: no wait), a read in flight that
 * was sent after it began, or else the next read, which one of the calls that joined sends as soon as the one in
 * flight ends, for all of them (with none in flight, it sends one itself). A call waits at most
 * for the end of the read in flight and one read, and a node under load sends one read per such round instead of one
 * per call (under 10 concurrent ADDs per node the read was half of etcd's requests); in a burst of pods, whose IPAM
 * comes long after their call began, most calls find a request answered since they began and do not wait at all.
 *
 * <p>"After the call began" allows 10 ms of grace ({@link #GRACE_NANOS}): a request sent up to that much before the
 * call began counts too. The proof never said that etcd still had its quorum when the write is sent: it bounds how long
 * before the write the quorum was last seen, and that bound is the time from the call's start to its write. For
 * bridge's in-process IPAM that is the bridge, veth and namespace work, 5 ms to a second under load; the grace adds 10
 * ms to it. For cluster-ipam called by itself, whose write follows its start within a millisecond, the bound becomes
 * about 11 ms instead of 1. What it buys: a node's calls that follow a request of the node's within 10 ms (an ADD right
 * after another call's ADD or DEL, as runtimes send them when pods come and go) send their write alone, one etcd
 * request instead of two.
 *
 * <p>A read that fails (no answer, a refusal), or another request that gets no answer ({@link #unanswered}), drops
 * the proof of what was answered before: until a request sent after that is answered, every call counts on a read in
 * flight or the next one, and gets what its own read would have given it. The read is sent by one of the calls,
 * with its own {@link EtcdClient} (its deadline, its failover); a {@link NodeView} holds one of these per TLS and credentials
 * files, so calls share only with calls that would have sent the same request. etcd's refusal or an answer that
 * cannot be read, and TLS or credentials files that fail, would be the same for every call: each call that counted
 * on the read fails with a copy of that error. {@link Kind#UNAVAILABLE} only says that no endpoint answered before the
 * sender's deadline (or that its thread was interrupted): a call whose own deadline has not passed counts on the next
 * read instead, as its own read would have gone on trying. A call never waits past its own deadline: it then fails as
 * its own read would have ({@link Kind#UNAVAILABLE}, code 11), and a read that nobody is left waiting for is not sent.
 *
 * <p>Thread-safe. The lock is held only to join, leave and end a round, never while a read is sent; a call waits for
 * a read on a condition (no thread is started, nothing spins).
 */
final class QuorumRead {
    /** One call's side of the read. */
    interface Caller {
        /** Sends the read with this call's own client, as an unshared read would be sent. */
        void read() throws EtcdException;

        /** The call's deadline, in {@link System#nanoTime()}. */
        long deadline();

        /** When the call began, in {@link System#nanoTime()}: a read sent since proves a quorum for it. */
        long started();

        /** What the call fails with when its deadline passes while it waits for a read that another call sends. */
        EtcdException timedOut(String why);
    }

    /** One read and the calls waiting for it. */
    private static final class Round {
        final Condition changed;
        /** Calls waiting for it that do not send it. */
        int waiting;
        /** A call sends it (or sent it). */
        boolean sending;
        /** {@link System#nanoTime()} before it was sent (set with {@link #sending}). */
        long sentAt;
        boolean done;
        /** Done, and etcd answered. */
        boolean answered;
        /** Done, and what it failed with; null if it was answered or its sender failed otherwise. */
        EtcdException failure;

        Round(Condition changed) {
            this.changed = changed;
        }
    }

    /** How long before a call began a request may have been sent and still prove a quorum for it. */
    static final long GRACE_NANOS = 10_000_000L;

    private final long graceNanos;
    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock. current is the read being sent, or, when not yet sending, one that waits for a call of its own
    // to send it (next is then null); next, the read that starts when current ends.
    private Round current;
    private Round next;
    // Guarded by lock: a request was answered (a read of a round, or another request of this node's calls that
    // proves as much: answered), and when the latest of those was sent; when the proof was last dropped.
    private boolean proven;
    private long provenSentAt;
    private boolean dropped;
    private long droppedAt;

    QuorumRead() {
        this(GRACE_NANOS);
    }

    /** With another grace than {@link #GRACE_NANOS} (tests: 0, the rule without grace). */
    QuorumRead(long graceNanos) {
        this.graceNanos = graceNanos;
    }

    /**
     * Returns once a linearizable read sent after this call began (or within the grace before) was answered; throws
     * what the call's own read would have thrown.
     */
    void await(Caller caller) throws EtcdException {
        Round mine;
        lock.lock();
        try {
            if (proven && provesFor(provenSentAt, caller)) {
                return; // answered, and sent after this call began (or within the grace before)
            }
            mine = toSend(caller);
        } finally {
            lock.unlock();
        }
        if (mine == null) {
            return;
        }
        boolean answered = false;
        EtcdException failure = null;
        try {
            caller.read();
            answered = true;
        } catch (EtcdException e) {
            failure = e;
            throw e;
        } finally {
            ended(mine, answered, failure);
        }
    }

    /** Under the lock: the round this call is to send, or null once a round it waited for was answered. */
    private Round toSend(Caller caller) throws EtcdException {
        while (true) {
            if (current == null) {
                current = new Round(lock.newCondition());
                send(current);
                return current;
            }
            if (!current.sending) {
                // Not sent yet, so sent after this call asked.
                send(current);
                return current;
            }
            Round round;
            if (provesFor(current.sentAt, caller)) {
                // Sent after this call began, or within the grace before (by a call that asked while this one did
                // other work): it proves as much as this call's own read would.
                round = current;
            } else {
                // Sent before this call began (and its grace): it proves nothing for it.
                if (next == null) {
                    next = new Round(lock.newCondition());
                }
                round = next;
            }
            if (waitFor(round, caller)) {
                return round;
            }
            if (round.answered) {
                return null;
            }
            EtcdException failure = round.failure;
            if (failure != null && (failure.kind() != Kind.UNAVAILABLE || caller.deadline() - System.nanoTime() <= 0)) {
                throw new EtcdException(failure.kind(), failure.getMessage(), failure);
            }
            // No endpoint answered within the sender's time (or it failed otherwise), and this call has time left:
            // the next read, as this call's own read would go on trying.
        }
    }

    /**
     * Under the lock: waits until {@code round} ends (false) or this call is to send it (true). Leaves it when the
     * call's deadline passes or its thread is interrupted.
     */
    private boolean waitFor(Round round, Caller caller) throws EtcdException {
        round.waiting++;
        try {
            while (!round.done) {
                long left = caller.deadline() - System.nanoTime();
                if (left <= 0) {
                    leave(round);
                    throw caller.timedOut("the quorum read shared with this node's other calls was not answered");
                }
                if (round == current && !round.sending) {
                    // The read before it ended: one of those waiting for this one sends it.
                    send(round);
                    round.waiting--;
                    return true;
                }
                round.changed.awaitNanos(left);
            }
            round.waiting--;
            return false;
        } catch (InterruptedException e) {
            leave(round);
            Thread.currentThread().interrupt();
            throw new EtcdException(Kind.UNAVAILABLE, "the call was cancelled while it waited for etcd (a quorum read"
                    + " shared with this node's other calls)");
        }
    }

    /** Whether a request sent at {@code sentAt} proves a quorum for the call: sent after it began, or in the grace. */
    private boolean provesFor(long sentAt, Caller caller) {
        return sentAt - (caller.started() - graceNanos) >= 0;
    }

    /** Under the lock: {@code round} is about to be sent (after the lock is released), so not before now. */
    private static void send(Round round) {
        round.sending = true;
        round.sentAt = System.nanoTime();
    }

    /** Under the lock: a call gives up waiting for {@code round}; a round nobody is left to send is dropped. */
    private void leave(Round round) {
        round.waiting--;
        if (round.waiting > 0 || round.sending) {
            return;
        }
        if (round == next) {
            next = null;
        } else if (round == current) {
            current = null; // next is null while current is not sending
        }
    }

    /** The read of {@code round} ended: its calls are told, and the round that waited for it needs a sender. */
    private void ended(Round round, boolean answered, EtcdException failure) {
        lock.lock();
        try {
            round.done = true;
            round.answered = answered;
            round.failure = failure;
            if (answered) {
                prove(round.sentAt);
            } else {
                drop();
            }
            round.changed.signalAll();
            // round is current: a round is sent only as current, and only ended() moves current on.
            current = next;
            next = null;
            if (current != null) {
                current.changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * A request of this node's calls other than a round's read was answered, one that proves a quorum as a read sent
     * at {@code sentAt} ({@link System#nanoTime()} before it was sent) would: a linearizable read, or a write raft
     * committed. Calls that began before it was sent count on it.
     */
    void answered(long sentAt) {
        lock.lock();
        try {
            prove(sentAt);
        } finally {
            lock.unlock();
        }
    }

    /** A request of this node's calls got no answer: until one sent after now is answered, calls read. */
    void unanswered() {
        lock.lock();
        try {
            drop();
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: what was sent at {@code sentAt} was answered (unless it was sent before the last drop). */
    private void prove(long sentAt) {
        if (dropped && sentAt - droppedAt <= 0) {
            return;
        }
        if (!proven || sentAt - provenSentAt > 0) {
            proven = true;
            provenSentAt = sentAt;
        }
    }

    /** Under the lock: something was not answered; what was answered before proves nothing any more. */
    private void drop() {
        proven = false;
        dropped = true;
        droppedAt = System.nanoTime();
    }

    /** Calls waiting for a read another call sends (tests). */
    int waiting() {
        lock.lock();
        try {
            return (current == null ? 0 : current.waiting) + (next == null ? 0 : next.waiting);
        } finally {
            lock.unlock();
        }
    }
}
