package io.jcni.netlink.internal.wire;

/**
 * Sizes and member offsets of the C structs the wire layer reads and writes, as compile-time constants.
 *
 * <p>They mirror the hand-written {@code MemoryLayout}s of {@code internal.ffm.Structs} (C struct and member names),
 * which {@code HeadersMatchTest} compiles against the installed headers; {@code OffsetsMatchLayoutsTest} checks every
 * constant here against those layouts. Compile-time constants rather than values computed from the layouts: javac
 * folds them, and encoding and decoding do not initialize anything of {@code java.lang.foreign} (the wire layer's
 * unit tests run without native access).
 *
 * <p>Naming: {@code <STRUCT>_SIZE} for {@code sizeof}, the member's C name in upper case (or
 * {@code <STRUCT>_<MEMBER>} where the member's name alone is ambiguous) for {@code offsetof}.
 */
public final class Offsets {
    private Offsets() {}

    // struct nlmsghdr, <linux/netlink.h>
    public static final int NLMSGHDR_SIZE = 16;
    public static final int NLMSG_LEN = 0;
    public static final int NLMSG_TYPE = 4;
    public static final int NLMSG_FLAGS = 6;
    public static final int NLMSG_SEQ = 8;
    public static final int NLMSG_PID = 12;

    // struct nlmsgerr, <linux/netlink.h>
    public static final int NLMSGERR_SIZE = 20;
    public static final int NLMSGERR_ERROR = 0;
    public static final int NLMSGERR_MSG = 4;

    // struct sockaddr_nl, <linux/netlink.h>
    public static final int SOCKADDR_NL_SIZE = 12;
    public static final int NL_FAMILY = 0;
    public static final int NL_PID = 4;

    // struct rtattr, <linux/rtnetlink.h>
    public static final int RTATTR_SIZE = 4;
    public static final int RTA_LEN = 0;
    public static final int RTA_TYPE = 2;

    // struct ifinfomsg, <linux/rtnetlink.h>
    public static final int IFINFOMSG_SIZE = 16;
    public static final int IFI_FAMILY = 0;
    public static final int IFI_TYPE = 2;
    public static final int IFI_INDEX = 4;
    public static final int IFI_FLAGS = 8;
    public static final int IFI_CHANGE = 12;

    // struct ifaddrmsg, <linux/if_addr.h>
    public static final int IFADDRMSG_SIZE = 8;
    public static final int IFA_FAMILY = 0;
    public static final int IFA_PREFIXLEN = 1;
    public static final int IFADDRMSG_IFA_FLAGS = 2;
    public static final int IFA_SCOPE = 3;
    public static final int IFA_INDEX = 4;

    // struct ifa_cacheinfo, <linux/if_addr.h>
    public static final int IFA_CACHEINFO_SIZE = 16;
    public static final int IFA_PREFERED = 0;
    public static final int IFA_VALID = 4;

    // struct rtmsg, <linux/rtnetlink.h>
    public static final int RTMSG_SIZE = 12;
    public static final int RTM_FAMILY = 0;
    public static final int RTM_DST_LEN = 1;
    public static final int RTM_SRC_LEN = 2;
    public static final int RTM_TOS = 3;
    public static final int RTM_TABLE = 4;
    public static final int RTM_PROTOCOL = 5;
    public static final int RTM_SCOPE = 6;
    public static final int RTM_TYPE = 7;
    public static final int RTM_FLAGS = 8;

    // struct rtnexthop, <linux/rtnetlink.h>
    public static final int RTNEXTHOP_SIZE = 8;
    public static final int RTNH_LEN = 0;
    public static final int RTNH_FLAGS = 2;
    public static final int RTNH_HOPS = 3;
    public static final int RTNH_IFINDEX = 4;

    // struct ndmsg, <linux/neighbour.h>
    public static final int NDMSG_SIZE = 12;
    public static final int NDM_FAMILY = 0;
    public static final int NDM_IFINDEX = 4;
    public static final int NDM_STATE = 8;
    public static final int NDM_FLAGS = 10;
    public static final int NDM_TYPE = 11;

    // struct bridge_vlan_info, <linux/if_bridge.h>
    public static final int BRIDGE_VLAN_INFO_SIZE = 4;
    public static final int BRIDGE_VLAN_INFO_FLAGS = 0;
    public static final int BRIDGE_VLAN_INFO_VID = 2;

    // struct tcmsg, <linux/rtnetlink.h>
    public static final int TCMSG_SIZE = 20;
    public static final int TCM_FAMILY = 0;
    public static final int TCM_IFINDEX = 4;
    public static final int TCM_HANDLE = 8;
    public static final int TCM_PARENT = 12;
    public static final int TCM_INFO = 16;

    // struct tc_ratespec, <linux/pkt_sched.h>
    public static final int TC_RATESPEC_SIZE = 12;
    public static final int TC_RATESPEC_CELL_LOG = 0;
    public static final int TC_RATESPEC_LINKLAYER = 1;
    public static final int TC_RATESPEC_OVERHEAD = 2;
    public static final int TC_RATESPEC_CELL_ALIGN = 4;
    public static final int TC_RATESPEC_MPU = 6;
    public static final int TC_RATESPEC_RATE = 8;

    // struct tc_tbf_qopt, <linux/pkt_sched.h>
    public static final int TC_TBF_QOPT_SIZE = 36;
    public static final int TC_TBF_QOPT_RATE = 0;
    public static final int TC_TBF_QOPT_PEAKRATE = 12;
    public static final int TC_TBF_QOPT_LIMIT = 24;
    public static final int TC_TBF_QOPT_BUFFER = 28;
    public static final int TC_TBF_QOPT_MTU = 32;

    // struct tc_u32_key, <linux/pkt_cls.h>
    public static final int TC_U32_KEY_SIZE = 16;
    public static final int TC_U32_KEY_MASK = 0;
    public static final int TC_U32_KEY_VAL = 4;
    public static final int TC_U32_KEY_OFF = 8;
    public static final int TC_U32_KEY_OFFMASK = 12;

    // struct tc_u32_sel, <linux/pkt_cls.h> (its keys follow at TC_U32_SEL_SIZE)
    public static final int TC_U32_SEL_SIZE = 16;
    public static final int TC_U32_SEL_FLAGS = 0;
    public static final int TC_U32_SEL_NKEYS = 2;
    public static final int TC_U32_SEL_OFFMASK = 4;
    public static final int TC_U32_SEL_HMASK = 12;

    // struct tc_mirred, <linux/tc_act/tc_mirred.h>
    public static final int TC_MIRRED_SIZE = 28;
    public static final int TC_MIRRED_INDEX = 0;
    public static final int TC_MIRRED_ACTION = 8;
    public static final int TC_MIRRED_EACTION = 20;
    public static final int TC_MIRRED_IFINDEX = 24;

    // struct fib_rule_hdr, <linux/fib_rules.h>
    public static final int FIB_RULE_HDR_SIZE = 12;
    public static final int FIB_RULE_HDR_FAMILY = 0;
    public static final int FIB_RULE_HDR_DST_LEN = 1;
    public static final int FIB_RULE_HDR_SRC_LEN = 2;
    public static final int FIB_RULE_HDR_TOS = 3;
    public static final int FIB_RULE_HDR_TABLE = 4;
    public static final int FIB_RULE_HDR_ACTION = 7;
    public static final int FIB_RULE_HDR_FLAGS = 8;

    // struct ifreq, <linux/if.h>
    public static final int IFREQ_SIZE = 40;
    public static final int IFR_NAME = 0;
    public static final int IFR_FLAGS = 16;

    // struct nfgenmsg, <linux/netfilter/nfnetlink.h>: the family header of every nfnetlink message
    public static final int NFGENMSG_SIZE = 4;
    public static final int NFGEN_FAMILY = 0;
    public static final int NFGENMSG_VERSION = 1;
    /** {@code res_id}: big-endian; the subsystem id in batch markers, 0 in nf_tables requests. */
    public static final int RES_ID = 2;

    // struct timeval, <sys/time.h> (64-bit time_t)
    public static final int TIMEVAL_SIZE = 16;
    public static final int TV_SEC = 0;
    public static final int TV_USEC = 8;

    // struct sockaddr_ll, <linux/if_packet.h> (sll_protocol is big-endian)
    public static final int SOCKADDR_LL_SIZE = 20;
    public static final int SLL_FAMILY = 0;
    public static final int SLL_PROTOCOL = 2;
    public static final int SLL_IFINDEX = 4;
    public static final int SLL_HATYPE = 8;
    public static final int SLL_PKTTYPE = 10;
    public static final int SLL_HALEN = 11;
    public static final int SLL_ADDR = 12;

    // struct sockaddr_un, <sys/un.h>
    public static final int SOCKADDR_UN_SIZE = 110;
    public static final int SUN_FAMILY = 0;
    public static final int SUN_PATH = 2;

    // struct sock_filter, <linux/filter.h>: one classic BPF instruction
    public static final int SOCK_FILTER_SIZE = 8;
    public static final int SOCK_FILTER_CODE = 0;
    public static final int SOCK_FILTER_JT = 2;
    public static final int SOCK_FILTER_JF = 3;
    public static final int SOCK_FILTER_K = 4;

    // struct sock_fprog, <linux/filter.h>: the program SO_ATTACH_FILTER takes (64-bit pointer)
    public static final int SOCK_FPROG_SIZE = 16;
    public static final int SOCK_FPROG_LEN = 0;
    public static final int SOCK_FPROG_FILTER = 8;

    // struct msghdr, <sys/socket.h> (64-bit)
    public static final int MSGHDR_SIZE = 56;
    public static final int MSG_NAME = 0;
    public static final int MSG_NAMELEN = 8;
    public static final int MSG_IOV = 16;
    public static final int MSG_IOVLEN = 24;
    public static final int MSG_CONTROL = 32;
    public static final int MSG_CONTROLLEN = 40;
    public static final int MSG_FLAGS = 48;

    // struct iovec, <sys/uio.h> (via <sys/socket.h>)
    public static final int IOVEC_SIZE = 16;
    public static final int IOV_BASE = 0;
    public static final int IOV_LEN = 8;

    // struct cmsghdr, <sys/socket.h> (64-bit: cmsg_len is a size_t); the data follows at CMSGHDR_SIZE
    public static final int CMSGHDR_SIZE = 16;
    public static final int CMSG_LEN = 0;
    public static final int CMSG_LEVEL = 8;
    public static final int CMSG_TYPE = 12;

    // struct ucred, <sys/socket.h> (_GNU_SOURCE), the answer to SO_PEERCRED
    public static final int UCRED_SIZE = 12;
    public static final int UCRED_PID = 0;
    public static final int UCRED_UID = 4;
    public static final int UCRED_GID = 8;

    // struct statfs, <sys/vfs.h> (64-bit)
    public static final int STATFS_SIZE = 120;
    public static final int F_TYPE = 0;
}
