package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.NetlinkH.NLM_F_CREATE;
import static io.jcni.netlink.internal.wire.NetlinkH.NLM_F_EXCL;
import static io.jcni.netlink.internal.wire.NetlinkH.NLM_F_REPLACE;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELADDR;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELLINK;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELNEIGH;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELROUTE;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWADDR;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWLINK;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWNEIGH;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWROUTE;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELQDISC;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELRULE;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_DELTFILTER;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWQDISC;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWRULE;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_NEWTFILTER;
import static io.jcni.netlink.internal.wire.RtnetlinkH.RTM_SETLINK;

import io.jcni.netlink.Address;
import io.jcni.netlink.Filter;
import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.IpvlanFlag;
import io.jcni.netlink.IpvlanMode;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.MacvlanMode;
import io.jcni.netlink.Neighbor;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkOps;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.Route;
import io.jcni.netlink.Rule;
import io.jcni.netlink.TcHandle;
import io.jcni.netlink.internal.wire.IfBridgeH;
import io.jcni.netlink.internal.wire.IfH;
import io.jcni.netlink.internal.wire.IfLinkH;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.SocketH;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Objects;

/**
 * Every change of {@link NetlinkOps} as one {@link Request}: a message type, flags, an encoder and a subject for error
 * messages (formatted only on failure). A handle sends each at once; a batch queues it. The requests are small named
 * classes below rather than lambdas: nothing here costs an invokedynamic bootstrap on a plugin's start-up path.
 */
public abstract class Ops implements NetlinkOps {
    private static final int CREATE = NLM_F_CREATE | NLM_F_EXCL;
    private static final int REPLACE = NLM_F_CREATE | NLM_F_REPLACE;

    /** Sends (handle) or queues (batch) one request. */
    protected abstract void submit(Request request);

    // ---- links -------------------------------------------------------------------------------------------------

    @Override
    public void addVeth(LinkAttrs attrs, LinkAttrs peer) {
        Objects.requireNonNull(peer, "peer");
        if (peer.up()) {
            // veth_newlink configures the peer before pairing it, and opening an unpaired veth fails (ENOTCONN)
            throw new IllegalArgumentException("a veth peer cannot be set up in the request creating it: "
                    + "call setUp on it afterwards");
        }
        submit(new NewLink(attrs, "veth", peer, null));
    }

    @Override
    public void addBridge(LinkAttrs attrs) {
        submit(new NewLink(attrs, "bridge", null, null));
    }

    @Override
    public void addBridge(LinkAttrs attrs, boolean vlanFiltering, int vlanDefaultPvid) {
        if (vlanDefaultPvid < -1 || vlanDefaultPvid > 4094) {
            throw new IllegalArgumentException("vlan_default_pvid must be -1 (default), 0 (none) or 1-4094");
        }
        submit(new NewLink(attrs, "bridge", null, "vlan_filtering " + (vlanFiltering ? 1 : 0)) {
            @Override
            void data(MessageWriter w) {
                w.u8(IfLinkH.IFLA_BR_VLAN_FILTERING, vlanFiltering ? 1 : 0);
                if (vlanDefaultPvid >= 0) {
                    w.u16(IfLinkH.IFLA_BR_VLAN_DEFAULT_PVID, vlanDefaultPvid);
                }
            }
        });
    }

    @Override
    public void addVlan(LinkAttrs attrs, int parentIndex, int vlanId) {
        if (vlanId < 0 || vlanId > 4094) {
            throw new IllegalArgumentException("VLAN id must be 0-4094: " + vlanId);
        }
        submit(new NewLink(attrs, "vlan", parentIndex, "id " + vlanId) {
            @Override
            void data(MessageWriter w) {
                w.u16(IfLinkH.IFLA_VLAN_ID, vlanId);
            }
        });
    }

    @Override
    public void addMacvlan(LinkAttrs attrs, int parentIndex, MacvlanMode mode) {
        Objects.requireNonNull(mode, "mode");
        submit(new NewLink(attrs, "macvlan", parentIndex, "mode " + mode.name().toLowerCase(Locale.ROOT)) {
            @Override
            void data(MessageWriter w) {
                w.u32(IfLinkH.IFLA_MACVLAN_MODE, mode.value());
            }
        });
    }

    @Override
    public void addIpvlan(LinkAttrs attrs, int parentIndex, IpvlanMode mode, IpvlanFlag flag) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(flag, "flag");
        submit(new NewLink(attrs, "ipvlan", parentIndex, "mode " + mode.name().toLowerCase(Locale.ROOT) + " "
                + flag.name().toLowerCase(Locale.ROOT)) {
            @Override
            void data(MessageWriter w) {
                w.u16(IfLinkH.IFLA_IPVLAN_MODE, mode.value());
                w.u16(IfLinkH.IFLA_IPVLAN_FLAGS, flag.value());
            }
        });
    }

    @Override
    public void addDummy(LinkAttrs attrs) {
        submit(new NewLink(attrs, "dummy", null, null));
    }

    @Override
    public void addIfb(LinkAttrs attrs) {
        submit(new NewKindOnly(attrs, "ifb"));
    }

    @Override
    public void addVrf(LinkAttrs attrs, int table) {
        if (table == 0) {
            throw new IllegalArgumentException("a vrf needs a table");
        }
        submit(new NewLink(attrs, "vrf", null, "table " + Integer.toUnsignedString(table)) {
            @Override
            void data(MessageWriter w) {
                w.u32(IfLinkH.IFLA_VRF_TABLE, table);
            }
        });
    }

    @Override
    public void deleteLink(int index) {
        submit(new LinkChange(RTM_DELLINK, index, "") {
            @Override
            void attributes(MessageWriter w) {
            }
        });
    }

    @Override
    public void deleteLink(String name) {
        LinkAttrs.checkName(name);
        submit(new Request(RTM_DELLINK, 0) {
            @Override
            public void encode(MessageWriter w) {
                LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, 0, 0, 0);
                w.string(IfLinkH.IFLA_IFNAME, name);
            }

            @Override
            protected String subject() {
                return name;
            }
        });
    }

    @Override
    public void setUp(int index) {
        submit(new SetFlag(index, IfH.IFF_UP, true, "up"));
    }

    @Override
    public void setDown(int index) {
        submit(new SetFlag(index, IfH.IFF_UP, false, "down"));
    }

    @Override
    public void setPromisc(int index, boolean on) {
        submit(new SetFlag(index, IfH.IFF_PROMISC, on, on ? "promisc on" : "promisc off"));
    }

    @Override
    public void setAllmulti(int index, boolean on) {
        submit(new SetFlag(index, IfH.IFF_ALLMULTI, on, on ? "allmulticast on" : "allmulticast off"));
    }

    @Override
    public void setMtu(int index, int mtu) {
        if (mtu <= 0) {
            throw new IllegalArgumentException("mtu must be positive: " + mtu);
        }
        submit(new SetU32(index, IfLinkH.IFLA_MTU, mtu, "mtu"));
    }

    @Override
    public void setTxQueueLen(int index, int txQueueLen) {
        if (txQueueLen < 0) {
            throw new IllegalArgumentException("txqueuelen must not be negative: " + txQueueLen);
        }
        submit(new SetU32(index, IfLinkH.IFLA_TXQLEN, txQueueLen, "txqueuelen"));
    }

    @Override
    public void setMaster(int index, int masterIndex) {
        if (masterIndex <= 0) {
            throw new IllegalArgumentException("master index must be positive (setNoMaster detaches): " + masterIndex);
        }
        submit(new SetU32(index, IfLinkH.IFLA_MASTER, masterIndex, "master"));
    }

    @Override
    public void setNoMaster(int index) {
        submit(new SetU32(index, IfLinkH.IFLA_MASTER, 0, null));
    }

    @Override
    public void setNetns(int index, NetNs netns) {
        int fd = netns.fd();
        submit(new LinkChange(RTM_NEWLINK, index, "netns") {
            @Override
            void attributes(MessageWriter w) {
                w.u32(IfLinkH.IFLA_NET_NS_FD, fd);
            }

            @Override
            protected String subject() {
                return super.subject() + " " + netns.path();
            }
        });
    }

    @Override
    public void setAddress(int index, MacAddress mac) {
        Objects.requireNonNull(mac, "mac");
        submit(new LinkChange(RTM_NEWLINK, index, "address") {
            @Override
            void attributes(MessageWriter w) {
                w.bytes(IfLinkH.IFLA_ADDRESS, mac.bytes());
            }

            @Override
            protected String subject() {
                return super.subject() + " " + mac;
            }
        });
    }

    @Override
    public void setName(int index, String name) {
        LinkAttrs.checkName(name);
        submit(new LinkChange(RTM_NEWLINK, index, "name " + name) {
            @Override
            void attributes(MessageWriter w) {
                w.string(IfLinkH.IFLA_IFNAME, name);
            }
        });
    }

    @Override
    public void setAlias(int index, String alias) {
        byte[] bytes = LinkCodec.alias(alias);
        if (bytes.length >= IfH.IFALIASZ) {
            throw new IllegalArgumentException("alias must have fewer than " + IfH.IFALIASZ + " bytes");
        }
        submit(new LinkChange(RTM_NEWLINK, index, "alias") {
            @Override
            void attributes(MessageWriter w) {
                w.bytes(IfLinkH.IFLA_IFALIAS, bytes);
            }

            @Override
            protected String subject() {
                return super.subject() + " \"" + alias + "\"";
            }
        });
    }

    @Override
    public void setHairpin(int index, boolean on) {
        submit(new BridgePortFlag(index, IfLinkH.IFLA_BRPORT_MODE, on, on ? "hairpin on" : "hairpin off"));
    }

    @Override
    public void setIsolated(int index, boolean on) {
        submit(new BridgePortFlag(index, IfLinkH.IFLA_BRPORT_ISOLATED, on, on ? "isolated on" : "isolated off"));
    }

    @Override
    public void addBridgeVlan(int index, BridgeVlan vlan, boolean self) {
        int flags = (vlan.pvid() ? IfBridgeH.BRIDGE_VLAN_INFO_PVID : 0)
                | (vlan.untagged() ? IfBridgeH.BRIDGE_VLAN_INFO_UNTAGGED : 0);
        submit(new BridgeVlanRequest(RTM_SETLINK, index, vlan.vid(), flags, self));
    }

    @Override
    public void deleteBridgeVlan(int index, int vid, boolean self) {
        if (vid < 1 || vid > 4094) {
            throw new IllegalArgumentException("VLAN id must be 1-4094: " + vid);
        }
        submit(new BridgeVlanRequest(RTM_DELLINK, index, vid, 0, self));
    }

    // ---- addresses ---------------------------------------------------------------------------------------------

    @Override
    public void addAddress(Address address) {
        submit(new AddressRequest(RTM_NEWADDR, CREATE, address));
    }

    @Override
    public void replaceAddress(Address address) {
        submit(new AddressRequest(RTM_NEWADDR, REPLACE, address));
    }

    @Override
    public void deleteAddress(Address address) {
        submit(new AddressRequest(RTM_DELADDR, 0, address));
    }

    // ---- routes ------------------------------------------------------------------------------------------------

    @Override
    public void addRoute(Route route) {
        submit(new RouteRequest(RTM_NEWROUTE, CREATE, route));
    }

    @Override
    public void replaceRoute(Route route) {
        submit(new RouteRequest(RTM_NEWROUTE, REPLACE, route));
    }

    @Override
    public void deleteRoute(Route route) {
        submit(new RouteRequest(RTM_DELROUTE, 0, route));
    }

    // ---- neighbours --------------------------------------------------------------------------------------------

    @Override
    public void addNeighbor(Neighbor neighbor) {
        submit(new NeighborRequest(CREATE, neighbor));
    }

    @Override
    public void replaceNeighbor(Neighbor neighbor) {
        submit(new NeighborRequest(REPLACE, neighbor));
    }

    // ---- rules and traffic control -----------------------------------------------------------------------------

    @Override
    public void addRule(Rule rule) {
        submit(new RuleRequest(RTM_NEWRULE, CREATE, rule));
    }

    @Override
    public void deleteRule(Rule rule) {
        submit(new RuleRequest(RTM_DELRULE, 0, rule));
    }

    @Override
    public void addQdisc(Qdisc qdisc) {
        submit(new QdiscRequest(CREATE, qdisc));
    }

    @Override
    public void replaceQdisc(Qdisc qdisc) {
        submit(new QdiscRequest(REPLACE, qdisc));
    }

    @Override
    public void deleteQdisc(int index, int parent, int handle) {
        submit(new DeleteQdisc(index, parent, handle));
    }

    @Override
    public void addFilter(Filter filter) {
        submit(new FilterRequest(filter));
    }

    @Override
    public void deleteFilter(int index, int parent, int priority, int protocol) {
        if (priority < 0 || priority > 0xffff || protocol < 0 || protocol > 0xffff) {
            throw new IllegalArgumentException("filter priority and protocol must be 0-65535: " + priority + ", "
                    + protocol);
        }
        submit(new DeleteFilter(index, parent, priority, protocol));
    }

    @Override
    public void deleteNeighbor(int index, InetAddress address) {
        Objects.requireNonNull(address, "address");
        submit(new Request(RTM_DELNEIGH, 0) {
            @Override
            public void encode(MessageWriter w) {
                NeighborCodec.deleteNeighbor(w, index, address);
            }

            @Override
            protected String subject() {
                return address.getHostAddress() + " dev " + index;
            }
        });
    }

    // ---- the requests ------------------------------------------------------------------------------------------

    /**
     * {@code RTM_NEWLINK} creating a link of {@code kind}: its attributes, then {@code IFLA_LINKINFO} with the kind,
     * the veth peer if any and the kind's data written by {@link #data} (none by default).
     */
    private static class NewLink extends Request {
        private final LinkAttrs attrs;
        private final String kind;
        private final LinkAttrs peer;
        private final Integer parent;
        private final String detail;

        NewLink(LinkAttrs attrs, String kind, LinkAttrs peer, String detail) {
            this(attrs, kind, peer, null, detail);
        }

        NewLink(LinkAttrs attrs, String kind, int parent, String detail) {
            this(attrs, kind, null, parent, detail);
        }

        private NewLink(LinkAttrs attrs, String kind, LinkAttrs peer, Integer parent, String detail) {
            super(RTM_NEWLINK, CREATE);
            this.attrs = Objects.requireNonNull(attrs, "attrs");
            this.kind = kind;
            this.peer = peer;
            this.parent = parent;
            this.detail = detail;
        }

        /** The kind's {@code IFLA_INFO_DATA} attributes. */
        void data(MessageWriter w) {
        }

        @Override
        public final void encode(MessageWriter w) {
            LinkCodec.newLink(w, attrs);
            if (parent != null) {
                w.u32(IfLinkH.IFLA_LINK, parent);
            }
            int[] info = LinkCodec.beginInfo(w, kind);
            if (peer != null) {
                LinkCodec.vethPeer(w, peer);
            }
            data(w);
            LinkCodec.endInfo(w, info);
        }

        @Override
        protected final String subject() {
            StringBuilder sb = new StringBuilder(attrs.name());
            if (parent != null) {
                sb.append(" link ").append(parent.intValue());
            }
            sb.append(" type ").append(kind);
            if (peer != null) {
                sb.append(" peer ").append(peer.name());
            }
            if (detail != null) {
                sb.append(' ').append(detail);
            }
            return sb.toString();
        }
    }

    /** A change of link {@code index}: {@code ifinfomsg} with the index, then {@link #attributes}. */
    private abstract static class LinkChange extends Request {
        final int index;
        private final String what;

        LinkChange(int type, int index, String what) {
            super(type, 0);
            this.index = index;
            this.what = what;
        }

        abstract void attributes(MessageWriter w);

        @Override
        public void encode(MessageWriter w) {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            attributes(w);
        }

        /** {@code "dev 7 mtu"}: callers that know more append it. */
        @Override
        protected String subject() {
            return what == null || what.isEmpty() ? "dev " + index : "dev " + index + " " + what;
        }
    }

    /** {@code ip link set dev <index> up|down|promisc|allmulticast}: one {@code ifi_flags} bit with its change mask. */
    private static final class SetFlag extends LinkChange {
        private final int flag;
        private final boolean on;

        SetFlag(int index, int flag, boolean on, String what) {
            super(RTM_NEWLINK, index, what);
            this.flag = flag;
            this.on = on;
        }

        @Override
        void attributes(MessageWriter w) {
        }

        @Override
        public void encode(MessageWriter w) {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, on ? flag : 0, flag);
        }
    }

    /** One u32 link attribute ({@code IFLA_MTU}, {@code IFLA_MASTER}, ...); the subject names it and its value. */
    private static final class SetU32 extends LinkChange {
        private final int attribute;
        private final int value;
        private final String name;

        SetU32(int index, int attribute, int value, String name) {
            super(RTM_NEWLINK, index, name);
            this.attribute = attribute;
            this.value = value;
            this.name = name;
        }

        @Override
        void attributes(MessageWriter w) {
            w.u32(attribute, value);
        }

        @Override
        protected String subject() {
            return name == null ? "dev " + index + " nomaster" : super.subject() + " " + value;
        }
    }

    /** {@code ip link set dev <index> type bridge_slave hairpin|isolated on|off}. */
    private static final class BridgePortFlag extends LinkChange {
        private final int attribute;
        private final boolean on;

        BridgePortFlag(int index, int attribute, boolean on, String what) {
            super(RTM_NEWLINK, index, "type bridge_slave " + what);
            this.attribute = attribute;
            this.on = on;
        }

        @Override
        void attributes(MessageWriter w) {
            LinkCodec.bridgePortFlag(w, attribute, on);
        }
    }

    /** {@code bridge vlan add|del dev <index> vid VID [pvid] [untagged] [self]}. */
    private static final class BridgeVlanRequest extends Request {
        private final int index;
        private final int vid;
        private final int vlanFlags;
        private final boolean self;

        BridgeVlanRequest(int type, int index, int vid, int vlanFlags, boolean self) {
            super(type, 0);
            this.index = index;
            this.vid = vid;
            this.vlanFlags = vlanFlags;
            this.self = self;
        }

        @Override
        public void encode(MessageWriter w) {
            LinkCodec.bridgeVlan(w, index, vid, vlanFlags, self);
        }

        @Override
        protected String subject() {
            return "dev " + index + " vid " + vid + ((vlanFlags & IfBridgeH.BRIDGE_VLAN_INFO_PVID) != 0 ? " pvid" : "")
                    + ((vlanFlags & IfBridgeH.BRIDGE_VLAN_INFO_UNTAGGED) != 0 ? " untagged" : "")
                    + (self ? " self" : "");
        }
    }

    /** {@code RTM_NEWADDR}/{@code RTM_DELADDR} of one address; the subject is the address. */
    private static final class AddressRequest extends Request {
        private final Address address;

        AddressRequest(int type, int flags, Address address) {
            super(type, flags);
            this.address = Objects.requireNonNull(address, "address");
        }

        @Override
        public void encode(MessageWriter w) {
            if (type() == RTM_DELADDR) {
                AddressCodec.deleteAddress(w, address);
            } else {
                AddressCodec.newAddress(w, address);
            }
        }

        @Override
        protected String subject() {
            return address.toString();
        }
    }

    /** {@code RTM_NEWROUTE}/{@code RTM_DELROUTE} of one route; the subject is the route. */
    private static final class RouteRequest extends Request {
        private final Route route;

        RouteRequest(int type, int flags, Route route) {
            super(type, flags);
            this.route = Objects.requireNonNull(route, "route");
        }

        @Override
        public void encode(MessageWriter w) {
            if (type() == RTM_DELROUTE) {
                RouteCodec.deleteRoute(w, route);
            } else {
                RouteCodec.newRoute(w, route);
            }
        }

        @Override
        protected String subject() {
            return route.toString();
        }
    }

    /** {@code RTM_NEWNEIGH} of one entry; the subject is the entry. */
    private static final class NeighborRequest extends Request {
        private final Neighbor neighbor;

        NeighborRequest(int flags, Neighbor neighbor) {
            super(RTM_NEWNEIGH, flags);
            this.neighbor = Objects.requireNonNull(neighbor, "neighbor");
        }

        @Override
        public void encode(MessageWriter w) {
            NeighborCodec.newNeighbor(w, neighbor);
        }

        @Override
        protected String subject() {
            return neighbor.toString();
        }
    }

    /**
     * {@code RTM_NEWLINK} of a kind without data ({@code ip link add NAME type ifb}): {@code IFLA_LINKINFO} holds
     * {@code IFLA_INFO_KIND} only, no empty {@code IFLA_INFO_DATA}, as {@code ip} and the Go library send it.
     */
    private static final class NewKindOnly extends Request {
        private final LinkAttrs attrs;
        private final String kind;

        NewKindOnly(LinkAttrs attrs, String kind) {
            super(RTM_NEWLINK, CREATE);
            this.attrs = Objects.requireNonNull(attrs, "attrs");
            this.kind = kind;
        }

        @Override
        public void encode(MessageWriter w) {
            LinkCodec.newLink(w, attrs);
            LinkCodec.kindOnly(w, kind);
        }

        @Override
        protected String subject() {
            return attrs.name() + " type " + kind;
        }
    }

    /** {@code ip rule add|del ...}: {@code RTM_NEWRULE}/{@code RTM_DELRULE}; the subject is the rule. */
    private static final class RuleRequest extends Request {
        private final Rule rule;

        RuleRequest(int type, int flags, Rule rule) {
            super(type, flags);
            this.rule = Objects.requireNonNull(rule, "rule");
        }

        @Override
        public void encode(MessageWriter w) {
            RuleCodec.rule(w, rule);
        }

        @Override
        protected String subject() {
            return rule.toString();
        }
    }

    /**
     * {@code tc qdisc add|replace dev <index> ...}: {@code RTM_NEWQDISC}; a tbf rate table uses the running kernel's
     * clock. The subject is the qdisc.
     */
    private static final class QdiscRequest extends Request {
        private final Qdisc qdisc;

        QdiscRequest(int flags, Qdisc qdisc) {
            super(RTM_NEWQDISC, flags);
            this.qdisc = Objects.requireNonNull(qdisc, "qdisc");
        }

        @Override
        public void encode(MessageWriter w) {
            TcCodec.newQdisc(w, qdisc, null);
        }

        @Override
        protected String subject() {
            return qdisc.toString();
        }
    }

    /** {@code tc qdisc del dev <index> parent P [handle H]}: the {@code tcmsg} names the qdisc. */
    private static final class DeleteQdisc extends Request {
        private final int index;
        private final int parent;
        private final int handle;

        DeleteQdisc(int index, int parent, int handle) {
            super(RTM_DELQDISC, 0);
            this.index = index;
            this.parent = parent;
            this.handle = handle;
        }

        @Override
        public void encode(MessageWriter w) {
            TcCodec.tcmsg(w, index, handle, parent, 0);
        }

        @Override
        protected String subject() {
            return TcCodec.qdiscRef(index, parent, handle);
        }
    }

    /** {@code tc filter add dev <index> ...}: {@code RTM_NEWTFILTER}; the subject is the filter. */
    private static final class FilterRequest extends Request {
        private final Filter filter;

        FilterRequest(Filter filter) {
            super(RTM_NEWTFILTER, CREATE);
            this.filter = Objects.requireNonNull(filter, "filter");
        }

        @Override
        public void encode(MessageWriter w) {
            TcCodec.newFilter(w, filter);
        }

        @Override
        protected String subject() {
            return filter.toString();
        }
    }

    /** {@code tc filter del dev <index> parent P protocol X pref N}: every filter of that priority and protocol. */
    private static final class DeleteFilter extends Request {
        private final int index;
        private final int parent;
        private final int priority;
        private final int protocol;

        DeleteFilter(int index, int parent, int priority, int protocol) {
            super(RTM_DELTFILTER, 0);
            this.index = index;
            this.parent = parent;
            this.priority = priority;
            this.protocol = protocol;
        }

        @Override
        public void encode(MessageWriter w) {
            TcCodec.tcmsg(w, index, 0, parent, TcCodec.filterInfo(priority, protocol));
        }

        @Override
        protected String subject() {
            return "dev " + index + " parent " + TcHandle.format(parent) + " protocol "
                    + String.format("0x%04x", protocol) + " pref " + priority;
        }
    }
}
