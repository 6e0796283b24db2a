package io.jcni.netlink.internal.wire;

/**
 * Constants from {@code <linux/in.h>}: IP protocol numbers ({@code meta l4proto}). Names and values as in C; {@code
 * HeadersMatchTest} compiles them against the installed headers.
 */
public final class InH {
    private InH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/in.h";

    public static final int IPPROTO_ICMP = 1;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;
    public static final int IPPROTO_ICMPV6 = 58;
    public static final int IPPROTO_SCTP = 132;
}
