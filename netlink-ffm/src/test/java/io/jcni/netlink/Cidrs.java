package io.jcni.netlink;

import java.net.InetAddress;

/**
 * CIDR literals for this module's tests. The module itself reads no IP text (callers hand it {@link InetAddress}es
 * and prefix lengths); tests write {@code "10.1.2.3/24"} and compare in {@link InetAddress#getHostAddress()} text.
 */
public final class Cidrs {
    private Cidrs() {
    }

    /** A literal address ({@link InetAddress#ofLiteral}: no name lookup). */
    public static InetAddress ip(String text) {
        return InetAddress.ofLiteral(text);
    }

    /** The address part of {@code ADDRESS/LENGTH}. */
    public static InetAddress address(String cidr) {
        return ip(cidr.substring(0, cidr.indexOf('/')));
    }

    /** The length part of {@code ADDRESS/LENGTH}. */
    public static int length(String cidr) {
        return Integer.parseInt(cidr.substring(cidr.indexOf('/') + 1));
    }

    /** {@code ip addr add CIDR dev INDEX}. */
    public static Address address(int index, String cidr) {
        return Address.of(index, address(cidr), length(cidr));
    }

    /** {@code ip route add CIDR}. */
    public static Route route(String cidr) {
        return Route.to(address(cidr), length(cidr));
    }

    /** {@code cidr} as {@link #of(Address)} prints it, to compare with kernel state. */
    public static String canonical(String cidr) {
        return address(cidr).getHostAddress() + "/" + length(cidr);
    }

    /** An address read back, as {@code ADDRESS/LENGTH}. */
    public static String of(Address a) {
        return a.address().getHostAddress() + "/" + a.prefixLength();
    }

    /** A route's destination, as {@code ADDRESS/LENGTH}. */
    public static String of(Route r) {
        return r.destination().getHostAddress() + "/" + r.destinationLength();
    }
}
