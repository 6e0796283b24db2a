package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_packet.h>}: the packet types a packet socket reports in {@code sll_pkttype}.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfPacketH {
    private IfPacketH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_packet.h";

    public static final int PACKET_HOST = 0;
    public static final int PACKET_BROADCAST = 1;
    public static final int PACKET_MULTICAST = 2;
    public static final int PACKET_OTHERHOST = 3;
    public static final int PACKET_OUTGOING = 4;
}
