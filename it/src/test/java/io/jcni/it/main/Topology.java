package io.jcni.it.main;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Locations;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.netlink.NetNs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;

/**
 * The world an interface plugin test runs in, made of test namespaces only: a {@link TestHost} as the <b>host</b> (the
 * plugin runs there, under {@code ip netns exec}), a <b>container</b>, and a <b>peer</b> outside both. The host holds a
 * veth end (the master of macvlan, or the device host-device moves) whose other end is in the peer, addressed
 * {@code 10.77.1.1/24}: the gateway the container reaches through the plugin's link. Closing deletes all three.
 */
public final class Topology implements AutoCloseable {
    public static final String PEER_ADDRESS = "10.77.1.1";

    /** The host's namespace. */
    public final TestNetns host;
    public final TestNetns container;
    public final TestNetns peer;
    public final String lower;
    private final TestHost testHost;

    private Topology(TestHost testHost, TestNetns container, TestNetns peer, String lower) {
        this.testHost = testHost;
        this.host = testHost.netns();
        this.container = container;
        this.peer = peer;
        this.lower = lower;
    }

    /** Three namespaces and the veth {@code lower} (in host, up) / {@code peer0} (in peer, up, 10.77.1.1/24). */
    public static Topology create(String tag, String lower) {
        TestHost host = TestHost.create(tag);
        try {
            TestNetns container = host.container();
            TestNetns peer = host.container();
            host.exec("ip", "link", "add", lower, "mtu", "1500", "type", "veth", "peer", "name", "peer0", "netns",
                    peer.name()).requireSuccess();
            host.exec("ip", "link", "set", lower, "up").requireSuccess();
            peer.exec("ip", "link", "set", "peer0", "up").requireSuccess();
            peer.exec("ip", "addr", "add", PEER_ADDRESS + "/24", "dev", "peer0").requireSuccess();
            return new Topology(host, container, peer, lower);
        } catch (RuntimeException | Error e) {
            host.close();
            throw e;
        }
    }

    /** jcni's launcher of {@code type} run in this host, with jcni's plugins, then Debian's Go ones, in CNI_PATH. */
    public CniExec jcniPlugin(String type) {
        return CniExec.of(Locations.distPlugin(type), List.of(Locations.distCniBin(), Locations.referencePlugins()))
                .inNetns(host.name());
    }

    /** Debian's Go plugin {@code type} run in this host, with Debian's plugins in CNI_PATH. */
    public CniExec goPlugin(String type) {
        return CniExec.of(Locations.referencePlugin(type), List.of(Locations.referencePlugins())).inNetns(host.name());
    }

    /** A result with what differs between two topologies replaced: the container's path and the link's MAC. */
    public String normalized(JsonNode result, String mac) {
        return result.toString().replace(container.path().toString(), "NETNS").replace(mac, "MAC");
    }

    /** Gives the host an address on the lower device and a default route through the peer. */
    public Topology withHostDefaultRoute() {
        host.exec("ip", "addr", "add", "10.77.1.2/24", "dev", lower).requireSuccess();
        host.exec("ip", "route", "add", "default", "via", PEER_ADDRESS).requireSuccess();
        return this;
    }

    /**
     * Whether a TCP connection from {@code from} reaches a listener on {@code address} in {@code to}: sockets opened
     * on threads inside each namespace, a byte each way. Proves the path through the plugin's link end to end.
     */
    public static boolean reaches(TestNetns from, TestNetns to, String address) {
        try (NetNs toNs = NetNs.open(to.path());
                NetNs fromNs = NetNs.open(from.path());
                ServerSocket server = toNs.call(() -> {
                    ServerSocket s = new ServerSocket();
                    s.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
                    return s;
                })) {
            int port = server.getLocalPort();
            server.setSoTimeout(3000);
            try (Socket client = fromNs.call(() -> {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(InetAddress.getByName(address), port), 3000);
                return s;
            }); Socket accepted = server.accept()) {
                OutputStream out = client.getOutputStream();
                out.write(42);
                out.flush();
                InputStream in = accepted.getInputStream();
                accepted.setSoTimeout(3000);
                return in.read() == 42;
            } catch (IOException e) {
                return false;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes the container, the peer and the host. */
    @Override
    public void close() {
        testHost.close();
    }
}
