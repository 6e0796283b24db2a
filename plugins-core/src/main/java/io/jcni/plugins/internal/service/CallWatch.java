package io.jcni.plugins.internal.service;

import io.jcni.netlink.sys.UnixSocket;

/**
 * One call as the service's watchdog sees it, from the moment its request was read until it ended: the thread running
 * its code now (the call thread, or a namespace worker while the plugin runs in the client's network namespace), its
 * deadline, whether it was cancelled and why, and whether it was written off as hung.
 *
 * <p>Cancelling interrupts the thread running the call, once, and the thread that the call moves to next (so a call
 * cancelled while it waits for a lock still stops when the plugin starts). Every thread clears what this watch did to
 * it when it leaves the call ({@link #leave}), so a pooled thread never carries a call's interrupt into the next one.
 * Monitor: this object; the watchdog also peeks at the connection under it, so the connection is not closed under the
 * peek ({@link #end} comes first).
 */
final class CallWatch {
    final UnixSocket conn;
    final String what;
    final long started = System.nanoTime();
    final long deadline;
    private Thread thread;
    private Thread interrupted;
    private String cancelled;
    private long cancelledAt;
    private boolean interruptedAgain;
    private boolean hung;
    private boolean threadAdded;
    private boolean ended;
    private NetworkGates.Pass pass;

    CallWatch(UnixSocket conn, String what, long deadline) {
        this.conn = conn;
        this.what = what;
        this.deadline = deadline;
    }

    /** The current thread runs the call's code from now on; returns the thread that did before (for {@link #leave}). */
    synchronized Thread enter() {
        Thread previous = thread;
        thread = Thread.currentThread();
        if (cancelled != null && !ended) {
            interrupt();
        }
        return previous;
    }

    /** The current thread stops running the call's code; {@code previous} (from {@link #enter}) takes over again. */
    synchronized void leave(Thread previous) {
        if (interrupted == Thread.currentThread()) {
            Thread.interrupted(); // ours, not the thread's owner's
            interrupted = null;
        }
        thread = previous;
    }

    /** Cancels the call (once): interrupts the thread running it. False if it was cancelled or ended already. */
    synchronized boolean cancel(String why) {
        if (cancelled != null || ended) {
            return false;
        }
        cancelled = why;
        cancelledAt = System.nanoTime();
        if (thread != null) {
            interrupt();
        }
        return true;
    }

    private void interrupt() {
        if (!thread.isInterrupted()) {
            interrupted = thread;
            thread.interrupt();
        }
    }

    /**
     * Interrupts the call a second time (once): what its cancellation started (the plugin's rollback, which runs with
     * the first interrupt cleared) has had as long as the call itself had, and is stopped at its next interruptible
     * point too (a delegate's DEL that hangs as its ADD did). True if it did.
     */
    synchronized boolean interruptAgain() {
        if (interruptedAgain || ended || cancelled == null) {
            return false;
        }
        interruptedAgain = true;
        if (thread != null) {
            interrupt();
        }
        return true;
    }

    /** Why it was cancelled, or null. */
    synchronized String cancelled() {
        return cancelled;
    }

    /** Whether the client has gone (checked under the monitor, so not after {@link #end}). */
    synchronized boolean clientGone() {
        return !ended && conn.peerClosed();
    }

    /** Nanoseconds since the cancellation, or -1 if it was not cancelled. */
    synchronized long sinceCancelled(long now) {
        return cancelled == null ? -1 : now - cancelledAt;
    }

    /** The call took its network's gate; a call written off as hung gives it back from the watchdog. */
    synchronized void passed(NetworkGates.Pass p) {
        pass = p;
    }

    /**
     * Writes the call off as hung (once, and not once it ended): its network pass is given back. True if this made it
     * hung; the caller then counts it and adds a call thread in its place.
     */
    synchronized boolean writeOff() {
        if (hung || ended) {
            return false;
        }
        hung = true;
        if (pass != null) {
            pass.close();
        }
        return true;
    }

    /** A call thread was added in the place of this hung call (under this monitor, right after {@link #writeOff}). */
    synchronized void threadAdded() {
        threadAdded = true;
    }

    /** How the call ended. */
    enum Ending {
        NORMALLY, HUNG, HUNG_REPLACED
    }

    /** The call is over (on its own thread): nothing cancels it any more. */
    synchronized Ending end() {
        ended = true;
        return !hung ? Ending.NORMALLY : threadAdded ? Ending.HUNG_REPLACED : Ending.HUNG;
    }

    /** The thread running the call now, for the log of a hung call (its stack says where it hangs). */
    synchronized Thread thread() {
        return thread;
    }
}
