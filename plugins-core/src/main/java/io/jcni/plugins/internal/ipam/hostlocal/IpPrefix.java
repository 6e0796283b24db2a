package io.jcni.plugins.internal.ipam.hostlocal;

import java.util.Objects;
import java.util.Optional;

/**
 * An address and a prefix length, as written in a config ({@code 10.1.0.0/16}). The address keeps any host bits it
 * was written with (CNI's {@code types.IPNet} does too), so that a range can report them as an error.
 */
public record IpPrefix(IpAddress address, int length) {

    public IpPrefix {
        if (length < 0 || length > address.bitLength()) {
            throw new IllegalArgumentException("prefix length " + length + " out of range for " + address);
        }
    }

    /** Parses {@code address/length} like Go's {@code net.ParseCIDR}; empty for anything it would reject. */
    public static Optional<IpPrefix> parse(CharSequence text) {
        String s = text.toString();
        int slash = s.indexOf('/');
        if (slash < 0 || slash == s.length() - 1 || s.length() - slash - 1 > 3) {
            return Optional.empty();
        }
        int len = 0;
        for (int i = slash + 1; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return Optional.empty();
            }
            len = len * 10 + (c - '0');
        }
        String addressText = s.substring(0, slash);
        Optional<IpAddress> address = IpAddress.parse(addressText);
        // An IPv4-mapped IPv6 network ("::ffff:10.0.0.0/104") is refused, as Go's range check refuses it
        // ("IPNet IP and Mask version mismatch").
        if (address.isEmpty() || len > address.get().bitLength() || address.get().isV4() && addressText.indexOf(':') >= 0) {
            return Optional.empty();
        }
        return Optional.of(new IpPrefix(address.get(), len));
    }

    /** The network address (host bits cleared). */
    public IpAddress network() {
        return address.masked(length);
    }

    /** The last address of the prefix (all host bits set): the IPv4 broadcast address. */
    public IpAddress last() {
        return address.lastInPrefix(length);
    }

    public boolean contains(IpAddress ip) {
        return ip.v6() == address.v6() && ip.masked(length).equals(network());
    }

    /** {@code address/length}, as Go's {@code net.IPNet.String()} prints it. */
    @Override
    public String toString() {
        return address + "/" + length;
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof IpPrefix other
                && Objects.equals(address, other.address)
                && length == other.length;
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(address);
        h = 31 * h + Integer.hashCode(length);
        return h;
    }
}
