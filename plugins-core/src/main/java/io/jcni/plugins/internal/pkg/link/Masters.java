package io.jcni.plugins.internal.pkg.link;

import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ip.DefaultRoutes;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.Optional;

/**
 * The lower device ({@code master}) of macvlan, ipvlan and vlan, looked up in the namespace it lives in: the host, or
 * with {@code linkInContainer} the container.
 */
public final class Masters {
    private Masters() {
    }

    /** {@code configured}, or when empty the interface of {@code where}'s default route (code 7 if it has none). */
    public static String name(String configured, Namespace where) throws CniException {
        return configured.isEmpty() ? DefaultRoutes.interfaceName(where) : configured;
    }

    /** The master link; Go's message when it is missing. */
    public static Link lookup(Namespace where, String name) throws CniException {
        Optional<Link> link;
        try {
            link = where.nl().findLink(name);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to lookup master \"" + name + "\"", e);
        }
        if (link.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to lookup master \"" + name + "\": Link not found",
                    "no link " + name + " in " + where);
        }
        return link.get();
    }

    /** Go's rule: the MTU is 0 (the kernel's choice) or at most the master's (code 7). */
    public static void checkMtu(int mtu, Link master) throws CniException {
        if (mtu < 0 || mtu > master.mtu()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "invalid MTU " + mtu + ", must be [0, master MTU("
                    + master.mtu() + ")]");
        }
    }
}
