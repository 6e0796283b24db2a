package io.jcni.plugins.internal.main.vlan;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.ContainerLink;
import io.jcni.plugins.internal.pkg.link.ContainerLinkPlugin;
import io.jcni.plugins.internal.pkg.link.KernelSupport;
import io.jcni.plugins.internal.pkg.link.LinkNamespaces;
import io.jcni.plugins.internal.pkg.link.Masters;
import io.jcni.plugins.internal.pkg.link.NewLink;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.Result;

/**
 * The {@code vlan} plugin: an 802.1Q link with id {@code vlanId} on the lower device {@code master}, moved into the
 * container as CNI_IFNAME with addresses from IPAM, as Go's vlan.
 *
 * <p>Keys: {@code master} (required, as in Go's code: the host interface to create the VLAN on; with
 * {@code linkInContainer} an interface of the container), {@code vlanId} (0-4094), {@code mtu} (0 = the kernel's
 * choice, at most the master's), {@code linkInContainer}, {@code ipam} (required), {@code dns}.
 *
 * <p>Kernels without 802.1Q support (CONFIG_VLAN_8021Q, this machine's) fail ADD at the link's creation, before any
 * other side effect, with code 50 naming the option; STATUS probes for it and answers the same.
 *
 * <p>DEL releases the IPAM allocation and deletes the link; a gone namespace, link or master is success (Go's DEL
 * looks the master up first and fails without it). CHECK verifies the prevResult's interface (kind vlan, VLAN id,
 * MAC, MTU when configured), its addresses and routes, and that the master exists.
 */
public final class VlanPlugin implements ContainerLinkPlugin {

    record Config(String master, int vlanId, int mtu, boolean linkInContainer, Dns dns)
            implements LinkNamespaces.LowerDevice {
    }

    static Config load(CniRequest request) throws CniException {
        ConfigNode root = request.config().node();
        String master = root.string("master").orElse("");
        if (master.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "\"master\" field is required. It specifies the "
                    + "host interface name to create the VLAN for.");
        }
        long vlanId = root.integer("vlanId", Long.MIN_VALUE, Long.MAX_VALUE).orElse(0L);
        if (vlanId < 0 || vlanId > 4094) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "invalid VLAN ID " + vlanId
                    + " (must be between 0 and 4094 inclusive)");
        }
        int mtu = (int) root.integer("mtu", Integer.MIN_VALUE, Integer.MAX_VALUE).orElse(0L).longValue();
        if (mtu < 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "invalid MTU " + mtu
                    + ", must be [0, master MTU]");
        }
        request.ipam(); // code 7 when ipam.type is missing: Go's vlan always delegates
        return new Config(master, (int) vlanId, mtu, root.bool("linkInContainer").orElse(false),
                request.config().dns());
    }

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config config = load(request);
        try (LinkNamespaces ns = LinkNamespaces.open(request, config)) {
            Link master = Masters.lookup(ns.lower(), config.master());
            Masters.checkMtu(config.mtu(), master);
            NewLink vlan = NewLink.vlan(master.index(), config.vlanId());
            return ContainerLink.createAndConfigure(request, ns, vlan, config.mtu(), null).withDns(config.dns());
        }
    }

    @Override
    public void check(CniRequest request) throws CniException {
        Config config = load(request);
        try (LinkNamespaces ns = LinkNamespaces.open(request, config)) {
            Result previous = IpamDelegation.checkThenPrevResult(request);
            Masters.lookup(ns.lower(), config.master());
            Link link = ContainerLink.check(ns.container(), previous, request.ifName(), request.netns(), "vlan");
            int actual = link.info() instanceof LinkInfo.Vlan v ? v.id() : -1;
            if (actual != config.vlanId()) {
                throw new CniException(CniError.INTERNAL, "Error: Container vlan " + request.ifName()
                        + " has VLAN ID " + actual + ", configured " + config.vlanId());
            }
            if (config.mtu() != 0 && config.mtu() != link.mtu()) {
                throw new CniException(CniError.INTERNAL, "Error: Container vlan " + request.ifName()
                        + " has MTU " + link.mtu() + ", configured " + config.mtu());
            }
            Checks.addressing(ns.container(), previous, request.ifName());
        }
    }

    /** IPAM's status, and code 50 when the kernel cannot create 802.1Q links. */
    @Override
    public void status(CniRequest request) throws CniException {
        KernelSupport.require("vlan");
        IpamDelegation.status(request);
    }
}
