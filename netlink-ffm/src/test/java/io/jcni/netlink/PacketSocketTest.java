package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.internal.ffm.NativeMemory;
import io.jcni.netlink.sys.PacketSocket;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link PacketSocket} between two test namespaces joined by a veth pair ({@code p0} in "client", {@code p1} in
 * "server"), against the kernel's own UDP sockets on the other side: what the socket receives (its port only, whole
 * first fragments only, with or without an address on the link), what it sends (a datagram a plain UDP socket
 * receives), its timeout, and that closing it frees its native memory. {@code ss} shows the socket bound to the link.
 */
class PacketSocketTest {
    private TestNamespace client;
    private TestNamespace server;
    private Link p0;
    private Link p1;

    @BeforeEach
    void namespaces() {
        client = TestNamespace.create();
        server = TestNamespace.create();
        Kernel.sh("ip", "-n", client.name, "link", "add", "p0", "type", "veth", "peer", "name", "p1", "netns",
                server.name);
        Kernel.sh("ip", "-n", client.name, "link", "set", "p0", "up");
        Kernel.sh("ip", "-n", server.name, "link", "set", "p1", "up");
        Kernel.sh("ip", "-n", server.name, "addr", "add", "10.9.0.1/24", "dev", "p1");
        p0 = client.nl.link("p0");
        p1 = server.nl.link("p1");
    }

    @AfterEach
    void remove() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void receivesItsPortOnALinkWithoutAddressAndNotOtherPortsOrLaterFragments() throws Exception {
        long before = NativeMemory.liveBytes();
        try (PacketSocket socket = PacketSocket.openUdp(client.ns, p0.index(), 68);
                DatagramSocket sender = server.ns.call(() -> {
                    DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("10.9.0.1"),
                            67));
                    s.setBroadcast(true);
                    return s;
                })) {
            assertThat(Kernel.sh("ip", "netns", "exec", client.name, "ss", "-0", "-a", "-n"))
                    .as("ss lists a packet socket for IPv4 on p0").contains("p0");
            byte[] other = "to port 69".getBytes(StandardCharsets.UTF_8);
            sender.send(new DatagramPacket(other, other.length, InetAddress.getByName("255.255.255.255"), 69));
            // A later fragment whose bytes at the UDP header's place would say port 68: dropped by the filter.
            try (PacketSocket injector = PacketSocket.openUdp(server.ns, p1.index(), 9)) {
                byte[] fragment = Ipv4.udp(new byte[] {10, 9, 0, 1}, new byte[] {(byte) 255, (byte) 255, (byte) 255,
                        (byte) 255}, 67, 68, "a fragment".getBytes(StandardCharsets.UTF_8));
                fragment[7] = 8; // fragment offset 64 bytes
                Ipv4.fixHeaderChecksum(fragment);
                injector.send(fragment, 0, fragment.length, p0.address());
            }
            byte[] payload = "to port 68".getBytes(StandardCharsets.UTF_8);
            sender.send(new DatagramPacket(payload, payload.length, InetAddress.getByName("255.255.255.255"), 68));

            byte[] buffer = new byte[2048];
            PacketSocket.Received received = socket.receive(buffer, 3000);
            assertThat(received).isNotNull();
            assertThat(received.from()).isEqualTo(p1.address());
            assertThat(received.broadcast()).isTrue();
            int headerLength = (buffer[0] & 0x0f) * 4;
            assertThat(buffer[9]).as("UDP").isEqualTo((byte) 17);
            assertThat(((buffer[headerLength + 2] & 0xff) << 8) | (buffer[headerLength + 3] & 0xff)).isEqualTo(68);
            assertThat(Arrays.copyOfRange(buffer, headerLength + 8, received.length())).isEqualTo(payload);
            assertThat(socket.receive(buffer, 300)).as("port 69 and the fragment were filtered out").isNull();

            // Unicast to the link's MAC and an address it does not have: still received (a DHCP offer looks so).
            Kernel.sh("ip", "-n", server.name, "neigh", "add", "10.9.0.77", "lladdr", p0.address().toString(), "dev",
                    "p1");
            sender.send(new DatagramPacket(payload, payload.length, InetAddress.getByName("10.9.0.77"), 68));
            PacketSocket.Received unicast = socket.receive(buffer, 3000);
            assertThat(unicast).isNotNull();
            assertThat(unicast.broadcast()).isFalse();
            assertThat(Arrays.copyOfRange(buffer, 16, 20)).isEqualTo(new byte[] {10, 9, 0, 77});
        }
        assertThat(NativeMemory.liveBytes()).as("closing frees the socket's buffers").isEqualTo(before);
    }

    @Test
    void sendsADatagramThatAPlainUdpSocketReceives() throws Exception {
        try (PacketSocket socket = PacketSocket.openUdp(client.ns, p0.index(), 68);
                DatagramSocket receiver = server.ns.call(() -> new DatagramSocket(67))) {
            receiver.setSoTimeout(3000);
            byte[] payload = "a DHCPDISCOVER stands here".getBytes(StandardCharsets.UTF_8);
            byte[] datagram = Ipv4.udp(new byte[4], new byte[] {(byte) 255, (byte) 255, (byte) 255, (byte) 255}, 68,
                    67, payload);
            socket.send(datagram, 0, datagram.length, MacAddress.parse("ff:ff:ff:ff:ff:ff"));
            DatagramPacket packet = new DatagramPacket(new byte[2048], 2048);
            receiver.receive(packet);
            assertThat(Arrays.copyOf(packet.getData(), packet.getLength())).isEqualTo(payload);
            assertThat(packet.getPort()).isEqualTo(68);
            assertThat(packet.getAddress().getAddress()).isEqualTo(new byte[4]);
        }
    }

    @Test
    void receiveReturnsNullAfterItsTimeout() {
        try (PacketSocket socket = PacketSocket.openUdp(client.ns, p0.index(), 68)) {
            long start = System.nanoTime();
            assertThat(socket.receive(new byte[64], 200)).isNull();
            assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(150);
        }
    }

    @Test
    void aLinkThatDoesNotExistIsNotFound() {
        assertThatThrownBy(() -> PacketSocket.openUdp(client.ns, 4242, 68)).isInstanceOfSatisfying(
                KernelException.class, e -> {
                    assertThat(e.isNotFound()).as(e.getMessage()).isTrue();
                    assertThat(e.getMessage()).startsWith("bind AF_PACKET ifindex 4242: ENODEV");
                });
    }

    /** IPv4 + UDP datagrams for the tests, written from RFC 791 and RFC 768. */
    static final class Ipv4 {
        static byte[] udp(byte[] source, byte[] destination, int sourcePort, int destinationPort, byte[] payload) {
            int total = 28 + payload.length;
            byte[] d = new byte[total];
            d[0] = 0x45;
            d[2] = (byte) (total >>> 8);
            d[3] = (byte) total;
            d[8] = 64;
            d[9] = 17;
            System.arraycopy(source, 0, d, 12, 4);
            System.arraycopy(destination, 0, d, 16, 4);
            fixHeaderChecksum(d);
            d[20] = (byte) (sourcePort >>> 8);
            d[21] = (byte) sourcePort;
            d[22] = (byte) (destinationPort >>> 8);
            d[23] = (byte) destinationPort;
            d[24] = (byte) ((8 + payload.length) >>> 8);
            d[25] = (byte) (8 + payload.length);
            System.arraycopy(payload, 0, d, 28, payload.length); // UDP checksum 0: none, allowed for IPv4
            return d;
        }

        static void fixHeaderChecksum(byte[] d) {
            d[10] = 0;
            d[11] = 0;
            int sum = 0;
            for (int i = 0; i < 20; i += 2) {
                sum += ((d[i] & 0xff) << 8) | (d[i + 1] & 0xff);
            }
            sum = (sum & 0xffff) + (sum >>> 16);
            sum = (sum & 0xffff) + (sum >>> 16);
            d[10] = (byte) (~sum >>> 8);
            d[11] = (byte) ~sum;
        }

        private Ipv4() {}
    }
}
