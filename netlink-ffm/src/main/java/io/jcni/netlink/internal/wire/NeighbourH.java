package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/neighbour.h>}: neighbour attributes (NDA_*), flags (NTF_*) and states (NUD_*).
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class NeighbourH {
    private NeighbourH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/neighbour.h";

    public static final int NDA_UNSPEC = 0;
    public static final int NDA_DST = 1;
    public static final int NDA_LLADDR = 2;
    public static final int NDA_CACHEINFO = 3;
    public static final int NDA_PROBES = 4;
    public static final int NDA_VLAN = 5;
    public static final int NDA_PORT = 6;
    public static final int NDA_VNI = 7;
    public static final int NDA_IFINDEX = 8;
    public static final int NDA_MASTER = 9;
    public static final int NTF_USE = 1;
    public static final int NTF_SELF = 2;
    public static final int NTF_MASTER = 4;
    public static final int NTF_PROXY = 8;
    public static final int NTF_EXT_LEARNED = 16;
    public static final int NTF_OFFLOADED = 32;
    public static final int NTF_STICKY = 64;
    public static final int NTF_ROUTER = 128;
    public static final int NUD_INCOMPLETE = 1;
    public static final int NUD_REACHABLE = 2;
    public static final int NUD_STALE = 4;
    public static final int NUD_DELAY = 8;
    public static final int NUD_PROBE = 16;
    public static final int NUD_FAILED = 32;
    public static final int NUD_NOARP = 64;
    public static final int NUD_PERMANENT = 128;
    public static final int NUD_NONE = 0;
}
