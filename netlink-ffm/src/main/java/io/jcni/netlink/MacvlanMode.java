package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfLinkH;

/** macvlan modes ({@code MACVLAN_MODE_*}, {@code ip link add ... type macvlan mode <mode>}). */
public enum MacvlanMode {
    PRIVATE(IfLinkH.MACVLAN_MODE_PRIVATE),
    VEPA(IfLinkH.MACVLAN_MODE_VEPA),
    BRIDGE(IfLinkH.MACVLAN_MODE_BRIDGE),
    PASSTHRU(IfLinkH.MACVLAN_MODE_PASSTHRU),
    SOURCE(IfLinkH.MACVLAN_MODE_SOURCE);

    private final int value;

    MacvlanMode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The mode of {@code value}, or null if unknown. */
    public static MacvlanMode of(int value) {
        for (MacvlanMode m : values()) {
            if (m.value == value) {
                return m;
            }
        }
        return null;
    }
}
