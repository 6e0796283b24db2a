package io.jcni.netlink.internal.rtnl;

import io.jcni.netlink.Address;
import io.jcni.netlink.Batch;
import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.Neighbor;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Filter;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.Route;
import io.jcni.netlink.Rule;
import io.jcni.netlink.internal.ffm.NetlinkSocket;
import io.jcni.netlink.internal.ns.NamespaceThreads;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.IfLinkH;
import io.jcni.netlink.internal.wire.NeighbourH;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import io.jcni.netlink.internal.wire.SocketH;
import io.jcni.netlink.internal.wire.Transport;
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
     * dedicated thread inside {@code netns} (see {@link NamespaceThreads}); the caller's thread never switches.
     */
    public static HandleImpl open(NetNs netns) {
        if (netns == null) {
            return new HandleImpl(NetlinkSocket.open(NetlinkH.NETLINK_ROUTE));
        }
        NetlinkSocket socket = netns.call(() -> NetlinkSocket.open(NetlinkH.NETLINK_ROUTE));
        return new HandleImpl(socket);
    }

    @Override
    protected void submit(int type, int flags, Object subject, Channel.Encoder encoder) {
        channel.execute(type, flags, subject, encoder);
    }

    // ---- links -------------------------------------------------------------------------------------------------

    @Override
    public List<Link> links() {
        return channel.dump(RtnetlinkH.RTM_GETLINK, null, w -> LinkCodec.getLink(w, 0, null), LinkCodec::decode);
    }

    @Override
    public Link link(String name) {
        io.jcni.netlink.LinkAttrs.checkName(name);
        return channel.get(RtnetlinkH.RTM_GETLINK, name, w -> LinkCodec.getLink(w, 0, name), LinkCodec::decode);
    }

    @Override
    public Link link(int index) {
        if (index <= 0) {
            throw new IllegalArgumentException("link index must be positive: " + index);
        }
        return channel.get(RtnetlinkH.RTM_GETLINK, "dev " + index, w -> LinkCodec.getLink(w, index, null),
                LinkCodec::decode);
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
        List<List<BridgeVlan>> perLink = channel.dump(RtnetlinkH.RTM_GETLINK, "bridge vlans dev " + index, w -> {
            LinkCodec.ifinfo(w, SocketH.AF_BRIDGE, 0, 0, 0);
            w.u32(IfLinkH.IFLA_EXT_MASK, RtnetlinkH.RTEXT_FILTER_BRVLAN);
        }, (b, off, len) -> LinkCodec.decodeVlans(b, off, len, index));
        List<BridgeVlan> all = new ArrayList<>();
        perLink.forEach(all::addAll);
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
        return channel.dump(RtnetlinkH.RTM_GETADDR, index == 0 ? null : "dev " + index,
                w -> AddressCodec.ifaddr(w, af, 0, 0, 0, index), (b, off, len) -> {
                    Address a = AddressCodec.decode(b, off, len);
                    return a == null || (index != 0 && a.index() != index)
                            || (family != null && a.family() != family) ? null : a;
                });
    }

    @Override
    public void settleAddresses(int index, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<Address> tentative = new ArrayList<>();
            for (Address a : addresses(index, Family.V6)) {
                if (a.isDadFailed()) {
                    throw new NetlinkException("settle addresses dev " + index, Errno.EADDRINUSE,
                            "duplicate address detection failed for " + a.prefix(), null);
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
        return channel.dump(RtnetlinkH.RTM_GETROUTE, table == 0 ? "table all" : "table " + table,
                w -> RouteCodec.dumpRequest(w, family, table), (b, off, len) -> {
                    Route r = RouteCodec.decode(b, off, len);
                    return r == null || (table != 0 && r.table() != table)
                            || (family != null && r.family() != family) ? null : r;
                });
    }

    // ---- neighbours --------------------------------------------------------------------------------------------

    @Override
    public List<Neighbor> neighbors(Family family, int index) {
        int af = family == null ? SocketH.AF_UNSPEC : family.af();
        return channel.dump(RtnetlinkH.RTM_GETNEIGH, index == 0 ? null : "dev " + index, w -> {
            NeighborCodec.ndmsg(w, af, 0, 0, 0);
            if (index != 0) {
                w.u32(NeighbourH.NDA_IFINDEX, index);
            }
        }, (b, off, len) -> {
            Neighbor n = NeighborCodec.decode(b, off, len);
            return n == null || (index != 0 && n.index() != index) || (family != null && n.family() != family)
                    ? null : n;
        });
    }

    // ---- rules and traffic control ----------------------------------------------------------------------------

    @Override
    public List<Rule> rules(Family family) {
        return channel.dump(RtnetlinkH.RTM_GETRULE, family, new RuleCodec.DumpRequest(family),
                new RuleCodec.Decoder(family));
    }

    @Override
    public List<Qdisc> qdiscs(int index) {
        TcCodec.DumpRequest request = new TcCodec.DumpRequest(index, 0);
        return channel.dump(RtnetlinkH.RTM_GETQDISC, index == 0 ? null : "dev " + index, request,
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
        throw new NetlinkException("RTM_GETQDISC " + new TcCodec.QdiscRef(index, parent, 0), Errno.ENOENT,
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
        TcCodec.DumpRequest request = new TcCodec.DumpRequest(index, parent);
        return channel.dump(RtnetlinkH.RTM_GETTFILTER, request, request, new TcCodec.FilterDecoder(index));
    }

    @Override
    public Batch batch() {
        return new BatchImpl(channel);
    }

    @Override
    public void close() {
        channel.close();
    }
}
