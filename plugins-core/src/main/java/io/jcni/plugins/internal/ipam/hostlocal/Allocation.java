package io.jcni.plugins.internal.ipam.hostlocal;

import java.util.Objects;

/**
 * One address handed to an attachment: the address, the range it came from (its subnet gives the prefix length, its
 * gateway the result's gateway), the index of its range set in the config, and whether the attachment already held
 * it before this call.
 */
public record Allocation(int rangeSetIndex, IpAddress address, IpRange range, boolean existing) {

    /** {@code address/prefixLength}, as the CNI result's {@code ips[].address} writes it. */
    public String cidr() {
        return address + "/" + range.subnet().prefixLength();
    }

    public IpAddress gateway() {
        return range.gateway();
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Allocation other
                && rangeSetIndex == other.rangeSetIndex
                && Objects.equals(address, other.address)
                && Objects.equals(range, other.range)
                && existing == other.existing;
    }

    @Override
    public int hashCode() {
        int h = Integer.hashCode(rangeSetIndex);
        h = 31 * h + Objects.hashCode(address);
        h = 31 * h + Objects.hashCode(range);
        h = 31 * h + Boolean.hashCode(existing);
        return h;
    }

    @Override
    public String toString() {
        return "Allocation[rangeSetIndex=" + rangeSetIndex + ", address=" + address + ", range=" + range
                + ", existing=" + existing + "]";
    }
}
