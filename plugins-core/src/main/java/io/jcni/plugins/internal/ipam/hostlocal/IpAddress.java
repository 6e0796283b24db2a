package io.jcni.plugins.internal.ipam.hostlocal;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * An IPv4 or IPv6 address as an unsigned 128-bit number ({@code high}, {@code low}); an IPv4 address lives in the
 * low 32 bits of {@code low}.
 *
 * <p>Text forms follow Go's {@code net} package, because they name the files Go's host-local plugin reads:
 * {@link #toString()} is Go's {@code net.IP.String()} (dotted quad; RFC 5952 for IPv6, lower case, the longest run of
 * two or more zero groups shortened to {@code ::}) and {@link #parse} accepts what Go's {@code net.ParseIP} accepts
 * (no zones, no leading zeros in IPv4 parts). Like Go's {@code canonicalizeIP}, an IPv4-mapped IPv6 address
 * ({@code ::ffff:a.b.c.d}) is the IPv4 address.
 */
public record IpAddress(boolean v6, long high, long low) implements Comparable<IpAddress> {

    public IpAddress {
        if (!v6 && (high != 0 || (low >>> 32) != 0)) {
            throw new IllegalArgumentException("IPv4 address wider than 32 bits");
        }
    }

    public static IpAddress v4(int bits) {
        return new IpAddress(false, 0, Integer.toUnsignedLong(bits));
    }

    public static IpAddress v6(long high, long low) {
        if (high == 0 && (low >>> 32) == 0xffffL) {
            return v4((int) low);
        }
        return new IpAddress(true, high, low);
    }

    /** The address of {@code address}; a scope id is dropped. */
    public static IpAddress of(InetAddress address) {
        return ofBytes(address.getAddress()).orElseThrow();
    }

    /** 4 or 16 network-order bytes; anything else is empty. */
    public static Optional<IpAddress> ofBytes(byte[] b) {
        if (b.length == 4) {
            return Optional.of(v4(((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff)));
        }
        if (b.length == 16) {
            long hi = 0;
            long lo = 0;
            for (int i = 0; i < 8; i++) {
                hi = (hi << 8) | (b[i] & 0xff);
                lo = (lo << 8) | (b[i + 8] & 0xff);
            }
            return Optional.of(v6(hi, lo));
        }
        return Optional.empty();
    }

    /** Parses like Go's {@code net.ParseIP}; empty for anything Go would reject. */
    public static Optional<IpAddress> parse(CharSequence text) {
        String s = text.toString();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '.') {
                Optional<Integer> bits = parseV4(s, 0, s.length());
                return bits.isPresent() ? Optional.of(v4(bits.get())) : Optional.empty();
            }
            if (c == ':') {
                return parseV6(s);
            }
        }
        return Optional.empty();
    }

    /** Number of bits: 32 or 128. */
    public int bitLength() {
        return v6 ? 128 : 32;
    }

    public boolean isV4() {
        return !v6;
    }

    /** Network-order bytes, 4 or 16 of them. */
    public byte[] toBytes() {
        if (!v6) {
            int v = (int) low;
            return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
        }
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (high >>> (56 - 8 * i));
            b[i + 8] = (byte) (low >>> (56 - 8 * i));
        }
        return b;
    }

    public InetAddress toInetAddress() {
        try {
            return v6 ? Inet6Address.getByAddress(null, toBytes(), null) : Inet4Address.getByAddress(toBytes());
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes are always an address", e);
        }
    }

    /** This address plus {@code n} (n &ge; 0), wrapping around within the family. */
    public IpAddress plus(long n) {
        if (!v6) {
            return v4((int) (low + n));
        }
        long lo = low + n;
        long hi = Long.compareUnsigned(lo, low) < 0 ? high + 1 : high;
        return new IpAddress(true, hi, lo);
    }

    public IpAddress next() {
        return plus(1);
    }

    /**
     * {@code to - from} for {@code from <= to} of one family, saturated at {@link Long#MAX_VALUE} (a large IPv6
     * distance does not fit).
     */
    public static long distance(IpAddress from, IpAddress to) {
        long lo = to.low - from.low;
        long hi = to.high - from.high - (Long.compareUnsigned(to.low, from.low) < 0 ? 1 : 0);
        if (hi != 0 || lo < 0) {
            return Long.MAX_VALUE;
        }
        return lo;
    }

    /** The first address of the {@code prefixLength}-bit prefix holding this address. */
    public IpAddress masked(int prefixLength) {
        return withHostBits(prefixLength, false);
    }

    /** The last address of the {@code prefixLength}-bit prefix holding this address. */
    public IpAddress lastInPrefix(int prefixLength) {
        return withHostBits(prefixLength, true);
    }

    private IpAddress withHostBits(int prefixLength, boolean ones) {
        if (!v6) {
            long hostMask = prefixLength >= 32 ? 0 : (0xffff_ffffL >>> prefixLength);
            return v4((int) (ones ? low | hostMask : low & ~hostMask));
        }
        long hiMask = prefixLength >= 64 ? 0 : (-1L >>> prefixLength);
        long loMask = prefixLength >= 128 ? 0 : prefixLength <= 64 ? -1L : (-1L >>> (prefixLength - 64));
        return ones
                ? new IpAddress(true, high | hiMask, low | loMask)
                : new IpAddress(true, high & ~hiMask, low & ~loMask);
    }

    /** IPv4 before IPv6; within a family, numeric order. */
    @Override
    public int compareTo(IpAddress o) {
        if (v6 != o.v6) {
            return v6 ? 1 : -1;
        }
        int c = Long.compareUnsigned(high, o.high);
        return c != 0 ? c : Long.compareUnsigned(low, o.low);
    }

    /** Go's {@code net.IP.String()}: the name of this address's reservation file. */
    @Override
    public String toString() {
        if (!v6) {
            int v = (int) low;
            return (v >>> 24) + "." + ((v >>> 16) & 0xff) + "." + ((v >>> 8) & 0xff) + "." + (v & 0xff);
        }
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) ((high >>> (48 - 16 * i)) & 0xffff);
            g[i + 4] = (int) ((low >>> (48 - 16 * i)) & 0xffff);
        }
        // Longest run of zero groups, the first one on a tie; a single zero group is not shortened.
        int bestStart = -1;
        int bestLen = 0;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        if (bestLen < 2) {
            bestStart = -1;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (i > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    // ---- parsing, after Go's net.parseIPv4 / net.parseIPv6 ----

    private static Optional<Integer> parseV4(String s, int from, int to) {
        int value = 0;
        int pos = from;
        for (int part = 0; part < 4; part++) {
            if (part > 0) {
                if (pos >= to || s.charAt(pos) != '.') {
                    return Optional.empty();
                }
                pos++;
            }
            int start = pos;
            int n = 0;
            while (pos < to && pos - start < 4 && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
                n = n * 10 + (s.charAt(pos) - '0');
                pos++;
            }
            int digits = pos - start;
            if (digits == 0 || digits > 3 || n > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return Optional.empty();
            }
            value = (value << 8) | n;
        }
        return pos == to ? Optional.of(value) : Optional.empty();
    }

    private static Optional<IpAddress> parseV6(String s) {
        int[] groups = new int[8];
        int n = 0;
        int ellipsis = -1;
        int pos = 0;
        int len = s.length();
        if (len >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
            ellipsis = 0;
            pos = 2;
            if (pos == len) {
                return Optional.of(new IpAddress(true, 0, 0));
            }
        }
        while (pos < len) {
            int start = pos;
            int v = 0;
            while (pos < len && hexDigit(s.charAt(pos)) >= 0) {
                v = (v << 4) | hexDigit(s.charAt(pos));
                pos++;
                if (v > 0xffff) {
                    return Optional.empty();
                }
            }
            if (pos == start) {
                return Optional.empty();
            }
            if (pos < len && s.charAt(pos) == '.') {
                // Trailing IPv4 part: only where two groups remain, and only at the end.
                if (ellipsis < 0 && n != 6 || n + 2 > 8) {
                    return Optional.empty();
                }
                Optional<Integer> v4 = parseV4(s, start, len);
                if (v4.isEmpty()) {
                    return Optional.empty();
                }
                groups[n++] = v4.get() >>> 16;
                groups[n++] = v4.get() & 0xffff;
                pos = len;
                break;
            }
            groups[n++] = v;
            if (pos == len) {
                break;
            }
            if (s.charAt(pos) != ':' || pos + 1 == len) {
                return Optional.empty();
            }
            pos++;
            if (s.charAt(pos) == ':') {
                if (ellipsis >= 0) {
                    return Optional.empty();
                }
                ellipsis = n;
                pos++;
                if (pos == len) {
                    break;
                }
            }
            if (n == 8) {
                return Optional.empty();
            }
        }
        if (ellipsis >= 0) {
            if (n == 8) {
                return Optional.empty();
            }
            int shift = 8 - n;
            for (int i = n - 1; i >= ellipsis; i--) {
                groups[i + shift] = groups[i];
            }
            for (int i = ellipsis; i < ellipsis + shift; i++) {
                groups[i] = 0;
            }
        } else if (n != 8) {
            return Optional.empty();
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 4; i++) {
            hi = (hi << 16) | groups[i];
            lo = (lo << 16) | groups[i + 4];
        }
        return Optional.of(v6(hi, lo));
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof IpAddress other
                && v6 == other.v6
                && high == other.high
                && low == other.low;
    }

    @Override
    public int hashCode() {
        int h = Boolean.hashCode(v6);
        h = 31 * h + Long.hashCode(high);
        h = 31 * h + Long.hashCode(low);
        return h;
    }
}
