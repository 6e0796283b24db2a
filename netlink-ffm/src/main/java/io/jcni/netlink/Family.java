package io.jcni.netlink;

import io.jcni.netlink.internal.wire.SocketH;
import java.net.Inet4Address;
import java.net.InetAddress;

/** An IP address family: {@code AF_INET} or {@code AF_INET6}. */
public enum Family {
    V4(SocketH.AF_INET),
    V6(SocketH.AF_INET6);

    private final int af;

    Family(int af) {
        this.af = af;
    }

    /** The C value ({@code AF_INET}, {@code AF_INET6}). */
    public int af() {
        return af;
    }

    /** The family's any-address, {@code 0.0.0.0} or {@code ::}: a default route's destination. */
    public InetAddress any() {
        try {
            return InetAddress.getByAddress(new byte[this == V4 ? 4 : 16]);
        } catch (java.net.UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    public static Family of(InetAddress address) {
        return address instanceof Inet4Address ? V4 : V6;
    }

    /** The number of bits of an address of this family: 32 or 128. */
    public int bits() {
        return this == V4 ? 32 : 128;
    }

    /** Fails unless {@code prefixLength} fits {@code address}'s family (0-32, 0-128). */
    static void requirePrefixLength(InetAddress address, int prefixLength) {
        int max = of(address).bits();
        if (prefixLength < 0 || prefixLength > max) {
            throw new IllegalArgumentException("prefix length of " + address.getHostAddress() + " must be 0-" + max
                    + ": " + prefixLength);
        }
    }

    /** The family of {@code af}, or null for any other value. */
    public static Family ofAf(int af) {
        return af == SocketH.AF_INET ? V4 : af == SocketH.AF_INET6 ? V6 : null;
    }
}
