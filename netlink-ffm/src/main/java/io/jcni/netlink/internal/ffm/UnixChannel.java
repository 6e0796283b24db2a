package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.internal.wire.SocketH;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A connected Unix stream socket: {@code socket(AF_UNIX, SOCK_STREAM)}, {@code connect}, {@code sendto} with
 * {@code MSG_NOSIGNAL} (a peer that went away is EPIPE, never a signal), {@code recvfrom} with a receive timeout
 * ({@code SO_RCVTIMEO}), {@code close}, each through the module's one {@code syscall(2)} downcall.
 *
 * <p>Why not the JDK's {@code SocketChannel.open(UNIX)}: its first use initializes {@code UnixDomainSockets}, whose
 * static {@code SecureRandom} loads the security providers and parses {@code java.security}: about 25 ms of a plugin
 * exec here (measured on the dhcp plugin's DEL, the cached AOT classes notwithstanding), where a process that already
 * uses FFM (an interface plugin running its IPAM in-process) pays nothing more for these calls.
 *
 * <p>Memory: one shared arena per socket (address, errno slot, timeout, a transfer buffer), freed by
 * {@link #close()}. Not thread-safe; {@link #close()} only when no call runs.
 */
public final class UnixChannel implements AutoCloseable {
    private static final int BUFFER = 16 << 10;

    private final Arena arena;
    private final MemorySegment state;
    private final int fd;
    private final String path;
    private final MemorySegment timeout;
    private final ByteBuffer timeoutView;
    private final MemorySegment buffer;
    private final ByteBuffer bufferView;
    private long timeoutSet = -1;
    private boolean closed;

    private UnixChannel(Arena arena, MemorySegment state, int fd, String path) {
        this.arena = arena;
        this.state = state;
        this.fd = fd;
        this.path = path;
        this.timeout = arena.allocate(Offsets.TIMEVAL_SIZE, 8);
        this.timeoutView = NativeMemory.view(timeout);
        this.buffer = arena.allocate(BUFFER, 8);
        this.bufferView = NativeMemory.view(buffer);
    }

    /**
     * Connects to the socket at {@code path}.
     *
     * @throws KernelException {@code connect PATH: ENOENT} (nothing there), {@code ECONNREFUSED} (nobody listens),
     *     {@code EACCES}...; {@code ENAMETOOLONG} for a path of 108 bytes or more
     */
    public static UnixChannel connect(String path) {
        byte[] name = path.getBytes(StandardCharsets.UTF_8);
        NativeAccess.check();
        Arena arena = NativeMemory.shared();
        try {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            if (name.length >= Offsets.SOCKADDR_UN_SIZE - Offsets.SUN_PATH) {
                throw new KernelException("connect " + path, Errno.ENAMETOOLONG, "a Unix socket path has at most "
                        + (Offsets.SOCKADDR_UN_SIZE - Offsets.SUN_PATH - 1) + " bytes", null);
            }
            long fd = NativeAccess.syscall(state, Sysno.socket, SocketH.AF_UNIX,
                    SocketH.SOCK_STREAM | SocketH.SOCK_CLOEXEC, 0, 0, 0, 0);
            if (fd < 0) {
                throw new KernelException("socket AF_UNIX", NativeAccess.errno(state), null, null);
            }
            try {
                UnixChannel channel = new UnixChannel(arena, state, (int) fd, path);
                channel.connect(name);
                return channel;
            } catch (RuntimeException | Error e) {
                NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
                throw e;
            }
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private void connect(byte[] name) {
        try (Arena scratch = NativeMemory.confined()) {
            MemorySegment address = scratch.allocate(Offsets.SOCKADDR_UN_SIZE, 2); // zeroed: the path's NUL
            ByteBuffer view = NativeMemory.view(address);
            view.putShort(Offsets.SUN_FAMILY, (short) SocketH.AF_UNIX);
            view.put(Offsets.SUN_PATH, name, 0, name.length);
            while (true) {
                long r = NativeAccess.syscall(state, Sysno.connect, fd, address.address(), Offsets.SOCKADDR_UN_SIZE,
                        0, 0, 0);
                if (r == 0) {
                    return;
                }
                int errno = NativeAccess.errno(state);
                if (errno != Errno.EINTR) {
                    throw new KernelException("connect " + path, errno, null, null);
                }
            }
        }
    }

    /** Writes all of {@code data[offset, offset + length)}. */
    public void write(byte[] data, int offset, int length) {
        int done = 0;
        while (done < length) {
            int chunk = Math.min(BUFFER, length - done);
            bufferView.put(0, data, offset + done, chunk);
            int sent = 0;
            while (sent < chunk) {
                long r = NativeAccess.syscall(state, Sysno.sendto, fd, buffer.address() + sent, chunk - sent,
                        SocketH.MSG_NOSIGNAL, 0, 0);
                if (r < 0) {
                    int errno = NativeAccess.errno(state);
                    if (errno == Errno.EINTR) {
                        continue;
                    }
                    throw new KernelException("send to " + path, errno, null, null);
                }
                sent += (int) r;
            }
            done += chunk;
        }
    }

    /**
     * Reads at most {@code length} bytes into {@code data} at {@code offset}, waiting up to {@code timeoutMillis}
     * (at least 1). Returns how many came, 0 when none came in time, -1 at the end of the stream.
     */
    public int read(byte[] data, int offset, int length, long timeoutMillis) {
        setTimeout(Math.max(1, timeoutMillis));
        while (true) {
            long r = NativeAccess.syscall(state, Sysno.recvfrom, fd, buffer.address(), Math.min(length, BUFFER), 0,
                    0, 0);
            if (r > 0) {
                bufferView.get(0, data, offset, (int) r);
                return (int) r;
            }
            if (r == 0) {
                return length == 0 ? 0 : -1;
            }
            int errno = NativeAccess.errno(state);
            if (errno == Errno.EAGAIN) {
                return 0;
            }
            if (errno != Errno.EINTR) {
                throw new KernelException("receive from " + path, errno, null, null);
            }
        }
    }

    private void setTimeout(long millis) {
        if (millis == timeoutSet) {
            return;
        }
        timeoutView.putLong(Offsets.TV_SEC, millis / 1000);
        timeoutView.putLong(Offsets.TV_USEC, (millis % 1000) * 1000);
        long r = NativeAccess.syscall(state, Sysno.setsockopt, fd, SocketH.SOL_SOCKET, SocketH.SO_RCVTIMEO,
                timeout.address(), Offsets.TIMEVAL_SIZE, 0);
        if (r < 0) {
            throw new KernelException("setsockopt SO_RCVTIMEO", NativeAccess.errno(state), null, null);
        }
        timeoutSet = millis;
    }

    /** Closes the socket and frees its memory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
        } finally {
            arena.close();
        }
    }
}
