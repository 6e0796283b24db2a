package io.jcni.netlink.sys;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.ffm.Syscalls;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.LibcH;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Exclusive {@code flock(2)} locks on files, interoperable with Go and shell tools that use {@code flock}: the Go
 * host-local IPAM plugin locks {@code <dataDir>/<network>/lock} this way.
 *
 * <p>Why not {@link java.nio.channels.FileChannel#lock()}: it takes POSIX record locks ({@code fcntl}), which on Linux
 * do not exclude {@code flock} locks, so a Java and a Go plugin would both "hold" the lock.
 *
 * <p>Semantics: the lock belongs to the open file description created here, so it also excludes other threads of this
 * process (each lock opens the file anew) and is released by {@link ExclusiveLock#close()}, or by the kernel when the
 * process dies. The file is created (mode 0644) if missing and never deleted.
 *
 * <p>The lock file's path is where state lives, so it is opened with {@code O_NOFOLLOW}: a symbolic link planted there
 * is refused (ELOOP), never followed to create or lock a file elsewhere. It is opened read-write, which never blocks,
 * even on a FIFO planted in its place.
 *
 * <p>Failures are {@link KernelException}s naming the call and the path ({@code open /x/lock: ENOENT (No such file or
 * directory)}): {@link KernelException.Kind#NOT_FOUND} when the directory is missing.
 */
public final class FileLocks {
    /** The longest sleep between two tries of a busy lock. */
    static final long MAX_POLL_MILLIS = 16;

    private FileLocks() {}

    /** A held lock; {@link #close()} releases it. */
    public static final class ExclusiveLock implements AutoCloseable {
        private final Path path;
        private final int fd;
        private final AtomicBoolean released = new AtomicBoolean();

        private ExclusiveLock(Path path, int fd) {
            this.path = path;
            this.fd = fd;
        }

        public Path path() {
            return path;
        }

        /** Releases the lock (closing the descriptor releases it). Idempotent. */
        @Override
        public void close() {
            if (released.compareAndSet(false, true)) {
                try {
                    Syscalls.close(fd);
                } catch (NetlinkException e) {
                    throw failure(e, path, null);
                }
            }
        }
    }

    /**
     * {@code flock -x PATH}: waits until the lock is free, then takes it. The wait is interruptible: the lock is tried
     * without blocking ({@code LOCK_NB}), and while another process holds it, tried again after a sleep that grows
     * from 1 to {@value #MAX_POLL_MILLIS} ms, so an interrupt of the waiting thread (a runtime's deadline or
     * cancellation of an in-process plugin) ends the wait with a {@link KernelException} within that sleep, and a
     * virtual thread never pins its carrier in the kernel. A free lock is taken at the first try, as with a blocking
     * {@code flock}. The price: a waiter that polls is not queued in the kernel, so under constant contention with
     * processes that block in {@code flock} (Go's host-local) it may wait longer than they do.
     *
     * @throws KernelException naming the lock file, also when interrupted while waiting (the thread's interrupt status
     *                         is set again)
     */
    public static ExclusiveLock exclusive(Path path) {
        return lockPolling(openLockFile(path), path);
    }

    /** {@code flock -n -x PATH}: takes the lock if it is free, else returns empty at once. */
    public static Optional<ExclusiveLock> tryExclusive(Path path) {
        int fd = openLockFile(path);
        try {
            if (Syscalls.flock(fd, LibcH.LOCK_EX | LibcH.LOCK_NB, path.toString())) {
                return Optional.of(new ExclusiveLock(path, fd));
            }
        } catch (NetlinkException e) {
            Syscalls.close(fd);
            throw failure(e, path, null);
        } catch (RuntimeException | Error e) {
            Syscalls.close(fd);
            throw e;
        }
        Syscalls.close(fd);
        return Optional.empty();
    }

    /**
     * {@code flock -x} on a network namespace (its nsfs file): waits until no one else holds it, then takes it. Go's sbr
     * plugin serializes its calls on one container this way (it locks the CNI_NETNS path with {@code flock}); every
     * path to a namespace ({@code /run/netns/NAME}, {@code /proc/PID/ns/net}) is the same nsfs inode, so this lock and
     * Go's exclude each other, whichever path each side opened.
     *
     * <p>The namespace is opened again through {@code /proc/self/fd} (a new open file description: locks of this
     * process exclude each other as well, and closing {@code netns} does not release it). Waits, interruptibly, as
     * {@link #exclusive(Path)}.
     */
    public static ExclusiveLock exclusive(NetNs netns) {
        Path path = Path.of("/proc/self/fd/" + netns.fd());
        int fd;
        try {
            fd = Syscalls.open(path.toString(), LibcH.O_RDONLY, 0);
        } catch (NetlinkException e) {
            throw failure(e, netns.path(), null);
        }
        return lockPolling(fd, netns.path());
    }

    /** Takes the lock on {@code fd} as {@link #exclusive(Path)} describes, or closes {@code fd} and throws. */
    private static ExclusiveLock lockPolling(int fd, Path path) {
        try {
            long sleepMillis = 1;
            while (!Syscalls.flock(fd, LibcH.LOCK_EX | LibcH.LOCK_NB, path.toString())) {
                sleep(path, sleepMillis);
                sleepMillis = Math.min(MAX_POLL_MILLIS, sleepMillis * 2);
            }
            return new ExclusiveLock(path, fd);
        } catch (NetlinkException e) {
            Syscalls.close(fd);
            throw failure(e, path, null);
        } catch (RuntimeException | Error e) {
            Syscalls.close(fd);
            throw e;
        }
    }

    private static int openLockFile(Path path) {
        try {
            return Syscalls.open(path.toString(),
                    LibcH.O_RDWR | LibcH.O_CREAT | LibcH.O_NOCTTY | LibcH.O_NOFOLLOW, 0644);
        } catch (NetlinkException e) {
            throw failure(e, path,
                    e.errno() == Errno.ELOOP ? "the lock file is a symbolic link, which is not followed" : null);
        }
    }

    /**
     * A failure of the system-call layer (which reports a {@link NetlinkException}, as for every call it makes) as
     * the {@link KernelException} this class throws: the same operation, errno and text, {@code detail} added; a
     * failure without errno (the native layer unavailable) names the lock file.
     */
    private static KernelException failure(NetlinkException e, Path path, String detail) {
        return e.errno() == 0 ? new KernelException("flock " + path, e.kind(), e.getMessage(), e)
                : new KernelException(e.operation(), e.errno(), detail, e);
    }

    private static void sleep(Path path, long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KernelException("flock " + path, KernelException.Kind.OTHER,
                    "interrupted while waiting for the lock", e);
        }
    }
}
