package io.jcni.netlink.internal.wire;

/** C names of the message types this module sends, for error messages. */
public final class MessageTypes {
    private MessageTypes() {}

    public static String name(int type) {
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
}
