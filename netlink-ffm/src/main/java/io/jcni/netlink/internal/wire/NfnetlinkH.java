package io.jcni.netlink.internal.wire;

/**
 * Constants from {@code <linux/netfilter/nfnetlink.h>}: the netfilter netlink subsystem ids and batch framing ({@code
 * NFNL_MSG_BATCH_BEGIN}/{@code END} around a transaction). Names and values as in C; {@code HeadersMatchTest} compiles
 * them against the installed headers.
 */
public final class NfnetlinkH {
    private NfnetlinkH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/netlink.h linux/netfilter/nfnetlink.h";

    public static final int NFNETLINK_V0 = 0;
    public static final int NFNL_SUBSYS_NFTABLES = 10;
    public static final int NFNL_MSG_BATCH_BEGIN = 16;
    public static final int NFNL_MSG_BATCH_END = 17;
    public static final int NFNL_BATCH_GENID = 1;
}
