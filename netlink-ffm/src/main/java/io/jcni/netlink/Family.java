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

    public static Family of(InetAddress address) {
        return address instanceof Inet4Address ? V4 : V6;
    }

    /** The family of {@code af}, or null for any other value. */
    public static Family ofAf(int af) {
        return af == SocketH.AF_INET ? V4 : af == SocketH.AF_INET6 ? V6 : null;
    }
}
