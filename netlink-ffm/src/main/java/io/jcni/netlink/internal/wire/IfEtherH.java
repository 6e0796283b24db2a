package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_ether.h>}: EtherTypes used as traffic control filter protocols.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfEtherH {
    private IfEtherH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_ether.h";

    public static final int ETH_P_ALL = 0x0003;
    public static final int ETH_P_IP = 0x0800;
    public static final int ETH_P_IPV6 = 0x86DD;
    public static final int ETH_P_8021Q = 0x8100;
}
