package io.jcni.netlink;

/**
 * A VLAN on a bridge port or on the bridge itself ({@code bridge vlan show}).
 *
 * @param pvid untagged ingress frames are assigned this VLAN
 * @param untagged egress frames of this VLAN leave without a tag
 */
public record BridgeVlan(int vid, boolean pvid, boolean untagged) {
    public BridgeVlan {
        if (vid < 1 || vid > 4094) {
            throw new IllegalArgumentException("VLAN id must be 1-4094: " + vid);
        }
    }
}
