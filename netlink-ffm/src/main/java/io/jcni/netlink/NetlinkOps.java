package io.jcni.netlink;

import java.net.InetAddress;

/**
 * The changes a {@link NetlinkHandle} applies at once (each a request the kernel acknowledges; failures throw
 * {@link NetlinkException}) and a {@link Batch} queues for one datagram (failures are reported per request by
 * {@link Batch#execute()}). Links are addressed by index ({@link Link#index()}); each method names its {@code ip}
 * equivalent, where {@code <i>} is the link with index {@code i}.
 *
 * <p>Creating a link does not return it (a batch could not): look it up by name afterwards if its index is needed,
 * from a handle in the namespace it was created in.
 */
public interface NetlinkOps {

    // ---- links: create, delete -------------------------------------------------------------------------------

    /**
     * {@code ip link add NAME [attrs] type veth peer name PEER [peer attrs]}. Each end may be created directly in
     * another namespace through its {@link LinkAttrs#netns()}; the CNI pattern is a handle in the container creating
     * {@code eth0} with its peer in the host namespace. {@code attrs} may ask for the link to be up; {@code peer} may
     * not (the kernel opens the peer before pairing it and fails with ENOTCONN): set it up afterwards.
     *
     * @throws IllegalArgumentException if {@code peer.up()}
     */
    void addVeth(LinkAttrs attrs, LinkAttrs peer);

    /** {@code ip link add NAME [attrs] type bridge}. */
    void addBridge(LinkAttrs attrs);

    /**
     * {@code ip link add NAME [attrs] type bridge vlan_filtering 0|1 vlan_default_pvid PVID}.
     *
     * @param vlanDefaultPvid the PVID given to new ports, 0 for none, -1 for the kernel's default (1)
     */
    void addBridge(LinkAttrs attrs, boolean vlanFiltering, int vlanDefaultPvid);

    /** {@code ip link add link <parent> NAME [attrs] type vlan id VLANID} (802.1Q). */
    void addVlan(LinkAttrs attrs, int parentIndex, int vlanId);

    /** {@code ip link add link <parent> NAME [attrs] type macvlan mode MODE}. */
    void addMacvlan(LinkAttrs attrs, int parentIndex, MacvlanMode mode);

    /** {@code ip link add link <parent> NAME [attrs] type ipvlan mode MODE [bridge|private|vepa]}. */
    void addIpvlan(LinkAttrs attrs, int parentIndex, IpvlanMode mode, IpvlanFlag flag);

    /**
     * {@code ip link add NAME [attrs] type dummy}. Fails with {@link NetlinkException.Kind#NOT_SUPPORTED} on kernels
     * built without {@code CONFIG_DUMMY}.
     */
    void addDummy(LinkAttrs attrs);

    /**
     * {@code ip link add NAME [attrs] type ifb}: an intermediate functional block device, the target of a mirred
     * redirect whose root qdisc then shapes the redirected traffic (the Go bandwidth plugin's egress shaping).
     */
    void addIfb(LinkAttrs attrs);

    /**
     * {@code ip link add NAME [attrs] type vrf table TABLE}; enslave links with {@link #setMaster}. Fails with
     * {@link NetlinkException.Kind#NOT_SUPPORTED} (EOPNOTSUPP, "Unknown device type") on kernels built without
     * {@code CONFIG_NET_VRF}.
     */
    void addVrf(LinkAttrs attrs, int table);

    /** {@code ip link del dev <index>}. Deleting one end of a veth pair deletes both. */
    void deleteLink(int index);

    /** {@code ip link del dev NAME}. */
    void deleteLink(String name);

    // ---- links: change -----------------------------------------------------------------------------------------

    /** {@code ip link set dev <index> up}. */
    void setUp(int index);

    /** {@code ip link set dev <index> down}. */
    void setDown(int index);

    /** {@code ip link set dev <index> mtu MTU}. */
    void setMtu(int index, int mtu);

    /** {@code ip link set dev <index> address MAC}. */
    void setAddress(int index, MacAddress mac);

    /** {@code ip link set dev <index> name NAME} (the link must be down). */
    void setName(int index, String name);

    /** {@code ip link set dev <index> master <master>}. */
    void setMaster(int index, int masterIndex);

    /** {@code ip link set dev <index> nomaster}. */
    void setNoMaster(int index);

    /**
     * {@code ip link set dev <index> netns NS}: moves the link into {@code netns} (by file descriptor). It gets a new
     * index there only if its index is taken.
     */
    void setNetns(int index, NetNs netns);

    /** {@code ip link set dev <index> txqueuelen N}. */
    void setTxQueueLen(int index, int txQueueLen);

    /** {@code ip link set dev <index> promisc on|off}. */
    void setPromisc(int index, boolean on);

    /** {@code ip link set dev <index> allmulticast on|off}. */
    void setAllmulti(int index, boolean on);

    /** {@code ip link set dev <index> alias ALIAS}; an empty alias removes it. */
    void setAlias(int index, String alias);

    /** {@code ip link set dev <index> type bridge_slave hairpin on|off} (the link must be a bridge port). */
    void setHairpin(int index, boolean on);

    /** {@code ip link set dev <index> type bridge_slave isolated on|off} (the link must be a bridge port). */
    void setIsolated(int index, boolean on);

    /**
     * {@code bridge vlan add dev <index> vid VID [pvid] [untagged] [self]}: on a port ({@code self} false) or on the
     * bridge device itself ({@code self} true). The bridge needs VLAN filtering for the VLAN to take effect.
     */
    void addBridgeVlan(int index, BridgeVlan vlan, boolean self);

    /** {@code bridge vlan del dev <index> vid VID [self]}. */
    void deleteBridgeVlan(int index, int vid, boolean self);

    // ---- addresses ---------------------------------------------------------------------------------------------

    /** {@code ip addr add ADDRESS dev <index> [scope S] [flags] ...}; fails with EXISTS if already there. */
    void addAddress(Address address);

    /** {@code ip addr add ADDRESS/PREFIXLENGTH dev <index>}. */
    default void addAddress(int index, InetAddress address, int prefixLength) {
        addAddress(Address.of(index, address, prefixLength));
    }

    /** {@code ip addr replace ADDRESS dev <index> ...}: adds, or updates flags and lifetimes of an existing one. */
    void replaceAddress(Address address);

    /** {@code ip addr del ADDRESS dev <index>}; NOT_FOUND if absent. */
    void deleteAddress(Address address);

    /** {@code ip addr del ADDRESS/PREFIXLENGTH dev <index>}. */
    default void deleteAddress(int index, InetAddress address, int prefixLength) {
        deleteAddress(Address.of(index, address, prefixLength));
    }

    // ---- routes ------------------------------------------------------------------------------------------------

    /** {@code ip route add ROUTE}; fails with EXISTS if the same route (destination, table, metric) is there. */
    void addRoute(Route route);

    /** {@code ip route replace ROUTE}. */
    void replaceRoute(Route route);

    /**
     * {@code ip route del ROUTE}: deletes the first route matching the destination, table and every other field set
     * (gateway, dev, metric); scope and protocol match any unless set. NOT_FOUND if none matches.
     */
    void deleteRoute(Route route);

    // ---- neighbours --------------------------------------------------------------------------------------------

    /** {@code ip neigh add ADDRESS lladdr MAC dev <index> nud STATE}; EXISTS if an entry is there. */
    void addNeighbor(Neighbor neighbor);

    /** {@code ip neigh replace ADDRESS lladdr MAC dev <index> nud STATE}. */
    void replaceNeighbor(Neighbor neighbor);

    /** {@code ip neigh del ADDRESS dev <index>}; NOT_FOUND if absent. */
    void deleteNeighbor(int index, InetAddress address);

    // ---- policy routing rules ----------------------------------------------------------------------------------

    /** {@code ip [-6] rule add RULE}; EXISTS if an identical rule is there. */
    void addRule(Rule rule);

    /**
     * {@code ip [-6] rule del RULE}: deletes the first rule matching every field set (a priority of -1, a null prefix
     * or interface match any); NOT_FOUND if none matches.
     */
    void deleteRule(Rule rule);

    // ---- traffic control ---------------------------------------------------------------------------------------

    /**
     * {@code tc qdisc add dev <index> parent PARENT handle HANDLE KIND ...}; EXISTS if the parent already has a
     * qdisc of its own (a link's default root qdisc does not count).
     */
    void addQdisc(Qdisc qdisc);

    /** {@code tc qdisc replace dev <index> parent PARENT handle HANDLE KIND ...}: adds, or replaces what is there. */
    void replaceQdisc(Qdisc qdisc);

    /**
     * {@code tc qdisc del dev <index> parent PARENT [handle HANDLE]} ({@code root}, {@code ingress}); NOT_FOUND if the
     * parent has no qdisc of its own (or the link is gone), INVALID if {@code handle} is not 0 and names another.
     */
    void deleteQdisc(int index, int parent, int handle);

    /** {@code tc filter add dev <index> parent PARENT protocol PROTO prio PRIO KIND ...}. */
    void addFilter(Filter filter);

    /**
     * {@code tc filter del dev <index> parent PARENT protocol PROTO prio PRIO}: every filter of that priority and
     * protocol; priority 0 and protocol 0 delete all filters of the parent. NOT_FOUND if there are none.
     */
    void deleteFilter(int index, int parent, int priority, int protocol);
}
