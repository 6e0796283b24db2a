package io.jcni.netlink.internal.wire;

/**
 * Constants from {@code <linux/netfilter.h>}: verdicts, hooks and protocol families ({@code NFPROTO_*}, the {@code
 * nfgen_family} of nf_tables messages). Names and values as in C; {@code HeadersMatchTest} compiles them against the
 * installed headers.
 */
public final class NetfilterH {
    private NetfilterH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/netfilter.h";

    public static final int NF_DROP = 0;
    public static final int NF_ACCEPT = 1;
    public static final int NF_STOLEN = 2;
    public static final int NF_QUEUE = 3;
    public static final int NF_REPEAT = 4;
    public static final int NF_STOP = 5;
    public static final int NF_INET_PRE_ROUTING = 0;
    public static final int NF_INET_LOCAL_IN = 1;
    public static final int NF_INET_FORWARD = 2;
    public static final int NF_INET_LOCAL_OUT = 3;
    public static final int NF_INET_POST_ROUTING = 4;
    public static final int NF_INET_INGRESS = 5;
    public static final int NF_NETDEV_INGRESS = 0;
    public static final int NF_NETDEV_EGRESS = 1;
    public static final int NFPROTO_UNSPEC = 0;
    public static final int NFPROTO_INET = 1;
    public static final int NFPROTO_IPV4 = 2;
    public static final int NFPROTO_ARP = 3;
    public static final int NFPROTO_NETDEV = 5;
    public static final int NFPROTO_BRIDGE = 7;
    public static final int NFPROTO_IPV6 = 10;
}
