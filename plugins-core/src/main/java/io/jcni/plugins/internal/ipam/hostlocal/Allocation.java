package io.jcni.plugins.internal.ipam.hostlocal;

/**
 * One address handed to an attachment: the address, the range it came from (its subnet gives the prefix length, its
 * gateway the result's gateway), the index of its range set in the config, and whether the attachment already held
 * it before this call.
 */
public record Allocation(int rangeSetIndex, IpAddress address, IpRange range, boolean existing) {

    /** {@code address/prefixLength}, as the CNI result's {@code ips[].address} writes it. */
    public String cidr() {
        return address + "/" + range.subnet().length();
    }

    public IpAddress gateway() {
        return range.gateway();
    }
}
