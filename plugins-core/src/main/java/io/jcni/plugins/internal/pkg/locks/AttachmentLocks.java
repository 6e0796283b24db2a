package io.jcni.plugins.internal.pkg.locks;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * One lock per attachment, in memory: calls on the same attachment run one at a time, calls on different attachments
 * never wait for each other. An entry exists while a call holds or waits for its attachment's lock, so memory is
 * bounded by the attachments in use at the moment and a call that hangs holds up its own attachment and nothing else.
 * Used by the plugin service (ADD, CHECK, DEL of one {@code CNI_CONTAINERID}/{@code CNI_IFNAME}) and by the dhcp daemon
 * (ADD, DEL, CHECK and a lease's maintenance of one attachment).
 *
 * <p>Three ways to take a lock: {@link #tryAcquire} (now or not at all; a waiter goes first), {@link #acquire} (until
 * a deadline, ending on an interrupt: a service call whose client went away) and {@link #lock} (as long as it takes,
 * not ending on an interrupt: a DEL must not give up on it; the interrupt status is set again afterwards). Not
 * reentrant: a holder that asks again for its own attachment waits for itself. A lock is released by
 * {@link Held#close()} only (idempotent).
 *
 * <p>The runtime's {@code io.jcni.runtime.internal.cache.AttachmentLocks} is another thing: a lock across processes
 * (file locks on hashed buckets), which a runtime needs and a plugin host does not.
 */
public final class AttachmentLocks {
    /** Holders and waiters per key. Monitor: the map. */
    private final Map<String, Entry> entries = new HashMap<>();

    private static final class Entry {
        boolean held;
        int waiting;
    }

    /** The key of an attachment. */
    public static String key(String containerId, String ifName) {
        return containerId + "\0" + ifName;
    }

    /** One attachment's lock, held. */
    public final class Held implements AutoCloseable {
        private final String key;
        private boolean released;

        private Held(String key) {
            this.key = key;
        }

        /** Releases the lock (idempotent); the next waiter of this attachment, if any, takes it. */
        @Override
        public void close() {
            synchronized (entries) {
                if (released) {
                    return;
                }
                released = true;
                Entry e = entries.get(key);
                e.held = false;
                if (e.waiting == 0) {
                    entries.remove(key);
                } else {
                    entries.notifyAll();
                }
            }
        }
    }

    /** Takes the lock of an attachment if it is free and nobody waits for it; null otherwise. */
    public Held tryAcquire(String containerId, String ifName) {
        String key = key(containerId, ifName);
        synchronized (entries) {
            Entry e = entries.get(key);
            if (e == null) {
                e = new Entry();
                entries.put(key, e);
            } else if (e.held || e.waiting > 0) {
                return null;
            }
            e.held = true;
            return new Held(key);
        }
    }

    /**
     * Takes the lock of an attachment, waiting until {@code deadline} ({@link System#nanoTime()}) at most.
     *
     * @throws TimeoutException     another call held it until the deadline
     * @throws InterruptedException the calling thread was interrupted while waiting (it holds nothing)
     */
    public Held acquire(String containerId, String ifName, long deadline)
            throws TimeoutException, InterruptedException {
        String key = key(containerId, ifName);
        synchronized (entries) {
            Entry e = enter(key);
            boolean got = false;
            try {
                while (e.held) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new TimeoutException("another call on attachment " + containerId + "/" + ifName
                                + " is still running");
                    }
                    entries.wait(Math.max(1, left / 1_000_000));
                }
                got = true;
            } finally {
                leave(key, e, got);
            }
            return new Held(key);
        }
    }

    /** Waits for the lock of {@code key} as long as it takes; an interrupt does not end the wait. */
    public Held lock(String key) {
        boolean interrupted = false;
        try {
            synchronized (entries) {
                Entry e = enter(key);
                while (e.held) {
                    try {
                        entries.wait();
                    } catch (InterruptedException ie) {
                        interrupted = true;
                    }
                }
                leave(key, e, true);
                return new Held(key);
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Registers a waiter for {@code key} (under the monitor). */
    private Entry enter(String key) {
        Entry e = entries.get(key);
        if (e == null) {
            e = new Entry();
            entries.put(key, e);
        }
        e.waiting++;
        return e;
    }

    /** Ends a wait (under the monitor): the lock taken, or given up and the entry dropped or passed on. */
    private void leave(String key, Entry e, boolean got) {
        e.waiting--;
        if (got) {
            e.held = true;
        } else if (!e.held && e.waiting == 0) {
            entries.remove(key);
        } else {
            entries.notifyAll(); // a release we may have taken as our wake-up goes to the next
        }
    }

    /** Whether a call holds or waits for this attachment's lock (for tests). */
    public boolean busy(String containerId, String ifName) {
        synchronized (entries) {
            return entries.containsKey(key(containerId, ifName));
        }
    }

    /** Keys with a holder or waiter (for tests: none once every call is done). */
    public int inUse() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
