package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Address;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniException;
import io.jcni.spec.Interface;
import java.util.Optional;

/** Link helpers of the plugins (Go's {@code pkg/ip} link helpers): a link as a result's interface, DEL's delete. */
public final class Links {
    private Links() {
    }

    /** The link as a result's interface: name, MAC ("" if it has none), sandbox ("" for the host). */
    public static Interface describe(Link link, String sandbox) {
        return new Interface(link.name(), link.address() == null ? "" : link.address().toString(), sandbox);
    }

    /**
     * Takes every address off {@code ifName} in {@code container}, leaving the link itself: what DEL does before it
     * releases IPAM when an IPAM plugin may need the link to release (see {@code BridgePlugin.del}). A link already
     * gone is success; so is an address that went meanwhile.
     */
    public static void removeAddresses(Namespace container, String ifName) throws CniException {
        try {
            Optional<Link> link = container.nl().findLink(ifName);
            if (link.isEmpty()) {
                return;
            }
            for (Address address : container.nl().addresses(link.get().index(), null)) {
                try {
                    container.nl().deleteAddress(address);
                } catch (NetlinkException e) {
                    if (!e.isNotFound()) {
                        throw e;
                    }
                }
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to remove the addresses of \"" + ifName + "\" in " + container.path(), e);
        }
        Timing.phase("addresses");
    }

    /**
     * DEL's delete of the container's interface, Go's {@code ip.DelLinkByName(CNI_IFNAME)} inside CNI_NETNS: deletes
     * {@code ifName} in {@code container} (a veth end takes its peer with it) and closes {@code container}. A link
     * already gone is success (DEL repeated); any other failure, the closing included, names the link and the
     * namespace's path.
     */
    public static void deleteAndClose(Namespace container, String ifName) throws CniException {
        try (Namespace ns = container) {
            ns.nl().deleteLink(ifName);
        } catch (NetlinkException e) {
            if (!e.isNotFound()) {
                throw NetErrors.failure("failed to delete \"" + ifName + "\" in " + container.path(), e);
            }
        }
        Timing.phase("link");
    }
}
