package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NextHop;
import io.jcni.netlink.Route;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.List;

/**
 * The interface of the default route, the default {@code master} of macvlan, ipvlan and vlan (Go's
 * {@code getDefaultRouteInterfaceName}): the link of the first IPv4 default route of the main table; on a host without
 * one, the first IPv6 default route's (Go looks at IPv4 only and fails there). A multipath default route counts by
 * its first next hop.
 */
public final class DefaultRoutes {
    private DefaultRoutes() {
    }

    /** The name of the default route's link in {@code ns}; code 7 when there is no default route to take it from. */
    public static String interfaceName(Namespace ns) throws CniException {
        try {
            int index = defaultRouteLink(ns, Family.V4);
            if (index == 0) {
                index = defaultRouteLink(ns, Family.V6);
            }
            if (index == 0) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "no default route interface found",
                        "set \"master\" explicitly: " + ns + " has no default route to take it from");
            }
            Link link = ns.nl().link(index);
            return link.name();
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to find the default route's interface", e);
        }
    }

    /** The out link of the first default route of the family with one, 0 if none. */
    static int defaultRouteLink(Namespace ns, Family family) {
        List<Route> routes = ns.mainRoutes(family);
        for (Route route : routes) {
            if (!route.isDefault()) {
                continue;
            }
            if (route.outIndex() > 0) {
                return route.outIndex();
            }
            for (NextHop hop : route.nextHops()) {
                if (hop.index() > 0) {
                    return hop.index();
                }
            }
        }
        return 0;
    }
}
