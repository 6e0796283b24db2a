package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The linearizable read that a warm ADD sends before its write ({@link ClusterStore}), shared by the concurrent ADDs
 * of one node in one JVM. Its answer is not used: it only proves that etcd had a quorum at a moment after the call
 * began, so that the call never sends its write blind to a member without one (such a write can commit after the call
 * answered code 11). Any linearizable read sent after the call began proves that as well as the call's own would;
 * one sent before it does not (it may have been served before the quorum was lost). So a call counts only on a read
 * sent after it asked: with none in flight it sends one itself; with one in flight it joins the next, which one of the
 * calls that joined sends as soon as the one in flight ends, for all of them. A call waits at most for the end of the
 * read in flight and one read, and a node under load sends one read per such round instead of one per call (under 10
 * concurrent ADDs per node the read was half of etcd's requests).
 *
 * <p>What a call gets is what its own read would have given it. The read is sent by one of the calls, with its own
 * {@link EtcdClient} (its deadline, its failover); a {@link NodeView} holds one of these per TLS and credentials
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
        boolean done;
        /** Done, and etcd answered. */
        boolean answered;
        /** Done, and what it failed with; null if it was answered or its sender failed otherwise. */
        EtcdException failure;

        Round(Condition changed) {
            this.changed = changed;
        }
    }

    private final ReentrantLock lock = new ReentrantLock();
    // Guarded by lock. current is the read being sent, or, when not yet sending, one that waits for a call of its own
    // to send it (next is then null); next, the read that starts when current ends.
    private Round current;
    private Round next;

    /**
     * Returns once a linearizable read sent after this call began was answered; throws what the call's own read would
     * have thrown.
     */
    void await(Caller caller) throws EtcdException {
        Round mine;
        lock.lock();
        try {
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
                current.sending = true;
                return current;
            }
            if (!current.sending) {
                // Not sent yet, so sent after this call asked.
                current.sending = true;
                return current;
            }
            // current was sent before this call asked: it proves nothing for it.
            if (next == null) {
                next = new Round(lock.newCondition());
            }
            Round round = next;
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
                    round.sending = true;
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
