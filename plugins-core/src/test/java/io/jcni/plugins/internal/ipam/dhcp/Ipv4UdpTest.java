package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The IPv4 and UDP headers around DHCP messages: checksums that verify (RFC 1071: the sum over a correct header is
 * 0xffff, its checksum 0; RFC 768's pseudo-header for UDP), and what {@link Ipv4Udp#unwrap} refuses.
 */
class Ipv4UdpTest {
    private static final byte[] SOURCE = {10, 1, 2, 3};
    private static final byte[] SERVER = {10, 1, 2, 1};

    @Test
    void wrappedDatagramsCarryChecksumsThatVerify() {
        byte[] payload = "a DHCP message".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] d = Ipv4Udp.wrap(SOURCE, SERVER, payload);
        assertThat(d).hasSize(20 + 8 + payload.length);
        assertThat(d[0]).isEqualTo((byte) 0x45);
        assertThat(d[9]).as("UDP").isEqualTo((byte) 17);
        assertThat(Ipv4Udp.checksum(d, 0, 20, 0)).as("the header with its checksum sums to zero").isZero();
        int udpLength = 8 + payload.length;
        int pseudo = sum(SOURCE) + sum(SERVER) + 17 + udpLength;
        assertThat(Ipv4Udp.checksum(d, 20, udpLength, pseudo)).as("UDP with the pseudo-header").isZero();
        assertThat(((d[20] & 0xff) << 8) | (d[21] & 0xff)).isEqualTo(68);
        assertThat(((d[22] & 0xff) << 8) | (d[23] & 0xff)).isEqualTo(67);
    }

    @Test
    void unwrapFindsThePayloadOfADatagramToPort68() {
        byte[] d = reply(new byte[] {1, 2, 3});
        int[] payload = Ipv4Udp.unwrap(d, d.length);
        assertThat(payload).containsExactly(28, 3);
        assertThat(Ipv4Udp.source(d)).isEqualTo(SERVER);
    }

    @Test
    void unwrapRefusesWhatIsNotAnUnfragmentedIntactDatagramToPort68() {
        byte[] good = reply(new byte[] {1, 2, 3});
        assertThat(Ipv4Udp.unwrap(good, 27)).as("truncated").isNull();
        byte[] corrupt = good.clone();
        corrupt[8] = 1; // TTL changed, checksum not
        assertThat(Ipv4Udp.unwrap(corrupt, corrupt.length)).as("header checksum").isNull();
        byte[] fragment = good.clone();
        fragment[6] = 0x20; // more fragments
        fix(fragment);
        assertThat(Ipv4Udp.unwrap(fragment, fragment.length)).as("a fragment").isNull();
        byte[] otherPort = good.clone();
        otherPort[23] = 69;
        assertThat(Ipv4Udp.unwrap(otherPort, otherPort.length)).as("port 69").isNull();
        byte[] tcp = good.clone();
        tcp[9] = 6;
        fix(tcp);
        assertThat(Ipv4Udp.unwrap(tcp, tcp.length)).as("TCP").isNull();
        byte[] v6 = good.clone();
        v6[0] = 0x65;
        assertThat(Ipv4Udp.unwrap(v6, v6.length)).as("not IPv4").isNull();
        byte[] shortUdp = good.clone();
        shortUdp[25] = 4; // UDP length below its header
        assertThat(Ipv4Udp.unwrap(shortUdp, shortUdp.length)).isNull();
    }

    /** A server's answer: from 10.1.2.1:67 to 10.1.2.3:68 (wrap's ports swapped, checksums fixed). */
    private static byte[] reply(byte[] payload) {
        byte[] d = Ipv4Udp.wrap(SERVER, SOURCE, payload);
        d[21] = 67;
        d[23] = 68;
        fix(d);
        return d;
    }

    private static void fix(byte[] d) {
        d[10] = 0;
        d[11] = 0;
        int sum = Ipv4Udp.checksum(d, 0, 20, 0);
        d[10] = (byte) (sum >>> 8);
        d[11] = (byte) sum;
    }

    private static int sum(byte[] four) {
        return (((four[0] & 0xff) << 8) | (four[1] & 0xff)) + (((four[2] & 0xff) << 8) | (four[3] & 0xff));
    }
}
