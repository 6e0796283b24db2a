package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_addr.h>}: address attributes (IFA_*) and address flags (IFA_F_*).
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfAddrH {
    private IfAddrH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_addr.h";

    public static final int IFA_UNSPEC = 0;
    public static final int IFA_ADDRESS = 1;
    public static final int IFA_LOCAL = 2;
    public static final int IFA_LABEL = 3;
    public static final int IFA_BROADCAST = 4;
    public static final int IFA_ANYCAST = 5;
    public static final int IFA_CACHEINFO = 6;
    public static final int IFA_MULTICAST = 7;
    public static final int IFA_FLAGS = 8;
    public static final int IFA_RT_PRIORITY = 9;
    public static final int IFA_TARGET_NETNSID = 10;
    public static final int IFA_F_SECONDARY = 1;
    public static final int IFA_F_TEMPORARY = 1;
    public static final int IFA_F_NODAD = 2;
    public static final int IFA_F_OPTIMISTIC = 4;
    public static final int IFA_F_DADFAILED = 8;
    public static final int IFA_F_HOMEADDRESS = 16;
    public static final int IFA_F_DEPRECATED = 32;
    public static final int IFA_F_TENTATIVE = 64;
    public static final int IFA_F_PERMANENT = 128;
    public static final int IFA_F_MANAGETEMPADDR = 256;
    public static final int IFA_F_NOPREFIXROUTE = 512;
    public static final int IFA_F_MCAUTOJOIN = 1024;
    public static final int IFA_F_STABLE_PRIVACY = 2048;
}
