package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfLinkH;

/** ipvlan modes ({@code IPVLAN_MODE_*}, {@code ip link add ... type ipvlan mode l2|l3|l3s}). */
public enum IpvlanMode {
    L2(IfLinkH.IPVLAN_MODE_L2),
    L3(IfLinkH.IPVLAN_MODE_L3),
    L3S(IfLinkH.IPVLAN_MODE_L3S);

    private final int value;

    IpvlanMode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The mode of {@code value}, or null if unknown. */
    public static IpvlanMode of(int value) {
        for (IpvlanMode m : values()) {
            if (m.value == value) {
                return m;
            }
        }
        return null;
    }
}
