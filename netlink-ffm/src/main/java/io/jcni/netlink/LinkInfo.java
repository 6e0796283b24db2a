package io.jcni.netlink;

/**
 * The type of a link and what is specific to it ({@code IFLA_LINKINFO}: {@code IFLA_INFO_KIND} and
 * {@code IFLA_INFO_DATA}), as {@code ip -d link show} prints it. Switch over it:
 * {@code if (link.info() instanceof LinkInfo.Vlan v) ... v.id()}.
 */
public sealed interface LinkInfo {

    /** {@code IFLA_INFO_KIND}: {@code "veth"}, {@code "bridge"}, ..., or {@code ""} for links without one. */
    String kind();

    /** A link without a kind: physical devices, loopback. */
    record Device() implements LinkInfo {
        @Override
        public String kind() {
            return "";
        }
    }

    /**
     * One end of a veth pair. The peer's index is {@link Link#parentIndex()}; when the peer is in another namespace,
     * {@link Link#linkNetnsId()} names that namespace (the kernel does not report the peer's name).
     */
    record Veth() implements LinkInfo {
        @Override
        public String kind() {
            return "veth";
        }
    }

    /**
     * A bridge.
     *
     * @param vlanFiltering false also when the kernel is built without VLAN filtering (then it reports nothing)
     * @param vlanDefaultPvid the PVID new ports get when VLAN filtering is on (0: none, or not reported)
     * @param stpState 0 off, 1 kernel STP, 2 user-space STP
     */
    record Bridge(boolean vlanFiltering, int vlanDefaultPvid, int stpState) implements LinkInfo {
        @Override
        public String kind() {
            return "bridge";
        }
    }

    /**
     * An 802.1Q/802.1ad VLAN on {@link Link#parentIndex()}.
     *
     * @param protocol the tag's EtherType: {@code 0x8100} (802.1Q) or {@code 0x88a8} (802.1ad)
     */
    record Vlan(int id, int protocol) implements LinkInfo {
        @Override
        public String kind() {
            return "vlan";
        }
    }

    /** A macvlan (or macvtap, {@code kind} tells) on {@link Link#parentIndex()}. */
    record Macvlan(String kind, MacvlanMode mode) implements LinkInfo {
    }

    /** An ipvlan on {@link Link#parentIndex()}. */
    record Ipvlan(IpvlanMode mode, IpvlanFlag flag) implements LinkInfo {
        @Override
        public String kind() {
            return "ipvlan";
        }
    }

    /** A dummy link. */
    record Dummy() implements LinkInfo {
        @Override
        public String kind() {
            return "dummy";
        }
    }

    /** An intermediate functional block device ({@code ifb}): traffic redirected to it can be shaped as egress. */
    record Ifb() implements LinkInfo {
        @Override
        public String kind() {
            return "ifb";
        }
    }

    /** A VRF device ({@code vrf}) binding its ports to a routing table. */
    record Vrf(int table) implements LinkInfo {
        @Override
        public String kind() {
            return "vrf";
        }
    }

    /**
     * A TUN or TAP device ({@code tun}), as {@code ip -d link} shows it.
     *
     * @param tap a TAP (Ethernet) device, else TUN
     * @param owner the uid allowed to attach, -1 for any
     * @param group the gid allowed to attach, -1 for any
     * @param packetInfo whether reads and writes carry the packet information header ({@code pi})
     * @param queues the attached queues (file descriptors), 0 for a persistent device nobody has open
     */
    record Tun(boolean tap, int owner, int group, boolean packetInfo, boolean vnetHeader, boolean persist,
            boolean multiQueue, int queues) implements LinkInfo {
        @Override
        public String kind() {
            return "tun";
        }
    }

    /** Any other kind; its data is not decoded. */
    record Other(String kind) implements LinkInfo {
    }
}
