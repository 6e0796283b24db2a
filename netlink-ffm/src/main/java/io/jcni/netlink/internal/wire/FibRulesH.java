package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/fib_rules.h>}: policy routing rule flags, attributes ({@code FRA_*}) and actions.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class FibRulesH {
    private FibRulesH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/fib_rules.h";

    public static final int FIB_RULE_PERMANENT = 1;
    public static final int FIB_RULE_INVERT = 2;
    public static final int FIB_RULE_UNRESOLVED = 4;
    public static final int FIB_RULE_IIF_DETACHED = 8;
    public static final int FIB_RULE_OIF_DETACHED = 16;
    public static final int FRA_UNSPEC = 0;
    public static final int FRA_DST = 1;
    public static final int FRA_SRC = 2;
    public static final int FRA_IIFNAME = 3;
    public static final int FRA_GOTO = 4;
    public static final int FRA_PRIORITY = 6;
    public static final int FRA_FWMARK = 10;
    public static final int FRA_FLOW = 11;
    public static final int FRA_TUN_ID = 12;
    public static final int FRA_SUPPRESS_IFGROUP = 13;
    public static final int FRA_SUPPRESS_PREFIXLEN = 14;
    public static final int FRA_TABLE = 15;
    public static final int FRA_FWMASK = 16;
    public static final int FRA_OIFNAME = 17;
    public static final int FRA_PAD = 18;
    public static final int FRA_L3MDEV = 19;
    public static final int FRA_UID_RANGE = 20;
    public static final int FRA_PROTOCOL = 21;
    public static final int FRA_IP_PROTO = 22;
    public static final int FRA_SPORT_RANGE = 23;
    public static final int FRA_DPORT_RANGE = 24;
    public static final int FR_ACT_UNSPEC = 0;
    public static final int FR_ACT_TO_TBL = 1;
    public static final int FR_ACT_GOTO = 2;
    public static final int FR_ACT_NOP = 3;
    public static final int FR_ACT_BLACKHOLE = 6;
    public static final int FR_ACT_UNREACHABLE = 7;
    public static final int FR_ACT_PROHIBIT = 8;
}
