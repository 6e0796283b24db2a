package io.jcni.runtime.internal.cache;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.FileLockInterruptionException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;

/**
 * Serializes operations on one attachment ({@code CNI_CONTAINERID}, {@code CNI_IFNAME}), within this JVM and across
 * processes sharing the cache directory, as the spec requires of a runtime ("must not invoke parallel operations for
 * the same container").
 *
 * <p>Design: attachments hash (CRC-32C of {@code containerId NUL ifName}) into {@value #BUCKETS} buckets; each bucket
 * is one lock file {@code <cacheDir>/locks/attachment-<hex>.lock}, locked with {@link FileChannel#lock()} (a POSIX
 * record lock: only processes that take it are excluded, which is every jcni runtime on the node), behind a
 * {@link ReentrantLock} per bucket because POSIX locks exclude processes, not threads. Why buckets instead of one file
 * per attachment: a per-attachment file would have to be deleted at DEL or the directory would grow with every
 * container ever run, and deleting a lock file safely needs the locked file's inode (fstat), which Java cannot get
 * without closing the lock (closing any descriptor of a file drops the process's POSIX locks on it). Buckets keep the
 * file count bounded and are never deleted. The price: two different attachments that share a bucket (probability
 * 1/{@value #BUCKETS} per pair) are serialized too; that delays, never breaks.
 *
 * <p>Each bucket's channel is opened once and kept open for the JVM's life, and no other code opens these files:
 * closing a second descriptor would silently release the lock. A lock file is opened read-write (which never blocks,
 * not even on a FIFO planted in its place) and without following a symbolic link there ({@code O_NOFOLLOW}): a link
 * planted in the cache cannot make the runtime create or lock a file elsewhere. Reentrant: a thread already holding a bucket (e.g.
 * the cleanup DEL inside a failed ADD) takes it again without touching the file lock.
 */
public final class AttachmentLocks {
    /** The number of lock files; a power of two. */
    public static final int BUCKETS = 1024;

    private final Path dir;
    private final Bucket[] buckets = new Bucket[BUCKETS];

    public AttachmentLocks(Path cacheDir) {
        this.dir = cacheDir.resolve("locks");
        for (int i = 0; i < BUCKETS; i++) {
            buckets[i] = new Bucket(dir.resolve(String.format("attachment-%03x.lock", i)));
        }
    }

    /** The bucket of an attachment; stable across processes and JVM versions. */
    public static int bucket(String containerId, String ifName) {
        CRC32C crc = new CRC32C();
        crc.update(containerId.getBytes(StandardCharsets.UTF_8));
        crc.update(0);
        crc.update(ifName.getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() & (BUCKETS - 1));
    }

    /** The lock file of an attachment (for tests and diagnostics; never open it). */
    public Path file(String containerId, String ifName) {
        return buckets[bucket(containerId, ifName)].file;
    }

    /**
     * Blocks until this thread holds the attachment's lock, in this JVM and on the node.
     *
     * @throws IOException          if the lock file cannot be created or locked
     * @throws InterruptedException if interrupted while waiting (nothing is held then)
     */
    public Held acquire(String containerId, String ifName) throws IOException, InterruptedException {
        Bucket bucket = buckets[bucket(containerId, ifName)];
        bucket.lock.lockInterruptibly();
        if (bucket.lock.getHoldCount() > 1) {
            return new Held(bucket, null);
        }
        try {
            return new Held(bucket, bucket.lockFile(dir));
        } catch (IOException | InterruptedException | RuntimeException e) {
            bucket.lock.unlock();
            throw e;
        }
    }

    /**
     * As {@link #acquire(String, String)}, giving up when {@code timeoutNanos} have passed ({@code 0}: no limit). The
     * file lock is then polled (every few milliseconds) instead of waited for in the kernel, so the wait ends on time.
     *
     * @throws TimeoutException if the lock was not free in time (nothing is held then)
     */
    public Held acquire(String containerId, String ifName, long timeoutNanos)
            throws IOException, InterruptedException, TimeoutException {
        if (timeoutNanos <= 0) {
            return acquire(containerId, ifName);
        }
        long end = System.nanoTime() + timeoutNanos;
        Bucket bucket = buckets[bucket(containerId, ifName)];
        if (!bucket.lock.tryLock(timeoutNanos, TimeUnit.NANOSECONDS)) {
            throw new TimeoutException("another operation on this attachment held it longer");
        }
        if (bucket.lock.getHoldCount() > 1) {
            return new Held(bucket, null);
        }
        try {
            return new Held(bucket, bucket.lockFileBefore(dir, end));
        } catch (IOException | InterruptedException | TimeoutException | RuntimeException e) {
            bucket.lock.unlock();
            throw e;
        }
    }

    /**
     * The attachment's lock if nobody holds it now, in this JVM or on the node; else empty (an operation on the
     * attachment is in progress). Never waits.
     */
    public java.util.Optional<Held> tryAcquire(String containerId, String ifName) throws IOException {
        Bucket bucket = buckets[bucket(containerId, ifName)];
        if (!bucket.lock.tryLock()) {
            return java.util.Optional.empty();
        }
        if (bucket.lock.getHoldCount() > 1) {
            return java.util.Optional.of(new Held(bucket, null));
        }
        try {
            FileLock lock = bucket.channel(dir).tryLock();
            if (lock == null) {
                bucket.lock.unlock();
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(new Held(bucket, lock));
        } catch (IOException | RuntimeException e) {
            bucket.lock.unlock();
            throw e;
        }
    }

    /** Whether another process holds the attachment's file lock right now (tests; this JVM must not hold it). */
    public boolean heldElsewhere(String containerId, String ifName) throws IOException, InterruptedException {
        Bucket bucket = buckets[bucket(containerId, ifName)];
        bucket.lock.lockInterruptibly();
        try {
            FileLock lock = bucket.channel(dir).tryLock();
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } finally {
            bucket.lock.unlock();
        }
    }

    /** A held attachment lock; {@link #close()} releases it (once). */
    public static final class Held implements AutoCloseable {
        private final Bucket bucket;
        private final FileLock fileLock;
        private boolean released;

        Held(Bucket bucket, FileLock fileLock) {
            this.bucket = bucket;
            this.fileLock = fileLock;
        }

        @Override
        public void close() {
            if (released) {
                return;
            }
            released = true;
            try {
                if (fileLock != null && fileLock.isValid()) {
                    fileLock.release();
                }
            } catch (IOException e) {
                // Unlocking a valid lock on an open channel does not fail in practice; if it did, the kernel drops
                // the lock when the process exits. Nothing better to do than go on.
            } finally {
                bucket.lock.unlock();
            }
        }
    }

    private static final class Bucket {
        final ReentrantLock lock = new ReentrantLock();
        final Path file;
        /** Guarded by {@link #lock}. */
        private FileChannel channel;

        Bucket(Path file) {
            this.file = file;
        }

        FileChannel channel(Path dir) throws IOException {
            if (channel == null || !channel.isOpen()) {
                AtomicFiles.ensureDirectory(dir);
                try {
                    channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), AtomicFiles.FILE_MODE);
                } catch (IOException e) {
                    // ELOOP comes as a plain IOException ("... (NOFOLLOW_LINKS specified)").
                    if (Files.isSymbolicLink(file)) {
                        throw new FileSystemException(file.toString(), null,
                                "the lock file is a symbolic link, which is not followed");
                    }
                    throw e;
                }
            }
            return channel;
        }

        /** Polls for the file lock until {@code end} ({@link System#nanoTime}); the sleeps are interruptible. */
        FileLock lockFileBefore(Path dir, long end) throws IOException, InterruptedException, TimeoutException {
            long sleepMillis = 1;
            while (true) {
                FileLock lock = channel(dir).tryLock();
                if (lock != null) {
                    return lock;
                }
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("another process held " + file + " longer");
                }
                Thread.sleep(Math.max(1, Math.min(sleepMillis, left / 1_000_000)));
                sleepMillis = Math.min(20, sleepMillis * 2);
            }
        }

        FileLock lockFile(Path dir) throws IOException, InterruptedException {
            for (int attempt = 0; ; attempt++) {
                try {
                    return channel(dir).lock();
                } catch (FileLockInterruptionException e) {
                    // The interrupt closed the channel; the next acquisition opens a new one.
                    channel = null;
                    Thread.interrupted();
                    throw new InterruptedException("interrupted while waiting for " + file);
                } catch (ClosedChannelException e) {
                    channel = null;
                    if (attempt > 0) {
                        throw e;
                    }
                }
            }
        }
    }
}
