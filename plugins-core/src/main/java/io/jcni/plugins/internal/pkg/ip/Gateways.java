package io.jcni.plugins.internal.pkg.ip;

import io.jcni.spec.IpConfig;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;

/** The IPv4 and IPv6 gateways that routes without their own use: the first of each family in {@code ips}. */
public record Gateways(InetAddress v4, InetAddress v6) {
    public static Gateways of(List<IpConfig> ips) {
        InetAddress v4 = null;
        InetAddress v6 = null;
        for (IpConfig ip : ips) {
            InetAddress gw = ip.gateway();
            if (gw instanceof Inet4Address) {
                v4 = v4 == null ? gw : v4;
            } else if (gw != null) {
                v6 = v6 == null ? gw : v6;
            }
        }
        return new Gateways(v4, v6);
    }

    /** The gateway for a route to {@code dst} that names none: the family's, or null. */
    public InetAddress forDestination(io.jcni.spec.IpPrefix dst) {
        return dst.isIpv4() ? v4 : v6;
    }
}
