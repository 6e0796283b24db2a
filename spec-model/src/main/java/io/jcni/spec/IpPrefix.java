package io.jcni.spec;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Objects;

/**
 * An IP address with a prefix length, host bits kept: {@code 10.1.0.5/16} is the address 10.1.0.5 on the network
 * 10.1.0.0/16. This is what CNI calls a CIDR in {@code ips[].address} and {@code routes[].dst}, and what libcni's
 * {@code types.ParseCIDR} returns (it keeps the host bits that {@code net.ParseCIDR} would clear). jcni's one prefix
 * type: plugins, IPAM and results use it; netlink-ffm, which knows no jcni type, takes its address and length.
 * The address part is read and printed by {@link IpText}.
 *
 * <p><b>IPv4-mapped IPv6</b> ({@code ::ffff:a.b.c.d}) is treated as IPv4, as Go does: Go's {@code To4()} is non-nil
 * for such an address, so libcni prints {@code ::ffff:10.1.2.3/120} back as {@code 10.1.2.3/24} and calls it version
 * "4". jcni makes that normalisation at parse time: a mapped address becomes an {@link Inet4Address} and a mapped
 * prefix of length 96-128 becomes the IPv4 prefix of length {@code n - 96}. A mapped prefix shorter than /96 has no
 * IPv4 equivalent (Go would print it as {@code a.b.c.d/0}, a different network), so it is rejected.
 *
 * @param address      the address, host bits included; an {@link Inet4Address} for IPv4 and mapped IPv6
 * @param prefixLength 0-32 for IPv4, 0-128 for IPv6
 */
public record IpPrefix(InetAddress address, int prefixLength) {

    public IpPrefix {
        Objects.requireNonNull(address, "address");
        address = normalize(address);
        int bits = address.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " out of range 0-" + bits);
        }
    }

    /** Parses a CIDR; an invalid one is code 7 ({@link CniError#INVALID_NETWORK_CONFIG}) naming {@code field}. */
    public static IpPrefix parse(String text, String field) throws CniException {
        return parse(text, field, CniError.INVALID_NETWORK_CONFIG);
    }

    /** Parses a CIDR such as {@code 10.1.0.5/16} or {@code 2001:db8::5/64}; errors carry {@code code}. */
    public static IpPrefix parse(String text, String field, int code) throws CniException {
        int slash = text == null ? -1 : text.indexOf('/');
        if (slash < 0) {
            throw new CniException(code, field + ": invalid CIDR \"" + text + "\"", "expected ADDRESS/PREFIX");
        }
        String addressText = text.substring(0, slash);
        String lengthText = text.substring(slash + 1);
        byte[] bytes = IpText.parseBytes(addressText);
        int length = parseLength(lengthText);
        if (bytes == null || length < 0) {
            throw new CniException(code, field + ": invalid CIDR \"" + text + "\"");
        }
        if (IpText.isV6Text(addressText)) {
            if (length > 128) {
                throw new CniException(code, field + ": invalid CIDR \"" + text + "\"");
            }
            if (bytes.length == 4) { // IPv4-mapped IPv6, see the class comment
                if (length < 96) {
                    throw new CniException(code, field + ": invalid CIDR \"" + text + "\"",
                            "an IPv4-mapped IPv6 prefix must be /96 or longer to denote an IPv4 network");
                }
                length -= 96;
            }
        } else if (length > 32) {
            throw new CniException(code, field + ": invalid CIDR \"" + text + "\"");
        }
        return new IpPrefix(IpText.toAddress(bytes), length);
    }

    /** {@code address/32} or {@code address/128}: the prefix of one host. */
    public static IpPrefix host(InetAddress address) {
        InetAddress normalized = normalize(address);
        return new IpPrefix(normalized, normalized.getAddress().length * 8);
    }

    private static int parseLength(String text) {
        // Go's dtoi: 1+ decimal digits (leading zeros allowed), no sign.
        if (text.isEmpty() || text.length() > 3) {
            return -1;
        }
        int value = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }

    /**
     * The address as this model holds it: IPv4-mapped IPv6 as IPv4, without scope id or host name (only the bytes
     * matter on the wire).
     */
    public static InetAddress normalize(InetAddress address) {
        return IpText.toAddress(address.getAddress());
    }

    /** True for an IPv4 prefix (including one parsed from IPv4-mapped IPv6). */
    public boolean isIpv4() {
        return address instanceof Inet4Address;
    }

    /** 32 for IPv4, 128 for IPv6. */
    public int bits() {
        return isIpv4() ? 32 : 128;
    }

    /** The network address: {@link #address()} with the host bits cleared. */
    public InetAddress network() {
        byte[] bytes = address.getAddress();
        for (int bit = prefixLength; bit < bytes.length * 8; bit++) {
            bytes[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
        }
        return IpText.toAddress(bytes);
    }

    /** This prefix with the host bits cleared ({@code 10.1.0.5/16} becomes {@code 10.1.0.0/16}), as routes take it. */
    public IpPrefix masked() {
        return new IpPrefix(network(), prefixLength);
    }

    /** True if {@code other} lies in this prefix's network (same family only). */
    public boolean contains(InetAddress other) {
        InetAddress normalized = normalize(other);
        if ((normalized instanceof Inet4Address) != isIpv4()) {
            return false;
        }
        return new IpPrefix(normalized, prefixLength).network().equals(network());
    }

    /** The CIDR text, e.g. {@code 10.1.0.5/16}. */
    @Override
    public String toString() {
        return IpText.format(address) + "/" + prefixLength;
    }

    // Written out rather than generated: a record's generated equals/hashCode bootstrap java.lang.runtime.ObjectMethods
    // on first call, which costs milliseconds in a plugin exec (plugins-core's ExecPathLinkageTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof IpPrefix other && prefixLength == other.prefixLength
                && address.equals(other.address);
    }

    @Override
    public int hashCode() {
        return 31 * address.hashCode() + prefixLength;
    }
}
