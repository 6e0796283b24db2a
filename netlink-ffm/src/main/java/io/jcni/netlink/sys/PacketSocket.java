package io.jcni.netlink.sys;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.internal.ffm.PacketChannel;
import io.jcni.netlink.internal.wire.IfPacketH;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A packet socket that sends whole IPv4 datagrams on one link and receives the UDP datagrams to one port arriving
 * there, whatever their IP destination and whether or not the link has an address: what a DHCP client needs to talk
 * to a server before it has an address (Go's {@code nclient4} uses the same kind of socket). It sees what
 * {@code tcpdump -i LINK 'udp dst port PORT'} sees of incoming traffic (first fragments and unfragmented datagrams
 * only) and sends as {@code tcpdump}'s packet injection does: {@code socket(AF_PACKET, SOCK_DGRAM, 0)}, a classic BPF
 * filter ({@code SO_ATTACH_FILTER}) attached before {@code bind(ETH_P_IP, ifindex)}, so no datagram of another port
 * is ever queued.
 *
 * <p>The socket belongs to the network namespace it was opened in ({@link #openUdp(NetNs, int, int)} opens it on a
 * thread inside the namespace, {@link NetNs#call}); afterwards any thread may use it, one call at a time. Outgoing
 * datagrams are not checked: the caller writes the IPv4 and UDP headers (the kernel adds the link-layer header for
 * {@code to}).
 *
 * <p>Failures are {@link KernelException}s naming the call: PERMISSION_DENIED without {@code CAP_NET_RAW}, NOT_FOUND
 * ({@code ENODEV}) when the link is gone.
 */
public final class PacketSocket implements AutoCloseable {
    /** The largest datagram {@link #receive} returns whole. */
    public static final int MAX_DATAGRAM = PacketChannel.MAX_DATAGRAM;

    private final PacketChannel channel;
    private final int ifIndex;
    private final int port;
    private final AtomicBoolean closed = new AtomicBoolean();

    private PacketSocket(PacketChannel channel, int ifIndex, int port) {
        this.channel = channel;
        this.ifIndex = ifIndex;
        this.port = port;
    }

    /** A datagram received: its length and the link-layer address it came from. */
    public record Received(int length, MacAddress from, boolean broadcast) {
    }

    /**
     * Opens the socket on link {@code ifIndex} of {@code netns} for IPv4 UDP datagrams to {@code port}.
     *
     * @param netns the namespace of the link, or null for the calling thread's
     */
    public static PacketSocket openUdp(NetNs netns, int ifIndex, int port) {
        if (port < 1 || port > 0xffff) {
            throw new IllegalArgumentException("not a UDP port: " + port);
        }
        Open task = new Open(ifIndex, port);
        PacketChannel channel = netns == null ? task.run() : netns.call(task);
        return new PacketSocket(channel, ifIndex, port);
    }

    /** The opening as a namespace task; a class, not a lambda (start-up cost on the exec path). */
    private record Open(int ifIndex, int port) implements NetNs.Task<PacketChannel, RuntimeException> {
        @Override
        public PacketChannel run() {
            return PacketChannel.openUdp(ifIndex, port);
        }
    }

    /** Sends {@code datagram[offset, offset + length)}, an IPv4 datagram with its header, to link address {@code to}.
     */
    public void send(byte[] datagram, int offset, int length, MacAddress to) {
        channel.send(datagram, offset, length, to.bytes());
    }

    /**
     * Waits up to {@code timeoutMillis} for a datagram and copies it (at most {@code buffer.length} bytes) into
     * {@code buffer}; null when none came in time. A datagram longer than the buffer is cut; its {@code length} says
     * how long it was.
     */
    public Received receive(byte[] buffer, long timeoutMillis) {
        int length = channel.receive(buffer, timeoutMillis);
        if (length < 0) {
            return null;
        }
        byte[] source = channel.sourceAddress();
        int type = channel.packetType();
        return new Received(length, source.length == 0 ? null : new MacAddress(source),
                type == IfPacketH.PACKET_BROADCAST || type == IfPacketH.PACKET_MULTICAST);
    }

    /** Closes the socket. Idempotent; must not run while another thread is inside {@link #receive} or {@link #send}. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "packet socket on ifindex " + ifIndex + " for udp dst port " + port;
    }
}
