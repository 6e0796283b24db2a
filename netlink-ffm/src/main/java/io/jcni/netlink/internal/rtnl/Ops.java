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
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.IfBridgeH;
import io.jcni.netlink.internal.wire.IfH;
import io.jcni.netlink.internal.wire.IfLinkH;
import io.jcni.netlink.internal.wire.SocketH;
import java.net.InetAddress;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Every change of {@link NetlinkOps} as one request: a message type, flags, a subject for error messages (formatted
 * only on failure) and an encoder. A handle sends each at once; a batch queues it.
 */
public abstract class Ops implements NetlinkOps {
    private static final int CREATE = NLM_F_CREATE | NLM_F_EXCL;
    private static final int REPLACE = NLM_F_CREATE | NLM_F_REPLACE;

    /** Sends (handle) or queues (batch) one request; {@code subject} describes it in errors. */
    protected abstract void submit(int type, int flags, Object subject, Channel.Encoder encoder);

    private static Supplier<String> dev(int index, String what) {
        return () -> "dev " + index + (what.isEmpty() ? "" : " " + what);
    }

    // ---- links -------------------------------------------------------------------------------------------------

    @Override
    public void addVeth(LinkAttrs attrs, LinkAttrs peer) {
        Objects.requireNonNull(peer, "peer");
        if (peer.up()) {
            // veth_newlink configures the peer before pairing it, and opening an unpaired veth fails (ENOTCONN)
            throw new IllegalArgumentException("a veth peer cannot be set up in the request creating it: "
                    + "call setUp on it afterwards");
        }
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " type veth peer " + peer.name(), w -> {
            LinkCodec.newLink(w, attrs);
            int[] info = LinkCodec.beginInfo(w, "veth");
            LinkCodec.vethPeer(w, peer);
            LinkCodec.endInfo(w, info);
        });
    }

    @Override
    public void addBridge(LinkAttrs attrs) {
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " type bridge", w -> {
            LinkCodec.newLink(w, attrs);
            LinkCodec.kindOnly(w, "bridge");
        });
    }

    @Override
    public void addBridge(LinkAttrs attrs, boolean vlanFiltering, int vlanDefaultPvid) {
        if (vlanDefaultPvid < -1 || vlanDefaultPvid > 4094) {
            throw new IllegalArgumentException("vlan_default_pvid must be -1 (default), 0 (none) or 1-4094");
        }
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " type bridge vlan_filtering "
                + (vlanFiltering ? 1 : 0), w -> {
                    LinkCodec.newLink(w, attrs);
                    int[] info = LinkCodec.beginInfo(w, "bridge");
                    w.u8(IfLinkH.IFLA_BR_VLAN_FILTERING, vlanFiltering ? 1 : 0);
                    if (vlanDefaultPvid >= 0) {
                        w.u16(IfLinkH.IFLA_BR_VLAN_DEFAULT_PVID, vlanDefaultPvid);
                    }
                    LinkCodec.endInfo(w, info);
                });
    }

    @Override
    public void addVlan(LinkAttrs attrs, int parentIndex, int vlanId) {
        if (vlanId < 0 || vlanId > 4094) {
            throw new IllegalArgumentException("VLAN id must be 0-4094: " + vlanId);
        }
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " link " + parentIndex + " type vlan id "
                + vlanId, w -> {
                    LinkCodec.newLink(w, attrs);
                    w.u32(IfLinkH.IFLA_LINK, parentIndex);
                    int[] info = LinkCodec.beginInfo(w, "vlan");
                    w.u16(IfLinkH.IFLA_VLAN_ID, vlanId);
                    LinkCodec.endInfo(w, info);
                });
    }

    @Override
    public void addMacvlan(LinkAttrs attrs, int parentIndex, MacvlanMode mode) {
        Objects.requireNonNull(mode, "mode");
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " link " + parentIndex
                + " type macvlan mode " + mode.name().toLowerCase(java.util.Locale.ROOT), w -> {
                    LinkCodec.newLink(w, attrs);
                    w.u32(IfLinkH.IFLA_LINK, parentIndex);
                    int[] info = LinkCodec.beginInfo(w, "macvlan");
                    w.u32(IfLinkH.IFLA_MACVLAN_MODE, mode.value());
                    LinkCodec.endInfo(w, info);
                });
    }

    @Override
    public void addIpvlan(LinkAttrs attrs, int parentIndex, IpvlanMode mode, IpvlanFlag flag) {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(flag, "flag");
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " link " + parentIndex
                + " type ipvlan mode " + mode.name().toLowerCase(java.util.Locale.ROOT) + " "
                + flag.name().toLowerCase(java.util.Locale.ROOT), w -> {
                    LinkCodec.newLink(w, attrs);
                    w.u32(IfLinkH.IFLA_LINK, parentIndex);
                    int[] info = LinkCodec.beginInfo(w, "ipvlan");
                    w.u16(IfLinkH.IFLA_IPVLAN_MODE, mode.value());
                    w.u16(IfLinkH.IFLA_IPVLAN_FLAGS, flag.value());
                    LinkCodec.endInfo(w, info);
                });
    }

    @Override
    public void addDummy(LinkAttrs attrs) {
        submit(RTM_NEWLINK, CREATE, (Supplier<String>) () -> attrs.name() + " type dummy", w -> {
            LinkCodec.newLink(w, attrs);
            LinkCodec.kindOnly(w, "dummy");
        });
    }

    @Override
    public void addIfb(LinkAttrs attrs) {
        LinkCodec.NewKind request = new LinkCodec.NewKind(attrs, "ifb");
        submit(RTM_NEWLINK, CREATE, request, request);
    }

    @Override
    public void addVrf(LinkAttrs attrs, int table) {
        if (table == 0) {
            throw new IllegalArgumentException("a vrf needs a table");
        }
        LinkCodec.NewVrf request = new LinkCodec.NewVrf(attrs, table);
        submit(RTM_NEWLINK, CREATE, request, request);
    }

    @Override
    public void deleteLink(int index) {
        submit(RTM_DELLINK, 0, dev(index, ""), w -> LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0));
    }

    @Override
    public void deleteLink(String name) {
        LinkAttrs.checkName(name);
        submit(RTM_DELLINK, 0, name, w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, 0, 0, 0);
            w.string(IfLinkH.IFLA_IFNAME, name);
        });
    }

    private void setFlag(int index, int flag, boolean on, String what) {
        submit(RTM_NEWLINK, 0, dev(index, what), w -> LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, on ? flag : 0,
                flag));
    }

    @Override
    public void setUp(int index) {
        setFlag(index, IfH.IFF_UP, true, "up");
    }

    @Override
    public void setDown(int index) {
        setFlag(index, IfH.IFF_UP, false, "down");
    }

    @Override
    public void setPromisc(int index, boolean on) {
        setFlag(index, IfH.IFF_PROMISC, on, "promisc " + (on ? "on" : "off"));
    }

    @Override
    public void setAllmulti(int index, boolean on) {
        setFlag(index, IfH.IFF_ALLMULTI, on, "allmulticast " + (on ? "on" : "off"));
    }

    private void setU32(int index, int attr, int value, String what) {
        submit(RTM_NEWLINK, 0, dev(index, what), w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            w.u32(attr, value);
        });
    }

    @Override
    public void setMtu(int index, int mtu) {
        if (mtu <= 0) {
            throw new IllegalArgumentException("mtu must be positive: " + mtu);
        }
        setU32(index, IfLinkH.IFLA_MTU, mtu, "mtu " + mtu);
    }

    @Override
    public void setTxQueueLen(int index, int txQueueLen) {
        if (txQueueLen < 0) {
            throw new IllegalArgumentException("txqueuelen must not be negative: " + txQueueLen);
        }
        setU32(index, IfLinkH.IFLA_TXQLEN, txQueueLen, "txqueuelen " + txQueueLen);
    }

    @Override
    public void setMaster(int index, int masterIndex) {
        if (masterIndex <= 0) {
            throw new IllegalArgumentException("master index must be positive (setNoMaster detaches): " + masterIndex);
        }
        setU32(index, IfLinkH.IFLA_MASTER, masterIndex, "master " + masterIndex);
    }

    @Override
    public void setNoMaster(int index) {
        setU32(index, IfLinkH.IFLA_MASTER, 0, "nomaster");
    }

    @Override
    public void setNetns(int index, NetNs netns) {
        setU32(index, IfLinkH.IFLA_NET_NS_FD, netns.fd(), "netns " + netns.path());
    }

    @Override
    public void setAddress(int index, MacAddress mac) {
        Objects.requireNonNull(mac, "mac");
        submit(RTM_NEWLINK, 0, dev(index, "address " + mac), w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            w.bytes(IfLinkH.IFLA_ADDRESS, mac.bytes());
        });
    }

    @Override
    public void setName(int index, String name) {
        LinkAttrs.checkName(name);
        submit(RTM_NEWLINK, 0, dev(index, "name " + name), w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            w.string(IfLinkH.IFLA_IFNAME, name);
        });
    }

    @Override
    public void setAlias(int index, String alias) {
        byte[] bytes = LinkCodec.alias(alias);
        if (bytes.length >= IfH.IFALIASZ) {
            throw new IllegalArgumentException("alias must have fewer than " + IfH.IFALIASZ + " bytes");
        }
        submit(RTM_NEWLINK, 0, dev(index, "alias \"" + alias + "\""), w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            w.bytes(IfLinkH.IFLA_IFALIAS, bytes);
        });
    }

    @Override
    public void setHairpin(int index, boolean on) {
        submit(RTM_NEWLINK, 0, dev(index, "type bridge_slave hairpin " + (on ? "on" : "off")), w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            LinkCodec.bridgePortFlag(w, IfLinkH.IFLA_BRPORT_MODE, on);
        });
    }

    @Override
    public void setIsolated(int index, boolean on) {
        submit(RTM_NEWLINK, 0, dev(index, "type bridge_slave isolated " + (on ? "on" : "off")), w -> {
            LinkCodec.ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
            LinkCodec.bridgePortFlag(w, IfLinkH.IFLA_BRPORT_ISOLATED, on);
        });
    }

    @Override
    public void addBridgeVlan(int index, BridgeVlan vlan, boolean self) {
        int flags = (vlan.pvid() ? IfBridgeH.BRIDGE_VLAN_INFO_PVID : 0)
                | (vlan.untagged() ? IfBridgeH.BRIDGE_VLAN_INFO_UNTAGGED : 0);
        submit(RTM_SETLINK, 0, dev(index, "vid " + vlan.vid() + (vlan.pvid() ? " pvid" : "")
                + (vlan.untagged() ? " untagged" : "") + (self ? " self" : "")),
                w -> LinkCodec.bridgeVlan(w, index, vlan.vid(), flags, self));
    }

    @Override
    public void deleteBridgeVlan(int index, int vid, boolean self) {
        if (vid < 1 || vid > 4094) {
            throw new IllegalArgumentException("VLAN id must be 1-4094: " + vid);
        }
        submit(RTM_DELLINK, 0, dev(index, "vid " + vid + (self ? " self" : "")),
                w -> LinkCodec.bridgeVlan(w, index, vid, 0, self));
    }

    // ---- addresses ---------------------------------------------------------------------------------------------

    @Override
    public void addAddress(Address address) {
        submit(RTM_NEWADDR, CREATE, address, w -> AddressCodec.newAddress(w, address));
    }

    @Override
    public void replaceAddress(Address address) {
        submit(RTM_NEWADDR, REPLACE, address, w -> AddressCodec.newAddress(w, address));
    }

    @Override
    public void deleteAddress(Address address) {
        submit(RTM_DELADDR, 0, address, w -> AddressCodec.deleteAddress(w, address));
    }

    // ---- routes ------------------------------------------------------------------------------------------------

    @Override
    public void addRoute(Route route) {
        submit(RTM_NEWROUTE, CREATE, route, w -> RouteCodec.newRoute(w, route));
    }

    @Override
    public void replaceRoute(Route route) {
        submit(RTM_NEWROUTE, REPLACE, route, w -> RouteCodec.newRoute(w, route));
    }

    @Override
    public void deleteRoute(Route route) {
        submit(RTM_DELROUTE, 0, route, w -> RouteCodec.deleteRoute(w, route));
    }

    // ---- neighbours --------------------------------------------------------------------------------------------

    @Override
    public void addNeighbor(Neighbor neighbor) {
        submit(RTM_NEWNEIGH, CREATE, neighbor, w -> NeighborCodec.newNeighbor(w, neighbor));
    }

    @Override
    public void replaceNeighbor(Neighbor neighbor) {
        submit(RTM_NEWNEIGH, REPLACE, neighbor, w -> NeighborCodec.newNeighbor(w, neighbor));
    }

    // ---- rules and traffic control: each request record is its own encoder and error subject --------------------

    @Override
    public void addRule(Rule rule) {
        RuleCodec.Request request = new RuleCodec.Request(rule);
        submit(RTM_NEWRULE, CREATE, request, request);
    }

    @Override
    public void deleteRule(Rule rule) {
        RuleCodec.Request request = new RuleCodec.Request(rule);
        submit(RTM_DELRULE, 0, request, request);
    }

    @Override
    public void addQdisc(Qdisc qdisc) {
        TcCodec.NewQdisc request = new TcCodec.NewQdisc(qdisc);
        submit(RTM_NEWQDISC, CREATE, request, request);
    }

    @Override
    public void replaceQdisc(Qdisc qdisc) {
        TcCodec.NewQdisc request = new TcCodec.NewQdisc(qdisc);
        submit(RTM_NEWQDISC, REPLACE, request, request);
    }

    @Override
    public void deleteQdisc(int index, int parent, int handle) {
        TcCodec.QdiscRef request = new TcCodec.QdiscRef(index, parent, handle);
        submit(RTM_DELQDISC, 0, request, request);
    }

    @Override
    public void addFilter(Filter filter) {
        TcCodec.NewFilter request = new TcCodec.NewFilter(filter);
        submit(RTM_NEWTFILTER, CREATE, request, request);
    }

    @Override
    public void deleteFilter(int index, int parent, int priority, int protocol) {
        if (priority < 0 || priority > 0xffff || protocol < 0 || protocol > 0xffff) {
            throw new IllegalArgumentException("filter priority and protocol must be 0-65535: " + priority + ", "
                    + protocol);
        }
        TcCodec.FilterRef request = new TcCodec.FilterRef(index, parent, priority, protocol);
        submit(RTM_DELTFILTER, 0, request, request);
    }

    @Override
    public void deleteNeighbor(int index, InetAddress address) {
        Objects.requireNonNull(address, "address");
        submit(RTM_DELNEIGH, 0, (Supplier<String>) () -> address.getHostAddress() + " dev " + index,
                w -> NeighborCodec.deleteNeighbor(w, index, address));
    }
}
