package io.jcni.netlink;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * An IP address with a prefix length, as in {@code 10.1.2.3/24} or {@code fd00::1/64}. For interface addresses the
 * host bits are kept (the address is {@code 10.1.2.3}); for route destinations use {@link #masked()}.
 */
public record IpPrefix(InetAddress address, int prefixLength) {
    /** {@code 0.0.0.0/0}: the IPv4 default route's destination. */
    public static final IpPrefix DEFAULT_V4 = parse("0.0.0.0/0");
    /** {@code ::/0}: the IPv6 default route's destination. */
    public static final IpPrefix DEFAULT_V6 = parse("::/0");

    public IpPrefix {
        Objects.requireNonNull(address, "address");
        int max = address instanceof Inet4Address ? 32 : 128;
        if (prefixLength < 0 || prefixLength > max) {
            throw new IllegalArgumentException("prefix length of " + Inet.format(address) + " must be 0-" + max
                    + ": " + prefixLength);
        }
    }

    /**
     * Parses {@code address/length} or a bare address (a host prefix: /32 or /128). Numeric literals only, never
     * a DNS lookup.
     *
     * @throws IllegalArgumentException if {@code text} is not such a literal
     */
    public static IpPrefix parse(String text) {
        int slash = text.indexOf('/');
        InetAddress address = Inet.parse(slash < 0 ? text : text.substring(0, slash));
        if (slash < 0) {
            return host(address);
        }
        String length = text.substring(slash + 1);
        if (length.isEmpty() || length.length() > 3 || !length.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("bad prefix length in " + text);
        }
        return new IpPrefix(address, Integer.parseInt(length));
    }

    /** {@code address/32} or {@code address/128}. */
    public static IpPrefix host(InetAddress address) {
        return new IpPrefix(address, address instanceof Inet4Address ? 32 : 128);
    }

    public Family family() {
        return Family.of(address);
    }

    /** The same prefix with the host bits cleared ({@code 10.1.2.3/24} → {@code 10.1.2.0/24}). */
    public IpPrefix masked() {
        byte[] b = address.getAddress();
        for (int i = 0; i < b.length; i++) {
            int keep = Math.clamp(prefixLength - 8L * i, 0, 8);
            b[i] &= (byte) (0xff << (8 - keep));
        }
        return new IpPrefix(byAddress(b), prefixLength);
    }

    /** Whether {@code other} lies inside this prefix. */
    public boolean contains(InetAddress other) {
        return Family.of(other) == family() && new IpPrefix(other, prefixLength).masked().equals(masked());
    }

    static InetAddress byAddress(byte[] b) {
        try {
            return b.length == 4 ? InetAddress.getByAddress(b) : java.net.Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Override
    public String toString() {
        return Inet.format(address) + "/" + prefixLength;
    }
}
