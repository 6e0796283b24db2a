package io.jcni.plugins.internal.ipam.dhcp;

/**
 * IPv4 (RFC 791) and UDP (RFC 768) headers around DHCP messages, for the packet socket that carries them: a client
 * without an address can neither send from a UDP socket nor receive what is sent to the address it is offered.
 *
 * <p>Received datagrams are checked as far as the network lets them be: version, header length and checksum, total
 * length, protocol, and the UDP length. The UDP checksum is not verified: on a veth the kernel leaves it to an offload
 * that never runs (the sender's stack marks the packet "checksum partial"), so a packet socket sees a wrong one.
 */
final class Ipv4Udp {
    private Ipv4Udp() {
    }

    static final int CLIENT_PORT = 68;
    static final int SERVER_PORT = 67;
    private static final int IP_HEADER = 20;
    private static final int UDP_HEADER = 8;
    static final byte[] BROADCAST = {(byte) 255, (byte) 255, (byte) 255, (byte) 255};

    /** {@code payload} as a UDP datagram from {@code source}:68 to {@code destination}:67 in an IPv4 packet. */
    static byte[] wrap(byte[] source, byte[] destination, byte[] payload) {
        int total = IP_HEADER + UDP_HEADER + payload.length;
        byte[] d = new byte[total];
        d[0] = 0x45; // version 4, 5 words
        d[1] = 0x10; // TOS low delay, as dhclient sends it
        d[2] = (byte) (total >>> 8);
        d[3] = (byte) total;
        d[8] = 64; // TTL
        d[9] = 17; // UDP
        System.arraycopy(source, 0, d, 12, 4);
        System.arraycopy(destination, 0, d, 16, 4);
        int ipSum = checksum(d, 0, IP_HEADER, 0);
        d[10] = (byte) (ipSum >>> 8);
        d[11] = (byte) ipSum;
        int udpLength = UDP_HEADER + payload.length;
        d[20] = (byte) (CLIENT_PORT >>> 8);
        d[21] = (byte) CLIENT_PORT;
        d[22] = (byte) (SERVER_PORT >>> 8);
        d[23] = (byte) SERVER_PORT;
        d[24] = (byte) (udpLength >>> 8);
        d[25] = (byte) udpLength;
        System.arraycopy(payload, 0, d, 28, payload.length);
        // The pseudo-header: source, destination, zero, protocol, UDP length.
        int pseudo = sum16(source, 0, 4) + sum16(destination, 0, 4) + 17 + udpLength;
        int udpSum = checksum(d, IP_HEADER, udpLength, pseudo);
        if (udpSum == 0) {
            udpSum = 0xffff; // 0 means "no checksum" in UDP over IPv4
        }
        d[26] = (byte) (udpSum >>> 8);
        d[27] = (byte) udpSum;
        return d;
    }

    /**
     * The UDP payload of an IPv4 datagram to port 68, as {@code {offset, length}} in {@code d}, or null when the
     * datagram is not one (a truncated, fragmented or corrupt header, another protocol or port).
     */
    static int[] unwrap(byte[] d, int length) {
        if (length < IP_HEADER + UDP_HEADER || (d[0] & 0xf0) != 0x40) {
            return null;
        }
        int headerLength = (d[0] & 0x0f) * 4;
        int total = ((d[2] & 0xff) << 8) | (d[3] & 0xff);
        if (headerLength < IP_HEADER || total < headerLength + UDP_HEADER || total > length || d[9] != 17) {
            return null;
        }
        if ((((d[6] & 0xff) << 8 | (d[7] & 0xff)) & 0x3fff) != 0) {
            return null; // a fragment (more fragments, or an offset): DHCP messages are never fragmented
        }
        if (checksum(d, 0, headerLength, 0) != 0) {
            return null;
        }
        int udp = headerLength;
        int port = ((d[udp + 2] & 0xff) << 8) | (d[udp + 3] & 0xff);
        int udpLength = ((d[udp + 4] & 0xff) << 8) | (d[udp + 5] & 0xff);
        if (port != CLIENT_PORT || udpLength < UDP_HEADER || udp + udpLength > total) {
            return null;
        }
        return new int[] {udp + UDP_HEADER, udpLength - UDP_HEADER};
    }

    /** The source address of an IPv4 datagram {@link #unwrap} accepted. */
    static byte[] source(byte[] d) {
        return new byte[] {d[12], d[13], d[14], d[15]};
    }

    /** The Internet checksum (complement of the one's complement sum) of {@code length} bytes plus {@code carry}. */
    static int checksum(byte[] d, int from, int length, int carry) {
        long sum = carry + (long) sum16(d, from, length);
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return (int) (~sum & 0xffff);
    }

    private static int sum16(byte[] d, int from, int length) {
        long sum = 0;
        int i = from;
        for (; i + 1 < from + length; i += 2) {
            sum += ((d[i] & 0xff) << 8) | (d[i + 1] & 0xff);
        }
        if (i < from + length) {
            sum += (d[i] & 0xff) << 8;
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xffff) + (sum >>> 16);
        }
        return (int) sum;
    }
}
