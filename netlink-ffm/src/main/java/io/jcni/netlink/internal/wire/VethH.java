package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/veth.h>}: the veth peer attribute.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class VethH {
    private VethH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/veth.h";

    public static final int VETH_INFO_PEER = 1;
}
