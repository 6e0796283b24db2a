package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.Family;
import io.jcni.netlink.IpPrefix;
import java.net.InetAddress;

/** Between the CNI data model's prefixes ({@code io.jcni.spec.IpPrefix}) and netlink's ({@code io.jcni.netlink}). */
public final class Prefixes {
    private Prefixes() {
    }

    /** The same address and length, for netlink (host bits kept). */
    public static IpPrefix toNetlink(io.jcni.spec.IpPrefix prefix) {
        return new IpPrefix(prefix.address(), prefix.prefixLength());
    }

    /** The same address and length, for results. */
    public static io.jcni.spec.IpPrefix toSpec(IpPrefix prefix) {
        return new io.jcni.spec.IpPrefix(prefix.address(), prefix.prefixLength());
    }

    /** An address as Go prints it ({@code 10.1.0.1}, {@code fd00::1}). */
    public static String format(InetAddress address) {
        return io.jcni.spec.IpPrefix.format(address);
    }

    /** {@code address/32} or {@code address/128}. */
    public static IpPrefix host(InetAddress address) {
        return IpPrefix.host(address);
    }

    /** The network of {@code prefix}: host bits cleared, as a route destination. */
    public static IpPrefix network(io.jcni.spec.IpPrefix prefix) {
        return toNetlink(prefix).masked();
    }

    public static Family family(io.jcni.spec.IpPrefix prefix) {
        return prefix.isIpv4() ? Family.V4 : Family.V6;
    }

    /** Same address and length (records' equals would bootstrap ObjectMethods on the start-up path). */
    public static boolean same(IpPrefix a, IpPrefix b) {
        return a.prefixLength() == b.prefixLength() && a.address().equals(b.address());
    }

    /** Same address and length across the two models. */
    public static boolean same(IpPrefix a, io.jcni.spec.IpPrefix b) {
        return a.prefixLength() == b.prefixLength() && a.address().equals(b.address());
    }
}
