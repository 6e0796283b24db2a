package io.jcni.plugins.internal.main;

import io.jcni.netlink.Address;
import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.Family;
import io.jcni.netlink.IpPrefix;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.OperState;
import io.jcni.plugins.internal.net.Checks;
import io.jcni.plugins.internal.net.GratuitousArp;
import io.jcni.plugins.internal.net.IfaceConfig;
import io.jcni.plugins.internal.net.IpamForwarding;
import io.jcni.plugins.internal.net.Links;
import io.jcni.plugins.internal.net.Namespace;
import io.jcni.plugins.internal.net.NetBatch;
import io.jcni.plugins.internal.net.NetErrors;
import io.jcni.plugins.internal.net.NetSysctls;
import io.jcni.plugins.internal.net.Prefixes;
import io.jcni.plugins.internal.net.PrevResults;
import io.jcni.plugins.internal.net.Timing;
import io.jcni.plugins.internal.net.Undos;
import io.jcni.plugins.internal.net.VethPair;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
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
 * container end CNI_IFNAME), then with IPAM: the addresses and routes in the container ({@code accept_dad=0} unless
 * {@code enabledad}, {@code arp_notify=1}), with {@code isGateway} the gateway address on the bridge and IP
 * forwarding, with {@code isDefaultGateway} a default route per family; once the port forwards, a gratuitous ARP for
 * the container's IPv4 addresses ({@link GratuitousArp}). Result interfaces: bridge, host
 * veth, container veth (the IPs point at index 2). Every side effect registers its undo at once; shared state (the
 * bridge, its gateway address, forwarding, its sysctls) is undone only if this ADD changed it and, for the bridge and
 * its address, only while no other port is on the bridge.
 *
 * <p>DEL deletes the container's interface (and so the veth pair), then releases IPAM. When the namespace is gone but
 * the host end survived (the namespace file was unmounted while something still holds the namespace), the host end
 * named in prevResult is deleted if it is still a veth on this bridge. Anything already gone is success. IPAM is
 * released except when deleting the interface failed for another reason: then the error is returned and the
 * addresses stay reserved, so that a retried DEL finishes the job without the address being handed out twice.
 *
 * <p>CHECK: the bridge (type, MAC, promiscuous mode), the container veth, the host veth (peer of the container's,
 * port of the bridge, MAC, hairpin and isolation as configured), then the addresses and routes in the container.
 */
public final class BridgePlugin implements CniPlugin {
    /** Go's wait for the host end to be operationally up: sleeps before each look, in ms. */
    private static final int[] PORT_WAIT_MS = {0, 5, 20, 50, 500, 1000, 1000};
    /** {@code BR_STATE_FORWARDING} of {@code linux/if_bridge.h}. */
    private static final int BR_STATE_FORWARDING = 3;

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Timing timing = Timing.start(request.log(), "ADD");
        BridgeConfig conf = BridgeConfig.load(request, true);
        conf.refuseUnsupported();
        conf.requireBridgeName();
        Rollback rollback = request.rollback();
        timing.mark("config");
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            timing.mark("netns");
            Link bridge = ensureBridge(host, conf, rollback);
            timing.mark("bridge");
            VethPair veth = VethPair.create(host, container, request.ifName(), conf.mtu(), conf.mac(), rollback);
            timing.mark("veth");
            attachPort(host, bridge, veth.host(), conf.hairpinMode(), conf.portIsolation(), conf);
            timing.mark("port");

            String ifName = request.ifName();
            List<Interface> interfaces = new ArrayList<>(3);
            interfaces.add(new Interface(bridge.name(), mac(bridge), ""));
            interfaces.add(new Interface(veth.host().name(), mac(veth.host()), ""));
            interfaces.add(new Interface(ifName, mac(veth.container()), request.netns()));
            Result result = new Result(interfaces, List.of(), List.of(), Dns.EMPTY);

            if (conf.layer3()) {
                Result ipam = Result.from(request.ipam().add());
                timing.mark("ipam");
                if (ipam.ips().isEmpty()) {
                    throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
                }
                result = withGateways(result, ipam, conf);
                NetSysctls.containerInterface(container, ifName, conf.enableDad());
                IfaceConfig.configure(container, ifName, result, rollback, request.log());
                timing.mark("container");
                if (conf.isGateway()) {
                    Link gatewayLink = bridge;
                    if (conf.vlan() != 0) {
                        gatewayLink = ensureVlanGateway(host, bridge, conf, rollback);
                        interfaces.add(new Interface(gatewayLink.name(), mac(gatewayLink), ""));
                    }
                    boolean v4 = false;
                    boolean v6 = false;
                    for (IpConfig ip : result.ips()) {
                        IpPrefix gateway = new IpPrefix(ip.gateway(), ip.address().prefixLength());
                        ensureGatewayAddress(host, gatewayLink, gateway, conf.forceAddress(), veth.host().name(),
                                rollback);
                        v4 |= ip.isIpv4();
                        v6 |= !ip.isIpv4();
                    }
                    NetSysctls.enableForwarding(host, v4, v6, rollback);
                    timing.mark("gateway");
                }
            } else if (!conf.disableContainerInterface()) {
                try {
                    container.nl().setUp(veth.container().index());
                } catch (NetlinkException e) {
                    throw NetErrors.failure("failed to set \"" + ifName + "\" up", e);
                }
                timing.mark("container");
            }

            Link hostEnd = conf.disableContainerInterface() ? readLink(host, veth.host().index())
                    : waitForPort(host, veth.host());
            if (conf.layer3() && hasIpv4(result.ips())) {
                GratuitousArp.announce(container, veth.container());
            }
            Link bridgeNow = readLink(host, bridge.index());
            interfaces.set(0, new Interface(bridgeNow.name(), mac(bridgeNow), ""));
            interfaces.set(1, new Interface(hostEnd.name(), mac(hostEnd), ""));
            timing.mark("port-up");

            // Go 1.1.1 prints the configuration's dns even when empty, dropping IPAM's; later releases (and jcni)
            // keep IPAM's unless the configuration sets dns.
            Dns dns = conf.dns().isEmpty() ? result.dns() : conf.dns();
            timing.report();
            return new Result(interfaces, result.ips(), result.routes(), dns);
        }
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
    static InetAddress firstAddress(io.jcni.spec.IpPrefix address) {
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

    private static io.jcni.spec.IpPrefix defaultDestination(boolean v4) {
        byte[] zero = new byte[v4 ? 4 : 16];
        try {
            return new io.jcni.spec.IpPrefix(InetAddress.getByAddress(zero), 0);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Go's {@code ensureBridge}: creates the bridge unless it exists (with VLAN filtering when {@code vlan} or
     * {@code vlanTrunk} ask for it), promiscuous if asked, {@code accept_ra=0}, up. A bridge made here is deleted by
     * the rollback while no port is on it; changes to an existing one are undone.
     */
    private static Link ensureBridge(Namespace host, BridgeConfig conf, Rollback rollback) throws CniException {
        String name = conf.bridge();
        boolean created = false;
        try {
            if (conf.vlanFiltering()) {
                host.nl().addBridge(LinkAttrs.named(name).mtu(conf.mtu()), true, -1);
            } else {
                host.nl().addBridge(LinkAttrs.named(name).mtu(conf.mtu()));
            }
            created = true;
            rollback.onFailure("delete bridge " + name + " unless it has ports", new DeleteBridgeIfUnused(host, name));
        } catch (NetlinkException e) {
            if (!e.isExists()) {
                if (conf.vlanFiltering()) {
                    throw NetErrors.failure("failed to create bridge \"" + name
                            + "\" with VLAN filtering (needed by vlan/vlanTrunk): the kernel refused it", e);
                }
                throw NetErrors.failure("failed to create bridge \"" + name + "\"", e);
            }
        }
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
            NetSysctls.disableAcceptRa(host, name, created ? null : rollback);
            if (!bridge.isUp()) {
                host.nl().setUp(bridge.index());
            }
            return host.nl().link(bridge.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set up bridge \"" + name + "\"", e);
        }
    }

    /**
     * The host end becomes a port of the bridge with Go's settings, in one batch: master, hairpin (always set, as Go
     * does), isolation if asked; then the VLANs: the default VLAN removed unless preserved, the access VLAN as PVID
     * untagged, the trunk VLANs tagged.
     */
    private static void attachPort(Namespace host, Link bridge, Link port, boolean hairpin, boolean isolated,
            BridgeConfig conf) throws CniException {
        String name = port.name();
        NetBatch batch = new NetBatch(host.nl());
        batch.on("failed to connect \"" + name + "\" to bridge " + bridge.name()).setMaster(port.index(),
                bridge.index());
        batch.on("failed to setup hairpin mode for " + name).setHairpin(port.index(), hairpin);
        if (isolated) {
            batch.on("failed to set port isolation on " + name).setIsolated(port.index(), true);
        }
        batch.execute();
        if (!conf.vlanFiltering()) {
            return;
        }
        try {
            NetBatch vlans = new NetBatch(host.nl());
            if (!conf.preserveDefaultVlan()) {
                for (BridgeVlan existing : host.nl().bridgeVlans(port.index())) {
                    vlans.on("failed to remove default vlan on interface \"" + name + "\"")
                            .deleteBridgeVlan(port.index(), existing.vid(), false);
                }
            }
            if (conf.vlan() != 0) {
                vlans.on("failed to setup vlan tag on interface \"" + name + "\"")
                        .addBridgeVlan(port.index(), new BridgeVlan(conf.vlan(), true, true), false);
            }
            for (int vid : conf.vlanTrunk()) { // empty whenever vlan is set (the configuration refuses both)
                vlans.on("failed to setup vlan tag on interface \"" + name + "\"")
                        .addBridgeVlan(port.index(), new BridgeVlan(vid, false, false), false);
            }
            vlans.execute();
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to read the VLANs of \"" + name + "\"", e);
        }
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
            attachPort(host, bridge, pair.host(), false, false, conf);
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
    private static void ensureGatewayAddress(Namespace host, Link link, IpPrefix gateway, boolean force,
            String ownPort, Rollback rollback) throws CniException {
        Family family = gateway.family();
        try {
            for (Address existing : host.nl().addresses(link.index(), family)) {
                IpPrefix a = existing.prefix();
                if (Prefixes.same(a, gateway)) {
                    return;
                }
                if (a.address().isLinkLocalAddress()) {
                    continue;
                }
                boolean overlaps = a.contains(gateway.address()) || gateway.contains(a.address());
                if (family == Family.V4 || overlaps) {
                    if (!force) {
                        throw new CniException(CniError.INTERNAL, "\"" + link.name()
                                + "\" already has an IP address different from " + gateway,
                                "it has " + a + "; set forceAddress to replace it");
                    }
                    host.nl().deleteAddress(link.index(), a);
                    rollback.onFailure("restore address " + a + " on " + link.name(),
                            new RestoreAddress(host, link.name(), a));
                }
            }
            try {
                host.nl().addAddress(link.index(), gateway);
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

    static String mac(Link link) {
        return link.address() == null ? "" : link.address().toString();
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        Timing timing = Timing.start(request.log(), "DEL");
        BridgeConfig conf = BridgeConfig.load(request, false);
        timing.mark("config");
        Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
        timing.mark("netns");
        if (container.isPresent()) {
            Links.deleteAndClose(container.get(), request.ifName());
        } else if (!request.netns().isEmpty()) {
            deleteOrphanedHostEnd(request, conf);
        }
        timing.mark("link");
        if (conf.layer3()) {
            request.ipam().del();
            timing.mark("ipam");
        }
        timing.report();
    }

    /**
     * The namespace file is gone; if the namespace itself lives on (held by a process), so does the veth pair. The
     * host end recorded in prevResult is deleted when it is still a veth whose master is this bridge.
     */
    private static void deleteOrphanedHostEnd(CniRequest request, BridgeConfig conf) throws CniException {
        Optional<Result> previous = PrevResults.find(request);
        if (previous.isEmpty() || conf.bridge().isEmpty()) {
            return;
        }
        try (Namespace host = Namespace.host()) {
            Optional<Link> bridge = host.nl().findLink(conf.bridge());
            if (bridge.isEmpty()) {
                return;
            }
            for (Interface recorded : previous.get().interfaces()) {
                if (!recorded.sandbox().isEmpty() || recorded.name().equals(conf.bridge())) {
                    continue;
                }
                Optional<Link> link = host.nl().findLink(recorded.name());
                if (link.isPresent() && link.get().info() instanceof LinkInfo.Veth
                        && link.get().masterIndex() == bridge.get().index()) {
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

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        BridgeConfig conf = BridgeConfig.load(request, false);
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            IpamForwarding.check(request);
            Result result = PrevResults.require(request);
            String netns = request.netns();
            Link bridge = checkBridge(host, result, conf);
            Link contVeth = Checks.containerVeth(container,
                    PrevResults.containerInterface(result, request.ifName(), netns), request.ifName(), netns);
            checkHostVeth(host, result, conf, bridge, contVeth);
            if (!conf.disableContainerInterface()) {
                Checks.addressing(container, result, request.ifName());
            }
        }
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
    private static void checkHostVeth(Namespace host, Result result, BridgeConfig conf, Link bridge, Link contVeth)
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
            return;
        }
        throw new CniException(CniError.INTERNAL, "CNI veth created for bridge " + conf.bridge() + " was not found");
    }

    // ---- GC, STATUS ------------------------------------------------------------------------------------------

    @Override
    public void gc(CniRequest request) throws CniException {
        IpamForwarding.gc(request);
    }

    @Override
    public void status(CniRequest request) throws CniException {
        IpamForwarding.status(request);
    }

    // ---- rollback steps (named classes: no lambdas on the start-up path) -------------------------------------

    /** Whether a link other than {@code except} is a port of the bridge with index {@code bridge}. */
    static boolean hasOtherPorts(Namespace host, int bridge, String except) {
        for (Link link : host.nl().links()) {
            if (link.masterIndex() == bridge && !link.name().equals(except)) {
                return true;
            }
        }
        return false;
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
        private final IpPrefix address;

        RestoreAddress(Namespace host, String link, IpPrefix address) {
            super(host);
            this.link = link;
            this.address = address;
        }

        @Override
        protected void apply(Namespace ns) {
            Optional<Link> found = ns.nl().findLink(link);
            if (found.isPresent()) {
                ns.nl().addAddress(found.get().index(), address);
            }
        }

        @Override
        protected boolean tolerates(NetlinkException e) {
            return e.isExists();
        }
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
}
