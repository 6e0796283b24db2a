package io.jcni.plugins.internal.service;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Serializes the service's calls on one attachment ({@code CNI_CONTAINERID}, {@code CNI_IFNAME}): ADD, CHECK and DEL
 * of the same attachment never run at once, as the spec asks of a runtime, even when a runtime does not (a DEL sent
 * after an ADD's timeout while the ADD still runs here). Calls on other attachments never wait for each other: the
 * locks are per attachment (an entry exists while a call holds or waits for it), so a call that hangs holds up its own
 * attachment and nothing else.
 *
 * <p>A wait has a deadline ({@link TimeoutException}: the call is answered "try again later") and ends on an interrupt
 * (the call's client went away). A lock is released by its holder's call only, also when that call hung and was
 * written off: the attachment's next call must not run beside one that may still be changing it. In memory only: a
 * call's state is on disk (the plugins'), and a restarted service has no call in progress.
 */
final class AttachmentLocks {
    /** Holders and waiters per attachment key. Monitor: the map. */
    private final Map<String, Entry> entries = new HashMap<>();

    private static final class Entry {
        boolean held;
        int waiting;
    }

    /** One attachment's lock, held. */
    final class Held implements AutoCloseable {
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

    /** Takes the lock of an attachment if it is free; null if another call holds it. */
    Held tryAcquire(String containerId, String ifName) {
        String key = containerId + "\0" + ifName;
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
    Held acquire(String containerId, String ifName, long deadline) throws TimeoutException, InterruptedException {
        String key = containerId + "\0" + ifName;
        synchronized (entries) {
            Entry e = entries.get(key);
            if (e == null) {
                e = new Entry();
                entries.put(key, e);
            }
            if (e.held) {
                e.waiting++;
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
                    e.waiting--;
                    if (!got) {
                        if (!e.held && e.waiting == 0) {
                            entries.remove(key);
                        } else {
                            entries.notifyAll(); // a release we may have taken as our wake-up goes to the next
                        }
                    }
                }
            }
            e.held = true;
            return new Held(key);
        }
    }

    /** Whether a call holds or waits for this attachment's lock (for tests). */
    boolean busy(String containerId, String ifName) {
        synchronized (entries) {
            return entries.containsKey(containerId + "\0" + ifName);
        }
    }
}
