package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if.h>}: interface flags (IFF_*) and name sizes.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfH {
    private IfH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if.h";

    public static final int IFNAMSIZ = 16;
    public static final int IFALIASZ = 256;
    public static final int IFF_UP = 1;
    public static final int IFF_BROADCAST = 2;
    public static final int IFF_DEBUG = 4;
    public static final int IFF_LOOPBACK = 8;
    public static final int IFF_POINTOPOINT = 16;
    public static final int IFF_NOTRAILERS = 32;
    public static final int IFF_RUNNING = 64;
    public static final int IFF_NOARP = 128;
    public static final int IFF_PROMISC = 256;
    public static final int IFF_ALLMULTI = 512;
    public static final int IFF_MASTER = 1024;
    public static final int IFF_SLAVE = 2048;
    public static final int IFF_MULTICAST = 4096;
    public static final int IFF_PORTSEL = 8192;
    public static final int IFF_AUTOMEDIA = 16384;
    public static final int IFF_DYNAMIC = 32768;
    public static final int IFF_LOWER_UP = 65536;
    public static final int IFF_DORMANT = 131072;
    public static final int IFF_ECHO = 262144;
}
