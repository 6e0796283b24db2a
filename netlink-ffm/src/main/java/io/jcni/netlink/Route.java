package io.jcni.netlink;

import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * A route ({@code RTM_NEWROUTE}; {@code ip route}), used both to request one and to read one back. Read like
 * {@code ip}: {@code Route.to(net10, 8).via(gw).dev(3).metric(100)} is
 * {@code ip route add 10.0.0.0/8 via GW dev <3> metric 100}. Addresses are {@link InetAddress} values, never text
 * (see {@link Address}).
 *
 * @param destination the destination's network address, host bits clear (the family's any-address,
 *     {@code 0.0.0.0} or {@code ::}, for a default route)
 * @param destinationLength the destination's prefix length, 0 for a default route
 * @param gateway the next hop's address, null for a directly connected route
 * @param outIndex the outgoing link ({@code dev}), 0 for none
 * @param metric {@code RTA_PRIORITY} ({@code metric}); 0 is the kernel's default (IPv6 then uses 1024)
 * @param table the routing table, {@link #TABLE_MAIN} by default
 * @param scope when requesting, null chooses as {@code ip} does: {@code link} for a route without gateway, else
 *     {@code global} ({@code host} for type local); always set when read back
 * @param source the preferred source address ({@code src}, {@code RTA_PREFSRC}), null if none
 * @param mtu {@code RTAX_MTU} in {@code RTA_METRICS}, 0 if none
 * @param advmss {@code RTAX_ADVMSS} in {@code RTA_METRICS}, 0 if none
 * @param protocol {@code RTPROT_*} ({@code proto}); requests default to {@code RTPROT_BOOT} (3) as {@code ip} does
 * @param type {@code RTN_*}; {@code RTN_UNICAST} (1) by default
 * @param nextHops the paths of a multipath route ({@code RTA_MULTIPATH}), empty otherwise (then {@code gateway} and
 *     {@code outIndex} describe the single path)
 * @param flags {@code RTNH_F_*} of a single-path route (e.g. {@code RTNH_F_ONLINK} 4, {@code onlink})
 */
public record Route(InetAddress destination, int destinationLength, InetAddress gateway, int outIndex, int metric,
        int table, Scope scope, InetAddress source, int mtu, int advmss, int protocol, int type, List<NextHop> nextHops,
        int flags) {

    /** {@code RT_TABLE_MAIN} (254). */
    public static final int TABLE_MAIN = RtnetlinkH.RT_TABLE_MAIN;
    /** {@code RT_TABLE_LOCAL} (255). */
    public static final int TABLE_LOCAL = RtnetlinkH.RT_TABLE_LOCAL;
    /** {@code RTN_UNICAST} (1). */
    public static final int TYPE_UNICAST = RtnetlinkH.RTN_UNICAST;
    /** {@code RTN_LOCAL} (2). */
    public static final int TYPE_LOCAL = RtnetlinkH.RTN_LOCAL;
    /** {@code RTN_BLACKHOLE} (6). */
    public static final int TYPE_BLACKHOLE = RtnetlinkH.RTN_BLACKHOLE;
    /** {@code RTPROT_KERNEL} (2): routes the kernel added (e.g. prefix routes of addresses). */
    public static final int PROTOCOL_KERNEL = RtnetlinkH.RTPROT_KERNEL;
    /** {@code RTPROT_BOOT} (3): the default of {@code ip route add}. */
    public static final int PROTOCOL_BOOT = RtnetlinkH.RTPROT_BOOT;
    /** {@code RTPROT_STATIC} (4). */
    public static final int PROTOCOL_STATIC = RtnetlinkH.RTPROT_STATIC;
    /** {@code RTNH_F_ONLINK} (4): the gateway is on the link even if no prefix says so. */
    public static final int FLAG_ONLINK = RtnetlinkH.RTNH_F_ONLINK;

    public Route {
        Objects.requireNonNull(destination, "destination");
        Family.requirePrefixLength(destination, destinationLength);
        nextHops = List.copyOf(nextHops);
        if (gateway != null && Family.of(gateway) != Family.of(destination)) {
            throw new IllegalArgumentException("gateway " + gateway.getHostAddress() + " is not of the family of "
                    + destination.getHostAddress());
        }
        if (table < 0 || type < 0 || type > 255 || protocol < 0 || protocol > 255) {
            throw new IllegalArgumentException("bad table, type or protocol in route to "
                    + destination.getHostAddress());
        }
    }

    /** {@code ip route add DESTINATION/LENGTH} in the main table, nothing else set yet. */
    public static Route to(InetAddress destination, int destinationLength) {
        return new Route(destination, destinationLength, null, 0, 0, TABLE_MAIN, null, null, 0, 0, PROTOCOL_BOOT,
                TYPE_UNICAST, List.of(), 0);
    }

    /** {@code ip route add default via GATEWAY}. */
    public static Route defaultVia(InetAddress gateway) {
        return to(Family.of(gateway).any(), 0).via(gateway);
    }

    public Route via(InetAddress gateway) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Route dev(int outIndex) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Route metric(int metric) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Route table(int table) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Route scope(Scope scope) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    /** {@code src ADDRESS}. */
    public Route src(InetAddress source) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Route mtu(int mtu) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Route advmss(int advmss) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    /** {@code proto N}. */
    public Route protocol(int protocol) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    /** The route type, {@code RTN_*}. */
    public Route type(int type) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    /** {@code nexthop ... nexthop ...}: an ECMP route over {@code nextHops}. */
    public Route multipath(List<NextHop> nextHops) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    /** {@code RTNH_F_*} flags, e.g. {@link #FLAG_ONLINK}. */
    public Route flags(int flags) {
        return new Route(destination, destinationLength, gateway, outIndex, metric, table, scope, source, mtu,
                advmss, protocol, type, nextHops, flags);
    }

    public Family family() {
        return Family.of(destination);
    }

    public boolean isDefault() {
        return destinationLength == 0;
    }

    /** As {@code ip route} prints it: {@code 10.0.0.0/8 via 10.1.0.1 dev 3 table 254 metric 100 ...}. */
    @Override
    public String toString() {
        StringBuilder sb = isDefault() ? new StringBuilder("default")
                : new StringBuilder(destination.getHostAddress()).append('/').append(destinationLength);
        if (gateway != null) {
            sb.append(" via ").append(gateway.getHostAddress());
        }
        if (outIndex != 0) {
            sb.append(" dev ").append(outIndex);
        }
        if (table != TABLE_MAIN) {
            sb.append(" table ").append(table);
        }
        if (metric != 0) {
            sb.append(" metric ").append(metric);
        }
        if (scope != null && !scope.equals(Scope.UNIVERSE)) {
            sb.append(" scope ").append(scope);
        }
        if (source != null) {
            sb.append(" src ").append(source.getHostAddress());
        }
        if (mtu != 0) {
            sb.append(" mtu ").append(mtu);
        }
        if (advmss != 0) {
            sb.append(" advmss ").append(advmss);
        }
        if (type != TYPE_UNICAST) {
            sb.append(" type ").append(type);
        }
        for (NextHop h : nextHops) {
            sb.append(' ').append(h);
        }
        return sb.toString();
    }
}
