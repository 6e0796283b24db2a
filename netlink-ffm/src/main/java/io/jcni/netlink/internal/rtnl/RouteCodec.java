package io.jcni.netlink.internal.rtnl;

import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;
import static io.jcni.netlink.internal.wire.Offsets.RTMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.RTM_DST_LEN;
import static io.jcni.netlink.internal.wire.Offsets.RTM_FAMILY;
import static io.jcni.netlink.internal.wire.Offsets.RTM_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.RTM_PROTOCOL;
import static io.jcni.netlink.internal.wire.Offsets.RTM_SCOPE;
import static io.jcni.netlink.internal.wire.Offsets.RTM_TABLE;
import static io.jcni.netlink.internal.wire.Offsets.RTM_TYPE;
import static io.jcni.netlink.internal.wire.Offsets.RTNEXTHOP_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.RTNH_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.RTNH_HOPS;
import static io.jcni.netlink.internal.wire.Offsets.RTNH_IFINDEX;
import static io.jcni.netlink.internal.wire.Offsets.RTNH_LEN;

import io.jcni.netlink.Family;
import io.jcni.netlink.NextHop;
import io.jcni.netlink.Route;
import io.jcni.netlink.Scope;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import io.jcni.netlink.internal.wire.SocketH;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** {@code RTM_*ROUTE} messages: {@code struct rtmsg}, {@code RTA_*} attributes, {@code struct rtnexthop}. */
public final class RouteCodec {
    private RouteCodec() {}

    /** Writes {@code struct rtmsg}. Tables above 255 go in {@code RTA_TABLE} only, as the header byte cannot hold them. */
    public static void rtmsg(MessageWriter w, int family, int dstLength, int table, int protocol, int scope, int type,
            int flags) {
        int at = w.reserve(RTMSG_SIZE);
        w.putU8(at + RTM_FAMILY, family);
        w.putU8(at + RTM_DST_LEN, dstLength);
        w.putU8(at + RTM_TABLE, table < 256 ? table : RtnetlinkH.RT_TABLE_UNSPEC);
        w.putU8(at + RTM_PROTOCOL, protocol);
        w.putU8(at + RTM_SCOPE, scope);
        w.putU8(at + RTM_TYPE, type);
        w.putU32(at + RTM_FLAGS, flags);
    }

    /** The scope {@code ip route add} picks when none is given. */
    static int defaultScope(Route r) {
        if (r.type() == RtnetlinkH.RTN_LOCAL || r.type() == RtnetlinkH.RTN_NAT) {
            return RtnetlinkH.RT_SCOPE_HOST;
        }
        if (r.type() == RtnetlinkH.RTN_BROADCAST || r.type() == RtnetlinkH.RTN_MULTICAST
                || r.type() == RtnetlinkH.RTN_ANYCAST) {
            return RtnetlinkH.RT_SCOPE_LINK;
        }
        return r.gateway() == null && r.nextHops().isEmpty() ? RtnetlinkH.RT_SCOPE_LINK
                : RtnetlinkH.RT_SCOPE_UNIVERSE;
    }

    /** {@code RTM_NEWROUTE} body. */
    public static void newRoute(MessageWriter w, Route r) {
        int scope = r.scope() != null ? r.scope().value() : defaultScope(r);
        body(w, r, r.protocol(), scope, true);
    }

    /**
     * {@code RTM_DELROUTE} body: as {@code ip route del}, protocol 0 and (unless the route names one) scope
     * {@code RT_SCOPE_NOWHERE}, which match any; metric 0 matches any metric for IPv6.
     */
    public static void deleteRoute(MessageWriter w, Route r) {
        int scope = r.scope() != null ? r.scope().value() : RtnetlinkH.RT_SCOPE_NOWHERE;
        body(w, r, RtnetlinkH.RTPROT_UNSPEC, scope, false);
    }

    private static void body(MessageWriter w, Route r, int protocol, int scope, boolean metrics) {
        rtmsg(w, r.family().af(), r.destinationLength(), r.table(), protocol, scope, r.type(), r.flags());
        if (r.destinationLength() > 0) {
            w.address(RtnetlinkH.RTA_DST, r.destination());
        }
        w.u32(RtnetlinkH.RTA_TABLE, r.table());
        if (r.gateway() != null) {
            w.address(RtnetlinkH.RTA_GATEWAY, r.gateway());
        }
        if (r.outIndex() != 0) {
            w.u32(RtnetlinkH.RTA_OIF, r.outIndex());
        }
        if (r.metric() != 0) {
            w.u32(RtnetlinkH.RTA_PRIORITY, r.metric());
        }
        if (r.source() != null) {
            w.address(RtnetlinkH.RTA_PREFSRC, r.source());
        }
        if (metrics && (r.mtu() != 0 || r.advmss() != 0)) {
            int at = w.nest(RtnetlinkH.RTA_METRICS);
            if (r.mtu() != 0) {
                w.u32(RtnetlinkH.RTAX_MTU, r.mtu());
            }
            if (r.advmss() != 0) {
                w.u32(RtnetlinkH.RTAX_ADVMSS, r.advmss());
            }
            w.endNest(at);
        }
        if (!r.nextHops().isEmpty()) {
            int mp = w.nest(RtnetlinkH.RTA_MULTIPATH);
            for (NextHop h : r.nextHops()) {
                int at = w.reserve(RTNEXTHOP_SIZE);
                w.putU8(at + RTNH_FLAGS, h.flags());
                w.putU8(at + RTNH_HOPS, h.weight() - 1);
                w.putU32(at + RTNH_IFINDEX, h.index());
                if (h.gateway() != null) {
                    w.address(RtnetlinkH.RTA_GATEWAY, h.gateway());
                }
                w.putU16(at + RTNH_LEN, w.position() - at);
            }
            w.endNest(mp);
        }
    }

    /**
     * A dump request for {@code family} (null: all), filtered by {@code table} in the kernel (strict checking) when
     * non-zero.
     */
    public static void dumpRequest(MessageWriter w, Family family, int table) {
        rtmsg(w, family == null ? SocketH.AF_UNSPEC : family.af(), 0, table, 0, 0, 0, 0);
        if (table != 0) {
            w.u32(RtnetlinkH.RTA_TABLE, table);
        }
    }

    /** Decodes an {@code RTM_NEWROUTE} message of IPv4 or IPv6; null for others (multicast families, other types). */
    public static Route decode(ByteBuffer b, int off, int len) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != RtnetlinkH.RTM_NEWROUTE) {
            return null;
        }
        if (len < NLMSGHDR_SIZE + RTMSG_SIZE) {
            throw new MalformedMessageException("RTM_NEWROUTE of " + len + " bytes");
        }
        int body = off + NLMSGHDR_SIZE;
        Family family = Family.ofAf(Byte.toUnsignedInt(b.get(body + RTM_FAMILY)));
        if (family == null) {
            return null;
        }
        int dstLength = Byte.toUnsignedInt(b.get(body + RTM_DST_LEN));
        int table = Byte.toUnsignedInt(b.get(body + RTM_TABLE));
        int protocol = Byte.toUnsignedInt(b.get(body + RTM_PROTOCOL));
        int scope = Byte.toUnsignedInt(b.get(body + RTM_SCOPE));
        int type = Byte.toUnsignedInt(b.get(body + RTM_TYPE));
        int flags = b.getInt(body + RTM_FLAGS) & 0xff;
        InetAddress dst = null;
        InetAddress gateway = null;
        InetAddress source = null;
        int oif = 0;
        int metric = 0;
        int mtu = 0;
        int advmss = 0;
        List<NextHop> hops = List.of();
        AttrCursor c = new AttrCursor(b, body + MessageWriter.align(RTMSG_SIZE), off + len);
        while (c.next()) {
            switch (c.type()) {
                case RtnetlinkH.RTA_DST -> dst = c.address();
                case RtnetlinkH.RTA_GATEWAY -> gateway = c.address();
                case RtnetlinkH.RTA_PREFSRC -> source = c.address();
                case RtnetlinkH.RTA_OIF -> oif = c.u32();
                case RtnetlinkH.RTA_PRIORITY -> metric = c.u32();
                case RtnetlinkH.RTA_TABLE -> table = c.u32();
                case RtnetlinkH.RTA_METRICS -> {
                    AttrCursor m = c.nested();
                    while (m.next()) {
                        if (m.type() == RtnetlinkH.RTAX_MTU) {
                            mtu = m.u32();
                        } else if (m.type() == RtnetlinkH.RTAX_ADVMSS) {
                            advmss = m.u32();
                        }
                    }
                }
                case RtnetlinkH.RTA_MULTIPATH -> hops = nextHops(b, c.payloadOffset(), c.payloadOffset()
                        + c.payloadLength());
                default -> { }
            }
        }
        InetAddress destination = dst != null ? dst : family.any();
        return new Route(destination, dst != null ? dstLength : 0, gateway, oif, metric, table, Scope.of(scope),
                source, mtu, advmss, protocol, type, hops, flags);
    }

    private static List<NextHop> nextHops(ByteBuffer b, int start, int end) {
        List<NextHop> hops = new ArrayList<>();
        int at = start;
        while (at + RTNEXTHOP_SIZE <= end) {
            int len = Short.toUnsignedInt(b.getShort(at + RTNH_LEN));
            if (len < RTNEXTHOP_SIZE || at + len > end) {
                throw new MalformedMessageException("rtnexthop length " + len + " at offset " + at);
            }
            int flags = Byte.toUnsignedInt(b.get(at + RTNH_FLAGS));
            int weight = Byte.toUnsignedInt(b.get(at + RTNH_HOPS)) + 1;
            int index = b.getInt(at + RTNH_IFINDEX);
            InetAddress gateway = null;
            AttrCursor c = new AttrCursor(b, at + RTNEXTHOP_SIZE, at + len);
            while (c.next()) {
                if (c.type() == RtnetlinkH.RTA_GATEWAY) {
                    gateway = c.address();
                }
            }
            hops.add(new NextHop(gateway, index, weight, flags));
            at += MessageWriter.align(len);
        }
        return hops;
    }
}
