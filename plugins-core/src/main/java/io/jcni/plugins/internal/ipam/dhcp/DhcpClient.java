package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.sys.PacketSocket;
import io.jcni.spec.IpText;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The client side of RFC 2131 on one link, over a {@link PacketSocket} opened for that link: the exchanges of the
 * client's states (INIT → SELECTING → REQUESTING, RENEWING, REBINDING) and the release. Each exchange sends its
 * message and waits for the matching answer (same {@code xid}, our hardware address, an expected message type) until
 * its window closes, sending the message again after 2, 4, 8... seconds; anything else that arrives is ignored. The
 * caller's {@link Stop} is polled at least every {@value #POLL_MILLIS} ms, so a stopped lease or daemon is never kept
 * waiting for a window to end.
 *
 * <p>What it sends, as Go's client does: the client identifier (option 61), the {@code provide} options (which may
 * replace it), the parameter request list (option 55); in REQUESTING also the offered address (50) and the server
 * (54). It does not probe the offered address with ARP (Go's does not either). Not thread-safe: one exchange at a time.
 */
final class DhcpClient {
    /** How often a waiting exchange looks at its {@link Stop}. */
    static final long POLL_MILLIS = 250;
    private static final long FIRST_RESEND_MILLIS = 2000;
    private static final long MAX_RESEND_MILLIS = 64_000;
    private static final MacAddress BROADCAST_MAC = new MacAddress(new byte[] {-1, -1, -1, -1, -1, -1});

    /** Whether the exchange should give up now. */
    interface Stop {
        boolean stopped();
    }

    private final PacketSocket socket;
    private final byte[] mac;
    private final Map<Integer, byte[]> options;
    private final boolean broadcast;
    private final Stop stop;
    private final String link;
    private final byte[] buffer = new byte[PacketSocket.MAX_DATAGRAM];
    /** The link-layer source of the answer the last exchange returned. */
    private byte[] answeredFrom = new byte[6];

    /**
     * @param clientId option 61's value
     * @param prepared the configuration's options ({@link DhcpConfig#prepare})
     * @param broadcast ask servers to broadcast their answers (the daemon's {@code -broadcast})
     * @param link the link's name, for messages
     */
    DhcpClient(PacketSocket socket, MacAddress mac, byte[] clientId, DhcpConfig.Prepared prepared, boolean broadcast,
            Stop stop, String link) {
        this.socket = socket;
        this.mac = mac.bytes();
        this.broadcast = broadcast;
        this.stop = stop;
        this.link = link;
        Map<Integer, byte[]> all = new LinkedHashMap<>();
        all.put(DhcpMessage.OPT_CLIENT_ID, clientId.clone());
        all.putAll(prepared.provided());
        all.put(DhcpMessage.OPT_PARAMETER_REQUEST_LIST, prepared.parameterRequestList());
        this.options = all;
    }

    /**
     * INIT to BOUND: DISCOVER, the first OFFER, REQUEST of the offered address, ACK. One try, each of the two
     * exchanges waiting at most until {@code windowEnd} (epoch ms). {@code hint}, when not null, is asked for
     * (option 50 in the DISCOVER), as a client that had it does.
     */
    Lease acquire(byte[] hint, long windowEnd) throws DhcpFailure {
        int xid = ThreadLocalRandom.current().nextInt();
        int flags = broadcast ? DhcpMessage.FLAG_BROADCAST : 0;
        Map<Integer, byte[]> discover = new LinkedHashMap<>(options);
        if (hint != null) {
            discover.put(DhcpMessage.OPT_REQUESTED_IP, hint.clone());
        }
        DhcpMessage offer = exchange(DhcpMessage.request(DhcpMessage.DISCOVER, xid, flags, null, mac, discover),
                new byte[4], Ipv4Udp.BROADCAST, BROADCAST_MAC, new int[] {DhcpMessage.OFFER}, windowEnd, "DHCPOFFER");
        byte[] server = offer.addressOption(DhcpMessage.OPT_SERVER_ID);
        if (server == null) {
            throw new DhcpFailure(DhcpFailure.Kind.TIMEOUT, "the DHCPOFFER on " + link + " has no server identifier");
        }
        Map<Integer, byte[]> request = new LinkedHashMap<>(options);
        request.put(DhcpMessage.OPT_REQUESTED_IP, offer.yiaddr.clone());
        request.put(DhcpMessage.OPT_SERVER_ID, server);
        DhcpMessage ack = exchange(DhcpMessage.request(DhcpMessage.REQUEST, xid, flags, null, mac, request),
                new byte[4], Ipv4Udp.BROADCAST, BROADCAST_MAC, new int[] {DhcpMessage.ACK, DhcpMessage.NAK},
                windowEnd, "DHCPACK");
        return bound(ack, "DHCPREQUEST for " + IpText.format(offer.yiaddr));
    }

    /**
     * RENEWING: REQUEST unicast to the server that granted {@code lease}, from its address, until {@code windowEnd}.
     * The first half of the window goes to the link-layer address the ACK came from; if that brings no answer (the
     * server's or router's hardware address changed: a bridge takes a port's address, for one), the second half
     * goes to the broadcast address, still to the server's IP address, which its stack accepts all the same.
     */
    Lease renew(Lease lease, long windowEnd) throws DhcpFailure {
        byte[] address = lease.address();
        int xid = ThreadLocalRandom.current().nextInt();
        DhcpMessage request = DhcpMessage.request(DhcpMessage.REQUEST, xid, 0, address, mac, options);
        int[] expected = {DhcpMessage.ACK, DhcpMessage.NAK};
        long now = System.currentTimeMillis();
        DhcpMessage ack;
        try {
            ack = exchange(request, address, lease.serverId(), new MacAddress(lease.serverMac), expected,
                    now + (windowEnd - now) / 2, "DHCPACK");
        } catch (DhcpFailure f) {
            if (f.kind() != DhcpFailure.Kind.TIMEOUT) {
                throw f;
            }
            ack = exchange(request, address, lease.serverId(), BROADCAST_MAC, expected, windowEnd, "DHCPACK");
        }
        return bound(ack, "renewal of " + IpText.format(address));
    }

    /** REBINDING: REQUEST broadcast to any server, from the lease's address, until {@code windowEnd}. */
    Lease rebind(Lease lease, long windowEnd) throws DhcpFailure {
        byte[] address = lease.address();
        int flags = broadcast ? DhcpMessage.FLAG_BROADCAST : 0;
        DhcpMessage ack = exchange(DhcpMessage.request(DhcpMessage.REQUEST, ThreadLocalRandom.current().nextInt(),
                flags, address, mac, options), address, Ipv4Udp.BROADCAST, BROADCAST_MAC,
                new int[] {DhcpMessage.ACK, DhcpMessage.NAK}, windowEnd, "DHCPACK");
        return bound(ack, "rebinding of " + IpText.format(address));
    }

    /** DHCPRELEASE unicast to the server (no answer exists). */
    void release(Lease lease) throws DhcpFailure {
        byte[] address = lease.address();
        Map<Integer, byte[]> release = new LinkedHashMap<>();
        release.put(DhcpMessage.OPT_CLIENT_ID, options.get(DhcpMessage.OPT_CLIENT_ID));
        release.put(DhcpMessage.OPT_SERVER_ID, lease.serverId());
        DhcpMessage message = DhcpMessage.request(DhcpMessage.RELEASE, ThreadLocalRandom.current().nextInt(), 0,
                address, mac, release);
        send(Ipv4Udp.wrap(address, lease.serverId(), message.encode()), new MacAddress(lease.serverMac));
    }

    private Lease bound(DhcpMessage answer, String what) throws DhcpFailure {
        if (answer.messageType() == DhcpMessage.NAK) {
            byte[] text = answer.option(DhcpMessage.OPT_MESSAGE);
            throw new DhcpFailure(DhcpFailure.Kind.NAK, "the server refused the " + what + " (DHCPNAK"
                    + (text == null ? "" : ": " + new String(text, java.nio.charset.StandardCharsets.UTF_8)) + ")");
        }
        return new Lease(answer, System.currentTimeMillis(), answeredFrom);
    }

    private DhcpMessage exchange(DhcpMessage message, byte[] source, byte[] destination, MacAddress to,
            int[] expected, long windowEnd, String awaited) throws DhcpFailure {
        byte[] datagram = Ipv4Udp.wrap(source, destination, message.encode());
        long nextSend = 0;
        long resend = FIRST_RESEND_MILLIS;
        int ignored = 0;
        while (true) {
            if (stop.stopped()) {
                throw new DhcpFailure(DhcpFailure.Kind.STOPPED, "stopped while waiting for a " + awaited);
            }
            long now = System.currentTimeMillis();
            if (now >= windowEnd) {
                throw new DhcpFailure(DhcpFailure.Kind.TIMEOUT, "no " + awaited + " on " + link + " from "
                        + (Arrays.equals(destination, Ipv4Udp.BROADCAST) ? "any server"
                                : "server " + IpText.format(destination))
                        + (ignored == 0 ? "" : " (" + ignored + " other datagrams to port 68 ignored)"));
            }
            if (now >= nextSend) {
                send(datagram, to);
                nextSend = now + resend;
                resend = Math.min(MAX_RESEND_MILLIS, resend * 2);
            }
            PacketSocket.Received received;
            try {
                received = socket.receive(buffer, Math.min(POLL_MILLIS, Math.min(windowEnd, nextSend) - now));
            } catch (KernelException e) {
                throw new DhcpFailure(DhcpFailure.Kind.LINK, "cannot receive on " + link + ": " + e.getMessage(), e);
            }
            if (received == null) {
                continue;
            }
            DhcpMessage answer = answer(received, message.xid, expected);
            if (answer == null) {
                ignored++;
                continue;
            }
            answeredFrom = received.from() == null ? new byte[6] : received.from().bytes();
            return answer;
        }
    }

    /** The datagram in {@link #buffer} as the answer to {@code xid}, or null if it is not one. */
    private DhcpMessage answer(PacketSocket.Received received, int xid, int[] expected) {
        int[] payload = Ipv4Udp.unwrap(buffer, Math.min(received.length(), buffer.length));
        if (payload == null) {
            return null;
        }
        DhcpMessage m;
        try {
            m = DhcpMessage.decode(buffer, payload[0], payload[1]);
        } catch (DhcpMessage.Malformed e) {
            return null;
        }
        if (m.op != DhcpMessage.BOOTREPLY || m.xid != xid || !Arrays.equals(m.chaddr, 0, 6, mac, 0, 6)) {
            return null;
        }
        int type = m.messageType();
        for (int wanted : expected) {
            if (type == wanted) {
                return m;
            }
        }
        return null;
    }

    private void send(byte[] datagram, MacAddress to) throws DhcpFailure {
        try {
            socket.send(datagram, 0, datagram.length, to);
        } catch (KernelException e) {
            throw new DhcpFailure(DhcpFailure.Kind.LINK, "cannot send on " + link + ": " + e.getMessage(), e);
        }
    }
}
