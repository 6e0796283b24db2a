package io.jcni.netlink;

import java.net.InetAddress;

/**
 * One path of a multipath (ECMP) route ({@code ip route add DST nexthop via GW dev DEV weight W nexthop ...}).
 *
 * @param gateway null for a directly connected path
 * @param index the outgoing link, 0 to let the kernel pick it from the gateway
 * @param weight 1-256 ({@code rtnh_hops} + 1)
 * @param flags {@code RTNH_F_*} (e.g. {@code RTNH_F_ONLINK} 4; the kernel adds {@code RTNH_F_LINKDOWN} 16 and
 *     {@code RTNH_F_DEAD} 1 when reporting)
 */
public record NextHop(InetAddress gateway, int index, int weight, int flags) {
    public NextHop {
        if (weight < 1 || weight > 256) {
            throw new IllegalArgumentException("nexthop weight must be 1-256: " + weight);
        }
    }

    /** {@code nexthop via GATEWAY dev INDEX weight 1}. */
    public static NextHop via(InetAddress gateway, int index) {
        return new NextHop(gateway, index, 1, 0);
    }

    public NextHop weight(int weight) {
        return new NextHop(gateway, index, weight, flags);
    }

    @Override
    public String toString() {
        return "nexthop" + (gateway == null ? "" : " via " + gateway.getHostAddress()) + " dev " + index
                + " weight " + weight + (flags == 0 ? "" : " flags " + flags);
    }
}
