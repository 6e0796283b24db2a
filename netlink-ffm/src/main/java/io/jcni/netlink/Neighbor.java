package io.jcni.netlink;

import java.net.InetAddress;
import java.util.Objects;

/**
 * A neighbour (ARP/NDP) entry ({@code RTM_NEWNEIGH}; {@code ip neigh}), used to request one and to read one back.
 *
 * @param mac the link-layer address, null when unresolved
 * @param flags {@code NTF_*} (e.g. {@code NTF_ROUTER} 128)
 */
public record Neighbor(int index, InetAddress address, MacAddress mac, NeighborState state, int flags) {
    public Neighbor {
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(state, "state");
    }

    /** {@code ip neigh add ADDRESS lladdr MAC dev INDEX nud permanent}. */
    public static Neighbor permanent(int index, InetAddress address, MacAddress mac) {
        return new Neighbor(index, address, mac, NeighborState.PERMANENT, 0);
    }

    public Family family() {
        return Family.of(address);
    }

    @Override
    public String toString() {
        return address.getHostAddress() + " dev " + index + (mac == null ? "" : " lladdr " + mac) + " " + state;
    }
}
