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
     * {@code flock -x PATH}: waits until the lock is free, then takes it. A platform thread blocks in the kernel
     * (uninterruptibly); a virtual thread polls every few milliseconds instead, so it never pins its carrier for
     * long.
     */
    public static ExclusiveLock exclusive(Path path) {
        int fd = openLockFile(path);
        try {
            if (Thread.currentThread().isVirtual()) {
                long sleepMillis = 1;
                while (!Syscalls.flock(fd, LibcH.LOCK_EX | LibcH.LOCK_NB, path.toString())) {
                    sleep(sleepMillis);
                    sleepMillis = Math.min(20, sleepMillis * 2);
                }
            } else {
                Syscalls.flock(fd, LibcH.LOCK_EX, path.toString());
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
     * process exclude each other as well, and closing {@code netns} does not release it). Blocking as
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
        try {
            if (Thread.currentThread().isVirtual()) {
                long sleepMillis = 1;
                while (!Syscalls.flock(fd, LibcH.LOCK_EX | LibcH.LOCK_NB, netns.path().toString())) {
                    sleep(sleepMillis);
                    sleepMillis = Math.min(20, sleepMillis * 2);
                }
            } else {
                Syscalls.flock(fd, LibcH.LOCK_EX, netns.path().toString());
            }
            return new ExclusiveLock(netns.path(), fd);
        } catch (NetlinkException e) {
            Syscalls.close(fd);
            throw failure(e, netns.path(), null);
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

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KernelException("flock", KernelException.Kind.OTHER, "interrupted while waiting", e);
        }
    }
}
