package io.jcni.netlink.internal.wire;

/** C names of the message types this module sends, for error messages. */
public final class MessageTypes {
    private MessageTypes() {}

    /** The nf_tables message type {@code msg} as an nfnetlink {@code nlmsg_type}: subsystem id in the high byte. */
    public static int nftables(int msg) {
        return NfnetlinkH.NFNL_SUBSYS_NFTABLES << 8 | msg;
    }

    /** The rtnetlink or control type's name ({@code RTM_NEWLINK}); nf_tables types are named by {@link #nftName}. */
    public static String name(int type) {
        if (type >>> 8 == NfnetlinkH.NFNL_SUBSYS_NFTABLES) {
            return nftName(type & 0xff);
        }
        return switch (type) {
            case NetlinkH.NLMSG_NOOP -> "NLMSG_NOOP";
            case NetlinkH.NLMSG_ERROR -> "NLMSG_ERROR";
            case NetlinkH.NLMSG_DONE -> "NLMSG_DONE";
            case NetlinkH.NLMSG_OVERRUN -> "NLMSG_OVERRUN";
            case RtnetlinkH.RTM_NEWLINK -> "RTM_NEWLINK";
            case RtnetlinkH.RTM_DELLINK -> "RTM_DELLINK";
            case RtnetlinkH.RTM_GETLINK -> "RTM_GETLINK";
            case RtnetlinkH.RTM_SETLINK -> "RTM_SETLINK";
            case RtnetlinkH.RTM_NEWADDR -> "RTM_NEWADDR";
            case RtnetlinkH.RTM_DELADDR -> "RTM_DELADDR";
            case RtnetlinkH.RTM_GETADDR -> "RTM_GETADDR";
            case RtnetlinkH.RTM_NEWROUTE -> "RTM_NEWROUTE";
            case RtnetlinkH.RTM_DELROUTE -> "RTM_DELROUTE";
            case RtnetlinkH.RTM_GETROUTE -> "RTM_GETROUTE";
            case RtnetlinkH.RTM_NEWNEIGH -> "RTM_NEWNEIGH";
            case RtnetlinkH.RTM_DELNEIGH -> "RTM_DELNEIGH";
            case RtnetlinkH.RTM_GETNEIGH -> "RTM_GETNEIGH";
            case RtnetlinkH.RTM_NEWRULE -> "RTM_NEWRULE";
            case RtnetlinkH.RTM_DELRULE -> "RTM_DELRULE";
            case RtnetlinkH.RTM_GETRULE -> "RTM_GETRULE";
            case RtnetlinkH.RTM_NEWQDISC -> "RTM_NEWQDISC";
            case RtnetlinkH.RTM_DELQDISC -> "RTM_DELQDISC";
            case RtnetlinkH.RTM_GETQDISC -> "RTM_GETQDISC";
            case RtnetlinkH.RTM_NEWTFILTER -> "RTM_NEWTFILTER";
            case RtnetlinkH.RTM_DELTFILTER -> "RTM_DELTFILTER";
            case RtnetlinkH.RTM_GETTFILTER -> "RTM_GETTFILTER";
            default -> "message type " + type;
        };
    }

    /** The name of nf_tables message {@code msg} (the low byte of its type): {@code NFT_MSG_NEWRULE}. */
    public static String nftName(int msg) {
        return switch (msg) {
            case NfTablesH.NFT_MSG_NEWTABLE -> "NFT_MSG_NEWTABLE";
            case NfTablesH.NFT_MSG_GETTABLE -> "NFT_MSG_GETTABLE";
            case NfTablesH.NFT_MSG_DELTABLE -> "NFT_MSG_DELTABLE";
            case NfTablesH.NFT_MSG_NEWCHAIN -> "NFT_MSG_NEWCHAIN";
            case NfTablesH.NFT_MSG_GETCHAIN -> "NFT_MSG_GETCHAIN";
            case NfTablesH.NFT_MSG_DELCHAIN -> "NFT_MSG_DELCHAIN";
            case NfTablesH.NFT_MSG_NEWRULE -> "NFT_MSG_NEWRULE";
            case NfTablesH.NFT_MSG_GETRULE -> "NFT_MSG_GETRULE";
            case NfTablesH.NFT_MSG_DELRULE -> "NFT_MSG_DELRULE";
            case NfTablesH.NFT_MSG_NEWSET -> "NFT_MSG_NEWSET";
            case NfTablesH.NFT_MSG_GETSET -> "NFT_MSG_GETSET";
            case NfTablesH.NFT_MSG_DELSET -> "NFT_MSG_DELSET";
            case NfTablesH.NFT_MSG_NEWSETELEM -> "NFT_MSG_NEWSETELEM";
            case NfTablesH.NFT_MSG_GETSETELEM -> "NFT_MSG_GETSETELEM";
            case NfTablesH.NFT_MSG_DELSETELEM -> "NFT_MSG_DELSETELEM";
            case NfTablesH.NFT_MSG_NEWGEN -> "NFT_MSG_NEWGEN";
            case NfTablesH.NFT_MSG_GETGEN -> "NFT_MSG_GETGEN";
            default -> "nf_tables message " + msg;
        };
    }
}
