package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniException;

/**
 * Gratuitous ARP for a container interface, so that neighbours holding a stale entry for a reused address learn the
 * new MAC at once: what {@code arping -U -c 1 -I eth0 <address>} sends for each IPv4 address of the link.
 *
 * <p>How: with {@code arp_notify=1} on the link ({@link NetSysctls#containerInterface}), the kernel itself sends a
 * gratuitous ARP request for every IPv4 address when the link comes up or its MAC changes. Go's bridge 1.1.1 relies
 * on the first: but a veth's bridge port only starts forwarding after both ends are up, so the announcement made when
 * the container end comes up is dropped by the still-disabled port (seen here: a stale neighbour entry is not
 * updated, with Go's plugin as with jcni's until this was added). Setting the link's MAC to its own value once the
 * port forwards is a MAC change for the kernel ({@code NETDEV_CHANGEADDR}), so it announces again, through a port
 * that now passes it. One netlink request; no packet socket (which netlink-ffm does not offer, and would need raw
 * frames built here). Side effect: the link's {@code addr_assign_type} becomes "set" (3) with the same address.
 */
public final class GratuitousArp {
    private GratuitousArp() {
    }

    /** Makes the kernel announce the link's IPv4 addresses (the link must have {@code arp_notify=1}). */
    public static void announce(Namespace ns, Link link) throws CniException {
        if (link.address() == null) {
            return;
        }
        try {
            ns.nl().setAddress(link.index(), link.address());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to announce the addresses of \"" + link.name() + "\" (gratuitous ARP)",
                    e);
        }
    }
}
