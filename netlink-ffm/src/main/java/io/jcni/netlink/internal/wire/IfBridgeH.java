package io.jcni.netlink.internal.wire;

/** Constants from {@code <linux/if_bridge.h>}: bridge AF_SPEC attributes, bridge vlan flags, port states.
 *  Names and values as in C; {@code HeadersMatchTest} compiles them against the installed headers. */
public final class IfBridgeH {
    private IfBridgeH() {}

    /** The header(s) these constants mirror, for the generated C check. */
    public static final String HEADER = "linux/if_bridge.h";

    public static final int IFLA_BRIDGE_FLAGS = 0;
    public static final int IFLA_BRIDGE_MODE = 1;
    public static final int IFLA_BRIDGE_VLAN_INFO = 2;
    public static final int BRIDGE_FLAGS_MASTER = 1;
    public static final int BRIDGE_FLAGS_SELF = 2;
    public static final int BRIDGE_VLAN_INFO_MASTER = 1;
    public static final int BRIDGE_VLAN_INFO_PVID = 2;
    public static final int BRIDGE_VLAN_INFO_UNTAGGED = 4;
    public static final int BRIDGE_VLAN_INFO_RANGE_BEGIN = 8;
    public static final int BRIDGE_VLAN_INFO_RANGE_END = 16;
    public static final int BRIDGE_VLAN_INFO_BRENTRY = 32;
    public static final int BR_STATE_DISABLED = 0;
    public static final int BR_STATE_LISTENING = 1;
    public static final int BR_STATE_LEARNING = 2;
    public static final int BR_STATE_FORWARDING = 3;
    public static final int BR_STATE_BLOCKING = 4;
}
