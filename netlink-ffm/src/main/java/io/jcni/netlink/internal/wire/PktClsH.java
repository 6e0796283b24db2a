package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/pkt_cls.h>}: action attributes and verdicts ({@code TC_ACT_*}), and the u32
 *  classifier's attributes and selector flags.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class PktClsH {
    private PktClsH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/pkt_cls.h";

    public static final int TCA_ACT_UNSPEC = 0;
    public static final int TCA_ACT_KIND = 1;
    public static final int TCA_ACT_OPTIONS = 2;
    public static final int TCA_ACT_INDEX = 3;
    public static final int TCA_ACT_STATS = 4;
    public static final int TCA_ACT_PAD = 5;
    public static final int TCA_ACT_COOKIE = 6;
    public static final int TC_ACT_UNSPEC = -1;
    public static final int TC_ACT_OK = 0;
    public static final int TC_ACT_RECLASSIFY = 1;
    public static final int TC_ACT_SHOT = 2;
    public static final int TC_ACT_PIPE = 3;
    public static final int TC_ACT_STOLEN = 4;
    public static final int TC_ACT_QUEUED = 5;
    public static final int TC_ACT_REPEAT = 6;
    public static final int TC_ACT_REDIRECT = 7;
    public static final int TCA_U32_UNSPEC = 0;
    public static final int TCA_U32_CLASSID = 1;
    public static final int TCA_U32_HASH = 2;
    public static final int TCA_U32_LINK = 3;
    public static final int TCA_U32_DIVISOR = 4;
    public static final int TCA_U32_SEL = 5;
    public static final int TCA_U32_POLICE = 6;
    public static final int TCA_U32_ACT = 7;
    public static final int TCA_U32_INDEV = 8;
    public static final int TCA_U32_PCNT = 9;
    public static final int TCA_U32_MARK = 10;
    public static final int TCA_U32_FLAGS = 11;
    public static final int TC_U32_TERMINAL = 1;
    public static final int TC_U32_OFFSET = 2;
    public static final int TC_U32_VAROFFSET = 4;
    public static final int TC_U32_EAT = 8;
}
