package io.jcni.netlink;

import io.jcni.netlink.internal.wire.NeighbourH;

/** Neighbour cache entry states ({@code NUD_*}, {@code ip neigh ... nud <state>}). */
public enum NeighborState {
    NONE(NeighbourH.NUD_NONE),
    INCOMPLETE(NeighbourH.NUD_INCOMPLETE),
    REACHABLE(NeighbourH.NUD_REACHABLE),
    STALE(NeighbourH.NUD_STALE),
    DELAY(NeighbourH.NUD_DELAY),
    PROBE(NeighbourH.NUD_PROBE),
    FAILED(NeighbourH.NUD_FAILED),
    NOARP(NeighbourH.NUD_NOARP),
    PERMANENT(NeighbourH.NUD_PERMANENT);

    private final int value;

    NeighborState(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    /** The state of {@code value}; a combination of bits (never sent by the kernel) maps to its highest state. */
    public static NeighborState of(int value) {
        NeighborState found = NONE;
        for (NeighborState s : values()) {
            if (s.value != 0 && (value & s.value) != 0) {
                found = s;
            }
        }
        return found;
    }
}
