package io.jcni.netlink;

import io.jcni.netlink.internal.ffm.TunDevices;
import io.jcni.netlink.internal.wire.IfTunH;

/**
 * A persistent TUN or TAP device to create ({@code ip tuntap add}): {@code TunTap.tap("tap0").multiQueue(true)
 * .owner(1000).create(containerNs)} is {@code ip netns exec NS ip tuntap add dev tap0 mode tap multi_queue user 1000}.
 *
 * <p>Created through {@code /dev/net/tun} ({@code TUNSETIFF}, {@code TUNSETOWNER}, {@code TUNSETGROUP},
 * {@code TUNSETPERSIST}): the kernel refuses to create tun links through rtnetlink ("tun/tap creation via rtnetlink is
 * not supported"). The device is persistent, owned by nobody's file descriptor, and shows as kind {@code tun}
 * ({@link LinkInfo.Tun}); set its MTU, address, master and state afterwards through a {@link NetlinkHandle}, and delete
 * it like any link ({@link NetlinkOps#deleteLink}).
 *
 * @param name the device's name, or a template such as {@code tap%d} for the kernel to number
 * @param tap a TAP (Ethernet) device, else TUN (IP)
 * @param multiQueue {@code IFF_MULTI_QUEUE} ({@code multi_queue})
 * @param packetInfo the 4-byte packet information header on reads and writes ({@code pi}); off sets
 *     {@code IFF_NO_PI}, as {@code ip tuntap} does by default
 * @param vnetHeader {@code IFF_VNET_HDR} ({@code vnet_hdr})
 * @param owner the uid allowed to attach ({@code user}), -1 for any
 * @param group the gid allowed to attach ({@code group}), -1 for any
 */
public record TunTap(String name, boolean tap, boolean multiQueue, boolean packetInfo, boolean vnetHeader, int owner,
        int group) {

    public TunTap {
        LinkAttrs.checkName(name);
        if (owner < -1 || group < -1) {
            throw new IllegalArgumentException("owner and group must be ids or -1: " + owner + ", " + group);
        }
    }

    /** {@code ip tuntap add dev NAME mode tap}. */
    public static TunTap tap(String name) {
        return new TunTap(name, true, false, false, false, -1, -1);
    }

    /** {@code ip tuntap add dev NAME mode tun}. */
    public static TunTap tun(String name) {
        return new TunTap(name, false, false, false, false, -1, -1);
    }

    public TunTap multiQueue(boolean multiQueue) {
        return new TunTap(name, tap, multiQueue, packetInfo, vnetHeader, owner, group);
    }

    public TunTap packetInfo(boolean packetInfo) {
        return new TunTap(name, tap, multiQueue, packetInfo, vnetHeader, owner, group);
    }

    public TunTap vnetHeader(boolean vnetHeader) {
        return new TunTap(name, tap, multiQueue, packetInfo, vnetHeader, owner, group);
    }

    public TunTap owner(int uid) {
        return new TunTap(name, tap, multiQueue, packetInfo, vnetHeader, uid, group);
    }

    public TunTap group(int gid) {
        return new TunTap(name, tap, multiQueue, packetInfo, vnetHeader, owner, gid);
    }

    /** The {@code ifr_flags} of {@code TUNSETIFF}; {@code IFF_TUN_EXCL} so an existing device is never reused. */
    int flags() {
        return (tap ? IfTunH.IFF_TAP : IfTunH.IFF_TUN) | (packetInfo ? 0 : IfTunH.IFF_NO_PI)
                | (multiQueue ? IfTunH.IFF_MULTI_QUEUE : 0) | (vnetHeader ? IfTunH.IFF_VNET_HDR : 0)
                | IfTunH.IFF_TUN_EXCL;
    }

    /**
     * Creates the device in {@code netns}, on a thread switched into it ({@link NetNs#call}): a tun device belongs to
     * the namespace its control file was opened in. Returns the name the kernel gave it (a template's number filled
     * in). Nothing is left behind on failure: the device only becomes persistent in the last step.
     *
     * @throws NetlinkException EXISTS if a link of that name exists (any kind), PERMISSION_DENIED without
     *     {@code CAP_NET_ADMIN}, NOT_FOUND if the kernel has no {@code /dev/net/tun}
     */
    public String create(NetNs netns) {
        return netns.call(new Create(this));
    }

    /** As {@link #create(NetNs)}, in the calling thread's namespace. */
    public String create() {
        return new Create(this).run();
    }

    /** The creation as a namespace task; a class, not a lambda (start-up cost on the exec path). */
    private record Create(TunTap spec) implements NetNs.Task<String, RuntimeException> {
        @Override
        public String run() {
            return TunDevices.create(spec.name, spec.flags(), spec.owner, spec.group);
        }
    }

    /** {@code tap0 mode tap multi_queue user 1000}. */
    @Override
    public String toString() {
        return name + " mode " + (tap ? "tap" : "tun") + (multiQueue ? " multi_queue" : "") + (packetInfo ? " pi" : "")
                + (vnetHeader ? " vnet_hdr" : "") + (owner >= 0 ? " user " + owner : "")
                + (group >= 0 ? " group " + group : "");
    }
}
