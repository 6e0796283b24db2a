package io.jcni.plugins.internal.main.bridge;

import io.jcni.netlink.Address;
import io.jcni.netlink.Family;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.internal.pkg.ip.VethPair;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The bridge plugin's gateway: the gateways and default routes of the container's result ({@link #withGateways},
 * Go's {@code calcGateways}) and, with {@code isGateway}, the gateway addresses on the bridge or its VLAN's gateway
 * veth ({@link #serveAsGateway}). An address added here is removed by the rollback only while no other port uses the
 * bridge; one that {@code forceAddress} replaced is put back.
 */
final class BridgeGateway {
    private BridgeGateway() {
    }

    /**
     * Go's {@code calcGateways}: every IP belongs to the container interface (index 2); with {@code isGateway} an IP
     * without gateway gets the first address of its subnet; with {@code isDefaultGateway} a default route via it per
     * family, unless IPAM already gave the family a default route. (Go counts only an IPAM default route that has a
     * gateway and then adds a second one, which the kernel refuses with EEXIST; jcni counts both, since a default
     * route without gateway is installed via the same gateway.)
     */
    static Result withGateways(Result result, Result ipam, BridgeConfig conf) {
        List<IpConfig> ips = new ArrayList<>(ipam.ips().size());
        List<Route> routes = new ArrayList<>(ipam.routes());
        boolean v4Default = false;
        boolean v6Default = false;
        for (Route route : routes) {
            if (route.dst().prefixLength() == 0) {
                v4Default |= route.dst().isIpv4();
                v6Default |= !route.dst().isIpv4();
            }
        }
        for (IpConfig ip : ipam.ips()) {
            InetAddress gateway = ip.gateway();
            if (gateway == null && conf.isGateway()) {
                gateway = firstAddress(ip.address());
            }
            ips.add(new IpConfig(2, ip.address(), gateway));
            if (conf.isDefaultGateway()) {
                boolean v4 = ip.isIpv4();
                if (v4 ? !v4Default : !v6Default) {
                    routes.add(new Route(defaultDestination(v4), gateway));
                    if (v4) {
                        v4Default = true;
                    } else {
                        v6Default = true;
                    }
                }
            }
        }
        return new Result(result.interfaces(), ips, routes, ipam.dns());
    }

    /** Go's {@code calcGatewayIP}: the network address plus one. */
    static InetAddress firstAddress(IpPrefix address) {
        byte[] b = address.network().getAddress();
        for (int i = b.length - 1; i >= 0; i--) {
            b[i]++;
            if (b[i] != 0) {
                break;
            }
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private static IpPrefix defaultDestination(boolean v4) {
        byte[] zero = new byte[v4 ? 4 : 16];
        try {
            return new IpPrefix(InetAddress.getByAddress(zero), 0);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * With {@code isGateway}: the bridge (or with {@code vlan} its VLAN's gateway veth) gets each IP's gateway with the
     * IP's prefix length, and IP forwarding is enabled for their families.
     *
     * @return the VLAN's gateway link, to report as an interface; empty when the bridge itself is the gateway
     */
    static Optional<Link> serveAsGateway(Namespace host, Link bridge, List<IpConfig> ips, BridgeConfig conf,
            Link ownPort, Rollback rollback) throws CniException {
        Link gateway = conf.vlan() != 0 ? ensureVlanGateway(host, bridge, conf, rollback) : bridge;
        for (IpConfig ip : ips) {
            ensureGatewayAddress(host, gateway, new IpPrefix(ip.gateway(), ip.address().prefixLength()), conf,
                    ownPort.name(), rollback);
        }
        NetSysctls.enableForwarding(host, ips, rollback);
        Timing.phase("gateway");
        return gateway == bridge ? Optional.empty() : Optional.of(gateway);
    }

    /**
     * Go's {@code ensureVlanInterface}: with {@code vlan} and {@code isGateway}, the gateway address lives on a veth
     * named {@code <bridge>.<vlan>} in the host whose peer is an access port of that VLAN on the bridge. Reached only
     * on kernels with bridge VLAN filtering (the bridge is created with it first).
     */
    private static Link ensureVlanGateway(Namespace host, Link bridge, BridgeConfig conf, Rollback rollback)
            throws CniException {
        String name = bridge.name() + "." + conf.vlan();
        try {
            Optional<Link> existing = host.nl().findLink(name);
            if (existing.isPresent()) {
                return existing.get();
            }
            VethPair pair = VethPair.create(host, host, name, bridge.mtu(), null, rollback);
            HostBridge.attachPort(host, bridge, pair.host(), conf.gatewayPort());
            host.nl().setUp(pair.container().index());
            return host.nl().link(pair.container().index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to create vlan interface \"" + name + "\"", e);
        }
    }

    /**
     * Go's {@code ensureAddr}: nothing to do if the bridge has the gateway address (unless the kernel zeroed its MAC:
     * then a random one pins it); another IPv4 address, or an IPv6 one of an overlapping subnet, is an error unless
     * {@code forceAddress} (then it is replaced, and restored by the rollback). Afterwards the bridge's MAC is set to
     * what it was before the port joined (a random one if the kernel had zeroed it), which pins it.
     */
    private static void ensureGatewayAddress(Namespace host, Link link, IpPrefix gateway, BridgeConfig conf,
            String ownPort, Rollback rollback) throws CniException {
        Family family = Family.of(gateway.address());
        try {
            for (Address existing : host.nl().addresses(link.index(), family)) {
                IpPrefix a = Prefixes.of(existing);
                if (a.equals(gateway)) {
                    if (HostBridge.isUnset(link.address())) { // see below: pinned now, it stays when ports come
                        host.nl().setAddress(link.index(), HostBridge.randomMac());
                    }
                    return;
                }
                if (a.address().isLinkLocalAddress()) {
                    continue;
                }
                boolean overlaps = a.contains(gateway.address()) || gateway.contains(a.address());
                if (family == Family.V4 || overlaps) {
                    if (!conf.forceAddress()) {
                        throw new CniException(CniError.INTERNAL, "\"" + link.name()
                                + "\" already has an IP address different from " + gateway,
                                "it has " + a + "; set forceAddress to replace it");
                    }
                    host.nl().deleteAddress(link.index(), existing.address(), existing.prefixLength());
                    rollback.onFailure("restore address " + a + " on " + link.name(),
                            new RestoreAddress(host, link.name(), existing));
                }
            }
            try {
                host.nl().addAddress(link.index(), gateway.address(), gateway.prefixLength());
                rollback.onFailure("remove gateway " + gateway + " from " + link.name() + " unless other ports use it",
                        new RemoveGatewayIfUnused(host, link.name(), gateway, ownPort));
            } catch (NetlinkException e) {
                if (!e.isExists()) {
                    throw e;
                }
            }
            // The MAC the bridge had before this ADD's port joined (as Go re-sets the address it read then): pinned,
            // it no longer follows the lowest MAC among the ports, which changes as containers come and go. The
            // kernel zeroes the MAC of an unpinned bridge when its last port leaves, and refuses a zero MAC: such a
            // bridge (made elsewhere: jcni's are pinned from birth) gets a random one, as the kernel would give it.
            host.nl().setAddress(link.index(),
                    HostBridge.isUnset(link.address()) ? HostBridge.randomMac() : link.address());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set bridge addr: could not add IP address to \"" + link.name() + "\"",
                    e);
        }
    }

    /** Removes a gateway address this ADD added, unless ports other than this ADD's own are on the bridge. */
    private static final class RemoveGatewayIfUnused extends Undos.InNamespace {
        private final Namespace host;
        private final String link;
        private final IpPrefix gateway;
        private final String ownPort;

        RemoveGatewayIfUnused(Namespace host, String link, IpPrefix gateway, String ownPort) {
            super(host);
            this.host = host;
            this.link = link;
            this.gateway = gateway;
            this.ownPort = ownPort;
        }

        @Override
        protected void apply(Namespace ns) throws Exception {
            Optional<Link> found = ns.nl().findLink(link);
            if (found.isPresent() && !HostBridge.hasOtherPorts(ns, found.get().index(), ownPort)) {
                new Undos.DeleteAddress(host, link, gateway).undo();
            }
        }
    }

    /** Puts back an address that {@code forceAddress} replaced. */
    private static final class RestoreAddress extends Undos.InNamespace {
        private final String link;
        private final InetAddress address;
        private final int prefixLength;

        /** {@code removed} as the kernel reported it: its address and length go back unchanged. */
        RestoreAddress(Namespace host, String link, Address removed) {
            super(host);
            this.link = link;
            this.address = removed.address();
            this.prefixLength = removed.prefixLength();
        }

        @Override
        protected void apply(Namespace ns) {
            Optional<Link> found = ns.nl().findLink(link);
            if (found.isPresent()) {
                ns.nl().addAddress(found.get().index(), address, prefixLength);
            }
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isExists();
        }
    }
}
