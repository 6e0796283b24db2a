package io.jcni.runtime.internal.cache;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Keeps a network's GC from running while an ADD of that network is between its first plugin and its cached result.
 *
 * <p>Why: a GC gets the attachments that are valid, taken from the result cache (and the ADD journals) when it starts.
 * An ADD in flight is in neither until it has finished, yet its plugins have already reserved an address or written
 * rules, which the GC would then release as stale. So every ADD holds its network's gate shared from before it writes
 * its journal until its result is cached (or its rollback is over), and a collection holds it exclusively from the
 * moment it lists the valid attachments until the plugins' GC has answered: an ADD waits for a collection in progress,
 * a collection for the ADDs in flight. DEL and CHECK do not take it (a DEL racing a GC removes what both remove).
 *
 * <p>Across processes sharing the cache directory: one lock file per network, {@code <cacheDir>/locks/network-<name>
 * .lock}, locked shared or exclusive with {@code fcntl} (every jcni runtime on the node takes it); in this JVM a
 * read-write lock per network in front of it, because {@code fcntl} locks belong to the process: the first ADD of
 * the JVM takes the shared file lock and the last one releases it. Waits are bounded by the caller's limit (polling,
 * as {@link AttachmentLocks}). Runtimes that do not use jcni (Go's libcni) take no gate: see the README's "Leaks".
 *
 * <p>Lock files are opened read-write without following a symbolic link and kept open for the JVM's life (closing any
 * descriptor of a file drops the process's locks on it); there is one per network name ever used, never deleted.
 */
public final class CollectionGates {
    private final Path dir;
    private final ConcurrentHashMap<String, Gate> gates = new ConcurrentHashMap<>();

    public CollectionGates(Path cacheDir) {
        this.dir = cacheDir.resolve("locks");
    }

    /** The lock file of a network (the name was validated: no path separator). */
    public Path file(String network) {
        return dir.resolve("network-" + network + ".lock");
    }

    /**
     * Holds {@code network}'s gate shared (an ADD in flight), waiting at most {@code timeoutNanos} (0: no limit) for a
     * collection to end.
     */
    public Held enterAdd(String network, long timeoutNanos)
            throws IOException, InterruptedException, TimeoutException {
        return gate(network).shared(timeoutNanos);
    }

    /** Holds {@code network}'s gate exclusively (a collection), waiting at most {@code timeoutNanos} (0: no limit). */
    public Held enterCollection(String network, long timeoutNanos)
            throws IOException, InterruptedException, TimeoutException {
        return gate(network).exclusive(timeoutNanos);
    }

    private Gate gate(String network) {
        Gate gate = gates.get(network);
        if (gate == null) {
            Gate made = new Gate(file(network));
            gate = gates.putIfAbsent(network, made);
            gate = gate == null ? made : gate;
        }
        return gate;
    }

    /** A held gate; {@link #close()} lets it go (once). */
    public interface Held extends AutoCloseable {
        @Override
        void close();
    }

    private final class Gate {
        private final Path file;
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        /** Guarded by this. */
        private FileChannel channel;
        /** Guarded by this: the file lock while readers or the writer hold the gate. */
        private FileLock fileLock;
        /** Guarded by this. */
        private int readers;

        Gate(Path file) {
            this.file = file;
        }

        Held shared(long timeoutNanos) throws IOException, InterruptedException, TimeoutException {
            long end = System.nanoTime() + timeoutNanos;
            ReentrantReadWriteLock.ReadLock read = lock.readLock();
            acquire(read, timeoutNanos);
            try {
                synchronized (this) {
                    if (readers == 0) {
                        fileLock = lockFile(true, timeoutNanos, end);
                    }
                    readers++;
                }
            } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
                read.unlock();
                throw e;
            }
            return new Release(this, true);
        }

        Held exclusive(long timeoutNanos) throws IOException, InterruptedException, TimeoutException {
            long end = System.nanoTime() + timeoutNanos;
            ReentrantReadWriteLock.WriteLock write = lock.writeLock();
            acquire(write, timeoutNanos);
            try {
                synchronized (this) {
                    fileLock = lockFile(false, timeoutNanos, end);
                }
            } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
                write.unlock();
                throw e;
            }
            return new Release(this, false);
        }

        private static void acquire(java.util.concurrent.locks.Lock lock, long timeoutNanos)
                throws InterruptedException, TimeoutException {
            if (timeoutNanos <= 0) {
                lock.lockInterruptibly();
            } else if (!lock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new TimeoutException("a collection of the network (or the ADDs it waits for) held it longer");
            }
        }

        /** Polls for the file lock (the sleeps are interruptible) until {@code end} when limited. Guarded by this. */
        private FileLock lockFile(boolean shared, long timeoutNanos, long end)
                throws IOException, InterruptedException, TimeoutException {
            long sleepMillis = 1;
            while (true) {
                FileLock got = channel().tryLock(0, Long.MAX_VALUE, shared);
                if (got != null) {
                    return got;
                }
                long left = end - System.nanoTime();
                if (timeoutNanos > 0 && left <= 0) {
                    throw new TimeoutException("another process held " + file + " longer");
                }
                long nap = timeoutNanos > 0 ? Math.min(sleepMillis, Math.max(1, left / 1_000_000)) : sleepMillis;
                Thread.sleep(nap);
                sleepMillis = Math.min(20, sleepMillis * 2);
            }
        }

        /** Lets go of one holder: a reader (the last one releases the file lock) or the writer. */
        void leave(boolean shared) {
            synchronized (this) {
                if (!shared || --readers == 0) {
                    releaseFileLock();
                }
            }
            if (shared) {
                lock.readLock().unlock();
            } else {
                lock.writeLock().unlock();
            }
        }

        private void releaseFileLock() {
            try {
                if (fileLock != null && fileLock.isValid()) {
                    fileLock.release();
                }
            } catch (IOException e) {
                // Unlocking on an open channel does not fail in practice; the kernel drops it at exit anyway.
            }
            fileLock = null;
        }

        private FileChannel channel() throws IOException {
            if (channel == null || !channel.isOpen()) {
                AtomicFiles.ensureDirectory(dir);
                try {
                    channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), AtomicFiles.FILE_MODE);
                } catch (IOException e) {
                    if (Files.isSymbolicLink(file)) {
                        throw new FileSystemException(file.toString(), null,
                                "the lock file is a symbolic link, which is not followed");
                    }
                    throw e;
                }
            }
            return channel;
        }
    }

    /** A named class, not a lambda: the ADD path of an exec'd runtime spins no lambda classes. */
    private static final class Release implements Held {
        private final Gate gate;
        private final boolean shared;
        private boolean released;

        Release(Gate gate, boolean shared) {
            this.gate = gate;
            this.shared = shared;
        }

        @Override
        public void close() {
            if (!released) {
                released = true;
                gate.leave(shared);
            }
        }
    }
}
