package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.netlink.NetNs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Real traffic between test namespaces, and what the receiving end sees: sockets are opened on threads switched into
 * each namespace (a socket belongs to the namespace it was created in, and a Java socket is made when it binds or
 * connects, so that happens on those threads), so the kernel's own routing, netfilter and NAT decide what arrives and
 * with which source address. Every wait is bounded. Two kinds: a listener on an address the kernel picks a port on
 * ({@link #tcpSourceSeen}, {@link #udpSourceSeen}: masquerading), and a server on a chosen port reached through an
 * address and port that NAT may translate ({@link #tcp}, {@link #udp}: port mappings), where each exchange goes both
 * ways, so a route missing for the replies fails it too.
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

    /** What the server saw: whether the exchange went both ways, and the client's address as the server saw it. */
    public record Seen(boolean reached, InetAddress peer) {
        static final Seen NOTHING = new Seen(false, null);
    }

    /**
     * A TCP connection from {@code client} to {@code address:port}, answered by a server listening on
     * {@code serverPort} (all addresses of {@code address}'s family) in {@code server}.
     */
    public static Seen tcp(TestNetns client, TestNetns server, InetAddress address, int port, int serverPort) {
        return tcp(client.path(), server.path(), address, port, serverPort);
    }

    /** {@link #tcp(TestNetns, TestNetns, InetAddress, int, int)} between namespaces given by path (a pod's). */
    public static Seen tcp(Path client, Path server, InetAddress address, int port, int serverPort) {
        try (NetNs serverNs = NetNs.open(server);
                NetNs clientNs = NetNs.open(client);
                ServerSocket listener = serverNs.call(() -> {
                    ServerSocket s = new ServerSocket();
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress(wildcard(address), serverPort));
                    return s;
                })) {
            listener.setSoTimeout(TIMEOUT_MS);
            // The socket is made (and so placed in a namespace) when it connects: connect on the namespace's thread.
            Socket connected = clientNs.call(() -> {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(address, port), TIMEOUT_MS);
                    return s;
                } catch (IOException e) {
                    s.close();
                    return null;
                }
            });
            if (connected == null) {
                return Seen.NOTHING;
            }
            try (Socket socket = connected) {
                try (Socket accepted = listener.accept()) {
                    OutputStream out = socket.getOutputStream();
                    out.write(42);
                    out.flush();
                    accepted.setSoTimeout(TIMEOUT_MS);
                    InputStream in = accepted.getInputStream();
                    if (in.read() != 42) {
                        return Seen.NOTHING;
                    }
                    accepted.getOutputStream().write(43);
                    accepted.getOutputStream().flush();
                    socket.setSoTimeout(TIMEOUT_MS);
                    boolean back = socket.getInputStream().read() == 43;
                    return new Seen(back, accepted.getInetAddress());
                } catch (SocketTimeoutException e) {
                    return Seen.NOTHING; // connected, but to someone else (a listener of the host, say)
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A UDP datagram from {@code client} to {@code address:port} and the answer of a server bound to
     * {@code serverPort} in {@code server}; sent up to five times, a second apart (IPv6 neighbour discovery waits for
     * duplicate address detection of a gateway address made a moment ago).
     */
    public static Seen udp(TestNetns client, TestNetns server, InetAddress address, int port, int serverPort) {
        return udp(client.path(), server.path(), address, port, serverPort);
    }

    /** {@link #udp(TestNetns, TestNetns, InetAddress, int, int)} between namespaces given by path (a pod's). */
    public static Seen udp(Path client, Path server, InetAddress address, int port, int serverPort) {
        try (NetNs serverNs = NetNs.open(server);
                NetNs clientNs = NetNs.open(client);
                DatagramSocket listener = serverNs.call(() -> new DatagramSocket(new InetSocketAddress(
                        wildcard(address), serverPort)));
                DatagramSocket socket = clientNs.call(() -> new DatagramSocket(new InetSocketAddress(
                        wildcard(address), 0)))) {
            listener.setSoTimeout(1000);
            socket.setSoTimeout(1000);
            byte[] ping = {'p', 'i', 'n', 'g'};
            InetAddress peer = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                socket.send(new DatagramPacket(ping, ping.length, new InetSocketAddress(address, port)));
                DatagramPacket got = new DatagramPacket(new byte[16], 16);
                try {
                    listener.receive(got);
                } catch (SocketTimeoutException e) {
                    continue;
                }
                if (!Arrays.equals(Arrays.copyOf(got.getData(), got.getLength()), ping)) {
                    continue;
                }
                peer = got.getAddress();
                byte[] pong = {'p', 'o', 'n', 'g'};
                listener.send(new DatagramPacket(pong, pong.length, got.getSocketAddress()));
                DatagramPacket answer = new DatagramPacket(new byte[16], 16);
                try {
                    socket.receive(answer);
                } catch (SocketTimeoutException e) {
                    continue; // the answer was lost: try the whole exchange again
                }
                if (Arrays.equals(Arrays.copyOf(answer.getData(), answer.getLength()), pong)) {
                    return new Seen(true, peer);
                }
            }
            return new Seen(false, peer);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static InetAddress wildcard(InetAddress like) throws IOException {
        return InetAddress.getByAddress(new byte[like instanceof Inet4Address ? 4 : 16]);
    }
}
