package io.jcni.netlink.internal.ffm;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.FilterH;
import io.jcni.netlink.internal.wire.IfEtherH;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.internal.wire.SocketH;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A cooked ({@code SOCK_DGRAM}) {@code AF_PACKET} socket bound to one link for IPv4, receiving only the UDP datagrams
 * to one port that a classic BPF filter lets through. Every call goes through the module's one {@code syscall(2)}
 * downcall.
 *
 * <p>Opening order, so that nothing unfiltered is ever queued: {@code socket(AF_PACKET, SOCK_DGRAM, 0)} (protocol 0
 * receives nothing), {@code SO_ATTACH_FILTER}, then {@code bind} with {@code ETH_P_IP} and the link's index, which is
 * when the kernel starts delivering. The socket belongs to the network namespace of the thread that opens it.
 *
 * <p>The filter (offsets from the IPv4 header, which is where a cooked socket's data starts):
 * <pre>
 *   ldh [6]; jset #0x1fff → drop    a fragment other than the first has no UDP header
 *   ldb [9]; jeq #17 else drop       UDP only
 *   ldxb 4*([0]&amp;0xf); ldh [x+2]      the UDP destination port
 *   jeq #port else drop; ret #65535; drop: ret #0
 * </pre>
 *
 * <p>Memory: the socket's native buffers (address, errno slot, send and receive buffers) belong to one shared arena
 * freed by {@link #close()}. Not thread-safe: one call at a time, and {@link #close()} only when no call is running
 * (a descriptor closed under a blocked {@code recvfrom} may be reused by the time it returns).
 */
public final class PacketChannel implements AutoCloseable {
    /** The largest IPv4 datagram; the receive buffer holds one. */
    public static final int MAX_DATAGRAM = 65535;
    private static final int SEND_BUFFER = 2048;

    private final Arena arena;
    private final MemorySegment state;
    private final int fd;
    private final int ifIndex;
    private final MemorySegment address;
    private final ByteBuffer addressView;
    private final MemorySegment addressLength;
    private final ByteBuffer addressLengthView;
    private final MemorySegment timeout;
    private final ByteBuffer timeoutView;
    private final MemorySegment receive;
    private final ByteBuffer receiveView;
    private MemorySegment send;
    private ByteBuffer sendView;
    private long timeoutSet = -1;
    private boolean closed;

    private PacketChannel(Arena arena, MemorySegment state, int fd, int ifIndex) {
        this.arena = arena;
        this.state = state;
        this.fd = fd;
        this.ifIndex = ifIndex;
        this.address = arena.allocate(Offsets.SOCKADDR_LL_SIZE, 4);
        this.addressView = NativeMemory.view(address);
        this.addressLength = arena.allocate(4, 4);
        this.addressLengthView = NativeMemory.view(addressLength);
        this.timeout = arena.allocate(Offsets.TIMEVAL_SIZE, 8);
        this.timeoutView = NativeMemory.view(timeout);
        this.receive = arena.allocate(MAX_DATAGRAM, 8);
        this.receiveView = NativeMemory.view(receive);
        this.send = arena.allocate(SEND_BUFFER, 8);
        this.sendView = NativeMemory.view(send);
    }

    /**
     * Opens the socket on link {@code ifIndex} of the calling thread's namespace, receiving IPv4 UDP datagrams to
     * {@code port} only.
     *
     * @throws KernelException naming the failed call (PERMISSION_DENIED without {@code CAP_NET_RAW}, NOT_FOUND when
     *     the link does not exist)
     */
    public static PacketChannel openUdp(int ifIndex, int port) {
        NativeAccess.check();
        Arena arena = NativeMemory.shared();
        try {
            MemorySegment state = arena.allocate(NativeAccess.stateSize());
            long fd = NativeAccess.syscall(state, Sysno.socket, SocketH.AF_PACKET,
                    SocketH.SOCK_DGRAM | SocketH.SOCK_CLOEXEC, 0, 0, 0, 0);
            if (fd < 0) {
                throw new KernelException("socket AF_PACKET", NativeAccess.errno(state), null, null);
            }
            try {
                PacketChannel channel = new PacketChannel(arena, state, (int) fd, ifIndex);
                channel.attachFilter(port);
                channel.bind();
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

    private void attachFilter(int port) {
        int[][] program = udpPortFilter(port);
        try (Arena scratch = NativeMemory.confined()) {
            MemorySegment instructions = scratch.allocate((long) program.length * Offsets.SOCK_FILTER_SIZE, 8);
            ByteBuffer view = NativeMemory.view(instructions);
            for (int i = 0; i < program.length; i++) {
                int at = i * Offsets.SOCK_FILTER_SIZE;
                view.putShort(at + Offsets.SOCK_FILTER_CODE, (short) program[i][0]);
                view.put(at + Offsets.SOCK_FILTER_JT, (byte) program[i][1]);
                view.put(at + Offsets.SOCK_FILTER_JF, (byte) program[i][2]);
                view.putInt(at + Offsets.SOCK_FILTER_K, program[i][3]);
            }
            MemorySegment fprog = scratch.allocate(Offsets.SOCK_FPROG_SIZE, 8);
            ByteBuffer fprogView = NativeMemory.view(fprog);
            fprogView.putShort(Offsets.SOCK_FPROG_LEN, (short) program.length);
            fprogView.putLong(Offsets.SOCK_FPROG_FILTER, instructions.address());
            check("setsockopt SO_ATTACH_FILTER (udp dst port " + port + ")", NativeAccess.syscall(state,
                    Sysno.setsockopt, fd, SocketH.SOL_SOCKET, SocketH.SO_ATTACH_FILTER, fprog.address(),
                    Offsets.SOCK_FPROG_SIZE, 0));
        }
    }

    /**
     * The filter program as {@code {code, jt, jf, k}} rows (see the class comment); public so that tests can compare
     * it with what {@code tcpdump -dd} compiles.
     */
    public static int[][] udpPortFilter(int port) {
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("not a UDP port: " + port);
        }
        int ldh = FilterH.BPF_LD | FilterH.BPF_H | FilterH.BPF_ABS;
        int ldb = FilterH.BPF_LD | FilterH.BPF_B | FilterH.BPF_ABS;
        int jset = FilterH.BPF_JMP | FilterH.BPF_JSET | FilterH.BPF_K;
        int jeq = FilterH.BPF_JMP | FilterH.BPF_JEQ | FilterH.BPF_K;
        int msh = FilterH.BPF_LDX | FilterH.BPF_B | FilterH.BPF_MSH;
        int ldhInd = FilterH.BPF_LD | FilterH.BPF_H | FilterH.BPF_IND;
        int ret = FilterH.BPF_RET | FilterH.BPF_K;
        return new int[][] {
            {ldh, 0, 0, 6},          // 0: flags and fragment offset
            {jset, 6, 0, 0x1fff},    // 1: a later fragment → 8
            {ldb, 0, 0, 9},          // 2: protocol
            {jeq, 0, 4, 17},         // 3: not UDP → 8
            {msh, 0, 0, 0},          // 4: X = header length
            {ldhInd, 0, 0, 2},       // 5: UDP destination port
            {jeq, 0, 1, port},       // 6: another port → 8
            {ret, 0, 0, MAX_DATAGRAM}, // 7: accept, whole
            {ret, 0, 0, 0},          // 8: drop
        };
    }

    private void bind() {
        fillAddress(IfEtherH.ETH_P_IP, null);
        check("bind AF_PACKET ifindex " + ifIndex, NativeAccess.syscall(state, Sysno.bind, fd, address.address(),
                Offsets.SOCKADDR_LL_SIZE, 0, 0, 0));
    }

    private void fillAddress(int protocol, byte[] linkAddress) {
        for (int i = 0; i < Offsets.SOCKADDR_LL_SIZE; i++) {
            addressView.put(i, (byte) 0);
        }
        addressView.putShort(Offsets.SLL_FAMILY, (short) SocketH.AF_PACKET);
        addressView.put(Offsets.SLL_PROTOCOL, (byte) (protocol >>> 8));
        addressView.put(Offsets.SLL_PROTOCOL + 1, (byte) protocol);
        addressView.putInt(Offsets.SLL_IFINDEX, ifIndex);
        if (linkAddress != null) {
            addressView.put(Offsets.SLL_HALEN, (byte) linkAddress.length);
            addressView.put(Offsets.SLL_ADDR, linkAddress, 0, linkAddress.length);
        }
    }

    /** {@code sendto} of one IPv4 datagram (header included) to link-layer address {@code to} (at most 8 bytes). */
    public void send(byte[] datagram, int offset, int length, byte[] to) {
        if (to.length == 0 || to.length > 8) {
            throw new IllegalArgumentException("a link-layer address of " + to.length + " bytes");
        }
        if (length > MAX_DATAGRAM) {
            throw new IllegalArgumentException("an IPv4 datagram of " + length + " bytes");
        }
        if (length > send.byteSize()) {
            send = arena.allocate(length, 8);
            sendView = NativeMemory.view(send);
        }
        sendView.put(0, datagram, offset, length);
        fillAddress(IfEtherH.ETH_P_IP, to);
        while (true) {
            long r = NativeAccess.syscall(state, Sysno.sendto, fd, send.address(), length, 0, address.address(),
                    Offsets.SOCKADDR_LL_SIZE);
            if (r >= 0) {
                return;
            }
            int errno = NativeAccess.errno(state);
            if (errno != Errno.EINTR) {
                throw new KernelException("sendto AF_PACKET ifindex " + ifIndex + " (" + length + " bytes)", errno,
                        null, null);
            }
        }
    }

    /**
     * Waits up to {@code timeoutMillis} (at least 1) for one datagram and copies at most {@code buffer.length} bytes of
     * it into {@code buffer}. Returns its full length (which may exceed the buffer), or -1 when none came in time.
     * {@link #sourceAddress()} and {@link #packetType()} then describe it.
     */
    public int receive(byte[] buffer, long timeoutMillis) {
        setTimeout(Math.max(1, timeoutMillis));
        while (true) {
            addressLengthView.putInt(0, Offsets.SOCKADDR_LL_SIZE);
            long r = NativeAccess.syscall(state, Sysno.recvfrom, fd, receive.address(), receive.byteSize(),
                    SocketH.MSG_TRUNC, address.address(), addressLength.address());
            if (r >= 0) {
                int length = (int) Math.min(r, Integer.MAX_VALUE);
                receiveView.get(0, buffer, 0, Math.min(length, Math.min(buffer.length, MAX_DATAGRAM)));
                return length;
            }
            int errno = NativeAccess.errno(state);
            if (errno == Errno.EAGAIN) {
                return -1;
            }
            if (errno != Errno.EINTR) {
                throw new KernelException("recvfrom AF_PACKET ifindex " + ifIndex, errno, null, null);
            }
        }
    }

    /** The link-layer source address of the datagram {@link #receive} returned last. */
    public byte[] sourceAddress() {
        int length = Math.min(8, addressView.get(Offsets.SLL_HALEN) & 0xff);
        byte[] out = new byte[length];
        addressView.get(Offsets.SLL_ADDR, out, 0, length);
        return out;
    }

    /** {@code sll_pkttype} of the datagram {@link #receive} returned last ({@code PACKET_HOST}, ...). */
    public int packetType() {
        return addressView.get(Offsets.SLL_PKTTYPE) & 0xff;
    }

    private void setTimeout(long millis) {
        if (millis == timeoutSet) {
            return;
        }
        timeoutView.putLong(Offsets.TV_SEC, millis / 1000);
        timeoutView.putLong(Offsets.TV_USEC, (millis % 1000) * 1000);
        check("setsockopt SO_RCVTIMEO", NativeAccess.syscall(state, Sysno.setsockopt, fd, SocketH.SOL_SOCKET,
                SocketH.SO_RCVTIMEO, timeout.address(), Offsets.TIMEVAL_SIZE, 0));
        timeoutSet = millis;
    }

    private void check(String what, long result) {
        if (result < 0) {
            throw new KernelException(what, NativeAccess.errno(state), null, null);
        }
    }

    /** Closes the socket and frees its buffers. Idempotent. */
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
