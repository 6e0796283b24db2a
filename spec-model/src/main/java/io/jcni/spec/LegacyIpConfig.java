package io.jcni.spec;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * The {@code ip4} or {@code ip6} member of a 0.1.0/0.2.0 result.
 *
 * @param ip      the address with prefix length, host bits kept
 * @param gateway the gateway, or null
 * @param routes  routes for this address family (only {@code dst} and {@code gw} exist in these versions)
 */
public record LegacyIpConfig(IpPrefix ip, InetAddress gateway, List<Route> routes) {
    public LegacyIpConfig {
        Objects.requireNonNull(ip, "ip");
        if (gateway != null) {
            gateway = IpPrefix.normalize(gateway);
        }
        routes = routes == null ? List.of() : Route.withoutV110Fields(routes);
    }

    /** The addresses as CNI prints them: {@code LegacyIpConfig[ip=10.1.0.5/16, gateway=10.1.0.1, routes=[]]}. */
    @Override
    public String toString() {
        return "LegacyIpConfig[ip=" + ip + ", gateway=" + (gateway == null ? "null" : IpText.format(gateway))
                + ", routes=" + routes + "]";
    }
}
