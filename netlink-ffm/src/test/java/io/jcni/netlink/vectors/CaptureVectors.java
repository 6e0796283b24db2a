package io.jcni.netlink.vectors;

import io.jcni.netlink.AddressFlag;
import io.jcni.netlink.Cidrs;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.MacvlanMode;
import io.jcni.netlink.Neighbor;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NextHop;
import io.jcni.netlink.Route;
import io.jcni.netlink.internal.ffm.NetlinkSocket;
import io.jcni.netlink.internal.rtnl.HandleImpl;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Records real kernel replies as test vectors: builds a namespace with veth, bridge (+port), macvlan, addresses,
 * routes (metrics, multipath, default) and neighbours, dumps each table through a recording transport, and saves the
 * raw datagrams (hex, one per line) next to iproute2's JSON of the same state. Not a test; run by hand as root when
 * the vectors need refreshing, with the command in {@code src/test/resources/io/jcni/netlink/vectors/README.md}.
 */
public final class CaptureVectors {
    private CaptureVectors() {}

    /** Copies every datagram received into {@link #datagrams}. */
    static final class Recording implements Transport {
        final Transport delegate;
        final List<byte[]> datagrams = new ArrayList<>();

        Recording(Transport delegate) {
            this.delegate = delegate;
        }

        @Override
        public int portId() {
            return delegate.portId();
        }

        @Override
        public void send(byte[] data, int offset, int length) {
            delegate.send(data, offset, length);
        }

        @Override
        public int receive(boolean wait) {
            int n = delegate.receive(wait);
            if (n > 0) {
                ByteBuffer b = delegate.receiveBuffer();
                byte[] copy = new byte[Math.min(n, b.capacity())];
                b.get(0, copy);
                datagrams.add(copy);
            }
            return n;
        }

        @Override
        public ByteBuffer receiveBuffer() {
            return delegate.receiveBuffer();
        }

        @Override
        public void growReceiveBuffer(int minCapacity) {
            delegate.growReceiveBuffer(minCapacity);
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args.length > 0 ? args[0] : "netlink-ffm/src/test/resources/io/jcni/netlink/vectors");
        Files.createDirectories(out);
        try (NetNs ns = NetNs.create()) {
            Recording rec = new Recording(ns.call(() -> NetlinkSocket.open(NetlinkH.NETLINK_ROUTE)));
            try (HandleImpl nl = new HandleImpl(rec)) {
                nl.setUp(nl.link("lo").index());
                nl.addVeth(LinkAttrs.named("v0").mtu(1400).address(MacAddress.parse("02:00:00:00:00:10")),
                        LinkAttrs.named("v1").address(MacAddress.parse("02:00:00:00:00:11")));
                int v0 = nl.link("v0").index();
                int v1 = nl.link("v1").index();
                nl.setAlias(v0, "vector alias");
                nl.setTxQueueLen(v0, 500);
                nl.setUp(v0);
                nl.setUp(v1);
                nl.addBridge(LinkAttrs.named("br0").address(MacAddress.parse("02:00:00:00:00:12")).up(true));
                int br0 = nl.link("br0").index();
                nl.setMaster(v1, br0);
                nl.setHairpin(v1, true);
                nl.addMacvlan(LinkAttrs.named("mv0").address(MacAddress.parse("02:00:00:00:00:13")), v0,
                        MacvlanMode.PRIVATE);
                nl.addAddress(Cidrs.address(v0, "10.1.0.1/24"));
                nl.addAddress(Cidrs.address(v0, "10.2.0.1/32").peer(InetAddress.ofLiteral("10.2.0.2"))
                        .scope(io.jcni.netlink.Scope.LINK).label("v0:p"));
                nl.addAddress(Cidrs.address(v0, "fd00::1/64").flags(AddressFlag.NODAD,
                        AddressFlag.NOPREFIXROUTE));
                nl.addAddress(Cidrs.address(br0, "fd01::1/64").flags(AddressFlag.NODAD));
                nl.addRoute(Cidrs.route("10.5.0.0/16").via(InetAddress.ofLiteral("10.1.0.2"))
                        .metric(7).table(100).src(InetAddress.ofLiteral("10.1.0.1")).mtu(1300).advmss(1200));
                nl.addRoute(Cidrs.route("10.6.0.0/16").multipath(List.of(
                        NextHop.via(InetAddress.ofLiteral("10.1.0.2"), v0).weight(3),
                        NextHop.via(InetAddress.ofLiteral("10.1.0.3"), v0))));
                nl.addRoute(Route.defaultVia(InetAddress.ofLiteral("fd01::fe")).dev(br0).metric(10));
                nl.addNeighbor(Neighbor.permanent(v0, InetAddress.ofLiteral("10.1.0.9"),
                        MacAddress.parse("02:00:00:00:00:99")));
                nl.addNeighbor(Neighbor.permanent(br0, InetAddress.ofLiteral("fd01::9"),
                        MacAddress.parse("02:00:00:00:00:98")));

                String enter = "--net=" + ns.path();
                capture(rec, out, "links", nl::links, enter, "ip", "-j", "-d", "link", "show");
                capture(rec, out, "addresses", () -> nl.addresses(null), enter, "ip", "-j", "addr", "show");
                capture(rec, out, "routes", () -> nl.routes(null, 0), enter, "ip", "-j", "route", "show", "table",
                        "all");
                capture(rec, out, "routes6", () -> nl.routes(io.jcni.netlink.Family.V6, 0), enter, "ip", "-6",
                        "-j", "route", "show", "table", "all");
                capture(rec, out, "neighbors", () -> nl.neighbors(null, 0), enter, "ip", "-j", "neigh", "show");
                rec.datagrams.clear();
                try {
                    nl.addAddress(Cidrs.address(v0, "10.1.0.1/24"));
                } catch (NetlinkException e) {
                    write(out.resolve("error-eexist.hex"), rec.datagrams);
                    Files.writeString(out.resolve("error-eexist.txt"), e.getMessage() + "\n");
                }
            }
        }
    }

    private static void capture(Recording rec, Path out, String name, Runnable dump, String enter, String... ip)
            throws IOException, InterruptedException {
        rec.datagrams.clear();
        dump.run();
        write(out.resolve(name + ".hex"), rec.datagrams);
        List<String> command = new ArrayList<>(List.of("nsenter", enter));
        command.addAll(List.of(ip));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] json = p.getInputStream().readAllBytes();
        if (p.waitFor() != 0) {
            throw new IllegalStateException(command + " failed");
        }
        Files.write(out.resolve(name + ".json"), json);
    }

    private static void write(Path file, List<byte[]> datagrams) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (byte[] d : datagrams) {
            sb.append(HexFormat.of().formatHex(d)).append('\n');
        }
        Files.writeString(file, sb, StandardCharsets.US_ASCII);
    }
}
