package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/netlink.h>}: the netlink protocol: message header flags and types, error attributes, socket options.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class NetlinkH {
    private NetlinkH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/netlink.h";

    public static final int NETLINK_ROUTE = 0;
    public static final int NETLINK_NETFILTER = 12;
    public static final int NLM_F_REQUEST = 1;
    public static final int NLM_F_MULTI = 2;
    public static final int NLM_F_ACK = 4;
    public static final int NLM_F_ECHO = 8;
    public static final int NLM_F_DUMP_INTR = 16;
    public static final int NLM_F_DUMP_FILTERED = 32;
    public static final int NLM_F_ROOT = 256;
    public static final int NLM_F_MATCH = 512;
    public static final int NLM_F_ATOMIC = 1024;
    public static final int NLM_F_DUMP = 768;
    public static final int NLM_F_REPLACE = 256;
    public static final int NLM_F_EXCL = 512;
    public static final int NLM_F_CREATE = 1024;
    public static final int NLM_F_APPEND = 2048;
    public static final int NLM_F_NONREC = 256;
    public static final int NLM_F_CAPPED = 256;
    public static final int NLM_F_ACK_TLVS = 512;
    public static final int NLMSG_ALIGNTO = 4;
    public static final int NLMSG_NOOP = 1;
    public static final int NLMSG_ERROR = 2;
    public static final int NLMSG_DONE = 3;
    public static final int NLMSG_OVERRUN = 4;
    public static final int NLMSG_MIN_TYPE = 16;
    public static final int NLMSGERR_ATTR_MSG = 1;
    public static final int NLMSGERR_ATTR_OFFS = 2;
    public static final int NLMSGERR_ATTR_COOKIE = 3;
    public static final int NLMSGERR_ATTR_POLICY = 4;
    public static final int NLMSGERR_ATTR_MISS_TYPE = 5;
    public static final int NLMSGERR_ATTR_MISS_NEST = 6;
    public static final int NETLINK_ADD_MEMBERSHIP = 1;
    public static final int NETLINK_CAP_ACK = 10;
    public static final int NETLINK_EXT_ACK = 11;
    public static final int NETLINK_GET_STRICT_CHK = 12;
    public static final int NLA_F_NESTED = 32768;
    public static final int NLA_F_NET_BYTEORDER = 16384;
    public static final int NLA_TYPE_MASK = -49153;
    public static final int NLA_ALIGNTO = 4;
}
