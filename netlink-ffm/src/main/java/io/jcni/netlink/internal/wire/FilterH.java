package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/filter.h>} ({@code <linux/bpf_common.h>}): the classic BPF instruction classes, sizes,
 *  modes and jumps a socket filter ({@code SO_ATTACH_FILTER}) is written with.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class FilterH {
    private FilterH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/filter.h";

    public static final int BPF_LD = 0x00;
    public static final int BPF_LDX = 0x01;
    public static final int BPF_JMP = 0x05;
    public static final int BPF_RET = 0x06;
    public static final int BPF_W = 0x00;
    public static final int BPF_H = 0x08;
    public static final int BPF_B = 0x10;
    public static final int BPF_ABS = 0x20;
    public static final int BPF_IND = 0x40;
    public static final int BPF_MSH = 0xa0;
    public static final int BPF_JEQ = 0x10;
    public static final int BPF_JSET = 0x40;
    public static final int BPF_K = 0x00;
    /** Most instructions a classic program may have. */
    public static final int BPF_MAXINSNS = 4096;
}
