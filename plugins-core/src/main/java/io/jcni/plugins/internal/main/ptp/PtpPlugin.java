package io.jcni.plugins.internal.main.ptp;

import io.jcni.netlink.Address;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.Scope;
import io.jcni.plugins.internal.main.MainPlugin;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.IpMasq;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ip.VethPair;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.nft.NftSteps;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetBatch;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Timing;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ptp} plugin: a veth pair per container and host routes, no bridge, as Go's {@code ptp}.
 *
 * <p>Configuration: {@code mtu} (0: the kernel's default), {@code ipMasq} with {@code ipMasqBackend} (masquerade from
 * the container's addresses: {@link IpMasq}), {@code dns} (replaces IPAM's when set), {@code ipam} (required).
 *
 * <p>ADD: IP forwarding for the families IPAM returned (undone if this ADD changed it and fails), the veth pair, the
 * IPAM result on the container end; then, per address, the container's prefix route is replaced so that everything
 * goes through the gateway ({@code GW/32 dev IF scope link src IP} and {@code NET via GW src IP}), and the host end
 * gets {@code GW/32} (or {@code /128}) and a host route to the container's address; with {@code ipMasq} the
 * masquerade rules of the addresses. Result interfaces: host veth, container veth (the IPs point at index 1).
 *
 * <p>DEL and CHECK as the bridge plugin's, without a bridge: a surviving host end of a vanished namespace (also with
 * {@code CNI_NETNS} empty) is recognized by holding the recorded gateway addresses; deleting it takes the host route
 * to the container's address along, before IPAM can hand that address out again. With {@code ipMasq}, DEL removes the attachment's masquerade
 * rules, CHECK requires them, GC collects those of attachments no longer valid, STATUS is code 50 without nf_tables.
 */
public final class PtpPlugin implements MainPlugin {

    /** The configuration (Go's {@code NetConf}). */
    record Config(int mtu, boolean ipMasq, Dns dns, String ipamType) {
        /** ADD's configuration: {@link #load}, and an unknown {@code ipMasqBackend} refused before any side effect. */
        static Config forAdd(CniRequest request) throws CniException {
            Config conf = load(request);
            if (conf.ipMasq()) {
                IpMasq.checkBackend(request.config());
            }
            Timing.phase("config");
            return conf;
        }

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
        Config conf = Config.forAdd(request);
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            Result ipam = requireGateways(Result.from(request.ipam().add()));
            NetSysctls.enableForwarding(host, ipam.ips(), request.rollback());
            VethPair veth = VethPair.create(host, container, request.ifName(), conf.mtu(), null, request.rollback());
            Result result = onContainerEnd(ipam, veth, request.netns());
            Link contVeth = IfaceConfig.configure(container, request.ifName(), result, request.rollback(),
                    request.log());
            routeThroughGateway(container, contVeth, result.ips());
            configureHostEnd(host, veth.host(), result.ips());
            if (conf.ipMasq()) {
                IpMasq.setup(host, IpMasq.addresses(result.ips()), request.config().name(), request.ifName(),
                        request.containerId(), request.rollback());
            }
            return conf.dns().isEmpty() ? result : result.withDns(conf.dns());
        }
    }

    /** IPAM's result, checked for what ptp needs: addresses, each with a gateway (the host end's address). */
    private static Result requireGateways(Result ipam) throws CniException {
        if (ipam.ips().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
        }
        for (IpConfig ip : ipam.ips()) {
            if (ip.gateway() == null) {
                throw new CniException(CniError.INTERNAL, "IPAM returned no gateway for " + ip.address(),
                        "ptp routes everything through the gateway, which becomes the host end's address");
            }
        }
        return ipam;
    }

    /** The result: the host veth and the container veth as interfaces, every IP on the container's (index 1). */
    private static Result onContainerEnd(Result ipam, VethPair veth, String netns) {
        List<Interface> interfaces = List.of(Links.describe(veth.host(), ""), Links.describe(veth.container(), netns));
        List<IpConfig> ips = new ArrayList<>(ipam.ips().size());
        for (IpConfig ip : ipam.ips()) {
            ips.add(ip.withInterfaceIndex(1));
        }
        return new Result(interfaces, ips, ipam.routes(), ipam.dns());
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
                    .addRoute(Prefixes.routeTo(network).via(ip.gateway()).dev(link.index()).scope(Scope.UNIVERSE)
                            .src(self));
        }
        batch.execute();
        Timing.phase("routes");
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
        Timing.phase("host");
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
        if (container.isPresent()) {
            Links.deleteAndClose(container.get(), request.ifName());
        } else {
            VethPair.deleteOrphanedHostEnd(request, HoldsGateway.INSTANCE);
        }
        if (!request.config().ipamType().isEmpty()) {
            request.ipam().del();
        }
        if (request.config().node().bool("ipMasq").orElse(false)) {
            try (Namespace host = Namespace.host()) {
                IpMasq.teardown(host, request.config().name(), request.ifName(), request.containerId());
            }
        }
    }

    /** A veth that holds one of the recorded gateways as an address. */
    private static final class HoldsGateway implements VethPair.HostEnd {
        static final HoldsGateway INSTANCE = new HoldsGateway();

        @Override
        public boolean isOurs(Namespace host, Link veth, Result previous) {
            for (Address address : host.nl().addresses(veth.index(), null)) {
                for (IpConfig ip : previous.ips()) {
                    if (ip.gateway() != null && address.address().equals(ip.gateway())) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            Result result = IpamDelegation.checkThenPrevResult(request);
            Link contVeth = Checks.containerVeth(container,
                    PrevResults.containerInterface(result, request.ifName(), request.netns()), request.ifName(),
                    request.netns());
            Checks.addressing(container, result, request.ifName());
            checkHostEnd(host, result, contVeth);
            if (conf.ipMasq()) {
                IpMasq.check(host, IpMasq.addresses(result.ips()), request.config().name(), request.ifName(),
                        request.containerId());
            }
        }
    }

    // ---- GC, STATUS ------------------------------------------------------------------------------------------

    /** GC: IPAM's, and with {@code ipMasq} the masquerade rules of attachments no longer valid; both run. */
    @Override
    public void gc(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        IpMasq.gcWithIpam(request, conf.ipMasq());
    }

    /** STATUS: code 50 without nf_tables when {@code ipMasq} needs it; then IPAM's. */
    @Override
    public void status(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        if (conf.ipMasq()) {
            try (Namespace host = Namespace.host()) {
                NftSteps.requireAvailable(host, "ptp");
            }
        }
        IpamDelegation.status(request);
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
}
