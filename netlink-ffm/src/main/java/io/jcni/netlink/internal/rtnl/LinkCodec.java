package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.Offsets.BRIDGE_VLAN_INFO_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.BRIDGE_VLAN_INFO_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.BRIDGE_VLAN_INFO_VID;
import static io.jcni.netlink.internal.wire.Offsets.IFINFOMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.IFI_CHANGE;
import static io.jcni.netlink.internal.wire.Offsets.IFI_FAMILY;
import static io.jcni.netlink.internal.wire.Offsets.IFI_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.IFI_INDEX;
import static io.jcni.netlink.internal.wire.Offsets.IFI_TYPE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;

import io.jcni.netlink.BridgePort;
import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.IpvlanFlag;
import io.jcni.netlink.IpvlanMode;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.MacvlanMode;
import io.jcni.netlink.OperState;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.IfBridgeH;
import io.jcni.netlink.internal.wire.IfH;
import io.jcni.netlink.internal.wire.IfLinkH;
import io.jcni.netlink.internal.wire.IfTunH;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import io.jcni.netlink.internal.wire.SocketH;
import io.jcni.netlink.internal.wire.VethH;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** {@code RTM_*LINK} messages: {@code struct ifinfomsg} and {@code IFLA_*} attributes. */
public final class LinkCodec {
    private LinkCodec() {}

    /** Filter for link reads: leave out statistics, which are large and which no caller here needs. */
    static final int EXT_MASK = RtnetlinkH.RTEXT_FILTER_SKIP_STATS;

    /** Writes {@code struct ifinfomsg}. */
    public static void ifinfo(MessageWriter w, int family, int index, int flags, int change) {
        int at = w.reserve(IFINFOMSG_SIZE);
        w.putU8(at + IFI_FAMILY, family);
        w.putU32(at + IFI_INDEX, index);
        w.putU32(at + IFI_FLAGS, flags);
        w.putU32(at + IFI_CHANGE, change);
    }

    /** The {@code ifinfomsg} and attributes common to every new link, up to (excluding) its {@code IFLA_LINKINFO}. */
    public static void newLink(MessageWriter w, LinkAttrs a) {
        int up = a.up() ? IfH.IFF_UP : 0;
        ifinfo(w, SocketH.AF_UNSPEC, 0, up, up);
        attrs(w, a);
    }

    private static void attrs(MessageWriter w, LinkAttrs a) {
        w.string(IfLinkH.IFLA_IFNAME, a.name());
        if (a.mtu() > 0) {
            w.u32(IfLinkH.IFLA_MTU, a.mtu());
        }
        if (a.address() != null) {
            w.bytes(IfLinkH.IFLA_ADDRESS, a.address().bytes());
        }
        if (a.txQueueLen() >= 0) {
            w.u32(IfLinkH.IFLA_TXQLEN, a.txQueueLen());
        }
        if (a.netns() != null) {
            w.u32(IfLinkH.IFLA_NET_NS_FD, a.netns().fd());
        }
    }

    /** Opens {@code IFLA_LINKINFO} with {@code IFLA_INFO_KIND} and {@code IFLA_INFO_DATA}; returns both offsets. */
    public static int[] beginInfo(MessageWriter w, String kind) {
        int info = w.nest(IfLinkH.IFLA_LINKINFO);
        w.string(IfLinkH.IFLA_INFO_KIND, kind);
        int data = w.nest(IfLinkH.IFLA_INFO_DATA);
        return new int[] {info, data};
    }

    public static void endInfo(MessageWriter w, int[] nests) {
        w.endNest(nests[1]);
        w.endNest(nests[0]);
    }

    /** {@code IFLA_INFO_KIND} only (types without data). */
    public static void kindOnly(MessageWriter w, String kind) {
        int info = w.nest(IfLinkH.IFLA_LINKINFO);
        w.string(IfLinkH.IFLA_INFO_KIND, kind);
        w.endNest(info);
    }

    /** The veth peer: {@code VETH_INFO_PEER} holding its own {@code ifinfomsg} and attributes. */
    public static void vethPeer(MessageWriter w, LinkAttrs peer) {
        int at = w.nest(VethH.VETH_INFO_PEER);
        int up = peer.up() ? IfH.IFF_UP : 0;
        ifinfo(w, SocketH.AF_UNSPEC, 0, up, up);
        attrs(w, peer);
        w.endNest(at);
    }

    /** Bridge port data: {@code IFLA_LINKINFO { IFLA_INFO_SLAVE_KIND "bridge", IFLA_INFO_SLAVE_DATA { type: u8 } }}. */
    public static void bridgePortFlag(MessageWriter w, int type, boolean on) {
        int info = w.nest(IfLinkH.IFLA_LINKINFO);
        w.string(IfLinkH.IFLA_INFO_SLAVE_KIND, "bridge");
        int data = w.nest(IfLinkH.IFLA_INFO_SLAVE_DATA);
        w.u8(type, on ? 1 : 0);
        w.endNest(data);
        w.endNest(info);
    }

    /** {@code IFLA_AF_SPEC { [IFLA_BRIDGE_FLAGS SELF], IFLA_BRIDGE_VLAN_INFO { flags, vid } }}. */
    public static void bridgeVlan(MessageWriter w, int index, int vid, int vlanFlags, boolean self) {
        ifinfo(w, SocketH.AF_BRIDGE, index, 0, 0);
        int spec = w.nest(IfLinkH.IFLA_AF_SPEC);
        if (self) {
            w.u16(IfBridgeH.IFLA_BRIDGE_FLAGS, IfBridgeH.BRIDGE_FLAGS_SELF);
        }
        byte[] info = new byte[BRIDGE_VLAN_INFO_SIZE];
        ByteBuffer b = ByteBuffer.wrap(info).order(java.nio.ByteOrder.nativeOrder());
        b.putShort(BRIDGE_VLAN_INFO_FLAGS, (short) vlanFlags);
        b.putShort(BRIDGE_VLAN_INFO_VID, (short) vid);
        w.bytes(IfBridgeH.IFLA_BRIDGE_VLAN_INFO, info);
        w.endNest(spec);
    }

    /** The request of a link read: {@code ifinfomsg} plus the stats-skipping filter. */
    public static void getLink(MessageWriter w, int index, String name) {
        ifinfo(w, SocketH.AF_UNSPEC, index, 0, 0);
        if (name != null) {
            w.string(IfLinkH.IFLA_IFNAME, name);
        }
        w.u32(IfLinkH.IFLA_EXT_MASK, EXT_MASK);
    }

    /** Decodes an {@code RTM_NEWLINK} message at {@code off}. */
    public static Link decode(ByteBuffer b, int off, int len) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWLINK) {
            return null;
        }
        int body = off + NLMSGHDR_SIZE;
        if (len < NLMSGHDR_SIZE + IFINFOMSG_SIZE) {
            throw new MalformedMessageException("RTM_NEWLINK of " + len + " bytes");
        }
        int type = Short.toUnsignedInt(b.getShort(body + IFI_TYPE));
        int index = b.getInt(body + IFI_INDEX);
        int flags = b.getInt(body + IFI_FLAGS);
        String name = "";
        int mtu = 0;
        int txQueueLen = 0;
        int master = 0;
        int parent = 0;
        int netnsId = -1;
        int promiscuity = 0;
        int allmulti = -1;
        MacAddress address = null;
        MacAddress broadcast = null;
        OperState operState = OperState.UNKNOWN;
        String alias = "";
        LinkInfo info = new LinkInfo.Device();
        BridgePort port = null;
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(IFINFOMSG_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case IfLinkH.IFLA_IFNAME -> name = c.string();
                case IfLinkH.IFLA_MTU -> mtu = c.u32();
                case IfLinkH.IFLA_TXQLEN -> txQueueLen = c.u32();
                case IfLinkH.IFLA_MASTER -> master = c.u32();
                case IfLinkH.IFLA_LINK -> parent = c.u32();
                case IfLinkH.IFLA_LINK_NETNSID -> netnsId = c.s32();
                case IfLinkH.IFLA_PROMISCUITY -> promiscuity = c.u32();
                case IfLinkH.IFLA_ALLMULTI -> allmulti = c.u32();
                case IfLinkH.IFLA_ADDRESS -> address = mac(c);
                case IfLinkH.IFLA_BROADCAST -> broadcast = mac(c);
                case IfLinkH.IFLA_OPERSTATE -> operState = OperState.of(c.u8());
                case IfLinkH.IFLA_IFALIAS -> alias = c.string();
                case IfLinkH.IFLA_LINKINFO -> {
                    LinkInfoParts parts = linkInfo(c.nested());
                    info = parts.info;
                    port = parts.port;
                }
                default -> { }
            }
        }
        return new Link(index, name, type, flags, mtu, address, broadcast, txQueueLen, operState, master, parent,
                netnsId, alias, promiscuity, allmulti, info, port);
    }

    private static MacAddress mac(AttrCursor c) {
        return c.payloadLength() == 0 ? null : new MacAddress(c.bytes());
    }

    private record LinkInfoParts(LinkInfo info, BridgePort port) {
    }

    private static LinkInfoParts linkInfo(AttrCursor c) {
        String kind = null;
        String slaveKind = null;
        AttrCursor data = null;
        AttrCursor slaveData = null;
        while (c.next()) {
            switch (c.type()) {
                case IfLinkH.IFLA_INFO_KIND -> kind = c.string();
                case IfLinkH.IFLA_INFO_DATA -> data = c.nested();
                case IfLinkH.IFLA_INFO_SLAVE_KIND -> slaveKind = c.string();
                case IfLinkH.IFLA_INFO_SLAVE_DATA -> slaveData = c.nested();
                default -> { }
            }
        }
        LinkInfo info = kind == null ? new LinkInfo.Device() : kindData(kind, data);
        BridgePort port = "bridge".equals(slaveKind) && slaveData != null ? bridgePort(slaveData) : null;
        return new LinkInfoParts(info, port);
    }

    private static LinkInfo kindData(String kind, AttrCursor data) {
        return switch (kind) {
            case "veth" -> new LinkInfo.Veth();
            case "dummy" -> new LinkInfo.Dummy();
            case "ifb" -> new LinkInfo.Ifb();
            case "vrf" -> {
                int table = 0;
                while (data != null && data.next()) {
                    if (data.type() == IfLinkH.IFLA_VRF_TABLE) {
                        table = data.u32();
                    }
                }
                yield new LinkInfo.Vrf(table);
            }
            case "tun" -> tun(data);
            case "bridge" -> {
                boolean filtering = false;
                int pvid = 0;
                int stp = 0;
                while (data != null && data.next()) {
                    switch (data.type()) {
                        case IfLinkH.IFLA_BR_VLAN_FILTERING -> filtering = data.u8() != 0;
                        case IfLinkH.IFLA_BR_VLAN_DEFAULT_PVID -> pvid = data.u16();
                        case IfLinkH.IFLA_BR_STP_STATE -> stp = data.u32();
                        default -> { }
                    }
                }
                yield new LinkInfo.Bridge(filtering, pvid, stp);
            }
            case "vlan" -> {
                int id = 0;
                int protocol = 0x8100;
                while (data != null && data.next()) {
                    switch (data.type()) {
                        case IfLinkH.IFLA_VLAN_ID -> id = data.u16();
                        case IfLinkH.IFLA_VLAN_PROTOCOL -> protocol = data.u16be();
                        default -> { }
                    }
                }
                yield new LinkInfo.Vlan(id, protocol);
            }
            case "macvlan", "macvtap" -> {
                MacvlanMode mode = null;
                while (data != null && data.next()) {
                    if (data.type() == IfLinkH.IFLA_MACVLAN_MODE) {
                        mode = MacvlanMode.of(data.u32());
                    }
                }
                yield new LinkInfo.Macvlan(kind, mode);
            }
            case "ipvlan" -> {
                IpvlanMode mode = IpvlanMode.L2;
                IpvlanFlag flag = IpvlanFlag.BRIDGE;
                while (data != null && data.next()) {
                    switch (data.type()) {
                        case IfLinkH.IFLA_IPVLAN_MODE -> mode = IpvlanMode.of(data.u16());
                        case IfLinkH.IFLA_IPVLAN_FLAGS -> flag = IpvlanFlag.of(data.u16());
                        default -> { }
                    }
                }
                yield new LinkInfo.Ipvlan(mode, flag);
            }
            default -> new LinkInfo.Other(kind);
        };
    }

    /** {@code IFLA_TUN_*} as {@code tun_fill_info} reports them; owner and group are absent when unset. */
    private static LinkInfo.Tun tun(AttrCursor data) {
        boolean tap = false;
        int owner = -1;
        int group = -1;
        boolean pi = false;
        boolean vnetHdr = false;
        boolean persist = false;
        boolean multiQueue = false;
        int queues = 0;
        while (data != null && data.next()) {
            switch (data.type()) {
                case IfLinkH.IFLA_TUN_TYPE -> tap = data.u8() == IfTunH.IFF_TAP;
                case IfLinkH.IFLA_TUN_OWNER -> owner = data.u32();
                case IfLinkH.IFLA_TUN_GROUP -> group = data.u32();
                case IfLinkH.IFLA_TUN_PI -> pi = data.u8() != 0;
                case IfLinkH.IFLA_TUN_VNET_HDR -> vnetHdr = data.u8() != 0;
                case IfLinkH.IFLA_TUN_PERSIST -> persist = data.u8() != 0;
                case IfLinkH.IFLA_TUN_MULTI_QUEUE -> multiQueue = data.u8() != 0;
                case IfLinkH.IFLA_TUN_NUM_QUEUES -> queues = data.u32();
                default -> { }
            }
        }
        return new LinkInfo.Tun(tap, owner, group, pi, vnetHdr, persist, multiQueue, queues);
    }

    private static BridgePort bridgePort(AttrCursor c) {
        int state = 0;
        int priority = 0;
        int cost = 0;
        boolean hairpin = false;
        boolean isolated = false;
        boolean learning = false;
        boolean flood = false;
        while (c.next()) {
            switch (c.type()) {
                case IfLinkH.IFLA_BRPORT_STATE -> state = c.u8();
                case IfLinkH.IFLA_BRPORT_PRIORITY -> priority = c.u16();
                case IfLinkH.IFLA_BRPORT_COST -> cost = c.u32();
                case IfLinkH.IFLA_BRPORT_MODE -> hairpin = c.u8() != 0;
                case IfLinkH.IFLA_BRPORT_ISOLATED -> isolated = c.u8() != 0;
                case IfLinkH.IFLA_BRPORT_LEARNING -> learning = c.u8() != 0;
                case IfLinkH.IFLA_BRPORT_UNICAST_FLOOD -> flood = c.u8() != 0;
                default -> { }
            }
        }
        return new BridgePort(state, hairpin, isolated, learning, flood, priority, cost);
    }

    /**
     * Decodes the VLANs of one {@code AF_BRIDGE} {@code RTM_NEWLINK} message of link {@code index} (null for other
     * links). Ranges ({@code RANGE_BEGIN} .. {@code RANGE_END}) are expanded.
     */
    public static List<BridgeVlan> decodeVlans(ByteBuffer b, int off, int len, int index) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWLINK
                || len < NLMSGHDR_SIZE + IFINFOMSG_SIZE || b.getInt(off + NLMSGHDR_SIZE + IFI_INDEX) != index) {
            return null;
        }
        List<BridgeVlan> vlans = new ArrayList<>();
        AttrCursor c = new AttrCursor(b, off + NLMSGHDR_SIZE + MessageWriter.align(IFINFOMSG_SIZE), off + len);
        while (c.next()) {
            if (c.type() != IfLinkH.IFLA_AF_SPEC) {
                continue;
            }
            AttrCursor spec = c.nested();
            int rangeStart = -1;
            while (spec.next()) {
                if (spec.type() != IfBridgeH.IFLA_BRIDGE_VLAN_INFO || spec.payloadLength() < BRIDGE_VLAN_INFO_SIZE) {
                    continue;
                }
                int flags = Short.toUnsignedInt(b.getShort(spec.payloadOffset() + BRIDGE_VLAN_INFO_FLAGS));
                int vid = Short.toUnsignedInt(b.getShort(spec.payloadOffset() + BRIDGE_VLAN_INFO_VID));
                boolean pvid = (flags & IfBridgeH.BRIDGE_VLAN_INFO_PVID) != 0;
                boolean untagged = (flags & IfBridgeH.BRIDGE_VLAN_INFO_UNTAGGED) != 0;
                if ((flags & IfBridgeH.BRIDGE_VLAN_INFO_RANGE_BEGIN) != 0) {
                    rangeStart = vid;
                } else if ((flags & IfBridgeH.BRIDGE_VLAN_INFO_RANGE_END) != 0 && rangeStart > 0) {
                    for (int v = rangeStart; v <= vid; v++) {
                        vlans.add(new BridgeVlan(v, pvid, untagged));
                    }
                    rangeStart = -1;
                } else if (vid >= 1 && vid <= 4094) {
                    vlans.add(new BridgeVlan(vid, pvid, untagged));
                }
            }
        }
        return vlans;
    }

    /** An alias attribute as {@code ip} sends it: the bytes without a terminating NUL (empty removes the alias). */
    public static byte[] alias(String alias) {
        return alias.getBytes(StandardCharsets.UTF_8);
    }
}
