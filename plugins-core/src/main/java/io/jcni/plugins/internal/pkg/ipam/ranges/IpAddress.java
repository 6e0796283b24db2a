package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.spec.IpText;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;

/**
 * An IPv4 or IPv6 address as an unsigned 128-bit number ({@code high}, {@code low}); an IPv4 address lives in the
 * low 32 bits of {@code low}.
 *
 * <p>The allocator's form of an address: arithmetic and order without {@link InetAddress} allocations. Text goes
 * through spec-model's {@link IpText} (Go's {@code net.ParseIP} and {@code net.IP.String()}, which name the files
 * Go's host-local reads); like Go's {@code canonicalizeIP}, an IPv4-mapped IPv6 address is the IPv4 address.
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

    /** Parses like Go's {@code net.ParseIP} ({@link IpText}); empty for anything Go would reject. */
    public static Optional<IpAddress> parse(CharSequence text) {
        byte[] bytes = IpText.parseBytes(text.toString());
        return bytes == null ? Optional.empty() : ofBytes(bytes);
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

    /** Go's {@code net.IP.String()} ({@link IpText}): the name of this address's reservation file. */
    @Override
    public String toString() {
        return IpText.format(toBytes());
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
