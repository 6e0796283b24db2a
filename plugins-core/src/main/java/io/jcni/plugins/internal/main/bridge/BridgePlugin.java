package io.jcni.plugins.internal.main.bridge;

import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.main.MainPlugin;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.GratuitousArp;
import io.jcni.plugins.internal.pkg.ip.IpMasq;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ip.VethPair;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.SpoofCheck;
import io.jcni.plugins.internal.pkg.nft.NftSteps;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code bridge} plugin: a veth pair per container, the host end a port of a Linux bridge, as Go's
 * {@code bridge} (containernetworking/plugins 1.1.1 and the later keys; see {@link BridgeConfig}).
 *
 * <p>ADD: the bridge (created if missing: up, {@code accept_ra=0}, promiscuous if asked), the veth pair (host end
 * {@code veth<8 hex>} with {@code accept_ra=0}, port of the bridge with the hairpin, isolation and VLAN settings; the
 * container end CNI_IFNAME), with {@code macspoofchk} the spoof check of the port ({@link SpoofCheck}), then with IPAM:
 * the addresses and routes in the container ({@code accept_dad=0} unless {@code enabledad}, {@code arp_notify=1}), with
 * {@code isGateway} the gateway address on the bridge and IP forwarding, with {@code isDefaultGateway} a default route
 * per family, with {@code ipMasq} the masquerade rules of the addresses ({@link IpMasq}: nftables over netlink, one
 * transaction, Go's layout); once the port forwards, a gratuitous ARP for
 * the container's IPv4 addresses ({@link GratuitousArp}). Result interfaces: bridge, host
 * veth, container veth (the IPs point at index 2). Every side effect registers its undo at once; shared state (the
 * bridge, its gateway address, forwarding, its sysctls) is undone only if this ADD changed it and, for the bridge and
 * its address, only while no other port is on the bridge.
 *
 * <p>DEL takes the addresses off the container's interface, releases IPAM, then deletes the interface (and so the
 * veth pair). Go's bridge deletes the interface first (no address may be handed out again while an interface holds
 * it), which leaves an IPAM plugin that releases on the interface (dhcp's DHCPRELEASE) unable to; removing the
 * addresses first keeps Go's guarantee and lets the release out. A failed release is returned with the interface
 * kept, so a retried DEL finishes the job. Without the namespace ({@code CNI_NETNS} empty, as containerd sends it
 * for a sandbox whose namespace is gone, or naming nothing), IPAM is released, and first, if the host end survived
 * (the namespace file was unmounted while something still holds the namespace), the host end named in prevResult is
 * deleted if it is still a veth on this bridge with its recorded MAC. Anything already gone is success.
 * Then the spoof check and the masquerade rules of the attachment are removed (found by name and comment, so also
 * without the namespace: Go's 1.1.1 leaves both when {@code CNI_NETNS} is empty, containernetworking/plugins#810).
 *
 * <p>CHECK: the bridge (type, MAC, promiscuous mode), the container veth, the host veth (peer of the container's,
 * port of the bridge, MAC, hairpin and isolation as configured), the addresses and routes in the container, then
 * the attachment's spoof-check and masquerade rules (jcni's addition: Go's CHECK reads no netfilter rule). GC also
 * collects the masquerade rules of attachments no longer valid; STATUS is code 50 without nf_tables when
 * {@code ipMasq} or {@code macspoofchk} needs it.
 */
public final class BridgePlugin implements MainPlugin {

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        BridgeConfig conf = BridgeConfig.forAdd(request);
        if (conf.macSpoofCheck()) {
            SpoofCheck.requireNameable(request.containerId(), request.ifName());
        }
        Rollback rollback = request.rollback();
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            Link bridge = HostBridge.ensureBridge(host, conf, rollback);
            VethPair veth = VethPair.create(host, container, request.ifName(), conf.mtu(), conf.mac(), rollback);
            HostBridge.attachPort(host, bridge, veth.host(), conf.containerPort());
            if (conf.macSpoofCheck()) {
                SpoofCheck.of(request.containerId(), request.ifName()).setup(host, veth.host().name(),
                        veth.container().address(), rollback);
            }
            List<Interface> interfaces = new ArrayList<>(List.of(Links.describe(bridge, ""),
                    Links.describe(veth.host(), ""), Links.describe(veth.container(), request.netns())));
            Result addressing = new Result(interfaces, List.of(), List.of(), Dns.EMPTY);
            if (conf.layer3()) {
                addressing = addressContainer(request, container, addressing, conf);
                if (conf.isGateway()) {
                    Optional<Link> vlanGateway = BridgeGateway.serveAsGateway(host, bridge, addressing.ips(), conf,
                            veth.host(), rollback);
                    if (vlanGateway.isPresent()) {
                        interfaces.add(Links.describe(vlanGateway.get(), ""));
                    }
                }
                if (conf.ipMasq()) {
                    IpMasq.setup(host, IpMasq.addresses(addressing.ips()), request.config().name(),
                            request.ifName(), request.containerId(), rollback);
                }
            } else if (!conf.disableContainerInterface()) {
                setUp(container, veth.container());
            }
            Link hostEnd = conf.disableContainerInterface() ? HostBridge.readLink(host, veth.host().index())
                    : HostBridge.waitForPort(host, veth.host());
            if (hasIpv4(addressing.ips())) {
                GratuitousArp.announce(container, veth.container());
            }
            interfaces.set(0, Links.describe(HostBridge.readLink(host, bridge.index()), ""));
            interfaces.set(1, Links.describe(hostEnd, ""));
            // Go 1.1.1 prints the configuration's dns even when empty, dropping IPAM's; later releases (and jcni)
            // keep IPAM's unless the configuration sets dns.
            Dns dns = conf.dns().isEmpty() ? addressing.dns() : conf.dns();
            return new Result(interfaces, addressing.ips(), addressing.routes(), dns);
        }
    }

    /**
     * IPAM's addresses on the container end ({@code addressing} holds the result's interfaces, the container's at
     * index 2), with Go's gateway rules ({@link BridgeGateway#withGateways}); the interface's sysctls first. IPAM's
     * ADD registers its own release; the addresses go with the veth.
     */
    private static Result addressContainer(CniRequest request, Namespace container, Result addressing,
            BridgeConfig conf) throws CniException {
        Result ipam = Result.from(request.ipam().add());
        if (ipam.ips().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
        }
        Result result = BridgeGateway.withGateways(addressing, ipam, conf);
        NetSysctls.containerInterface(container, request.ifName(), conf.enableDad());
        IfaceConfig.configure(container, request.ifName(), result, request.rollback(), request.log());
        return result;
    }

    /** Without IPAM: {@code ip link set IFNAME up} in the container, no addresses. */
    private static void setUp(Namespace container, Link link) throws CniException {
        try {
            container.nl().setUp(link.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set \"" + link.name() + "\" up", e);
        }
    }

    private static boolean hasIpv4(List<IpConfig> ips) {
        for (IpConfig ip : ips) {
            if (ip.isIpv4()) {
                return true;
            }
        }
        return false;
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        BridgeConfig conf = BridgeConfig.load(request);
        Optional<Namespace> found = Namespace.containerIfPresent(request.netns());
        if (found.isPresent()) {
            releaseAndDelete(request, conf, found.get());
        } else {
            if (!conf.bridge().isEmpty()) {
                // "bridge": "" never made a port (ADD refuses it), so there is no host end to look for.
                VethPair.deleteOrphanedHostEnd(request, new PortOf(conf.bridge()));
            }
            if (conf.layer3()) {
                request.ipam().del();
            }
        }
        if (conf.macSpoofCheck() || conf.layer3() && conf.ipMasq()) {
            try (Namespace host = Namespace.host()) {
                if (conf.macSpoofCheck()) {
                    tearDownSpoofCheck(request, host);
                }
                if (conf.layer3() && conf.ipMasq()) {
                    IpMasq.teardown(host, request.config().name(), request.ifName(), request.containerId());
                }
            }
        }
    }

    /**
     * Go's bridge deletes the interface before it releases IPAM, so that no address is handed out again while an
     * interface still holds it (containernetworking/plugins#666), and so dhcp's DHCPRELEASE, which goes out on that
     * interface, is never sent. jcni takes the addresses off the interface instead, then releases IPAM, then deletes
     * the interface: no address is in use once released, and the release can still be sent. A failed release keeps the
     * interface (without addresses) for the retried DEL. Closes {@code container}.
     */
    private static void releaseAndDelete(CniRequest request, BridgeConfig conf, Namespace container)
            throws CniException {
        if (conf.layer3()) {
            try {
                Links.removeAddresses(container, request.ifName());
                request.ipam().del();
            } catch (CniException e) {
                container.close();
                throw e;
            }
        }
        Links.deleteAndClose(container, request.ifName());
    }

    /**
     * The spoof check's chains go by their names, the attachment's (unlike Go, also when the namespace is gone); as
     * Go's, a failure is logged and does not fail DEL (the rules of a vanished port match nothing).
     */
    private static void tearDownSpoofCheck(CniRequest request, Namespace host) {
        try {
            SpoofCheck.of(request.containerId(), request.ifName()).teardown(host);
        } catch (CniException e) {
            request.log().warn("spoofcheck/teardown: " + e.error().msg());
        }
    }

    /** A veth whose master is the bridge (looked up by name: no bridge, no host end of ours). */
    private static final class PortOf implements VethPair.HostEnd {
        private final String bridge;

        PortOf(String bridge) {
            this.bridge = bridge;
        }

        @Override
        public boolean isOurs(Namespace host, Link veth, Result previous) {
            Optional<Link> found = host.nl().findLink(bridge);
            return found.isPresent() && veth.masterIndex() == found.get().index();
        }
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        BridgeConfig conf = BridgeConfig.load(request);
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            Result result = IpamDelegation.checkThenPrevResult(request);
            String netns = request.netns();
            Link bridge = BridgeChecks.bridge(host, result, conf);
            Link contVeth = Checks.containerVeth(container,
                    PrevResults.containerInterface(result, request.ifName(), netns), request.ifName(), netns);
            Link hostVeth = BridgeChecks.hostVeth(host, result, conf, bridge, contVeth);
            if (!conf.disableContainerInterface()) {
                Checks.addressing(container, result, request.ifName());
            }
            if (conf.macSpoofCheck()) {
                SpoofCheck.of(request.containerId(), request.ifName()).check(host, hostVeth.name(),
                        contVeth.address());
            }
            if (conf.layer3() && conf.ipMasq()) {
                IpMasq.check(host, IpMasq.addresses(result.ips()), request.config().name(), request.ifName(),
                        request.containerId());
            }
        }
    }

    // ---- GC, STATUS ------------------------------------------------------------------------------------------

    /**
     * GC: IPAM's, and with {@code ipMasq} the masquerade rules of this network's attachments that are not valid any
     * more ({@link IpMasq#gc}). Both run; the first failure is reported. (Go's bridge has no GC yet.)
     */
    @Override
    public void gc(CniRequest request) throws CniException {
        BridgeConfig conf = BridgeConfig.load(request);
        IpMasq.gcWithIpam(request, conf.layer3() && conf.ipMasq());
    }

    /** STATUS: code 50 without nf_tables when {@code ipMasq} or {@code macspoofchk} needs it; then IPAM's. */
    @Override
    public void status(CniRequest request) throws CniException {
        BridgeConfig conf = BridgeConfig.load(request);
        if (conf.ipMasq() || conf.macSpoofCheck()) {
            try (Namespace host = Namespace.host()) {
                NftSteps.requireAvailable(host, "bridge");
            }
        }
        IpamDelegation.status(request);
    }
}
