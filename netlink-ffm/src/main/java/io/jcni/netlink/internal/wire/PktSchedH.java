package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/pkt_sched.h>}: traffic control handles, link layers, the rate table size and the
 *  token bucket filter's attributes.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class PktSchedH {
    private PktSchedH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/pkt_sched.h";

    public static final int TC_H_MAJ_MASK = 0xFFFF0000;
    public static final int TC_H_MIN_MASK = 0x0000FFFF;
    public static final int TC_H_UNSPEC = 0;
    public static final int TC_H_ROOT = 0xFFFFFFFF;
    public static final int TC_H_INGRESS = 0xFFFFFFF1;
    public static final int TC_H_CLSACT = 0xFFFFFFF1;
    public static final int TC_H_MIN_PRIORITY = 0xFFE0;
    public static final int TC_H_MIN_INGRESS = 0xFFF2;
    public static final int TC_H_MIN_EGRESS = 0xFFF3;
    public static final int TC_LINKLAYER_UNAWARE = 0;
    public static final int TC_LINKLAYER_ETHERNET = 1;
    public static final int TC_LINKLAYER_ATM = 2;
    public static final int TC_LINKLAYER_MASK = 0x0F;
    public static final int TC_RTAB_SIZE = 1024;
    public static final int TCA_TBF_UNSPEC = 0;
    public static final int TCA_TBF_PARMS = 1;
    public static final int TCA_TBF_RTAB = 2;
    public static final int TCA_TBF_PTAB = 3;
    public static final int TCA_TBF_RATE64 = 4;
    public static final int TCA_TBF_PRATE64 = 5;
    public static final int TCA_TBF_BURST = 6;
    public static final int TCA_TBF_PBURST = 7;
    public static final int TCA_TBF_PAD = 8;
}
