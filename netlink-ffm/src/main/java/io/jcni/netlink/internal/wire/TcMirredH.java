package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/tc_act/tc_mirred.h>}: the mirred action's directions and attributes.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class TcMirredH {
    private TcMirredH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/tc_act/tc_mirred.h";

    public static final int TCA_EGRESS_REDIR = 1;
    public static final int TCA_EGRESS_MIRROR = 2;
    public static final int TCA_INGRESS_REDIR = 3;
    public static final int TCA_INGRESS_MIRROR = 4;
    public static final int TCA_MIRRED_UNSPEC = 0;
    public static final int TCA_MIRRED_TM = 1;
    public static final int TCA_MIRRED_PARMS = 2;
}
