package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.netlink.NetNs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Real traffic between test namespaces, and what the receiving end sees: sockets are opened on threads switched into
 * each namespace (a socket belongs to the namespace it was created in), so the kernel's own routing, netfilter and
 * NAT decide what arrives and with which source address. Every wait is bounded (3 s); servers listen on ports the
 * kernel picks.
 */
public final class Traffic {
    private static final int TIMEOUT_MS = 3000;

    private Traffic() {}

    /**
     * A TCP connection from {@code from} to a listener on {@code address} in {@code to}: the source address the
     * listener sees (the host's after masquerading, the container's without), or empty when the connection does not
     * get through.
     */
    public static Optional<InetAddress> tcpSourceSeen(TestNetns from, TestNetns to, InetAddress address) {
        try (NetNs toNs = NetNs.open(to.path());
                NetNs fromNs = NetNs.open(from.path());
                ServerSocket server = toNs.call(() -> {
                    ServerSocket s = new ServerSocket();
                    s.bind(new InetSocketAddress(address, 0));
                    return s;
                })) {
            int port = server.getLocalPort();
            server.setSoTimeout(TIMEOUT_MS);
            try (Socket client = fromNs.call(() -> {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(address, port), TIMEOUT_MS);
                return s;
            }); Socket accepted = server.accept()) {
                client.getOutputStream().write(42);
                accepted.setSoTimeout(TIMEOUT_MS);
                if (accepted.getInputStream().read() != 42) {
                    return Optional.empty();
                }
                return Optional.of(((InetSocketAddress) accepted.getRemoteSocketAddress()).getAddress());
            } catch (IOException e) {
                return Optional.empty();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A UDP datagram sent from {@code from}, its socket bound to {@code source} (an address of {@code from}; multicast
     * leaves through {@code fromInterface}), to {@code destination} (a multicast group joined in
     * {@code to} on {@code toInterface}) or to a unicast address of {@code to} ({@code toInterface} null): the source
     * address the receiver sees, or empty when nothing arrives.
     */
    public static Optional<InetAddress> udpSourceSeen(TestNetns from, InetAddress source, String fromInterface,
            TestNetns to, InetAddress destination, String toInterface) {
        // IPv4-only channels: the group is joined as IPv4 and the source is an IPv4 address.
        try (NetNs toNs = NetNs.open(to.path());
                NetNs fromNs = NetNs.open(from.path());
                DatagramChannel receiver = toNs.call(() -> {
                    DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET);
                    if (toInterface == null) {
                        c.bind(new InetSocketAddress(destination, 0));
                    } else {
                        c.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                        c.bind(new InetSocketAddress(0));
                        c.join(destination, NetworkInterface.getByName(toInterface));
                    }
                    return c;
                });
                DatagramChannel sender = fromNs.call(() -> {
                    DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET);
                    if (fromInterface != null) {
                        // Else Linux sends multicast out of the interface that holds the source address.
                        c.setOption(StandardSocketOptions.IP_MULTICAST_IF, NetworkInterface.getByName(fromInterface));
                    }
                    c.bind(new InetSocketAddress(source, 0));
                    return c;
                })) {
            int port = ((InetSocketAddress) receiver.getLocalAddress()).getPort();
            sender.send(ByteBuffer.wrap(new byte[] {7}), new InetSocketAddress(destination, port));
            DatagramSocket socket = receiver.socket();
            socket.setSoTimeout(TIMEOUT_MS);
            DatagramPacket got = new DatagramPacket(new byte[16], 16);
            try {
                socket.receive(got);
                return Optional.of(got.getAddress());
            } catch (SocketTimeoutException e) {
                return Optional.empty();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code nft -j list ruleset} in {@code ns}: its objects of one kind ("table", "chain", "rule"). */
    public static List<JsonNode> nftObjects(TestNetns ns, String kind) {
        ProcessResult listed = ns.exec("nft", "-j", "list", "ruleset").requireSuccess();
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode n : Json.parse(listed.stdout()).path("nftables")) {
            if (n.has(kind)) {
                out.add(n.get(kind));
            }
        }
        return out;
    }

    /** The rules of {@code nft -j list ruleset} in {@code ns} of one table and chain. */
    public static List<JsonNode> nftRules(TestNetns ns, String family, String table, String chain) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode rule : nftObjects(ns, "rule")) {
            if (rule.path("family").asText().equals(family) && rule.path("table").asText().equals(table)
                    && rule.path("chain").asText().equals(chain)) {
                out.add(rule);
            }
        }
        return out;
    }
}
