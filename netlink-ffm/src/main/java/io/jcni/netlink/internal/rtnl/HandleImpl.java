package io.jcni.netlink.internal.rtnl;

import io.jcni.netlink.Address;
import io.jcni.netlink.Batch;
import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.Neighbor;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Filter;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.Route;
import io.jcni.netlink.Rule;
import io.jcni.netlink.internal.ffm.OpenSocket;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.IfLinkH;
import io.jcni.netlink.internal.wire.NeighbourH;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import io.jcni.netlink.internal.wire.SocketH;
import io.jcni.netlink.internal.wire.Transport;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** {@link NetlinkHandle} over one {@link Channel}: changes from {@link Ops} sent at once, reads as dumps or gets. */
public final class HandleImpl extends Ops implements NetlinkHandle {
    private static final long SETTLE_POLL_MILLIS = 20;

    private final Channel channel;

    public HandleImpl(Transport transport) {
        this.channel = new Channel(transport);
    }

    /**
     * A handle in {@code netns}, or in the calling thread's namespace when null. The socket is created on a
     * dedicated thread inside {@code netns} (see {@code NamespaceThreads}); the caller's thread never switches.
     */
    public static HandleImpl open(NetNs netns) {
        return new HandleImpl(OpenSocket.in(netns, NetlinkH.NETLINK_ROUTE));
    }

    @Override
    protected void submit(Request request) {
        channel.execute(request);
    }

    // ---- links -------------------------------------------------------------------------------------------------

    @Override
    public List<Link> links() {
        return channel.dump(new GetLink(0, null), LINKS);
    }

    @Override
    public Link link(String name) {
        LinkAttrs.checkName(name);
        return channel.get(new GetLink(0, name), LINKS);
    }

    @Override
    public Link link(int index) {
        if (index <= 0) {
            throw new IllegalArgumentException("link index must be positive: " + index);
        }
        return channel.get(new GetLink(index, null), LINKS);
    }

    @Override
    public Optional<Link> findLink(String name) {
        try {
            return Optional.of(link(name));
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public Optional<Link> findLink(int index) {
        try {
            return Optional.of(link(index));
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public List<BridgeVlan> bridgeVlans(int index) {
        List<List<BridgeVlan>> perLink = channel.dump(new Dump(RtnetlinkH.RTM_GETLINK, "bridge vlans dev " + index) {
            @Override
            public void encode(MessageWriter w) {
                LinkCodec.ifinfo(w, SocketH.AF_BRIDGE, 0, 0, 0);
                w.u32(IfLinkH.IFLA_EXT_MASK, RtnetlinkH.RTEXT_FILTER_BRVLAN);
            }
        }, new VlansOf(index));
        List<BridgeVlan> all = new ArrayList<>();
        for (List<BridgeVlan> vlans : perLink) {
            all.addAll(vlans);
        }
        return all;
    }

    // ---- addresses ---------------------------------------------------------------------------------------------

    @Override
    public List<Address> addresses(Family family) {
        return addresses(0, family);
    }

    @Override
    public List<Address> addresses(int index, Family family) {
        int af = family == null ? SocketH.AF_UNSPEC : family.af();
        return channel.dump(new Dump(RtnetlinkH.RTM_GETADDR, index == 0 ? null : "dev " + index) {
            @Override
            public void encode(MessageWriter w) {
                AddressCodec.ifaddr(w, af, 0, 0, 0, index);
            }
        }, new AddressesOf(index, family));
    }

    @Override
    public void settleAddresses(int index, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Address> tentative = new ArrayList<>();
            for (Address a : addresses(index, Family.V6)) {
                if (a.isDadFailed()) {
                    throw new NetlinkException("settle addresses dev " + index, Errno.EADDRINUSE,
                            "duplicate address detection failed for " + a.address().getHostAddress() + "/"
                                    + a.prefixLength(), null);
                }
                if (a.isTentative()) {
                    tentative.add(a);
                }
            }
            if (tentative.isEmpty()) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new NetlinkException("settle addresses dev " + index, Errno.ETIMEDOUT,
                        "still tentative after " + timeout.toMillis() + " ms: " + tentative, null);
            }
            try {
                Thread.sleep(SETTLE_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new NetlinkException("settle addresses dev " + index, Errno.EINTR, "interrupted", e);
            }
        }
    }

    // ---- routes ------------------------------------------------------------------------------------------------

    @Override
    public List<Route> routes(Family family) {
        return routes(family, Route.TABLE_MAIN);
    }

    @Override
    public List<Route> routes(Family family, int table) {
        return channel.dump(new Dump(RtnetlinkH.RTM_GETROUTE, table == 0 ? "table all" : "table " + table) {
            @Override
            public void encode(MessageWriter w) {
                RouteCodec.dumpRequest(w, family, table);
            }
        }, new RoutesOf(table, family));
    }

    @Override
    public Route routeGet(InetAddress destination) {
        Family family = Family.of(destination);
        return channel.get(new Dump(RtnetlinkH.RTM_GETROUTE, "get " + destination.getHostAddress()) {
            @Override
            public void encode(MessageWriter w) {
                RouteCodec.rtmsg(w, family.af(), family.bits(), 0, 0, 0, 0, 0);
                w.address(RtnetlinkH.RTA_DST, destination);
            }
        }, new RoutesOf(0, family));
    }

    // ---- neighbours --------------------------------------------------------------------------------------------

    @Override
    public List<Neighbor> neighbors(Family family, int index) {
        int af = family == null ? SocketH.AF_UNSPEC : family.af();
        return channel.dump(new Dump(RtnetlinkH.RTM_GETNEIGH, index == 0 ? null : "dev " + index) {
            @Override
            public void encode(MessageWriter w) {
                NeighborCodec.ndmsg(w, af, 0, 0, 0);
                if (index != 0) {
                    w.u32(NeighbourH.NDA_IFINDEX, index);
                }
            }
        }, new NeighborsOf(index, family));
    }

    // ---- rules and traffic control ----------------------------------------------------------------------------

    @Override
    public List<Rule> rules(Family family) {
        return channel.dump(new RuleCodec.DumpRequest(family), new RuleCodec.Decoder(family));
    }

    @Override
    public List<Qdisc> qdiscs(int index) {
        return channel.dump(new TcCodec.DumpRequest(RtnetlinkH.RTM_GETQDISC, index, 0),
                new TcCodec.QdiscDecoder(index));
    }

    /**
     * From the link's dump rather than an {@code RTM_GETQDISC} get: the kernel answers a get only to a request with
     * {@code NLM_F_ECHO} (it multicasts the reply, {@code qdisc_get_notify}); a dump needs nothing special.
     */
    @Override
    public Qdisc qdisc(int index, int parent) {
        if (index <= 0) {
            throw new IllegalArgumentException("link index must be positive: " + index);
        }
        for (Qdisc q : qdiscs(index)) {
            if (q.parent() == parent) {
                return q;
            }
        }
        throw new NetlinkException("RTM_GETQDISC " + TcCodec.qdiscRef(index, parent, 0), Errno.ENOENT,
                "no qdisc there", null);
    }

    @Override
    public Optional<Qdisc> findQdisc(int index, int parent) {
        try {
            return Optional.of(qdisc(index, parent));
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public List<Filter> filters(int index, int parent) {
        if (index <= 0) {
            throw new IllegalArgumentException("link index must be positive: " + index);
        }
        return channel.dump(new TcCodec.DumpRequest(RtnetlinkH.RTM_GETTFILTER, index, parent),
                new TcCodec.FilterDecoder(index));
    }

    @Override
    public Batch batch() {
        return new BatchImpl(channel);
    }

    @Override
    public void close() {
        channel.close();
    }

    // ---- reads: requests and decoders --------------------------------------------------------------------------

    /** A read request of {@code type} whose subject is fixed; the body is written by the subclass. */
    private abstract static class Dump extends Request {
        private final String subject;

        Dump(int type, String subject) {
            super(type, 0);
            this.subject = subject;
        }

        @Override
        protected String subject() {
            return subject;
        }
    }

    /** {@code RTM_GETLINK} of every link, one by index or one by name. */
    private static final class GetLink extends Request {
        private final int index;
        private final String name;

        GetLink(int index, String name) {
            super(RtnetlinkH.RTM_GETLINK, 0);
            this.index = index;
            this.name = name;
        }

        @Override
        public void encode(MessageWriter w) {
            LinkCodec.getLink(w, index, name);
        }

        @Override
        protected String subject() {
            return name != null ? name : index != 0 ? "dev " + index : null;
        }
    }

    private static final Channel.Decoder<Link> LINKS = new Channel.Decoder<>() {
        @Override
        public Link decode(ByteBuffer b, int off, int len) {
            return LinkCodec.decode(b, off, len);
        }
    };

    private record VlansOf(int index) implements Channel.Decoder<List<BridgeVlan>> {
        @Override
        public List<BridgeVlan> decode(ByteBuffer b, int off, int len) {
            return LinkCodec.decodeVlans(b, off, len, index);
        }
    }

    /** Addresses of link {@code index} (0: all) and {@code family} (null: both); the kernel may send others. */
    private record AddressesOf(int index, Family family) implements Channel.Decoder<Address> {
        @Override
        public Address decode(ByteBuffer b, int off, int len) {
            Address a = AddressCodec.decode(b, off, len);
            return a == null || (index != 0 && a.index() != index) || (family != null && a.family() != family)
                    ? null : a;
        }
    }

    /** Routes of {@code table} (0: all) and {@code family} (null: both). */
    private record RoutesOf(int table, Family family) implements Channel.Decoder<Route> {
        @Override
        public Route decode(ByteBuffer b, int off, int len) {
            Route r = RouteCodec.decode(b, off, len);
            return r == null || (table != 0 && r.table() != table) || (family != null && r.family() != family)
                    ? null : r;
        }
    }

    /** Neighbours of link {@code index} (0: all) and {@code family} (null: both). */
    private record NeighborsOf(int index, Family family) implements Channel.Decoder<Neighbor> {
        @Override
        public Neighbor decode(ByteBuffer b, int off, int len) {
            Neighbor n = NeighborCodec.decode(b, off, len);
            return n == null || (index != 0 && n.index() != index) || (family != null && n.family() != family)
                    ? null : n;
        }
    }
}
