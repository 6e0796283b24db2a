package io.jcni.netlink.internal.wire;

/**
 * Constants from {@code <linux/netfilter/nf_nat.h>}: NAT range flags ({@code NFTA_NAT_FLAGS}, {@code
 * NFTA_MASQ_FLAGS}). Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers.
 */
public final class NfNatH {
    private NfNatH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/netfilter/nf_nat.h";

    public static final int NF_NAT_RANGE_MAP_IPS = 1;
    public static final int NF_NAT_RANGE_PROTO_SPECIFIED = 2;
    public static final int NF_NAT_RANGE_PROTO_RANDOM = 4;
    public static final int NF_NAT_RANGE_PERSISTENT = 8;
    public static final int NF_NAT_RANGE_PROTO_RANDOM_FULLY = 16;
    public static final int NF_NAT_RANGE_PROTO_OFFSET = 32;
    public static final int NF_NAT_RANGE_NETMAP = 64;
}
