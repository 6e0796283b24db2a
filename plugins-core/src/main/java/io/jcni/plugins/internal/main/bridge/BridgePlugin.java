package io.jcni.plugins.internal.main.bridge;

import io.jcni.netlink.Address;
import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.Family;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.OperState;
import io.jcni.plugins.internal.main.MainPlugin;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.GratuitousArp;
import io.jcni.plugins.internal.pkg.ip.IpMasq;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ip.VethPair;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.SpoofCheck;
import io.jcni.plugins.internal.pkg.nft.NftSteps;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetBatch;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.net.InetAddress;
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
    /** Go's wait for the host end to be operationally up: sleeps before each look, in ms. */
    private static final int[] PORT_WAIT_MS = {0, 5, 20, 50, 500, 1000, 1000};
    /** {@code BR_STATE_FORWARDING} of {@code linux/if_bridge.h}. */
    private static final int BR_STATE_FORWARDING = 3;

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
            Link bridge = ensureBridge(host, conf, rollback);
            VethPair veth = VethPair.create(host, container, request.ifName(), conf.mtu(), conf.mac(), rollback);
            attachPort(host, bridge, veth.host(), conf.containerPort());
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
                    Optional<Link> vlanGateway = serveAsGateway(host, bridge, addressing.ips(), conf, veth.host(),
                            rollback);
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
            Link hostEnd = conf.disableContainerInterface() ? readLink(host, veth.host().index())
                    : waitForPort(host, veth.host());
            if (hasIpv4(addressing.ips())) {
                GratuitousArp.announce(container, veth.container());
            }
            interfaces.set(0, Links.describe(readLink(host, bridge.index()), ""));
            interfaces.set(1, Links.describe(hostEnd, ""));
            // Go 1.1.1 prints the configuration's dns even when empty, dropping IPAM's; later releases (and jcni)
            // keep IPAM's unless the configuration sets dns.
            Dns dns = conf.dns().isEmpty() ? addressing.dns() : conf.dns();
            return new Result(interfaces, addressing.ips(), addressing.routes(), dns);
        }
    }

    /**
     * Go's {@code ensureBridge}: creates the bridge unless it exists (with VLAN filtering when {@code vlan} or
     * {@code vlanTrunk} ask for it), promiscuous if asked, {@code accept_ra=0}, up. A bridge made here is deleted by
     * the rollback while no port is on it; changes to an existing one are undone.
     */
    private static Link ensureBridge(Namespace host, BridgeConfig conf, Rollback rollback) throws CniException {
        String name = conf.bridge();
        boolean created = createBridge(host, conf, rollback);
        try {
            Link bridge = host.nl().link(name);
            if (!(bridge.info() instanceof LinkInfo.Bridge)) {
                throw new CniException(CniError.INTERNAL, "\"" + name + "\" already exists but is not a bridge",
                        "its kind is \"" + bridge.kind() + "\"; choose another name in \"bridge\"");
            }
            if (conf.promiscMode() && !bridge.isPromisc()) {
                host.nl().setPromisc(bridge.index(), true);
                if (!created) {
                    rollback.onFailure("set promiscuous mode off on " + name, new SetPromiscOff(host, name));
                }
            }
            if (created) {
                NetSysctls.disableAcceptRa(host, name);
            } else {
                NetSysctls.disableAcceptRa(host, name, rollback);
            }
            if (!bridge.isUp()) {
                host.nl().setUp(bridge.index());
            }
            Link ready = host.nl().link(bridge.index());
            Timing.phase("bridge");
            return ready;
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set up bridge \"" + name + "\"", e);
        }
    }

    /** {@code ip link add NAME type bridge}; false if it exists already, true if made here (and then undone). */
    private static boolean createBridge(Namespace host, BridgeConfig conf, Rollback rollback) throws CniException {
        String name = conf.bridge();
        try {
            if (conf.vlanFiltering()) {
                host.nl().addBridge(LinkAttrs.named(name).mtu(conf.mtu()), true, -1);
            } else {
                host.nl().addBridge(LinkAttrs.named(name).mtu(conf.mtu()));
            }
        } catch (NetlinkException e) {
            if (e.isExists()) {
                return false;
            }
            if (conf.vlanFiltering()) {
                throw NetErrors.failure("failed to create bridge \"" + name
                        + "\" with VLAN filtering (needed by vlan/vlanTrunk): the kernel refused it", e);
            }
            throw NetErrors.failure("failed to create bridge \"" + name + "\"", e);
        }
        rollback.onFailure("delete bridge " + name + " unless it has ports", new DeleteBridgeIfUnused(host, name));
        return true;
    }

    /**
     * Deletes a bridge this ADD created unless it has ports: a concurrent ADD may have attached to it meanwhile
     * (checked, then deleted: a port added between the two is the one race left, as with any shared bridge).
     */
    private static final class DeleteBridgeIfUnused extends Undos.InNamespace {
        private final Namespace host;
        private final String name;

        DeleteBridgeIfUnused(Namespace host, String name) {
            super(host);
            this.host = host;
            this.name = name;
        }

        @Override
        protected void apply(Namespace ns) throws Exception {
            Optional<Link> bridge = ns.nl().findLink(name);
            if (bridge.isPresent() && !hasOtherPorts(ns, bridge.get().index(), "")) {
                new Undos.DeleteLink(host, name).undo();
            }
        }
    }

    /** Whether a link other than {@code except} is a port of the bridge with index {@code bridge}. */
    static boolean hasOtherPorts(Namespace host, int bridge, String except) {
        for (Link link : host.nl().links()) {
            if (link.masterIndex() == bridge && !link.name().equals(except)) {
                return true;
            }
        }
        return false;
    }

    /** Turns promiscuous mode off again on an existing bridge this ADD turned it on for. */
    private static final class SetPromiscOff extends Undos.InNamespace {
        private final String name;

        SetPromiscOff(Namespace host, String name) {
            super(host);
            this.name = name;
        }

        @Override
        protected void apply(Namespace ns) {
            Optional<Link> found = ns.nl().findLink(name);
            if (found.isPresent()) {
                ns.nl().setPromisc(found.get().index(), false);
            }
        }
    }

    /**
     * The host end becomes a port of the bridge with Go's settings, in one batch: master, hairpin (always set, as Go
     * does), isolation if asked; then the VLANs: the default VLAN removed unless preserved, the access VLAN as PVID
     * untagged, the trunk VLANs tagged. Deleting the veth (the rollback's) takes the port with it.
     */
    private static void attachPort(Namespace host, Link bridge, Link port, BridgeConfig.Port settings)
            throws CniException {
        String name = port.name();
        NetBatch batch = new NetBatch(host.nl());
        batch.on("failed to connect \"" + name + "\" to bridge " + bridge.name()).setMaster(port.index(),
                bridge.index());
        batch.on("failed to setup hairpin mode for " + name).setHairpin(port.index(), settings.hairpin());
        if (settings.isolated()) {
            batch.on("failed to set port isolation on " + name).setIsolated(port.index(), true);
        }
        batch.execute();
        if (settings.vlanFiltering()) {
            setPortVlans(host, port, settings);
        }
        Timing.phase("port");
    }

    private static void setPortVlans(Namespace host, Link port, BridgeConfig.Port settings) throws CniException {
        String name = port.name();
        try {
            NetBatch vlans = new NetBatch(host.nl());
            if (!settings.preserveDefaultVlan()) {
                for (BridgeVlan existing : host.nl().bridgeVlans(port.index())) {
                    vlans.on("failed to remove default vlan on interface \"" + name + "\"")
                            .deleteBridgeVlan(port.index(), existing.vid(), false);
                }
            }
            if (settings.vlan() != 0) {
                vlans.on("failed to setup vlan tag on interface \"" + name + "\"")
                        .addBridgeVlan(port.index(), new BridgeVlan(settings.vlan(), true, true), false);
            }
            for (int vid : settings.trunk()) { // empty whenever vlan is set (the configuration refuses both)
                vlans.on("failed to setup vlan tag on interface \"" + name + "\"")
                        .addBridgeVlan(port.index(), new BridgeVlan(vid, false, false), false);
            }
            vlans.execute();
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to read the VLANs of \"" + name + "\"", e);
        }
    }

    /**
     * IPAM's addresses on the container end ({@code addressing} holds the result's interfaces, the container's at
     * index 2), with Go's gateway rules ({@link #withGateways}); the interface's sysctls first. IPAM's ADD registers
     * its own release; the addresses go with the veth.
     */
    private static Result addressContainer(CniRequest request, Namespace container, Result addressing,
            BridgeConfig conf) throws CniException {
        Result ipam = Result.from(request.ipam().add());
        if (ipam.ips().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
        }
        Result result = withGateways(addressing, ipam, conf);
        NetSysctls.containerInterface(container, request.ifName(), conf.enableDad());
        IfaceConfig.configure(container, request.ifName(), result, request.rollback(), request.log());
        return result;
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
    private static Optional<Link> serveAsGateway(Namespace host, Link bridge, List<IpConfig> ips, BridgeConfig conf,
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
            attachPort(host, bridge, pair.host(), conf.gatewayPort());
            host.nl().setUp(pair.container().index());
            return host.nl().link(pair.container().index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to create vlan interface \"" + name + "\"", e);
        }
    }

    /**
     * Go's {@code ensureAddr}: nothing to do if the bridge has the gateway address; another IPv4 address, or an IPv6
     * one of an overlapping subnet, is an error unless {@code forceAddress} (then it is replaced, and restored by the
     * rollback). Afterwards the bridge's MAC is set to what it was before the port joined, which pins it.
     */
    private static void ensureGatewayAddress(Namespace host, Link link, IpPrefix gateway, BridgeConfig conf,
            String ownPort, Rollback rollback) throws CniException {
        Family family = Family.of(gateway.address());
        try {
            for (Address existing : host.nl().addresses(link.index(), family)) {
                IpPrefix a = Prefixes.of(existing);
                if (a.equals(gateway)) {
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
            // it no longer follows the lowest MAC among the ports, which changes as containers come and go.
            if (link.address() != null) {
                host.nl().setAddress(link.index(), link.address());
            }
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
            if (found.isPresent() && !hasOtherPorts(ns, found.get().index(), ownPort)) {
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

    /** Without IPAM: {@code ip link set IFNAME up} in the container, no addresses. */
    private static void setUp(Namespace container, Link link) throws CniException {
        try {
            container.nl().setUp(link.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set \"" + link.name() + "\" up", e);
        }
    }

    /**
     * Go's wait until the host end is operationally up (the bridge port forwards once both ends are up); the link as
     * it is then. Fails with Go's message if it never gets there.
     */
    private static Link waitForPort(Namespace host, Link port) throws CniException {
        Link now = port;
        for (int i = 0; i < PORT_WAIT_MS.length; i++) {
            int sleep = PORT_WAIT_MS[i];
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new CniException(CniError.INTERNAL, "interrupted while waiting for " + port.name());
                }
            }
            now = readLink(host, port.index());
            // Up, and forwarding unless the bridge runs STP (then forwarding takes seconds, and Go does not wait).
            if (now.operState() == OperState.UP
                    && (now.bridgePort() == null || now.bridgePort().state() == BR_STATE_FORWARDING || i >= 3)) {
                Timing.phase("port-up");
                return now;
            }
        }
        throw new CniException(CniError.INTERNAL, "bridge port in error state: " + now.operState(),
                "the host end " + port.name() + " did not become operationally up");
    }

    private static Link readLink(Namespace ns, int index) throws CniException {
        try {
            return ns.nl().link(index);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up link " + index + " in " + ns, e);
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
            Link bridge = checkBridge(host, result, conf);
            Link contVeth = Checks.containerVeth(container,
                    PrevResults.containerInterface(result, request.ifName(), netns), request.ifName(), netns);
            Link hostVeth = checkHostVeth(host, result, conf, bridge, contVeth);
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

    private static Link checkBridge(Namespace host, Result result, BridgeConfig conf) throws CniException {
        Optional<Interface> recorded = PrevResults.hostInterface(result, conf.bridge());
        if (recorded.isEmpty()) {
            throw new CniException(CniError.INTERNAL,
                    "CNI created bridge " + conf.bridge() + " in host namespace was not found",
                    "prevResult has no host interface named " + conf.bridge());
        }
        Optional<Link> link;
        try {
            link = host.nl().findLink(conf.bridge());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up bridge " + conf.bridge(), e);
        }
        if (link.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Interface name " + conf.bridge() + " not found");
        }
        Link bridge = link.get();
        if (!(bridge.info() instanceof LinkInfo.Bridge)) {
            throw new CniException(CniError.INTERNAL,
                    "Interface " + conf.bridge() + " does not have link type of bridge");
        }
        Checks.mac(recorded.get(), bridge,
                "Bridge interface " + conf.bridge() + " Mac doesn't match: " + recorded.get().mac());
        if (bridge.isPromisc() != conf.promiscMode()) {
            throw new CniException(CniError.INTERNAL, "Bridge interface " + conf.bridge()
                    + " configured Promisc Mode " + conf.promiscMode() + " doesn't match current state: "
                    + bridge.isPromisc());
        }
        return bridge;
    }

    /** The host end: the recorded interface that is the container veth's peer and a port of the bridge. */
    private static Link checkHostVeth(Namespace host, Result result, BridgeConfig conf, Link bridge, Link contVeth)
            throws CniException {
        for (Interface recorded : result.interfaces()) {
            if (!recorded.sandbox().isEmpty() || recorded.name().equals(conf.bridge())) {
                continue;
            }
            Optional<Link> found;
            try {
                found = host.nl().findLink(recorded.name());
            } catch (NetlinkException e) {
                throw NetErrors.failure("failed to look up " + recorded.name(), e);
            }
            if (found.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Interface name " + recorded.name() + " not found");
            }
            Link link = found.get();
            if (!(link.info() instanceof LinkInfo.Veth) || link.index() != contVeth.parentIndex()
                    || link.parentIndex() != contVeth.index() || link.masterIndex() != bridge.index()) {
                continue;
            }
            Checks.mac(recorded, link, "Interface " + recorded.name() + " Mac doesn't match: " + recorded.mac()
                    + " not found");
            if (link.bridgePort() != null) {
                if (link.bridgePort().hairpin() != conf.hairpinMode()) {
                    throw new CniException(CniError.INTERNAL, "Interface " + recorded.name() + " hairpin mode "
                            + link.bridgePort().hairpin() + " doesn't match configured " + conf.hairpinMode());
                }
                if (conf.portIsolation() && !link.bridgePort().isolated()) {
                    throw new CniException(CniError.INTERNAL,
                            "Interface " + recorded.name() + " is not an isolated bridge port");
                }
            }
            return link;
        }
        throw new CniException(CniError.INTERNAL, "CNI veth created for bridge " + conf.bridge() + " was not found");
    }
}
