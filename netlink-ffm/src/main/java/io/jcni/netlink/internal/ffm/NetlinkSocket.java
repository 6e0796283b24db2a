package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.internal.wire.SocketH;
import io.jcni.netlink.internal.wire.Transport;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A netlink socket over libc: {@code socket}, {@code setsockopt}, {@code bind}, {@code getsockname}, {@code sendto},
 * {@code recvfrom}, {@code close}.
 *
 * <p>Namespace: a netlink socket talks to the network namespace its creating thread was in when {@link #open} ran, for
 * its whole life. Callers open it on a thread that is in the wanted namespace.
 *
 * <p>Memory: every native byte (buffers, address, errno slot) belongs to arenas owned by this socket, allocated at open
 * or when a buffer grows, and freed by {@link #close()}; sending and receiving allocate nothing. The arenas are shared
 * (any thread may use the socket) but the socket itself is not thread-safe: the wire layer serializes access. The
 * send and receive buffers (48 KiB at open) are mapped ({@link NativeMemory#map}) rather than allocated: an arena
 * zeroes what it allocates in a Java loop, which in a fresh JVM (an exec'd plugin, the plugin service's first calls)
 * runs interpreted, about 0.35 ms per socket, and a call opens two or more; a mapping's pages are zeroed by the kernel
 * when first touched, and a request touches one or two. Each is unmapped after the arena it lives in is closed.
 *
 * <p>Received datagrams are copied into a heap array and handed to the decoders as a heap buffer
 * ({@link #receiveBuffer()}). Each read of a direct buffer over a shared arena carries the arena's liveness check and
 * its exception paths; inlined into the codecs' attribute walks, that made {@code LinkCodec.decode} one of the JIT's
 * largest compilations (about 0.5 s of C2 time each, twice, in a fresh plugin service's first hundred calls,
 * competing with the calls for the cores). A heap buffer's reads are plain array accesses. The copy is one bulk
 * move of at most a datagram (a few KiB; 32 KiB for a full dump part).
 */
public final class NetlinkSocket implements Transport {
    /** Replies to requests come back synchronously; this bounds a wait that would otherwise hang on a kernel bug. */
    private static final long RECEIVE_TIMEOUT_SECONDS = 30;
    /** Room for batches of acknowledgements (the kernel drops replies once the queue is full). */
    private static final int SOCKET_BUFFER_BYTES = 1 << 20;
    private static final int INITIAL_SEND = 16 << 10;
    /** The kernel sizes dump datagrams up to the reader's buffer, capped near 32 KiB. */
    private static final int INITIAL_RECEIVE = 32 << 10;


    private final Arena arena;
    private final MemorySegment state;
    private final MemorySegment address;
    private final ByteBuffer addressView;
    private final MemorySegment addressLength;
    private final ByteBuffer addressLengthView;
    /** The value {@link #setOption} passes to {@code setsockopt}: one slot for all of them, not an arena each. */
    private final MemorySegment option;
    private final ByteBuffer optionView;
    private final int fd;
    private final int portId;
    /** The buffers mapped at open, in {@link #arena}'s scope: unmapped once it is closed. */
    private final MemorySegment initialSend;
    private final MemorySegment initialReceive;
    /** Arenas of grown buffers, if any; the initial buffers live in {@link #arena}. */
    private Arena sendArena;
    private MemorySegment sendSegment;
    private ByteBuffer sendView;
    private Arena receiveArena;
    private MemorySegment receiveSegment;
    private ByteBuffer receiveView;
    /** The last datagram received, copied out of {@link #receiveSegment}: what the decoders read. */
    private ByteBuffer receiveHeap;
    private boolean closed;
    /** What the socket's kernel buffers were set to (the kernel doubles it for its bookkeeping). */
    private int sendBufferBytes = SOCKET_BUFFER_BYTES;
    private int receiveBufferBytes = SOCKET_BUFFER_BYTES;

    private NetlinkSocket(Arena arena, MemorySegment state, int fd) {
        this.arena = arena;
        this.state = state;
        this.fd = fd;
        // Native memory is read and written through ByteBuffer views only (see NativeMemory.view).
        this.address = arena.allocate(Offsets.SOCKADDR_NL_SIZE, 4);
        this.addressView = NativeMemory.view(address);
        this.addressLength = arena.allocate(4, 4);
        this.addressLengthView = NativeMemory.view(addressLength);
        this.option = arena.allocate(4, 4);
        this.optionView = NativeMemory.view(option);
        addressView.putShort(Offsets.NL_FAMILY, (short) SocketH.AF_NETLINK);
        setOption(SocketH.SOL_NETLINK, NetlinkH.NETLINK_EXT_ACK, 1, true);
        setOption(SocketH.SOL_NETLINK, NetlinkH.NETLINK_CAP_ACK, 1, true);
        setOption(SocketH.SOL_NETLINK, NetlinkH.NETLINK_GET_STRICT_CHK, 1, true);
        if (!setOption(SocketH.SOL_SOCKET, SocketH.SO_RCVBUFFORCE, SOCKET_BUFFER_BYTES, true)) {
            setOption(SocketH.SOL_SOCKET, SocketH.SO_RCVBUF, SOCKET_BUFFER_BYTES, true);
        }
        if (!setOption(SocketH.SOL_SOCKET, SocketH.SO_SNDBUFFORCE, SOCKET_BUFFER_BYTES, true)) {
            setOption(SocketH.SOL_SOCKET, SocketH.SO_SNDBUF, SOCKET_BUFFER_BYTES, true);
        }
        MemorySegment timeout = arena.allocate(Offsets.TIMEVAL_SIZE, 8);
        NativeMemory.view(timeout).putLong(Offsets.TV_SEC, RECEIVE_TIMEOUT_SECONDS);
        check("setsockopt SO_RCVTIMEO", NativeAccess.syscall(state, Sysno.setsockopt, fd, SocketH.SOL_SOCKET,
                SocketH.SO_RCVTIMEO, timeout.address(), timeout.byteSize(), 0));
        check("bind netlink", NativeAccess.syscall(state, Sysno.bind, fd, address.address(), address.byteSize(),
                0, 0, 0));
        addressLengthView.putInt(0, (int) address.byteSize());
        check("getsockname netlink", NativeAccess.syscall(state, Sysno.getsockname, fd, address.address(),
                addressLength.address(), 0, 0, 0));
        this.portId = addressView.getInt(Offsets.NL_PID);
        this.receiveHeap = heapBuffer(INITIAL_RECEIVE);
        this.initialSend = NativeMemory.map(state, arena, INITIAL_SEND);
        try {
            this.initialReceive = NativeMemory.map(state, arena, INITIAL_RECEIVE);
        } catch (RuntimeException | Error e) {
            NativeMemory.unmap(state, initialSend);
            throw e;
        }
        this.sendSegment = initialSend;
        this.sendView = NativeMemory.view(sendSegment);
        this.receiveSegment = initialReceive;
        this.receiveView = NativeMemory.view(receiveSegment);
    }

    private static ByteBuffer heapBuffer(int capacity) {
        return ByteBuffer.wrap(new byte[capacity]).order(ByteOrder.nativeOrder());
    }

    /**
     * Opens a netlink socket of {@code protocol} ({@code NETLINK_ROUTE}) in the calling thread's network namespace,
     * with extended ACKs, capped ACKs and strict dump checking turned on where the kernel supports them.
     */
    public static NetlinkSocket open(int protocol) {
        NativeAccess.check();
        Arena arena = NativeMemory.shared();
        try {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            long fd = NativeAccess.syscall(state, Sysno.socket, SocketH.AF_NETLINK,
                    SocketH.SOCK_RAW | SocketH.SOCK_CLOEXEC, protocol, 0, 0, 0);
            if (fd < 0) {
                throw new NetlinkException("socket AF_NETLINK", NativeAccess.errno(state), null);
            }
            try {
                return new NetlinkSocket(arena, state, (int) fd);
            } catch (RuntimeException | Error e) {
                NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
                throw e;
            }
        } catch (RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    private boolean setOption(int level, int name, int value, boolean optional) {
        optionView.putInt(0, value);
        long r = NativeAccess.syscall(state, Sysno.setsockopt, fd, level, name, option.address(), 4, 0);
        if (r < 0 && !optional) {
            throw new NetlinkException("setsockopt " + name, NativeAccess.errno(state), null);
        }
        return r == 0;
    }

    private void check(String what, long result) {
        if (result < 0) {
            throw new NetlinkException(what, NativeAccess.errno(state), null);
        }
    }

    /** The native send and receive buffers in use now; for the tests that find them in {@code /proc/self/maps}. */
    MemorySegment[] buffers() {
        return new MemorySegment[] {sendSegment, receiveSegment};
    }

    @Override
    public int portId() {
        return portId;
    }

    @Override
    public void reserve(int sendBytes, int receiveBytes) {
        if (sendBytes > sendBufferBytes) {
            if (setOption(SocketH.SOL_SOCKET, SocketH.SO_SNDBUFFORCE, sendBytes, true)) {
                sendBufferBytes = sendBytes;
            }
        }
        if (receiveBytes > receiveBufferBytes) {
            if (setOption(SocketH.SOL_SOCKET, SocketH.SO_RCVBUFFORCE, receiveBytes, true)) {
                receiveBufferBytes = receiveBytes;
            }
        }
    }

    @Override
    public void send(byte[] data, int offset, int length) {
        if (length > sendSegment.byteSize()) {
            growSend(length);
        }
        sendView.put(0, data, offset, length);
        while (true) {
            long r = NativeAccess.syscall(state, Sysno.sendto, fd, sendSegment.address(), length, 0, 0, 0);
            if (r >= 0) {
                return;
            }
            int errno = NativeAccess.errno(state);
            if (errno != Errno.EINTR) {
                throw new NetlinkException("sendto netlink (" + length + " bytes)", errno, null);
            }
        }
    }

    @Override
    public int receive(boolean wait) {
        int flags = wait ? SocketH.MSG_TRUNC : SocketH.MSG_TRUNC | SocketH.MSG_DONTWAIT;
        while (true) {
            addressLengthView.putInt(0, (int) address.byteSize());
            long r = NativeAccess.syscall(state, Sysno.recvfrom, fd, receiveSegment.address(),
                    receiveSegment.byteSize(), flags, address.address(), addressLength.address());
            if (r < 0) {
                int errno = NativeAccess.errno(state);
                if (errno == Errno.EAGAIN && !wait) {
                    return -1;
                }
                switch (errno) {
                    case Errno.EINTR -> {
                        continue;
                    }
                    case Errno.EAGAIN -> throw new NetlinkException("recvfrom netlink", errno,
                            "no reply from the kernel within " + RECEIVE_TIMEOUT_SECONDS + " s", null);
                    case Errno.ENOBUFS -> throw new NetlinkException("recvfrom netlink", errno,
                            "the socket's receive queue overflowed and replies were lost", null);
                    default -> throw new NetlinkException("recvfrom netlink", errno, null);
                }
            }
            if (addressView.getInt(Offsets.NL_PID) != 0) {
                continue; // not from the kernel: another process may unicast to our port id; never trust it
            }
            int length = (int) Math.min(r, Integer.MAX_VALUE);
            // MSG_TRUNC: the result is the datagram's full length, which may exceed what the buffer took
            receiveView.get(0, receiveHeap.array(), 0, Math.min(length, receiveHeap.capacity()));
            return length;
        }
    }

    @Override
    public ByteBuffer receiveBuffer() {
        return receiveHeap;
    }

    @Override
    public void growReceiveBuffer(int minCapacity) {
        Arena next = NativeMemory.shared();
        MemorySegment segment = mapIn(next, minCapacity);
        if (receiveArena != null) {
            receiveArena.close();
            NativeMemory.unmap(state, receiveSegment);
        }
        receiveArena = next;
        receiveSegment = segment;
        receiveView = NativeMemory.view(segment);
        receiveHeap = heapBuffer((int) segment.byteSize());
    }

    private void growSend(int minCapacity) {
        Arena next = NativeMemory.shared();
        MemorySegment segment = mapIn(next, minCapacity);
        if (sendArena != null) {
            sendArena.close();
            NativeMemory.unmap(state, sendSegment);
        }
        sendArena = next;
        sendSegment = segment;
        sendView = NativeMemory.view(segment);
    }

    /** A grown buffer of at least {@code minCapacity} bytes in the new arena {@code next}, closed if that fails. */
    private MemorySegment mapIn(Arena next, int minCapacity) {
        try {
            return NativeMemory.map(state, next, roundUp(minCapacity));
        } catch (RuntimeException | Error e) {
            next.close();
            throw e;
        }
    }

    private static long roundUp(int n) {
        return Math.max(4096, Long.highestOneBit(Math.max(1, n) - 1L) << 1);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
        } finally {
            if (sendArena != null) {
                sendArena.close();
                NativeMemory.unmap(state, sendSegment);
            }
            if (receiveArena != null) {
                receiveArena.close();
                NativeMemory.unmap(state, receiveSegment);
            }
            arena.close();
            // The errno slot was in the arena just closed: the initial buffers are unmapped with one of their own.
            try (Arena scratch = NativeMemory.confined()) {
                MemorySegment slot = scratch.allocate(NativeAccess.stateSize());
                NativeMemory.unmap(slot, initialSend);
                NativeMemory.unmap(slot, initialReceive);
            }
        }
    }
}
