package io.jcni.plugins.internal.main.bridge;

import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.OperState;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetBatch;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The bridge plugin's host side: the bridge itself ({@link #ensureBridge}), a veth end made its port
 * ({@link #attachPort}) and the wait for that port to come up ({@link #waitForPort}). Each side effect on shared state
 * registers its undo on the next line; the bridge is shared by every attachment, so its undos leave it alone while
 * other ports are on it.
 */
final class HostBridge {
    /** Go's wait for the host end to be operationally up: sleeps before each look, in ms. */
    private static final int[] PORT_WAIT_MS = {0, 5, 20, 50, 500, 1000, 1000};
    /** {@code BR_STATE_FORWARDING} of {@code linux/if_bridge.h}. */
    private static final int BR_STATE_FORWARDING = 3;

    private HostBridge() {
    }

    /**
     * Go's {@code ensureBridge}: creates the bridge unless it exists (with VLAN filtering when {@code vlan} or
     * {@code vlanTrunk} ask for it), promiscuous if asked, {@code accept_ra=0}, up. A bridge made here is deleted by
     * the rollback while no port is on it; changes to an existing one are undone.
     *
     * <p>Unlike Go's, a bridge made here gets its MAC in the same request that creates it (a random, locally
     * administered one, as the kernel would pick), which pins it: the kernel then never replaces it with the lowest
     * MAC among the ports. Go pins the MAC later, after the gateway address, to the value it read before its own port
     * joined; concurrent first ADDs of a new bridge read different values and each pins its own, so that the MAC an
     * earlier ADD recorded may not be the bridge's any more (its CHECK fails), and without {@code isGateway} the MAC
     * follows the ports for ever, changing as containers come and go.
     */
    static Link ensureBridge(Namespace host, BridgeConfig conf, Rollback rollback) throws CniException {
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
        LinkAttrs attrs = LinkAttrs.named(name).mtu(conf.mtu()).address(randomMac());
        try {
            if (conf.vlanFiltering()) {
                host.nl().addBridge(attrs, true, -1);
            } else {
                host.nl().addBridge(attrs);
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
     * A random unicast, locally administered MAC, as the kernel's {@code eth_random_addr} makes: what a bridge made
     * here is pinned to, and what a bridge whose MAC the kernel zeroed gets (see {@link BridgeGateway}).
     */
    static MacAddress randomMac() {
        byte[] mac = new byte[6];
        ThreadLocalRandom.current().nextBytes(mac);
        mac[0] = (byte) (mac[0] & 0xfe | 0x02);
        return new MacAddress(mac);
    }

    /** Whether {@code mac} is absent or all zeros: what the kernel leaves on an unpinned bridge whose ports left. */
    static boolean isUnset(MacAddress mac) {
        if (mac == null) {
            return true;
        }
        for (byte b : mac.bytes()) {
            if (b != 0) {
                return false;
            }
        }
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
    static void attachPort(Namespace host, Link bridge, Link port, BridgeConfig.Port settings)
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
     * Go's wait until the host end is operationally up (the bridge port forwards once both ends are up); the link as
     * it is then. Fails with Go's message if it never gets there.
     */
    static Link waitForPort(Namespace host, Link port) throws CniException {
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

    static Link readLink(Namespace ns, int index) throws CniException {
        try {
            return ns.nl().link(index);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up link " + index + " in " + ns, e);
        }
    }
}
