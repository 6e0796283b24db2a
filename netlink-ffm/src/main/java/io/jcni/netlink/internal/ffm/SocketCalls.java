package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.LibcH;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.internal.wire.SocketH;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The system calls of Unix domain stream sockets: {@code socket}, {@code bind}, {@code listen}, {@code accept4},
 * {@code connect}, {@code getsockopt}/{@code setsockopt}, {@code sendmsg}/{@code recvmsg} with {@code SCM_RIGHTS}
 * descriptors, {@code shutdown}, and {@code fcntl} for close-on-exec. Each call allocates what it needs (errno slot,
 * message header, data and control buffers) in a confined arena freed before returning, so nothing is retained.
 * Failures are {@link KernelException}s naming the call; {@code EINTR} is retried where the call is restartable.
 */
public final class SocketCalls {
    private SocketCalls() {}

    /** Bytes of {@code sun_path}, its NUL included. */
    private static final int SUN_PATH_BYTES = Offsets.SOCKADDR_UN_SIZE - Offsets.SUN_PATH;
    /** The largest chunk one receive or send moves through native memory. */
    public static final int MAX_CHUNK = 64 << 10;

    /** {@code socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)}, bound to {@code path} and listening. */
    public static int listen(String path, int backlog) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment address = address(arena, path);
            int fd = socket(state, path);
            try {
                check(state, "bind " + path, NativeAccess.syscall(state, Sysno.bind, fd, address.address(),
                        address.byteSize(), 0, 0, 0));
                check(state, "listen " + path, NativeAccess.syscall(state, Sysno.listen, fd, backlog, 0, 0, 0, 0));
                return fd;
            } catch (RuntimeException | Error e) {
                NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
                throw e;
            }
        }
    }

    /** {@code socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC)} connected to {@code path}. */
    public static int connect(String path) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment address = address(arena, path);
            int fd = socket(state, path);
            try {
                while (true) {
                    long r = NativeAccess.syscall(state, Sysno.connect, fd, address.address(), address.byteSize(),
                            0, 0, 0);
                    if (r == 0) {
                        return fd;
                    }
                    int errno = NativeAccess.errno(state);
                    if (errno != Errno.EINTR) {
                        throw new KernelException("connect " + path, errno, null, null);
                    }
                }
            } catch (RuntimeException | Error e) {
                NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
                throw e;
            }
        }
    }

    private static int socket(MemorySegment state, String path) {
        long fd = NativeAccess.syscall(state, Sysno.socket, SocketH.AF_UNIX, SocketH.SOCK_STREAM | SocketH.SOCK_CLOEXEC,
                0, 0, 0, 0);
        if (fd < 0) {
            throw new KernelException("socket AF_UNIX for " + path, NativeAccess.errno(state), null, null);
        }
        return (int) fd;
    }

    private static MemorySegment address(Arena arena, String path) {
        byte[] bytes = path.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0 || bytes.length >= SUN_PATH_BYTES) {
            throw new KernelException("socket " + path, Errno.ENAMETOOLONG,
                    "a Unix socket path has 1 to " + (SUN_PATH_BYTES - 1) + " bytes", null);
        }
        MemorySegment address = arena.allocate(Offsets.SOCKADDR_UN_SIZE, 2); // zeroed: sun_path ends with NUL
        ByteBuffer view = NativeMemory.view(address);
        view.putShort(Offsets.SUN_FAMILY, (short) SocketH.AF_UNIX);
        view.put(Offsets.SUN_PATH, bytes, 0, bytes.length);
        return address;
    }

    /**
     * {@code accept4(fd, NULL, NULL, SOCK_CLOEXEC)}: the next connection. {@code EINTR} and {@code ECONNABORTED} (a
     * peer that gave up while queued) are retried.
     */
    public static int accept(int fd) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.accept4, fd, 0, 0, SocketH.SOCK_CLOEXEC, 0, 0);
                if (r >= 0) {
                    return (int) r;
                }
                int errno = NativeAccess.errno(state);
                if (errno != Errno.EINTR && errno != Errno.ECONNABORTED) {
                    throw new KernelException("accept", errno, null, null);
                }
            }
        }
    }

    /** {@code getsockopt(fd, level, option)} of an {@code int} option. */
    public static int intOption(int fd, int level, int option, String what) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment value = arena.allocate(4, 4);
            MemorySegment length = arena.allocate(4, 4);
            NativeMemory.view(length).putInt(0, 4);
            check(state, "getsockopt " + what, NativeAccess.syscall(state, Sysno.getsockopt, fd, level, option,
                    value.address(), length.address(), 0));
            return NativeMemory.view(value).getInt(0);
        }
    }

    /** {@code getsockopt(fd, SOL_SOCKET, SO_PEERCRED)}: the peer's pid, uid and gid when it connected. */
    public static int[] peerCredentials(int fd) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment ucred = arena.allocate(Offsets.UCRED_SIZE, 4);
            MemorySegment length = arena.allocate(4, 4);
            NativeMemory.view(length).putInt(0, Offsets.UCRED_SIZE);
            check(state, "getsockopt SO_PEERCRED", NativeAccess.syscall(state, Sysno.getsockopt, fd,
                    SocketH.SOL_SOCKET, SocketH.SO_PEERCRED, ucred.address(), length.address(), 0));
            ByteBuffer view = NativeMemory.view(ucred);
            return new int[] {view.getInt(Offsets.UCRED_PID), view.getInt(Offsets.UCRED_UID),
                    view.getInt(Offsets.UCRED_GID)};
        }
    }

    /** {@code setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO or SO_SNDTIMEO)}; 0 for none. */
    public static void timeout(int fd, int option, long millis, String what) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment timeval = arena.allocate(Offsets.TIMEVAL_SIZE, 8);
            ByteBuffer view = NativeMemory.view(timeval);
            view.putLong(Offsets.TV_SEC, millis / 1000);
            view.putLong(Offsets.TV_SEC + 8, (millis % 1000) * 1000);
            check(state, "setsockopt " + what, NativeAccess.syscall(state, Sysno.setsockopt, fd, SocketH.SOL_SOCKET,
                    option, timeval.address(), timeval.byteSize(), 0));
        }
    }

    /**
     * {@code recvmsg(fd, MSG_CMSG_CLOEXEC)} of at most {@code length} bytes (and {@link #MAX_CHUNK}) into
     * {@code buffer}, accepting up to {@code maxDescriptors} descriptors. Returns the byte count (0 at end of stream);
     * the descriptors received are stored in {@code descriptors[1..]} with their count in {@code descriptors[0]}, and
     * {@code descriptors[0]} is negated when the kernel had to drop some ({@code MSG_CTRUNC}: it closed them).
     * {@code descriptors} has room for {@code maxDescriptors + 1} ints. A receive timeout is {@code EAGAIN}.
     */
    public static int receive(int fd, byte[] buffer, int offset, int length, int maxDescriptors, int[] descriptors) {
        int size = Math.min(length, MAX_CHUNK);
        int controlBytes = maxDescriptors == 0 ? 0 : Offsets.CMSGHDR_SIZE + align8(4 * maxDescriptors);
        descriptors[0] = 0;
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment data = arena.allocate(Math.max(size, 1), 8);
            MemorySegment iov = arena.allocate(Offsets.IOVEC_SIZE, 8);
            NativeMemory.view(iov).putLong(Offsets.IOV_BASE, data.address()).putLong(Offsets.IOV_LEN, size);
            MemorySegment control = controlBytes == 0 ? MemorySegment.NULL : arena.allocate(controlBytes, 8);
            MemorySegment msg = arena.allocate(Offsets.MSGHDR_SIZE, 8);
            ByteBuffer m = NativeMemory.view(msg);
            m.putLong(Offsets.MSG_IOV, iov.address()).putLong(Offsets.MSG_IOVLEN, 1)
                    .putLong(Offsets.MSG_CONTROL, control.address()).putLong(Offsets.MSG_CONTROLLEN, controlBytes);
            long r;
            while (true) {
                r = NativeAccess.syscall(state, Sysno.recvmsg, fd, msg.address(), SocketH.MSG_CMSG_CLOEXEC, 0, 0, 0);
                if (r >= 0) {
                    break;
                }
                int errno = NativeAccess.errno(state);
                if (errno != Errno.EINTR) {
                    throw new KernelException("recvmsg", errno, null, null);
                }
            }
            NativeMemory.view(data).get(0, buffer, offset, (int) r);
            int count = controlBytes == 0 ? 0 : descriptors(NativeMemory.view(control),
                    (int) m.getLong(Offsets.MSG_CONTROLLEN), descriptors, maxDescriptors);
            descriptors[0] = (m.getInt(Offsets.MSG_FLAGS) & SocketH.MSG_CTRUNC) != 0 ? -count : count;
            return (int) r;
        }
    }

    /** Collects the SCM_RIGHTS descriptors of the control messages into {@code out[1..]}; returns how many. */
    private static int descriptors(ByteBuffer control, int controlLength, int[] out, int max) {
        int count = 0;
        int at = 0;
        while (at + Offsets.CMSGHDR_SIZE <= controlLength) {
            long cmsgLength = control.getLong(at + Offsets.CMSG_LEN);
            if (cmsgLength < Offsets.CMSGHDR_SIZE || at + cmsgLength > controlLength) {
                break;
            }
            if (control.getInt(at + Offsets.CMSG_LEVEL) == SocketH.SOL_SOCKET
                    && control.getInt(at + Offsets.CMSG_TYPE) == SocketH.SCM_RIGHTS) {
                int n = (int) ((cmsgLength - Offsets.CMSGHDR_SIZE) / 4);
                for (int i = 0; i < n; i++) {
                    int fd = control.getInt(at + Offsets.CMSGHDR_SIZE + 4 * i);
                    if (count < max) {
                        out[1 + count++] = fd;
                    } else {
                        close(fd); // cannot happen with a control buffer sized for max; never leak one anyway
                    }
                }
            }
            at += align8((int) cmsgLength);
        }
        return count;
    }

    /**
     * {@code sendmsg(fd, MSG_NOSIGNAL)} of at most {@link #MAX_CHUNK} bytes of {@code buffer}, with {@code descriptors}
     * as one SCM_RIGHTS control message when there are any. Returns the bytes sent (the descriptors travel with the
     * first of them). A peer that has gone is {@code EPIPE} (no SIGPIPE); a send timeout is {@code EAGAIN}.
     */
    public static int send(int fd, byte[] buffer, int offset, int length, int[] descriptors) {
        int size = Math.min(length, MAX_CHUNK);
        int count = descriptors == null ? 0 : descriptors.length;
        int controlBytes = count == 0 ? 0 : Offsets.CMSGHDR_SIZE + align8(4 * count);
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment data = arena.allocate(Math.max(size, 1), 8);
            NativeMemory.view(data).put(0, buffer, offset, size);
            MemorySegment iov = arena.allocate(Offsets.IOVEC_SIZE, 8);
            NativeMemory.view(iov).putLong(Offsets.IOV_BASE, data.address()).putLong(Offsets.IOV_LEN, size);
            MemorySegment msg = arena.allocate(Offsets.MSGHDR_SIZE, 8);
            ByteBuffer m = NativeMemory.view(msg);
            m.putLong(Offsets.MSG_IOV, iov.address()).putLong(Offsets.MSG_IOVLEN, 1);
            if (count > 0) {
                MemorySegment control = arena.allocate(controlBytes, 8);
                ByteBuffer c = NativeMemory.view(control);
                c.putLong(Offsets.CMSG_LEN, Offsets.CMSGHDR_SIZE + 4L * count)
                        .putInt(Offsets.CMSG_LEVEL, SocketH.SOL_SOCKET).putInt(Offsets.CMSG_TYPE, SocketH.SCM_RIGHTS);
                for (int i = 0; i < count; i++) {
                    c.putInt(Offsets.CMSGHDR_SIZE + 4 * i, descriptors[i]);
                }
                m.putLong(Offsets.MSG_CONTROL, control.address()).putLong(Offsets.MSG_CONTROLLEN, controlBytes);
            }
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.sendmsg, fd, msg.address(), SocketH.MSG_NOSIGNAL, 0, 0, 0);
                if (r >= 0) {
                    return (int) r;
                }
                int errno = NativeAccess.errno(state);
                if (errno != Errno.EINTR) {
                    throw new KernelException("sendmsg", errno, null, null);
                }
            }
        }
    }

    /**
     * Whether the peer of a connected stream socket has closed its end: one {@code recvfrom} of a byte with
     * {@code MSG_PEEK | MSG_DONTWAIT}, which consumes nothing and never blocks. End of stream, {@code ECONNRESET} and
     * {@code EPIPE} are "closed"; no data yet ({@code EAGAIN}) or data waiting is "still there".
     */
    public static boolean peerClosed(int fd) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            MemorySegment one = arena.allocate(1);
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.recvfrom, fd, one.address(), 1,
                        SocketH.MSG_PEEK | SocketH.MSG_DONTWAIT, 0, 0);
                if (r >= 0) {
                    return r == 0;
                }
                int errno = NativeAccess.errno(state);
                if (errno == Errno.EINTR) {
                    continue;
                }
                if (errno == Errno.EAGAIN) {
                    return false;
                }
                if (errno == Errno.ECONNRESET || errno == Errno.EPIPE || errno == Errno.ENOTCONN) {
                    return true;
                }
                throw new KernelException("recvfrom MSG_PEEK", errno, null, null);
            }
        }
    }

    /** {@code shutdown(fd, SHUT_RDWR)}: wakes a thread blocked in {@code accept} or {@code recvmsg} on it. */
    public static void shutdown(int fd) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            long r = NativeAccess.syscall(state, Sysno.shutdown, fd, SocketH.SHUT_RDWR, 0, 0, 0, 0);
            if (r < 0 && NativeAccess.errno(state) != Errno.ENOTCONN) {
                throw new KernelException("shutdown", NativeAccess.errno(state), null, null);
            }
        }
    }

    /** Sets {@code FD_CLOEXEC} on an inherited descriptor (systemd passes them without). */
    public static void setCloseOnExec(int fd) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            long flags = NativeAccess.syscall(state, Sysno.fcntl, fd, LibcH.F_GETFD, 0, 0, 0, 0);
            check(state, "fcntl F_GETFD", flags);
            check(state, "fcntl F_SETFD", NativeAccess.syscall(state, Sysno.fcntl, fd, LibcH.F_SETFD,
                    flags | LibcH.FD_CLOEXEC, 0, 0, 0));
        }
    }

    /** {@code close(fd)}; errors are ignored (on Linux the descriptor is released anyway). */
    public static void close(int fd) {
        try (Arena arena = NativeMemory.confined()) {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
        }
    }

    private static void check(MemorySegment state, String what, long r) {
        if (r < 0) {
            throw new KernelException(what, NativeAccess.errno(state), null, null);
        }
    }

    private static int align8(int n) {
        return (n + 7) & ~7;
    }
}
