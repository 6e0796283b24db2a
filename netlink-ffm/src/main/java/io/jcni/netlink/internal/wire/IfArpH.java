package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_arp.h>}: hardware types (ARPHRD_*) found in ifinfomsg.ifi_type.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfArpH {
    private IfArpH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_arp.h";

    public static final int ARPHRD_NETROM = 0;
    public static final int ARPHRD_ETHER = 1;
    public static final int ARPHRD_LOOPBACK = 772;
    public static final int ARPHRD_NONE = 65534;
    public static final int ARPHRD_VOID = 65535;
}
