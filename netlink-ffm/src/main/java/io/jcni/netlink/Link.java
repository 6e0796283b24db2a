package io.jcni.netlink;

import io.jcni.netlink.internal.wire.IfH;

/**
 * A network interface as the kernel reports it ({@code RTM_NEWLINK}; {@code ip -d link show}).
 *
 * @param type the hardware type, {@code ARPHRD_*} (1 Ethernet, 772 loopback)
 * @param flags {@code IFF_*} flags as set by the administrator (see {@link #isUp()} and friends)
 * @param address the link-layer address, null if the link has none
 * @param masterIndex the bridge (or other master) this link is enslaved to, 0 if none
 * @param parentIndex {@code IFLA_LINK}: the veth peer, or the lower link of a vlan/macvlan/ipvlan; 0 if none. When
 *     {@link #linkNetnsId()} is set the index is in that other namespace
 * @param linkNetnsId {@code IFLA_LINK_NETNSID}: the id, in this namespace, of the namespace holding the peer or parent;
 *     -1 when it is in the same namespace
 * @param alias {@code IFLA_IFALIAS}, empty if unset
 * @param promiscuity how many users requested promiscuous mode (the kernel's counter)
 * @param allmulti how many users requested all-multicast mode, or -1 if the kernel does not report it
 * @param info the kind and its specific data
 * @param bridgePort the link's bridge port settings, null unless its master is a bridge
 */
public record Link(int index, String name, int type, int flags, int mtu, MacAddress address, MacAddress broadcast,
        int txQueueLen, OperState operState, int masterIndex, int parentIndex, int linkNetnsId, String alias,
        int promiscuity, int allmulti, LinkInfo info, BridgePort bridgePort) {

    /** {@code IFF_UP}: administratively up. */
    public boolean isUp() {
        return (flags & IfH.IFF_UP) != 0;
    }

    /** {@code IFF_LOWER_UP}: the driver signals carrier. */
    public boolean isLowerUp() {
        return (flags & IfH.IFF_LOWER_UP) != 0;
    }

    /** {@code IFF_PROMISC} as set with {@code ip link set promisc on}. */
    public boolean isPromisc() {
        return (flags & IfH.IFF_PROMISC) != 0;
    }

    /** {@code IFF_ALLMULTI} as set with {@code ip link set allmulticast on}. */
    public boolean isAllmulti() {
        return (flags & IfH.IFF_ALLMULTI) != 0;
    }

    public boolean isLoopback() {
        return (flags & IfH.IFF_LOOPBACK) != 0;
    }

    /** {@code IFLA_INFO_KIND}, or {@code ""}. */
    public String kind() {
        return info.kind();
    }
}
