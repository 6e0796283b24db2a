package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Address;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.Route;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * CHECK's validators: the kernel state of a namespace against a prevResult, as Go's {@code ip.ValidateExpected*}
 * and the plugins' {@code validateCniContainerInterface}. Each throws a CNI error (code 999, Go's wording where Go has
 * one) naming the first thing that differs; none changes anything.
 */
public final class Checks {
    private Checks() {
    }

    /**
     * Every address of {@code ips} is on {@code ifName} with its prefix length, and the main table has a route to its
     * network (Go's {@code ValidateExpectedInterfaceIPs}).
     */
    public static void interfaceIps(Namespace ns, String ifName, List<IpConfig> ips) throws CniException {
        if (ips.isEmpty()) {
            return;
        }
        try {
            Optional<Link> link = ns.nl().findLink(ifName);
            if (link.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Cannot find container link " + ifName);
            }
            List<Address> addresses = ns.nl().addresses(link.get().index(), null);
            for (IpConfig ip : ips) {
                boolean found = false;
                for (Address address : addresses) {
                    found |= Prefixes.of(address).equals(ip.address());
                }
                if (!found) {
                    throw new CniException(CniError.INTERNAL,
                            "Failed to match addr " + ip.address() + " on interface " + ifName,
                            ifName + " in " + ns + " does not hold " + ip.address());
                }
                IpPrefix network = ip.address().masked();
                if (!hasRoute(ns.mainRoutes(Family.of(ip.address().address())), network, null, false)) {
                    throw new CniException(CniError.INTERNAL, "Failed to find Gateway "
                            + IpText.format(ip.gateway()) + " for interface "
                            + ifName, "no route to " + network + " in " + ns);
                }
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to read the addresses of \"" + ifName + "\" in " + ns, e);
        }
    }

    /**
     * Every route of {@code routes} is in the main table (Go's {@code ValidateExpectedRoute}): a default route of the
     * family for a default destination, else a route to the destination via the route's {@code gw}. A route without
     * {@code gw} matches a route via the family's gateway of the result's addresses too, which is what
     * {@code IfaceConfig} installs for it (Go's CHECK fails on its own ADD there).
     */
    public static void routes(Namespace ns, List<io.jcni.spec.Route> routes, Gateways gateways)
            throws CniException {
        try {
            List<Route> v4 = null;
            List<Route> v6 = null;
            for (io.jcni.spec.Route expected : routes) {
                List<Route> table;
                if (expected.dst().isIpv4()) {
                    table = v4 == null ? v4 = ns.mainRoutes(Family.V4) : v4;
                } else {
                    table = v6 == null ? v6 = ns.mainRoutes(Family.V6) : v6;
                }
                IpPrefix dst = expected.dst().masked();
                boolean found;
                if (dst.prefixLength() == 0) {
                    found = hasRoute(table, dst, null, false);
                } else if (expected.gw() != null && expected.gw().isAnyLocalAddress()) {
                    found = hasRoute(table, dst, null, true); // gw 0.0.0.0: on-link (dhcp's option 121 routes)
                } else if (expected.gw() != null) {
                    found = hasRoute(table, dst, expected.gw(), true);
                } else {
                    InetAddress implied = gateways.forDestination(expected.dst());
                    found = hasRoute(table, dst, null, true) || (implied != null && hasRoute(table, dst, implied, true));
                }
                if (!found) {
                    throw new CniException(CniError.INTERNAL, "Expected Route {Dst:" + dst + " GW:"
                            + IpText.format(expected.gw())
                            + "} not found in routing table", "the main table of " + ns + " has no such route");
                }
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to read the routes of " + ns, e);
        }
    }

    /**
     * CHECK of a prevResult's addressing in the container: {@link #interfaceIps} of its {@code ips} on {@code ifName},
     * then {@link #routes} of its {@code routes} (Go's {@code ValidateExpectedInterfaceIPs} and
     * {@code ValidateExpectedRoute}, in that order).
     */
    public static void addressing(Namespace container, Result previous, String ifName) throws CniException {
        interfaceIps(container, ifName, previous.ips());
        routes(container, previous.routes(), Gateways.of(previous.ips()));
    }

    /** Whether {@code table} has a route to {@code dst}; with {@code matchGateway}, via exactly {@code gateway}. */
    static boolean hasRoute(List<Route> table, IpPrefix dst, InetAddress gateway, boolean matchGateway) {
        for (Route route : table) {
            if (!Prefixes.destination(route).equals(dst)) {
                continue;
            }
            if (!matchGateway || (gateway == null ? route.gateway() == null : gateway.equals(route.gateway()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The container's interface of a prevResult against the namespace: named, in a sandbox equal to
     * {@code netns}, present, a veth, with the recorded MAC (case-insensitive).
     *
     * @return the link found
     */
    public static Link containerVeth(Namespace container, Optional<Interface> recorded, String ifName, String netns)
            throws CniException {
        if (recorded.isEmpty()) {
            throw new CniException(CniError.INTERNAL,
                    "Sandbox in prevResult doesn't match configured netns: " + netns,
                    "prevResult has no interface " + ifName + " with sandbox " + netns);
        }
        Interface expected = recorded.get();
        if (expected.name().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Container interface name missing in prevResult");
        }
        if (expected.sandbox().isEmpty()) {
            throw new CniException(CniError.INTERNAL,
                    "Interface " + expected.name() + " is expected to be in a sandbox");
        }
        Link link;
        try {
            Optional<Link> found = container.nl().findLink(expected.name());
            if (found.isEmpty()) {
                throw new CniException(CniError.INTERNAL,
                        "Container Interface name in prevResult: " + expected.name() + " not found");
            }
            link = found.get();
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up \"" + expected.name() + "\" in " + container, e);
        }
        if (!(link.info() instanceof LinkInfo.Veth)) {
            throw new CniException(CniError.INTERNAL,
                    "Error: Container interface " + link.name() + " not of type veth",
                    "its kind is \"" + link.kind() + "\"");
        }
        mac(expected, link, "Interface " + expected.name() + " Mac " + expected.mac()
                + " doesn't match container Mac: " + link.address());
        return link;
    }

    /** Fails with {@code message} unless {@code link} has the MAC {@code recorded} names (nothing to check if none). */
    public static void mac(Interface recorded, Link link, String message) throws CniException {
        if (recorded.mac().isEmpty()) {
            return;
        }
        MacAddress expected;
        try {
            expected = MacAddress.parse(recorded.mac());
        } catch (IllegalArgumentException e) {
            throw new CniException(CniError.INTERNAL, message, "prevResult's MAC is malformed: " + e.getMessage());
        }
        if (link.address() == null || !link.address().equals(expected)) {
            throw new CniException(CniError.INTERNAL, message);
        }
    }
}
