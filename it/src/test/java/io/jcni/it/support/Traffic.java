package io.jcni.it.support;

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
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.Arrays;

/**
 * Real traffic between test namespaces, through whatever NAT the plugins set up: a server in one namespace, a client
 * in another (or the same: hairpin) connecting to an address and port that may be translated on the way. Sockets are
 * created on threads switched into each namespace ({@link NetNs#call}; a socket stays in the namespace it was created
 * in) and used from the test's thread. Each exchange goes both ways (a byte there and back), so a route missing for
 * the replies fails it too; the server reports the address it saw the connection come from, which tells whether it was
 * masqueraded.
 */
public final class Traffic {
    private static final int TIMEOUT_MS = 3000;

    private Traffic() {
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
        try (NetNs serverNs = NetNs.open(server.path());
                NetNs clientNs = NetNs.open(client.path());
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
        try (NetNs serverNs = NetNs.open(server.path());
                NetNs clientNs = NetNs.open(client.path());
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
