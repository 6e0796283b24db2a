package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import java.util.ArrayList;
import java.util.List;
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

    /** The result's {@code ips} entries of {@code allocations}, in their order. */
    public static List<IpConfig> ipConfigs(List<Allocation> allocations) {
        List<IpConfig> ips = new ArrayList<>(allocations.size());
        for (Allocation allocation : allocations) {
            ips.add(new IpConfig(new IpPrefix(allocation.address.toInetAddress(),
                    allocation.range.subnet().prefixLength()), allocation.gateway().toInetAddress()));
        }
        return ips;
    }

    /**
     * Whether this call reserved every one of {@code allocations} (none was held before it): then a failure later in
     * the call releases them, and otherwise what an earlier ADD of the same attachment holds is not the call's to
     * release.
     */
    public static boolean allNew(List<Allocation> allocations) {
        for (Allocation allocation : allocations) {
            if (allocation.existing) {
                return false;
            }
        }
        return true;
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
