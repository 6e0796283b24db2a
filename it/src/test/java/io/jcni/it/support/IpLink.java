package io.jcni.it.support;

import java.util.List;

/**
 * One link as {@code ip -j -d link show} reports it.
 *
 * @param kind the {@code linkinfo.info_kind} (bridge, veth, vlan, ...), null for a plain device such as lo
 * @param master the bridge or bond this link is enslaved to, null if none
 * @param peerNetnsId the {@code link_netnsid} of a veth whose peer is in another namespace, -1 if none
 */
public record IpLink(
        int ifindex, String name, String kind, String master, String mac, int mtu, List<String> flags,
        String operState, int peerNetnsId) {

    public IpLink {
        flags = List.copyOf(flags);
    }

    /** The administrative state: {@code UP} among the flags. */
    public boolean up() {
        return flags.contains("UP");
    }
}
