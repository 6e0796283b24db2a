package io.jcni.netlink.internal.ffm;

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
 * <p>The wire layer must not touch {@code java.lang.foreign} and should not pay for building layouts at start-up, so
 * it uses the constants of {@code internal.wire.Offsets}, which {@code OffsetsMatchLayoutsTest} checks against these
 * layouts. Only 64-bit Linux is supported ({@code time_t} is 8 bytes in {@link #TIMEVAL}).
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

    /** {@code struct tcmsg}, {@code <linux/rtnetlink.h>}: the header of traffic control messages. */
    public static final StructLayout TCMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("tcm_family"),
            JAVA_BYTE.withName("tcm__pad1"),
            JAVA_SHORT.withName("tcm__pad2"),
            JAVA_INT.withName("tcm_ifindex"),
            JAVA_INT.withName("tcm_handle"),
            JAVA_INT.withName("tcm_parent"),
            JAVA_INT.withName("tcm_info")).withName("tcmsg");

    /** {@code struct tc_ratespec}, {@code <linux/pkt_sched.h>}. */
    public static final StructLayout TC_RATESPEC = MemoryLayout.structLayout(
            JAVA_BYTE.withName("cell_log"),
            JAVA_BYTE.withName("linklayer"),
            JAVA_SHORT.withName("overhead"),
            JAVA_SHORT.withName("cell_align"),
            JAVA_SHORT.withName("mpu"),
            JAVA_INT.withName("rate")).withName("tc_ratespec");

    /** {@code struct tc_tbf_qopt}, {@code <linux/pkt_sched.h>}: payload of {@code TCA_TBF_PARMS}. */
    public static final StructLayout TC_TBF_QOPT = MemoryLayout.structLayout(
            TC_RATESPEC.withName("rate"),
            TC_RATESPEC.withName("peakrate"),
            JAVA_INT.withName("limit"),
            JAVA_INT.withName("buffer"),
            JAVA_INT.withName("mtu")).withName("tc_tbf_qopt");

    /** {@code struct tc_u32_key}, {@code <linux/pkt_cls.h>} ({@code mask} and {@code val} big-endian). */
    public static final StructLayout TC_U32_KEY = MemoryLayout.structLayout(
            JAVA_INT.withName("mask"),
            JAVA_INT.withName("val"),
            JAVA_INT.withName("off"),
            JAVA_INT.withName("offmask")).withName("tc_u32_key");

    /** {@code struct tc_u32_sel}, {@code <linux/pkt_cls.h>}, without its flexible {@code keys[]} that follow it. */
    public static final StructLayout TC_U32_SEL = MemoryLayout.structLayout(
            JAVA_BYTE.withName("flags"),
            JAVA_BYTE.withName("offshift"),
            JAVA_BYTE.withName("nkeys"),
            MemoryLayout.paddingLayout(1),
            JAVA_SHORT.withName("offmask"),
            JAVA_SHORT.withName("off"),
            JAVA_SHORT.withName("offoff"),
            JAVA_SHORT.withName("hoff"),
            JAVA_INT.withName("hmask")).withName("tc_u32_sel");

    /** {@code struct tc_mirred}, {@code <linux/tc_act/tc_mirred.h>}: {@code tc_gen} then direction and target. */
    public static final StructLayout TC_MIRRED = MemoryLayout.structLayout(
            JAVA_INT.withName("index"),
            JAVA_INT.withName("capab"),
            JAVA_INT.withName("action"),
            JAVA_INT.withName("refcnt"),
            JAVA_INT.withName("bindcnt"),
            JAVA_INT.withName("eaction"),
            JAVA_INT.withName("ifindex")).withName("tc_mirred");

    /** {@code struct fib_rule_hdr}, {@code <linux/fib_rules.h>}: the header of policy routing rule messages. */
    public static final StructLayout FIB_RULE_HDR = MemoryLayout.structLayout(
            JAVA_BYTE.withName("family"),
            JAVA_BYTE.withName("dst_len"),
            JAVA_BYTE.withName("src_len"),
            JAVA_BYTE.withName("tos"),
            JAVA_BYTE.withName("table"),
            JAVA_BYTE.withName("res1"),
            JAVA_BYTE.withName("res2"),
            JAVA_BYTE.withName("action"),
            JAVA_INT.withName("flags")).withName("fib_rule_hdr");

    /**
     * {@code struct ifreq}, {@code <linux/if.h>}, as {@code TUNSETIFF} uses it: the name, then {@code ifr_flags} at the
     * start of the 24-byte union (the rest of which is padding here). {@code ifr_name} and {@code ifr_flags} are the
     * header's macros for the union members.
     */
    public static final StructLayout IFREQ = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("ifr_name"),
            JAVA_SHORT.withName("ifr_flags"),
            MemoryLayout.paddingLayout(22)).withName("ifreq");

    /** {@code struct nfgenmsg}, {@code <linux/netfilter/nfnetlink.h>} ({@code res_id} is {@code __be16}). */
    public static final StructLayout NFGENMSG = MemoryLayout.structLayout(
            JAVA_BYTE.withName("nfgen_family"),
            JAVA_BYTE.withName("version"),
            JAVA_SHORT.withName("res_id")).withName("nfgenmsg");

    /** {@code struct timeval}, {@code <sys/time.h>} (64-bit {@code time_t}), for {@code SO_RCVTIMEO}. */
    public static final StructLayout TIMEVAL = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_LONG.withName("tv_usec")).withName("timeval");

    /**
     * {@code struct statfs}, {@code <sys/vfs.h>} (64-bit: every word 8 bytes, the same on x86-64 and the generic
     * table), for {@code fstatfs}; only {@code f_type} is read, the rest is the buffer the kernel fills.
     */
    public static final StructLayout STATFS = MemoryLayout.structLayout(
            JAVA_LONG.withName("f_type"),
            JAVA_LONG.withName("f_bsize"),
            MemoryLayout.paddingLayout(104)).withName("statfs");

    /** {@code struct sockaddr_ll}, {@code <linux/if_packet.h>}: a packet socket's link-layer address. */
    public static final StructLayout SOCKADDR_LL = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sll_family"),
            JAVA_SHORT.withName("sll_protocol"),
            JAVA_INT.withName("sll_ifindex"),
            JAVA_SHORT.withName("sll_hatype"),
            JAVA_BYTE.withName("sll_pkttype"),
            JAVA_BYTE.withName("sll_halen"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("sll_addr")).withName("sockaddr_ll");

    /** {@code struct msghdr}, {@code <sys/socket.h>} (64-bit), for {@code sendmsg}/{@code recvmsg}. */
    public static final StructLayout MSGHDR = MemoryLayout.structLayout(
            JAVA_LONG.withName("msg_name"),
            JAVA_INT.withName("msg_namelen"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("msg_iov"),
            JAVA_LONG.withName("msg_iovlen"),
            JAVA_LONG.withName("msg_control"),
            JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"),
            MemoryLayout.paddingLayout(4)).withName("msghdr");

    /** {@code struct iovec}, {@code <sys/uio.h>}. */
    public static final StructLayout IOVEC = MemoryLayout.structLayout(
            JAVA_LONG.withName("iov_base"),
            JAVA_LONG.withName("iov_len")).withName("iovec");

    /** {@code struct cmsghdr}, {@code <sys/socket.h>} (64-bit); {@code SCM_RIGHTS} descriptors follow it as ints. */
    public static final StructLayout CMSGHDR = MemoryLayout.structLayout(
            JAVA_LONG.withName("cmsg_len"),
            JAVA_INT.withName("cmsg_level"),
            JAVA_INT.withName("cmsg_type")).withName("cmsghdr");

    /** {@code struct ucred}, {@code <sys/socket.h>}: a peer's credentials ({@code SO_PEERCRED}). */
    public static final StructLayout UCRED = MemoryLayout.structLayout(
            JAVA_INT.withName("pid"),
            JAVA_INT.withName("uid"),
            JAVA_INT.withName("gid")).withName("ucred");

    /** {@code struct sockaddr_un}, {@code <sys/un.h>}: a Unix domain socket's path (107 bytes and a NUL at most). */
    public static final StructLayout SOCKADDR_UN = MemoryLayout.structLayout(
            JAVA_SHORT.withName("sun_family"),
            MemoryLayout.sequenceLayout(108, JAVA_BYTE).withName("sun_path")).withName("sockaddr_un");

    /** {@code struct sock_filter}, {@code <linux/filter.h>}: one classic BPF instruction. */
    public static final StructLayout SOCK_FILTER = MemoryLayout.structLayout(
            JAVA_SHORT.withName("code"),
            JAVA_BYTE.withName("jt"),
            JAVA_BYTE.withName("jf"),
            JAVA_INT.withName("k")).withName("sock_filter");

    /** {@code struct sock_fprog}, {@code <linux/filter.h>} (64-bit: the pointer is 8 bytes, aligned). */
    public static final StructLayout SOCK_FPROG = MemoryLayout.structLayout(
            JAVA_SHORT.withName("len"),
            MemoryLayout.paddingLayout(6),
            JAVA_LONG.withName("filter")).withName("sock_fprog");

    /** Every layout above, for the header check. */
    public static final List<StructLayout> ALL = List.of(NLMSGHDR, NLMSGERR, SOCKADDR_NL, NLATTR, RTATTR, IFINFOMSG,
            IFADDRMSG, IFA_CACHEINFO, RTMSG, RTNEXTHOP, NDMSG, BRIDGE_VLAN_INFO, TCMSG, TC_RATESPEC, TC_TBF_QOPT,
            TC_U32_KEY, TC_U32_SEL, TC_MIRRED, FIB_RULE_HDR, IFREQ, NFGENMSG, TIMEVAL, STATFS, MSGHDR, IOVEC, CMSGHDR,
            UCRED, SOCKADDR_LL, SOCKADDR_UN, SOCK_FILTER, SOCK_FPROG);

}
