package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_link.h>}: link attributes (IFLA_*), link info, bridge, bridge port, vlan, macvlan, ipvlan, vrf and tun attributes, operstates.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfLinkH {
    private IfLinkH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_link.h";

    public static final int IFLA_UNSPEC = 0;
    public static final int IFLA_ADDRESS = 1;
    public static final int IFLA_BROADCAST = 2;
    public static final int IFLA_IFNAME = 3;
    public static final int IFLA_MTU = 4;
    public static final int IFLA_LINK = 5;
    public static final int IFLA_MASTER = 10;
    public static final int IFLA_PROTINFO = 12;
    public static final int IFLA_TXQLEN = 13;
    public static final int IFLA_OPERSTATE = 16;
    public static final int IFLA_LINKMODE = 17;
    public static final int IFLA_LINKINFO = 18;
    public static final int IFLA_IFALIAS = 20;
    public static final int IFLA_AF_SPEC = 26;
    public static final int IFLA_GROUP = 27;
    public static final int IFLA_NET_NS_FD = 28;
    public static final int IFLA_EXT_MASK = 29;
    public static final int IFLA_PROMISCUITY = 30;
    public static final int IFLA_NUM_TX_QUEUES = 31;
    public static final int IFLA_NUM_RX_QUEUES = 32;
    public static final int IFLA_CARRIER = 33;
    public static final int IFLA_LINK_NETNSID = 37;
    public static final int IFLA_MIN_MTU = 50;
    public static final int IFLA_MAX_MTU = 51;
    public static final int IFLA_PERM_ADDRESS = 54;
    public static final int IFLA_ALLMULTI = 61;
    public static final int IFLA_INFO_UNSPEC = 0;
    public static final int IFLA_INFO_KIND = 1;
    public static final int IFLA_INFO_DATA = 2;
    public static final int IFLA_INFO_XSTATS = 3;
    public static final int IFLA_INFO_SLAVE_KIND = 4;
    public static final int IFLA_INFO_SLAVE_DATA = 5;
    public static final int IFLA_BR_FORWARD_DELAY = 1;
    public static final int IFLA_BR_STP_STATE = 5;
    public static final int IFLA_BR_VLAN_FILTERING = 7;
    public static final int IFLA_BR_VLAN_PROTOCOL = 8;
    public static final int IFLA_BR_VLAN_DEFAULT_PVID = 39;
    public static final int IFLA_BRPORT_STATE = 1;
    public static final int IFLA_BRPORT_PRIORITY = 2;
    public static final int IFLA_BRPORT_COST = 3;
    public static final int IFLA_BRPORT_MODE = 4;
    public static final int IFLA_BRPORT_LEARNING = 8;
    public static final int IFLA_BRPORT_UNICAST_FLOOD = 9;
    public static final int IFLA_BRPORT_ISOLATED = 33;
    public static final int IFLA_VLAN_ID = 1;
    public static final int IFLA_VLAN_FLAGS = 2;
    public static final int IFLA_VLAN_PROTOCOL = 5;
    public static final int IFLA_MACVLAN_MODE = 1;
    public static final int IFLA_MACVLAN_FLAGS = 2;
    public static final int MACVLAN_MODE_PRIVATE = 1;
    public static final int MACVLAN_MODE_VEPA = 2;
    public static final int MACVLAN_MODE_BRIDGE = 4;
    public static final int MACVLAN_MODE_PASSTHRU = 8;
    public static final int MACVLAN_MODE_SOURCE = 16;
    public static final int IFLA_IPVLAN_MODE = 1;
    public static final int IFLA_IPVLAN_FLAGS = 2;
    public static final int IPVLAN_MODE_L2 = 0;
    public static final int IPVLAN_MODE_L3 = 1;
    public static final int IPVLAN_MODE_L3S = 2;
    public static final int IPVLAN_F_PRIVATE = 1;
    public static final int IPVLAN_F_VEPA = 2;
    public static final int IFLA_VRF_TABLE = 1;
    public static final int IFLA_TUN_OWNER = 1;
    public static final int IFLA_TUN_GROUP = 2;
    public static final int IFLA_TUN_TYPE = 3;
    public static final int IFLA_TUN_PI = 4;
    public static final int IFLA_TUN_VNET_HDR = 5;
    public static final int IFLA_TUN_PERSIST = 6;
    public static final int IFLA_TUN_MULTI_QUEUE = 7;
    public static final int IFLA_TUN_NUM_QUEUES = 8;
    public static final int IFLA_TUN_NUM_DISABLED_QUEUES = 9;
    public static final int IF_OPER_UNKNOWN = 0;
    public static final int IF_OPER_NOTPRESENT = 1;
    public static final int IF_OPER_DOWN = 2;
    public static final int IF_OPER_LOWERLAYERDOWN = 3;
    public static final int IF_OPER_TESTING = 4;
    public static final int IF_OPER_DORMANT = 5;
    public static final int IF_OPER_UP = 6;
}
