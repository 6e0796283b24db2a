package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/rtnetlink.h>}: rtnetlink message types, route attributes, route types, protocols, scopes, tables, metrics.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class RtnetlinkH {
    private RtnetlinkH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/rtnetlink.h";

    public static final int RTM_NEWLINK = 16;
    public static final int RTM_DELLINK = 17;
    public static final int RTM_GETLINK = 18;
    public static final int RTM_SETLINK = 19;
    public static final int RTM_NEWADDR = 20;
    public static final int RTM_DELADDR = 21;
    public static final int RTM_GETADDR = 22;
    public static final int RTM_NEWROUTE = 24;
    public static final int RTM_DELROUTE = 25;
    public static final int RTM_GETROUTE = 26;
    public static final int RTM_NEWNEIGH = 28;
    public static final int RTM_DELNEIGH = 29;
    public static final int RTM_GETNEIGH = 30;
    public static final int RTA_ALIGNTO = 4;
    public static final int RTN_UNSPEC = 0;
    public static final int RTN_UNICAST = 1;
    public static final int RTN_LOCAL = 2;
    public static final int RTN_BROADCAST = 3;
    public static final int RTN_ANYCAST = 4;
    public static final int RTN_MULTICAST = 5;
    public static final int RTN_BLACKHOLE = 6;
    public static final int RTN_UNREACHABLE = 7;
    public static final int RTN_PROHIBIT = 8;
    public static final int RTN_THROW = 9;
    public static final int RTN_NAT = 10;
    public static final int RTPROT_UNSPEC = 0;
    public static final int RTPROT_REDIRECT = 1;
    public static final int RTPROT_KERNEL = 2;
    public static final int RTPROT_BOOT = 3;
    public static final int RTPROT_STATIC = 4;
    public static final int RTPROT_RA = 9;
    public static final int RTPROT_DHCP = 16;
    public static final int RT_SCOPE_UNIVERSE = 0;
    public static final int RT_SCOPE_SITE = 200;
    public static final int RT_SCOPE_LINK = 253;
    public static final int RT_SCOPE_HOST = 254;
    public static final int RT_SCOPE_NOWHERE = 255;
    public static final int RT_TABLE_UNSPEC = 0;
    public static final int RT_TABLE_DEFAULT = 253;
    public static final int RT_TABLE_MAIN = 254;
    public static final int RT_TABLE_LOCAL = 255;
    public static final int RTM_F_NOTIFY = 256;
    public static final int RTM_F_CLONED = 512;
    public static final int RTA_UNSPEC = 0;
    public static final int RTA_DST = 1;
    public static final int RTA_SRC = 2;
    public static final int RTA_IIF = 3;
    public static final int RTA_OIF = 4;
    public static final int RTA_GATEWAY = 5;
    public static final int RTA_PRIORITY = 6;
    public static final int RTA_PREFSRC = 7;
    public static final int RTA_METRICS = 8;
    public static final int RTA_MULTIPATH = 9;
    public static final int RTA_FLOW = 11;
    public static final int RTA_CACHEINFO = 12;
    public static final int RTA_TABLE = 15;
    public static final int RTA_MARK = 16;
    public static final int RTA_VIA = 18;
    public static final int RTA_PREF = 20;
    public static final int RTA_EXPIRES = 23;
    public static final int RTNH_F_DEAD = 1;
    public static final int RTNH_F_PERVASIVE = 2;
    public static final int RTNH_F_ONLINK = 4;
    public static final int RTNH_F_OFFLOAD = 8;
    public static final int RTNH_F_LINKDOWN = 16;
    public static final int RTNH_ALIGNTO = 4;
    public static final int RTAX_LOCK = 1;
    public static final int RTAX_MTU = 2;
    public static final int RTAX_WINDOW = 3;
    public static final int RTAX_RTT = 4;
    public static final int RTAX_ADVMSS = 8;
    public static final int RTAX_HOPLIMIT = 10;
    public static final int RTAX_INITCWND = 11;
    public static final int RTEXT_FILTER_VF = 1;
    public static final int RTEXT_FILTER_BRVLAN = 2;
    public static final int RTEXT_FILTER_BRVLAN_COMPRESSED = 4;
    public static final int RTEXT_FILTER_SKIP_STATS = 8;
}
