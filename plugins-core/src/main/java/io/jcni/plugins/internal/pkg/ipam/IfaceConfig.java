package io.jcni.plugins.internal.pkg.ipam;

import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.Route;
import io.jcni.netlink.Scope;
import io.jcni.plugins.internal.pkg.ip.Gateways;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.internal.pkg.ns.Namespace.SysctlWrite;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetBatch;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.PluginLog;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Applies an IPAM result to an interface, as Go's {@code ipam.ConfigureIface} does, through netlink in the
 * interface's namespace:
 * <ol>
 * <li>every {@code ips[]} entry whose {@code interface} index names {@code ifName} goes on the link (an index naming
 * another interface is an error; entries without an index are skipped, as in Go);</li>
 * <li>before the first IPv6 address, {@code disable_ipv6=0} on {@code lo} and the link (restored by the rollback if
 * this changed it);</li>
 * <li>the link goes up; if an IPv6 gateway is present, waits (10 s at most) until duplicate address detection is
 * over, as Go's {@code ip.SettleAddresses}; a timeout is logged and tolerated as in Go, a failed detection (the
 * address is in use on the link) is an error, where Go ignores it;</li>
 * <li>every {@code routes[]} entry is added on the link, via its own {@code gw} or else via the first gateway of its
 * family among the addresses.</li>
 * </ol>
 * Addresses and the link-up go to the kernel in one batch, the routes in another. Nothing here is undone except the
 * {@code disable_ipv6} values: addresses and routes go away with the link, which the caller's rollback deletes (or
 * for a moved device, whose owner restores it).
 */
public final class IfaceConfig {
    /** Go's {@code ip.SettleAddresses(ifName, 10)}. */
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(10);

    private IfaceConfig() {
    }

    /**
     * Configures {@code ifName} in {@code ns} from {@code result} (see the class comment).
     *
     * @return the link as it is afterwards
     */
    public static Link configure(Namespace ns, String ifName, Result result, Rollback rollback,
            PluginLog log) throws CniException {
        if (result.interfaces().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "no interfaces to configure");
        }
        Link link = lookUp(ns, ifName);
        List<IpConfig> mine = addressesOf(result, ifName);
        if (hasIpv6(mine)) {
            List<SysctlWrite> enable = List.of(new SysctlWrite(NetSysctls.disableIpv6("lo"), "0", false),
                    new SysctlWrite(NetSysctls.disableIpv6(ifName), "0", false));
            NetSysctls.set(ns, enable, rollback, "failed to enable IPv6 for \"" + ifName + "\"");
        }
        Gateways gateways = Gateways.of(mine);
        addAddressesAndUp(ns, link, ifName, mine);
        if (gateways.v6() != null) {
            settle(ns, link, log);
        }
        addRoutes(ns, link, ifName, result.routes(), gateways);
        Link configured = lookUp(ns, link.index(), ifName);
        Timing.phase("container");
        return configured;
    }

    private static Link lookUp(Namespace ns, String ifName) throws CniException {
        try {
            return ns.nl().link(ifName);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to lookup \"" + ifName + "\"", e);
        }
    }

    private static Link lookUp(Namespace ns, int index, String ifName) throws CniException {
        try {
            return ns.nl().link(index);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to lookup \"" + ifName + "\"", e);
        }
    }

    /** The {@code ips[]} entries whose interface index names {@code ifName}; one naming another is an error. */
    private static List<IpConfig> addressesOf(Result result, String ifName) throws CniException {
        List<IpConfig> mine = new ArrayList<>(result.ips().size());
        for (IpConfig ip : result.ips()) {
            Integer index = ip.interfaceIndex();
            if (index == null) {
                continue;
            }
            if (index < 0 || index >= result.interfaces().size()
                    || !result.interfaces().get(index).name().equals(ifName)) {
                throw new CniException(CniError.INTERNAL, "failed to add IP addr " + ip.address() + " to \"" + ifName
                        + "\": invalid interface index " + index);
            }
            mine.add(ip);
        }
        return mine;
    }

    private static boolean hasIpv6(List<IpConfig> ips) {
        for (IpConfig ip : ips) {
            if (!ip.isIpv4()) {
                return true;
            }
        }
        return false;
    }

    /** The addresses and the link-up, in one batch. */
    private static void addAddressesAndUp(Namespace ns, Link link, String ifName, List<IpConfig> mine)
            throws CniException {
        NetBatch up = new NetBatch(ns.nl());
        for (IpConfig ip : mine) {
            up.on("failed to add IP addr " + ip.address() + " to \"" + ifName + "\"")
                    .addAddress(link.index(), ip.address().address(), ip.address().prefixLength());
        }
        up.on("failed to set \"" + ifName + "\" up").setUp(link.index());
        up.execute();
    }

    /** The routes on the link, each via its own gateway or its family's first, in one batch. */
    private static void addRoutes(Namespace ns, Link link, String ifName, List<io.jcni.spec.Route> configured,
            Gateways gateways) throws CniException {
        NetBatch routes = new NetBatch(ns.nl());
        for (io.jcni.spec.Route r : configured) {
            InetAddress gw = r.gw() != null ? r.gw() : gateways.forDestination(r.dst());
            IpPrefix dst = r.dst().masked();
            // Scope universe also without a gateway, as Go's netlink library sends it (ip would choose link), unless
            // the route says (1.1.0's scope: dhcp's on-link routes are scope link); its priority is the metric, as in
            // Go's ConfigureIface since 1.6.
            Route route = Prefixes.routeTo(dst).dev(link.index()).via(gw)
                    .scope(r.scope() == null ? Scope.UNIVERSE : Scope.of(r.scope()));
            if (r.priority() != 0) {
                route = route.metric(r.priority());
            }
            routes.on("failed to add route '" + dst + " via " + IpText.format(gw)
                    + " dev " + ifName + "'").addRoute(route);
        }
        routes.execute();
    }

    /** Waits for IPv6 duplicate address detection on the link (see the class comment). */
    public static void settle(Namespace ns, Link link, PluginLog log) throws CniException {
        try {
            ns.nl().settleAddresses(link.index(), SETTLE_TIMEOUT);
        } catch (NetlinkException e) {
            if (e.errnoName().equals("ETIMEDOUT")) {
                log.warn("link " + link.name() + " still has tentative addresses after " + SETTLE_TIMEOUT.toSeconds()
                        + " seconds (continuing, as Go's plugins do): " + e.getMessage());
                return;
            }
            throw NetErrors.failure("IPv6 duplicate address detection failed on \"" + link.name() + "\"", e);
        }
    }

}
