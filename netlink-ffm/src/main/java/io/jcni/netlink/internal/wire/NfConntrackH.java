package io.jcni.netlink.internal.wire;

/**
 * Constants from {@code <linux/netfilter/nf_conntrack_common.h>}: conntrack states and status bits, as {@code ct
 * state} and {@code ct status} match them. The state bit of {@code ctinfo} is {@code 1 << (ctinfo % IP_CT_IS_REPLY +
 * 1)} ({@code NF_CT_STATE_BIT}). Names and values as in C; {@code HeadersMatchTest} compiles them against the
 * installed headers.
 */
public final class NfConntrackH {
    private NfConntrackH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/netfilter/nf_conntrack_common.h";

    public static final int IP_CT_ESTABLISHED = 0;
    public static final int IP_CT_RELATED = 1;
    public static final int IP_CT_NEW = 2;
    public static final int IP_CT_IS_REPLY = 3;
    public static final int NF_CT_STATE_INVALID_BIT = 1;
    public static final int NF_CT_STATE_UNTRACKED_BIT = 64;
    public static final int IPS_EXPECTED = 1;
    public static final int IPS_SEEN_REPLY = 2;
    public static final int IPS_ASSURED = 4;
    public static final int IPS_CONFIRMED = 8;
    public static final int IPS_SRC_NAT = 16;
    public static final int IPS_DST_NAT = 32;
    public static final int IPS_SEQ_ADJUST = 64;
    public static final int IPS_SRC_NAT_DONE = 128;
    public static final int IPS_DST_NAT_DONE = 256;
    public static final int IPS_DYING = 512;
    public static final int IPS_FIXED_TIMEOUT = 1024;
}
