package io.jcni.plugins.internal.pkg.link;

import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;

/**
 * Whether the running kernel can create a link type. A kernel built without a type answers RTM_NEWLINK with
 * EOPNOTSUPP and the extended ACK "Unknown device type" (this machine's kernel lacks vlan, ipvlan and dummy). Such a
 * failure becomes code 50 (plugin not available) naming the kernel option, both from ADD, which fails at its first
 * side effect and so leaves nothing behind, and from STATUS, which probes.
 */
public final class KernelSupport {
    private KernelSupport() {
    }

    /** The kernel option that provides a link kind. */
    public static String option(String kind) {
        switch (kind) {
            case "vlan":
                return "CONFIG_VLAN_8021Q";
            case "ipvlan":
                return "CONFIG_IPVLAN";
            case "dummy":
                return "CONFIG_DUMMY";
            case "macvlan":
                return "CONFIG_MACVLAN";
            case "vrf":
                return "CONFIG_NET_VRF";
            case "ifb":
                return "CONFIG_IFB";
            default:
                return "support for " + kind + " links";
        }
    }

    /** Whether {@code e} says the kernel does not know the link kind at all. */
    public static boolean isUnknownKind(NetlinkException e) {
        return e.kind() == NetlinkException.Kind.NOT_SUPPORTED && e.errnoName().equals("EOPNOTSUPP")
                && (e.extAck().isEmpty() || e.extAck().contains("Unknown device type"));
    }

    /** The error of a failed creation: code 50 when the kernel lacks the kind, else {@link NetErrors}. */
    public static CniException createFailed(String kind, NetlinkException e) {
        if (isUnknownKind(e)) {
            return unsupported(kind, e.getMessage());
        }
        return NetErrors.failure("failed to create " + kind, e);
    }

    public static CniException unsupported(String kind, String kernelSaid) {
        return new CniException(CniError.PLUGIN_NOT_AVAILABLE, "failed to create " + kind + ": the running kernel "
                + "has no " + kind + " support (" + option(kind) + ")", "the kernel answered: " + kernelSaid
                + "; a kernel built with " + option(kind) + " (or its module loadable) is needed");
    }

    /**
     * STATUS: throws code 50 if the kernel cannot create {@code kind} links. Probes in a new, empty namespace that
     * disappears afterwards: a veth pair there stands for the lower device, and the link is created on it.
     */
    public static void require(String kind) throws CniException {
        Netlink.checkAvailable();
        try (NetNs probe = NetNs.create();
                NetlinkHandle nl = Netlink.open(probe)) {
            switch (kind) {
                case "dummy":
                    nl.addDummy(LinkAttrs.named("probe0"));
                    return;
                case "ifb":
                    nl.addIfb(LinkAttrs.named("probe0"));
                    return;
                case "vrf":
                    nl.addVrf(LinkAttrs.named("probe0"), 1);
                    return;
                default:
                    break;
            }
            nl.addVeth(LinkAttrs.named("lower0"), LinkAttrs.named("lower1"));
            int lower = nl.link("lower0").index();
            new NewLink(kind, lower, io.jcni.netlink.MacvlanMode.BRIDGE, io.jcni.netlink.IpvlanMode.L2, 1)
                    .create(nl, LinkAttrs.named("probe0"));
        } catch (NetlinkException e) {
            if (isUnknownKind(e)) {
                throw unsupported(kind, e.getMessage());
            }
            throw NetErrors.failure("failed to probe the kernel for " + kind + " support", e);
        }
    }
}
