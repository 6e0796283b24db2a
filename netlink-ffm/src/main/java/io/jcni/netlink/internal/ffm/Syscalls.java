package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.LibcH;
import io.jcni.netlink.internal.wire.Offsets;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * File-descriptor and namespace system calls outside the request path: each call allocates its errno slot (and path
 * string) in a confined arena freed before returning, so nothing is retained per call. Failures throw
 * {@link NetlinkException} naming the call and its subject; {@code EINTR} is retried where the call is restartable.
 */
public final class Syscalls {
    private Syscalls() {}

    /** {@code openat(AT_FDCWD, path, flags | O_CLOEXEC, mode)}; returns the new descriptor. */
    public static int open(String path, int flags, int mode) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment cPath = NativeMemory.cString(arena, path);
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.openat, LibcH.AT_FDCWD, cPath.address(),
                        flags | LibcH.O_CLOEXEC, mode, 0, 0);
                if (r >= 0) {
                    return (int) r;
                }
                int errno = NativeAccess.errno(state);
                if (errno != Errno.EINTR) {
                    throw new NetlinkException("open " + path, errno, null);
                }
            }
        }
    }

    /** {@code close(fd)}. EINTR is not retried: on Linux the descriptor is released anyway. */
    public static void close(int fd) {
        call("close", Sysno.close, fd, 0, 0);
    }

    /** {@code setns(fd, nstype)}: moves the calling OS thread into the namespace {@code fd} refers to. */
    public static void setns(int fd, int nstype, String what) {
        call("setns " + what, Sysno.setns, fd, nstype, 0);
    }

    /** {@code unshare(flags)}: moves the calling OS thread into new namespaces. */
    public static void unshare(int flags) {
        call("unshare", Sysno.unshare, flags, 0, 0);
    }

    /** {@code fchdir(fd)}: the calling thread's working directory becomes the directory of {@code fd}. */
    public static void fchdir(int fd, String what) {
        call("fchdir " + what, Sysno.fchdir, fd, 0, 0);
    }

    /** {@code flock(fd, operation)}; returns false instead of throwing when {@code LOCK_NB} meets a held lock. */
    public static boolean flock(int fd, int operation, String what) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.flock, fd, operation, 0, 0, 0, 0);
                if (r == 0) {
                    return true;
                }
                int errno = NativeAccess.errno(state);
                if (errno == Errno.EAGAIN && (operation & LibcH.LOCK_NB) != 0) {
                    return false;
                }
                if (errno != Errno.EINTR) {
                    throw new NetlinkException("flock " + what, errno, null);
                }
            }
        }
    }

    /** {@code fstatfs(fd, &buf)} returning {@code buf.f_type}, the magic number of the file system {@code fd} is on. */
    public static long fstatfsType(int fd, String what) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment buf = arena.allocate(Offsets.STATFS_SIZE);
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.fstatfs, fd, buf.address(), 0, 0, 0, 0);
                if (r == 0) {
                    return NativeMemory.view(buf).getLong(Offsets.F_TYPE);
                }
                int errno = NativeAccess.errno(state);
                if (errno != Errno.EINTR) {
                    throw new NetlinkException("fstatfs " + what, errno, null);
                }
            }
        }
    }

    /**
     * {@code setpriority(PRIO_PROCESS, tid, nice)}: the nice value of one thread (Linux applies it to the thread
     * {@code tid} names, not to its whole process).
     */
    public static void setPriority(int tid, int nice) {
        call("setpriority of thread " + tid + " to " + nice, Sysno.setpriority, LibcH.PRIO_PROCESS, tid, nice);
    }

    /** {@code gettid()}: the kernel's id of the calling thread. */
    public static int gettid() {
        return (int) call("gettid", Sysno.gettid, 0, 0, 0);
    }

    /** The nice value of thread {@code tid}: the raw {@code getpriority} system call answers 20 minus it. */
    public static int priority(int tid) {
        return 20 - (int) call("getpriority of thread " + tid, Sysno.getpriority, LibcH.PRIO_PROCESS, tid, 0);
    }

    /** {@code ioctl(fd, request, 0)} returning the call's non-negative result. */
    public static int ioctl(int fd, long request, String what) {
        return (int) call("ioctl " + what, Sysno.ioctl, fd, request, 0);
    }

    private static long call(String what, Sysno nr, long a0, long a1, long a2) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            long r = NativeAccess.syscall(state, nr, a0, a1, a2, 0, 0, 0);
            if (r < 0) {
                throw new NetlinkException(what, NativeAccess.errno(state), null);
            }
            return r;
        }
    }
}
