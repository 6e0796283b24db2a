package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Address;
import io.jcni.netlink.Route;
import io.jcni.spec.IpPrefix;
import java.net.InetAddress;

/**
 * The plugins' edge to netlink-ffm for prefixes. netlink-ffm knows no jcni type: it takes and returns an
 * {@link InetAddress} and a prefix length. The plugins work with spec-model's {@link IpPrefix}; these convert, so
 * that every comparison and every printed prefix uses the data model's (Go's) rules.
 */
public final class Prefixes {
    private Prefixes() {
    }

    /**
     * An address read from the kernel as a prefix, host bits kept. An IPv4-mapped IPv6 address (the kernel accepts
     * {@code ::ffff:a.b.c.d} on a link) is read as Go's {@code net.IPNet} reads it: IPv4, its prefix length counting
     * the last 32 bits only.
     */
    public static IpPrefix of(Address address) {
        return of(address.address(), address.prefixLength());
    }

    /** A route's destination as a prefix ({@code 0.0.0.0/0} or {@code ::/0} for a default route). */
    public static IpPrefix destination(Route route) {
        return of(route.destination(), route.destinationLength());
    }

    /** {@code ip route add NETWORK}: a route to the network of {@code prefix} (host bits cleared, as routes take it). */
    public static Route routeTo(IpPrefix prefix) {
        IpPrefix network = prefix.masked();
        return Route.to(network.address(), network.prefixLength());
    }

    /** {@code ip route add ADDRESS/32} (or {@code /128}): a route to one host. */
    public static Route hostRoute(InetAddress address) {
        return routeTo(IpPrefix.host(address));
    }

    private static IpPrefix of(InetAddress address, int prefixLength) {
        int bits = address.getAddress().length * 8;
        int mappedBits = IpPrefix.normalize(address).getAddress().length * 8;
        return new IpPrefix(address, Math.max(0, prefixLength - (bits - mappedBits)));
    }
}
