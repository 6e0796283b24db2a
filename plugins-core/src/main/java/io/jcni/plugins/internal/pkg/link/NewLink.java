package io.jcni.plugins.internal.pkg.link;

import io.jcni.netlink.IpvlanFlag;
import io.jcni.netlink.IpvlanMode;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacvlanMode;
import io.jcni.netlink.NetlinkOps;

/**
 * A link to create, by kind: {@code macvlan}, {@code ipvlan} and {@code vlan} on the lower device
 * {@code parentIndex}, or {@code dummy}. The name, MTU, MAC and target namespace are the {@link LinkAttrs} given to
 * {@link #create}.
 *
 * @param parentIndex the lower device, in the namespace of the handle that creates the link; 0 for dummy
 */
public record NewLink(String kind, int parentIndex, MacvlanMode macvlanMode, IpvlanMode ipvlanMode, int vlanId) {

    public static NewLink macvlan(int parentIndex, MacvlanMode mode) {
        return new NewLink("macvlan", parentIndex, mode, null, 0);
    }

    public static NewLink ipvlan(int parentIndex, IpvlanMode mode) {
        return new NewLink("ipvlan", parentIndex, null, mode, 0);
    }

    public static NewLink vlan(int parentIndex, int vlanId) {
        return new NewLink("vlan", parentIndex, null, null, vlanId);
    }

    public static NewLink dummy() {
        return new NewLink("dummy", 0, null, null, 0);
    }

    /** The RTM_NEWLINK of this link ({@code ip link add ... type KIND ...}). */
    public void create(NetlinkOps nl, LinkAttrs attrs) {
        switch (kind) {
            case "macvlan":
                nl.addMacvlan(attrs, parentIndex, macvlanMode);
                break;
            case "ipvlan":
                nl.addIpvlan(attrs, parentIndex, ipvlanMode, IpvlanFlag.BRIDGE);
                break;
            case "vlan":
                nl.addVlan(attrs, parentIndex, vlanId);
                break;
            case "dummy":
                nl.addDummy(attrs);
                break;
            default:
                throw new IllegalStateException("unknown link kind " + kind);
        }
    }
}
