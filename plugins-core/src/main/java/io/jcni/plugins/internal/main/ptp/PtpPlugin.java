package io.jcni.plugins.internal.main.ptp;

import io.jcni.netlink.Address;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.Scope;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ip.VethPair;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetBatch;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Timing;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ptp} plugin: a veth pair per container and host routes, no bridge, as Go's {@code ptp}.
 *
 * <p>Configuration: {@code mtu} (0: the kernel's default), {@code ipMasq} (true is refused with code 2 until jcni
 * writes nftables rules over netlink), {@code dns} (replaces IPAM's when set), {@code ipam} (required).
 *
 * <p>ADD: IP forwarding for the families IPAM returned (undone if this ADD changed it and fails), the veth pair, the
 * IPAM result on the container end; then, per address, the container's prefix route is replaced so that everything
 * goes through the gateway ({@code GW/32 dev IF scope link src IP} and {@code NET via GW src IP}), and the host end
 * gets {@code GW/32} (or {@code /128}) and a host route to the container's address. Result interfaces: host veth,
 * container veth (the IPs point at index 1).
 *
 * <p>DEL and CHECK as the bridge plugin's, without a bridge: a surviving host end of a vanished namespace is
 * recognized by holding the recorded gateway addresses.
 */
public final class PtpPlugin implements CniPlugin {

    /** The configuration (Go's {@code NetConf}). */
    record Config(int mtu, boolean ipMasq, Dns dns, String ipamType) {
        static Config load(CniRequest request) throws CniException {
            ConfigNode root = request.config().node();
            int mtu = (int) root.integer("mtu", 0, 65535).orElse(0L).longValue();
            String ipamType = request.config().ipamType();
            if (ipamType.isEmpty()) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "ipam.type: missing plugin type",
                        "ptp needs an IPAM plugin for the container's addresses");
            }
            return new Config(mtu, root.bool("ipMasq").orElse(false), request.config().dns(), ipamType);
        }
    }

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Timing timing = Timing.start(request.log(), "ADD");
        Config conf = Config.load(request);
        if (conf.ipMasq()) {
            throw NetErrors.unsupported("ipMasq");
        }
        timing.mark("config");
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            timing.mark("netns");
            Result ipam = Result.from(request.ipam().add());
            timing.mark("ipam");
            if (ipam.ips().isEmpty()) {
                throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
            }
            boolean v4 = false;
            boolean v6 = false;
            for (IpConfig ip : ipam.ips()) {
                v4 |= ip.isIpv4();
                v6 |= !ip.isIpv4();
                if (ip.gateway() == null) {
                    throw new CniException(CniError.INTERNAL, "IPAM returned no gateway for " + ip.address(),
                            "ptp routes everything through the gateway, which becomes the host end's address");
                }
            }
            NetSysctls.enableForwarding(host, v4, v6, request.rollback());
            timing.mark("forwarding");

            String ifName = request.ifName();
            VethPair veth = VethPair.create(host, container, ifName, conf.mtu(), null, request.rollback());
            timing.mark("veth");
            List<Interface> interfaces = List.of(Links.describe(veth.host(), ""),
                    Links.describe(veth.container(), request.netns()));
            IpConfig[] ips = new IpConfig[ipam.ips().size()];
            for (int i = 0; i < ips.length; i++) {
                ips[i] = ipam.ips().get(i).withInterfaceIndex(1);
            }
            Result result = new Result(interfaces, List.of(ips), ipam.routes(), ipam.dns());
            Link contVeth = IfaceConfig.configure(container, ifName, result, request.rollback(), request.log());
            routeThroughGateway(container, contVeth, result.ips());
            timing.mark("container");
            configureHostEnd(host, veth.host(), result.ips());
            timing.mark("host");
            timing.report();
            return conf.dns().isEmpty() ? result : result.withDns(conf.dns());
        }
    }

    /**
     * Go's {@code setupContainerVeth}: a veth cannot be point-to-point, so the container's prefix route is replaced by
     * a host route to the gateway and a route to the prefix via the gateway, forcing all traffic through it.
     */
    private static void routeThroughGateway(Namespace container, Link link, List<IpConfig> ips) throws CniException {
        NetBatch batch = new NetBatch(container.nl());
        for (IpConfig ip : ips) {
            IpPrefix network = ip.address().masked();
            InetAddress self = ip.address().address();
            batch.on("failed to delete route " + network + " dev " + link.name())
                    .deleteRoute(Prefixes.routeTo(network).dev(link.index()));
            batch.on("failed to add route " + IpText.format(ip.gateway()) + " dev " + link.name())
                    .addRoute(Prefixes.hostRoute(ip.gateway()).dev(link.index()).scope(Scope.LINK).src(self));
            batch.on("failed to add route " + network + " via " + IpText.format(ip.gateway()))
                    .addRoute(Prefixes.routeTo(network).via(ip.gateway()).dev(link.index()).scope(Scope.UNIVERSE).src(self));
        }
        batch.execute();
    }

    /** Go's {@code setupHostVeth}: the gateway as a host address on the host end, a host route to the container. */
    private static void configureHostEnd(Namespace host, Link link, List<IpConfig> ips) throws CniException {
        NetBatch addresses = new NetBatch(host.nl());
        for (IpConfig ip : ips) {
            IpPrefix gateway = IpPrefix.host(ip.gateway());
            addresses.on("failed to add IP addr " + gateway + " to veth " + link.name())
                    .addAddress(link.index(), gateway.address(), gateway.prefixLength());
        }
        addresses.execute();
        for (IpConfig ip : ips) {
            try {
                host.nl().addRoute(Prefixes.hostRoute(ip.address().address()).dev(link.index())
                        .scope(Scope.HOST));
            } catch (NetlinkException e) {
                if (!e.isExists()) {
                    throw NetErrors.failure("failed to add route on host", e);
                }
            }
        }
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        Timing timing = Timing.start(request.log(), "DEL");
        String ipamType = request.config().ipamType();
        timing.mark("config");
        Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
        timing.mark("netns");
        if (container.isPresent()) {
            Links.deleteAndClose(container.get(), request.ifName());
        } else if (!request.netns().isEmpty()) {
            deleteOrphanedHostEnd(request);
        }
        timing.mark("link");
        if (!ipamType.isEmpty()) {
            request.ipam().del();
            timing.mark("ipam");
        }
        timing.report();
    }

    /** A surviving host end of a vanished namespace: the recorded veth, if it still holds a recorded gateway. */
    private static void deleteOrphanedHostEnd(CniRequest request) throws CniException {
        Optional<Result> previous = PrevResults.find(request);
        if (previous.isEmpty()) {
            return;
        }
        try (Namespace host = Namespace.host()) {
            for (Interface recorded : previous.get().interfaces()) {
                if (!recorded.sandbox().isEmpty()) {
                    continue;
                }
                Optional<Link> link = host.nl().findLink(recorded.name());
                if (link.isPresent() && link.get().info() instanceof LinkInfo.Veth
                        && holdsGateway(host, link.get(), previous.get().ips())) {
                    host.nl().deleteLink(link.get().index());
                    request.log().debug("DEL: namespace " + request.netns() + " is gone; deleted host end "
                            + recorded.name());
                }
            }
        } catch (NetlinkException e) {
            if (!e.isNotFound()) {
                throw NetErrors.failure("failed to delete the host end of " + request.ifName(), e);
            }
        }
    }

    private static boolean holdsGateway(Namespace host, Link link, List<IpConfig> ips) {
        for (Address address : host.nl().addresses(link.index(), null)) {
            for (IpConfig ip : ips) {
                if (ip.gateway() != null && address.address().equals(ip.gateway())) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        Config.load(request);
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            request.ipam().check();
            Result result = PrevResults.require(request);
            Link contVeth = Checks.containerVeth(container,
                    PrevResults.containerInterface(result, request.ifName(), request.netns()), request.ifName(),
                    request.netns());
            Checks.addressing(container, result, request.ifName());
            checkHostEnd(host, result, contVeth);
        }
    }

    /** The host end (jcni's addition to Go's CHECK): the container veth's peer, holding every gateway as /32. */
    private static void checkHostEnd(Namespace host, Result result, Link contVeth) throws CniException {
        try {
            Optional<Link> peer = host.nl().findLink(contVeth.parentIndex());
            if (peer.isEmpty() || PrevResults.hostInterface(result, peer.get().name()).isEmpty()) {
                throw new CniException(CniError.INTERNAL,
                        "ptp: the host end of " + contVeth.name() + " is not the one in prevResult",
                        "its peer index is " + contVeth.parentIndex());
            }
            List<Address> addresses = host.nl().addresses(peer.get().index(), null);
            for (IpConfig ip : result.ips()) {
                boolean found = false;
                for (Address address : addresses) {
                    found |= ip.gateway() != null && address.address().equals(ip.gateway());
                }
                if (!found && ip.gateway() != null) {
                    throw new CniException(CniError.INTERNAL, "ptp: host end " + peer.get().name()
                            + " lacks the gateway address " + IpText.format(ip.gateway()));
                }
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to check the host end of " + contVeth.name(), e);
        }
    }

    // ---- GC, STATUS ------------------------------------------------------------------------------------------

    @Override
    public void gc(CniRequest request) throws CniException {
        IpamDelegation.gc(request);
    }

    @Override
    public void status(CniRequest request) throws CniException {
        IpamDelegation.status(request);
    }
}
