package io.jcni.plugins.internal.net;

import io.jcni.netlink.NetlinkException;
import io.jcni.spec.CniException;

/** Link steps of the plugins' DEL (Go's {@code pkg/ip} link helpers, as DEL uses them). */
public final class Links {
    private Links() {
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
    }
}
