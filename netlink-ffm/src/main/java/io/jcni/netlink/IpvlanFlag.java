package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfLinkH;

/** ipvlan port isolation ({@code ip link add ... type ipvlan mode l2 bridge|private|vepa}); BRIDGE is the default (0). */
public enum IpvlanFlag {
    BRIDGE(0),
    PRIVATE(IfLinkH.IPVLAN_F_PRIVATE),
    VEPA(IfLinkH.IPVLAN_F_VEPA);

    private final int value;

    IpvlanFlag(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The flag of {@code value} (the isolation bits only), or null if unknown. */
    public static IpvlanFlag of(int value) {
        int isolation = value & (IfLinkH.IPVLAN_F_PRIVATE | IfLinkH.IPVLAN_F_VEPA);
        for (IpvlanFlag f : values()) {
            if (f.value == isolation) {
                return f;
            }
        }
        return null;
    }
}
