package io.jcni.netlink.internal.ffm;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * The C structs netlink-ffm reads and writes, as hand-written {@link MemoryLayout}s with the C struct and member names
 * (jextract is not available here). {@code HeadersMatchTest} generates a C program from {@link #ALL} and compares every
 * size and offset with the installed headers.
 *
 * <p>The wire layer must not touch {@code java.lang.foreign}, so the offsets it needs are exported below as plain
 * {@code int}s computed from these layouts: one source of truth. Only 64-bit Linux is supported (pointers and
 * {@code size_t} are 8 bytes in {@link #MSGHDR}, {@link #IOVEC} and {@link #TIMEVAL}).
 */
public final class Structs {
    private Structs() {}

    /** {@code struct nlmsghdr}, {@code <linux/netlink.h>}. */
    public static final StructLayout NLMSGHDR = MemoryLayout.structLayout(
            JAVA_INT.withName("nlmsg_len"),
            JAVA_SHORT.withName("nlmsg_type"),
            JAVA_SHORT.withName("nlmsg_flags"),
            JAVA_INT.withName("nlmsg_seq"),
            JAVA_INT.withName("nlmsg_pid")).withName("nlmsghdr");

    /** {@code struct nlmsgerr}, {@code <linux/netlink.h>}. */
    public static final StructLayout NLMSGERR = MemoryLayout.structLayout(
            JAVA_INT.withName("error"),
            NLMSGHDR.withName("msg")).withName("nlmsgerr");

    /** {@code struct sockaddr_nl}, {@code <linux/netlink.h>}. */
    public static final StructLayout SOCKADDR_NL = MemoryLayout.structLayout(
            JAVA_SHORT.withName("nl_family"),
            JAVA_SHORT.withName("nl_pad"),
            JAVA_INT.withName("nl_pid"),
            JAVA_INT.withName("nl_groups")).withName("sockaddr_nl");

    /** {@code struct nlattr}, {@code <linux/netlink.h>}. */
    public static final StructLayout NLATTR = MemoryLayout.structLayout(
            JAVA_SHORT.withName("nla_len"),
            JAVA_SHORT.withName("nla_type")).withName("nlattr");

    /** {@code struct rtattr}, {@code <linux/rtnetlink.h>}. */
    public static final StructLayout RTATTR = MemoryLayout.structLayout(
            JAVA_SHORT.withName("rta_len"),
            JAVA_SHORT.withName("rta_type")).withName("rtattr");

    /** {@code struct ifinfomsg}, {@code <linux/rtnetlink.h>}. */
    public static final StructLayout IFINFOMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("ifi_family"),
            JAVA_BYTE.withName("__ifi_pad"),
            JAVA_SHORT.withName("ifi_type"),
            JAVA_INT.withName("ifi_index"),
            JAVA_INT.withName("ifi_flags"),
            JAVA_INT.withName("ifi_change")).withName("ifinfomsg");

    /** {@code struct ifaddrmsg}, {@code <linux/if_addr.h>}. */
    public static final StructLayout IFADDRMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("ifa_family"),
            JAVA_BYTE.withName("ifa_prefixlen"),
            JAVA_BYTE.withName("ifa_flags"),
            JAVA_BYTE.withName("ifa_scope"),
            JAVA_INT.withName("ifa_index")).withName("ifaddrmsg");

    /** {@code struct ifa_cacheinfo}, {@code <linux/if_addr.h>}. */
    public static final StructLayout IFA_CACHEINFO = MemoryLayout.structLayout(
            JAVA_INT.withName("ifa_prefered"),
            JAVA_INT.withName("ifa_valid"),
            JAVA_INT.withName("cstamp"),
            JAVA_INT.withName("tstamp")).withName("ifa_cacheinfo");

    /** {@code struct rtmsg}, {@code <linux/rtnetlink.h>}. */
    public static final StructLayout RTMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("rtm_family"),
            JAVA_BYTE.withName("rtm_dst_len"),
            JAVA_BYTE.withName("rtm_src_len"),
            JAVA_BYTE.withName("rtm_tos"),
            JAVA_BYTE.withName("rtm_table"),
            JAVA_BYTE.withName("rtm_protocol"),
            JAVA_BYTE.withName("rtm_scope"),
            JAVA_BYTE.withName("rtm_type"),
            JAVA_INT.withName("rtm_flags")).withName("rtmsg");

    /** {@code struct rtnexthop}, {@code <linux/rtnetlink.h>}: one hop inside {@code RTA_MULTIPATH}. */
    public static final StructLayout RTNEXTHOP = MemoryLayout.structLayout(
            JAVA_SHORT.withName("rtnh_len"),
            JAVA_BYTE.withName("rtnh_flags"),
            JAVA_BYTE.withName("rtnh_hops"),
            JAVA_INT.withName("rtnh_ifindex")).withName("rtnexthop");

    /** {@code struct ndmsg}, {@code <linux/neighbour.h>}. */
    public static final StructLayout NDMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("ndm_family"),
            JAVA_BYTE.withName("ndm_pad1"),
            JAVA_SHORT.withName("ndm_pad2"),
            JAVA_INT.withName("ndm_ifindex"),
            JAVA_SHORT.withName("ndm_state"),
            JAVA_BYTE.withName("ndm_flags"),
            JAVA_BYTE.withName("ndm_type")).withName("ndmsg");

    /** {@code struct bridge_vlan_info}, {@code <linux/if_bridge.h>}: payload of {@code IFLA_BRIDGE_VLAN_INFO}. */
    public static final StructLayout BRIDGE_VLAN_INFO = MemoryLayout.structLayout(
            JAVA_SHORT.withName("flags"),
            JAVA_SHORT.withName("vid")).withName("bridge_vlan_info");

    /** {@code struct timeval}, {@code <sys/time.h>} (64-bit {@code time_t}), for {@code SO_RCVTIMEO}. */
    public static final StructLayout TIMEVAL = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_LONG.withName("tv_usec")).withName("timeval");

    /** {@code struct iovec}, {@code <sys/uio.h>}. */
    public static final StructLayout IOVEC = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"),
            JAVA_LONG.withName("iov_len")).withName("iovec");

    /** {@code struct msghdr}, {@code <sys/socket.h>} (glibc, 64-bit). */
    public static final StructLayout MSGHDR = MemoryLayout.structLayout(
            ADDRESS.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"),
            MemoryLayout.paddingLayout(4),
            ADDRESS.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"),
            ADDRESS.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"),
            MemoryLayout.paddingLayout(4)).withName("msghdr");

    /** Every layout above, for the header check. */
    public static final List<StructLayout> ALL = List.of(NLMSGHDR, NLMSGERR, SOCKADDR_NL, NLATTR, RTATTR, IFINFOMSG,
            IFADDRMSG, IFA_CACHEINFO, RTMSG, RTNEXTHOP, NDMSG, BRIDGE_VLAN_INFO, TIMEVAL, IOVEC, MSGHDR);

    // Sizes and offsets for the wire layer, derived from the layouts above.
    public static final int NLMSGHDR_SIZE = size(NLMSGHDR);
    public static final int NLMSG_LEN = offset(NLMSGHDR, "nlmsg_len");
    public static final int NLMSG_TYPE = offset(NLMSGHDR, "nlmsg_type");
    public static final int NLMSG_FLAGS = offset(NLMSGHDR, "nlmsg_flags");
    public static final int NLMSG_SEQ = offset(NLMSGHDR, "nlmsg_seq");
    public static final int NLMSG_PID = offset(NLMSGHDR, "nlmsg_pid");

    public static final int NLMSGERR_SIZE = size(NLMSGERR);
    public static final int NLMSGERR_ERROR = offset(NLMSGERR, "error");
    public static final int NLMSGERR_MSG = offset(NLMSGERR, "msg");

    public static final int RTATTR_SIZE = size(RTATTR);
    public static final int RTA_LEN = offset(RTATTR, "rta_len");
    public static final int RTA_TYPE = offset(RTATTR, "rta_type");

    public static final int IFINFOMSG_SIZE = size(IFINFOMSG);
    public static final int IFI_FAMILY = offset(IFINFOMSG, "ifi_family");
    public static final int IFI_TYPE = offset(IFINFOMSG, "ifi_type");
    public static final int IFI_INDEX = offset(IFINFOMSG, "ifi_index");
    public static final int IFI_FLAGS = offset(IFINFOMSG, "ifi_flags");
    public static final int IFI_CHANGE = offset(IFINFOMSG, "ifi_change");

    public static final int IFADDRMSG_SIZE = size(IFADDRMSG);
    public static final int IFA_FAMILY = offset(IFADDRMSG, "ifa_family");
    public static final int IFA_PREFIXLEN = offset(IFADDRMSG, "ifa_prefixlen");
    public static final int IFA_FLAGS_8 = offset(IFADDRMSG, "ifa_flags");
    public static final int IFA_SCOPE = offset(IFADDRMSG, "ifa_scope");
    public static final int IFA_INDEX = offset(IFADDRMSG, "ifa_index");

    public static final int IFA_CACHEINFO_SIZE = size(IFA_CACHEINFO);
    public static final int IFA_PREFERED = offset(IFA_CACHEINFO, "ifa_prefered");
    public static final int IFA_VALID = offset(IFA_CACHEINFO, "ifa_valid");

    public static final int RTMSG_SIZE = size(RTMSG);
    public static final int RTM_FAMILY = offset(RTMSG, "rtm_family");
    public static final int RTM_DST_LEN = offset(RTMSG, "rtm_dst_len");
    public static final int RTM_SRC_LEN = offset(RTMSG, "rtm_src_len");
    public static final int RTM_TOS = offset(RTMSG, "rtm_tos");
    public static final int RTM_TABLE = offset(RTMSG, "rtm_table");
    public static final int RTM_PROTOCOL = offset(RTMSG, "rtm_protocol");
    public static final int RTM_SCOPE = offset(RTMSG, "rtm_scope");
    public static final int RTM_TYPE = offset(RTMSG, "rtm_type");
    public static final int RTM_FLAGS = offset(RTMSG, "rtm_flags");

    public static final int RTNEXTHOP_SIZE = size(RTNEXTHOP);
    public static final int RTNH_LEN = offset(RTNEXTHOP, "rtnh_len");
    public static final int RTNH_FLAGS = offset(RTNEXTHOP, "rtnh_flags");
    public static final int RTNH_HOPS = offset(RTNEXTHOP, "rtnh_hops");
    public static final int RTNH_IFINDEX = offset(RTNEXTHOP, "rtnh_ifindex");

    public static final int NDMSG_SIZE = size(NDMSG);
    public static final int NDM_FAMILY = offset(NDMSG, "ndm_family");
    public static final int NDM_IFINDEX = offset(NDMSG, "ndm_ifindex");
    public static final int NDM_STATE = offset(NDMSG, "ndm_state");
    public static final int NDM_FLAGS = offset(NDMSG, "ndm_flags");
    public static final int NDM_TYPE = offset(NDMSG, "ndm_type");

    public static final int BRIDGE_VLAN_INFO_SIZE = size(BRIDGE_VLAN_INFO);
    public static final int BRIDGE_VLAN_INFO_FLAGS = offset(BRIDGE_VLAN_INFO, "flags");
    public static final int BRIDGE_VLAN_INFO_VID = offset(BRIDGE_VLAN_INFO, "vid");

    private static int size(StructLayout layout) {
        return Math.toIntExact(layout.byteSize());
    }

    private static int offset(StructLayout layout, String member) {
        return Math.toIntExact(layout.byteOffset(groupElement(member)));
    }
}
