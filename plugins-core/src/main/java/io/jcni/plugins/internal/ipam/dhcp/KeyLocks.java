package io.jcni.plugins.internal.ipam.dhcp;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock per attachment key, made on first use and dropped when its last user unlocks: ADD, DEL and a lease's
 * maintenance of the same attachment run one at a time, those of different attachments never wait for each other
 * (an ADD may wait minutes for a server). Memory is bounded by the keys in use at the moment.
 */
final class KeyLocks {
    private final Map<String, Entry> entries = new HashMap<>();

    /** A held lock; {@link #close()} unlocks it. */
    final class Held implements AutoCloseable {
        private final String key;
        private final Entry entry;

        Held(String key, Entry entry) {
            this.key = key;
            this.entry = entry;
        }

        @Override
        public void close() {
            entry.lock.unlock();
            synchronized (entries) {
                if (--entry.users == 0) {
                    entries.remove(key);
                }
            }
        }
    }

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        /** Threads holding or waiting for the lock; guarded by {@code entries}. */
        int users;
    }

    /** Waits for the lock of {@code key} (uninterruptibly: a DEL must not give up on it). */
    Held lock(String key) {
        Entry entry;
        synchronized (entries) {
            entry = entries.get(key);
            if (entry == null) {
                entry = new Entry();
                entries.put(key, entry);
            }
            entry.users++;
        }
        entry.lock.lock();
        return new Held(key, entry);
    }

    /** Keys with a holder or waiter (for tests: none once every call is done). */
    int inUse() {
        synchronized (entries) {
            return entries.size();
        }
    }
}
