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
 * <p>Memory: every native byte (the call state, address and option slots, the buffers) lives in mappings owned by this
 * socket ({@link NativeMemory#map}): one made at open, holding the slots and the initial send and receive buffers (48
 * KiB), and one per grown buffer; {@link #close()} unmaps them, and sending and receiving allocate nothing. A mapping's
 * pages are zeroed by the kernel when first touched (a request touches one or two), where an arena zeroes all it
 * allocates in a Java loop, which in a fresh JVM (an exec'd plugin, the plugin service's first calls) runs
 * interpreted, about 0.35 ms per socket.
 *
 * <p>No arena, on purpose: the socket may be used from any thread (the plugin service opens a container's socket on
 * the namespace's thread and uses it on the call's), which takes a shared arena, and closing a shared arena is a
 * handshake with every thread of the JVM (the JDK must know that none is inside an access to it): 75 to 150 us on an
 * idle machine with 20 to 100 threads, measured here, against about 1 us for a confined arena, and on a loaded one as
 * long as the slowest running thread takes to reach a safepoint poll. A plugin call opens and closes two sockets or
 * more, and in the plugin service each close stopped every other call's threads. What the arena's liveness check
 * guarded is guarded here instead: the socket is not thread-safe and its one user, the wire layer's {@code Channel},
 * runs every exchange and the close under one lock and refuses a closed handle; {@link #send} and {@link #receive}
 * refuse a closed socket too, so no access reaches an unmapped page.
 *
 * <p>Received datagrams are copied into a heap array and handed to the decoders as a heap buffer
 * ({@link #receiveBuffer()}). When the buffers were in a shared arena, each read of a direct buffer carried the
 * arena's liveness check and its exception paths; inlined into the codecs' attribute walks, that made {@code
 * LinkCodec.decode} one of the JIT's largest compilations (about 0.5 s of C2 time each, twice, in a fresh plugin
 * service's first hundred calls, competing with the calls for the cores). A heap buffer's reads are plain array
 * accesses, and the decoders see one kind of buffer, whatever produced it. The copy is one bulk move of at most a
 * datagram (a few KiB; 32 KiB for a full dump part).
 */
public final class NetlinkSocket implements Transport {
    /** Replies to requests come back synchronously; this bounds a wait that would otherwise hang on a kernel bug. */
    private static final long RECEIVE_TIMEOUT_SECONDS = 30;
    /** Room for batches of acknowledgements (the kernel drops replies once the queue is full). */
    private static final int SOCKET_BUFFER_BYTES = 1 << 20;
    private static final int INITIAL_SEND = 16 << 10;
    /** The kernel sizes dump datagrams up to the reader's buffer, capped near 32 KiB. */
    private static final int INITIAL_RECEIVE = 32 << 10;
    /** The first page of the socket's mapping: its slots, each 64-byte aligned. */
    private static final int SLOTS = 4096;
    private static final int STATE_AT = 0;
    private static final int ADDRESS_AT = 256;
    private static final int ADDRESS_LENGTH_AT = 320;
    private static final int OPTION_AT = 384;
    private static final int TIMEOUT_AT = 448;

    /** The mapping made at open: the slots, then the initial send and receive buffers. */
    private final MemorySegment region;
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
    /** The buffers in {@link #region}; a grown buffer is a mapping of its own, unmapped when replaced or closed. */
    private final MemorySegment initialSend;
    private final MemorySegment initialReceive;
    private MemorySegment sendSegment;
    private ByteBuffer sendView;
    private MemorySegment receiveSegment;
    private ByteBuffer receiveView;
    /** The last datagram received, copied out of {@link #receiveSegment}: what the decoders read. */
    private ByteBuffer receiveHeap;
    private boolean closed;
    /** What the socket's kernel buffers were set to (the kernel doubles it for its bookkeeping). */
    private int sendBufferBytes = SOCKET_BUFFER_BYTES;
    private int receiveBufferBytes = SOCKET_BUFFER_BYTES;

    private NetlinkSocket(MemorySegment region, MemorySegment state, int fd) {
        this.region = region;
        this.state = state;
        this.fd = fd;
        // Native memory is read and written through ByteBuffer views only (see NativeMemory.view).
        this.address = region.asSlice(ADDRESS_AT, Offsets.SOCKADDR_NL_SIZE);
        this.addressView = NativeMemory.view(address);
        this.addressLength = region.asSlice(ADDRESS_LENGTH_AT, 4);
        this.addressLengthView = NativeMemory.view(addressLength);
        this.option = region.asSlice(OPTION_AT, 4);
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
        MemorySegment timeout = region.asSlice(TIMEOUT_AT, Offsets.TIMEVAL_SIZE);
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
        this.initialSend = region.asSlice(SLOTS, INITIAL_SEND);
        this.initialReceive = region.asSlice(SLOTS + INITIAL_SEND, INITIAL_RECEIVE);
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
        MemorySegment region;
        try (Arena scratch = NativeMemory.confined()) {
            MemorySegment openState = scratch.allocate(NativeAccess.stateSize());
            region = NativeMemory.map(openState, SLOTS + INITIAL_SEND + INITIAL_RECEIVE);
        }
        MemorySegment state = region.asSlice(STATE_AT, NativeAccess.stateSize());
        try {
            long fd = NativeAccess.syscall(state, Sysno.socket, SocketH.AF_NETLINK,
                    SocketH.SOCK_RAW | SocketH.SOCK_CLOEXEC, protocol, 0, 0, 0);
            if (fd < 0) {
                throw new NetlinkException("socket AF_NETLINK", NativeAccess.errno(state), null);
            }
            try {
                return new NetlinkSocket(region, state, (int) fd);
            } catch (RuntimeException | Error e) {
                NativeAccess.syscall(state, Sysno.close, fd, 0, 0, 0, 0, 0);
                throw e;
            }
        } catch (RuntimeException | Error e) {
            unmapRegion(region);
            throw e;
        }
    }

    /** Unmaps the mapping of the slots, with a call state outside it (the call state in it is gone once it is). */
    private static void unmapRegion(MemorySegment region) {
        try (Arena scratch = NativeMemory.confined()) {
            NativeMemory.unmap(scratch.allocate(NativeAccess.stateSize()), region);
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
        requireOpen();
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
        requireOpen();
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
        requireOpen();
        MemorySegment segment = NativeMemory.map(state, roundUp(minCapacity));
        if (receiveSegment != initialReceive) {
            NativeMemory.unmap(state, receiveSegment);
        }
        receiveSegment = segment;
        receiveView = NativeMemory.view(segment);
        receiveHeap = heapBuffer((int) segment.byteSize());
    }

    private void growSend(int minCapacity) {
        MemorySegment segment = NativeMemory.map(state, roundUp(minCapacity));
        if (sendSegment != initialSend) {
            NativeMemory.unmap(state, sendSegment);
        }
        sendSegment = segment;
        sendView = NativeMemory.view(segment);
    }

    /** A closed socket's memory is unmapped: no use may reach it. */
    private void requireOpen() {
        if (closed) {
            throw new NetlinkException("netlink socket", NetlinkException.Kind.OTHER, "closed", null);
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
            try {
                if (sendSegment != initialSend) {
                    NativeMemory.unmap(state, sendSegment);
                }
                if (receiveSegment != initialReceive) {
                    NativeMemory.unmap(state, receiveSegment);
                }
            } finally {
                unmapRegion(region);
            }
        }
    }
}
