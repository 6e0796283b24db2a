package io.jcni.plugins.internal.main.macvlan;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.MacvlanMode;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.ContainerLink;
import io.jcni.plugins.internal.pkg.link.ContainerLinkPlugin;
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
 * The {@code macvlan} plugin: a macvlan link on a lower device ({@code master}) moved into the container as
 * CNI_IFNAME, with addresses from IPAM, or up without any when there is no {@code ipam} (L2 only), as Go's macvlan.
 *
 * <p>Keys: {@code master} (default: the interface of the default route, in the host, or with {@code linkInContainer}
 * in the container), {@code mode} ({@code bridge} default, {@code private}, {@code vepa}, {@code passthru}),
 * {@code mtu} (0 = the kernel's choice, at most the master's), {@code mac} (overridden by CNI_ARGS {@code MAC}, then
 * by the {@code mac} capability, {@code runtimeConfig.mac}), {@code linkInContainer}, {@code ipam}, {@code dns}.
 * Refused: {@code bcqueuelen} other than 0 (netlink-ffm does not set {@code IFLA_MACVLAN_BC_QUEUE_LEN}).
 *
 * <p>DEL releases the IPAM allocation and deletes the link; a gone namespace or link is success, and the master is not
 * needed. CHECK verifies the prevResult's interface (kind macvlan, mode, MAC), its addresses and routes, and that the
 * master exists; IPAM is checked first. GC and STATUS go to IPAM.
 */
public final class MacvlanPlugin implements ContainerLinkPlugin {

    /** The configuration after the overrides; {@code master} may be "" (the default route's, resolved later). */
    record Config(String master, MacvlanMode mode, int mtu, MacAddress mac, boolean linkInContainer, Dns dns)
            implements LinkNamespaces.LowerDevice {
    }

    static Config load(CniRequest request) throws CniException {
        ConfigNode root = request.config().node();
        String master = root.string("master").orElse("");
        MacvlanMode mode = mode(root.string("mode").orElse(""));
        int mtu = (int) root.integer("mtu", Integer.MIN_VALUE, Integer.MAX_VALUE).orElse(0L).longValue();
        if (mtu < 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "invalid MTU " + mtu
                    + ", must be [0, master MTU]");
        }
        if (root.integer("bcqueuelen", 0, 0xffffffffL).orElse(0L) != 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "bcqueuelen: not supported by jcni's macvlan",
                    "the broadcast queue length (IFLA_MACVLAN_BC_QUEUE_LEN) cannot be set; leave it out or 0");
        }
        MacAddress mac = ContainerLink.requestedMac(request, root);
        boolean inContainer = root.bool("linkInContainer").orElse(false);
        return new Config(master, mode, mtu, mac, inContainer,
                request.config().dns());
    }

    /** The modes Go's macvlan accepts (not {@code source}), in the order its message lists them. */
    private static final MacvlanMode[] MODES = {MacvlanMode.BRIDGE, MacvlanMode.PRIVATE, MacvlanMode.VEPA,
        MacvlanMode.PASSTHRU};

    /** Go's {@code modeFromString}: "" and {@code bridge} are bridge. */
    static MacvlanMode mode(String text) throws CniException {
        return ContainerLink.mode(text, "macvlan", MacvlanMode.BRIDGE, MODES);
    }

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config config = load(request);
        try (LinkNamespaces ns = LinkNamespaces.open(request, config)) {
            Link master = Masters.lookup(ns.lower(), Masters.name(config.master(), ns.lower()));
            Masters.checkMtu(config.mtu(), master);
            NewLink macvlan = NewLink.macvlan(master.index(), config.mode());
            return ContainerLink.createAndConfigure(request, ns, macvlan, config.mtu(), config.mac())
                    .withDns(config.dns());
        }
    }

    @Override
    public void check(CniRequest request) throws CniException {
        Config config = load(request);
        try (LinkNamespaces ns = LinkNamespaces.open(request, config)) {
            Result previous = IpamDelegation.checkThenPrevResult(request);
            Link master = Masters.lookup(ns.lower(), Masters.name(config.master(), ns.lower()));
            Masters.checkMtu(config.mtu(), master);
            Link link = ContainerLink.check(ns.container(), previous, request.ifName(), request.netns(), "macvlan");
            MacvlanMode actual = link.info() instanceof LinkInfo.Macvlan m ? m.mode() : null;
            ContainerLink.checkMode("macvlan", actual, config.mode());
            Checks.addressing(ns.container(), previous, request.ifName());
        }
    }
}
