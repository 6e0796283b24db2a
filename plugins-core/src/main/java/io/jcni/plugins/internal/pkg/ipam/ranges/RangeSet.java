package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The ranges one address is allocated from: one entry of host-local's {@code ranges} array. Canonical and valid by
 * construction (non-empty, one family, no two ranges overlapping); build one with {@link #canonical} or check a whole
 * config with {@link #canonicalAll}.
 */
public record RangeSet(List<IpRange> ranges) {

    public RangeSet {
        ranges = List.copyOf(ranges);
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("empty range set");
        }
    }

    /** Go's {@code RangeSet.Canonicalize}: canonical ranges, one family, none overlapping. */
    public static RangeSet canonical(List<RangeSpec> specs) throws IpamException {
        if (specs.isEmpty()) {
            throw new IpamException(Reason.INVALID_RANGE, "empty range set");
        }
        List<IpRange> ranges = new ArrayList<>(specs.size());
        for (RangeSpec spec : specs) {
            IpRange r = IpRange.canonical(spec);
            if (!ranges.isEmpty() && ranges.getFirst().isV6() != r.isV6()) {
                throw new IpamException(Reason.INVALID_RANGE, "mixed address families");
            }
            ranges.add(r);
        }
        for (int i = 0; i < ranges.size(); i++) {
            for (int j = i + 1; j < ranges.size(); j++) {
                if (ranges.get(i).overlaps(ranges.get(j))) {
                    throw new IpamException(Reason.INVALID_RANGE,
                            "subnets " + ranges.get(i) + " and " + ranges.get(j) + " overlap");
                }
            }
        }
        return new RangeSet(ranges);
    }

    /**
     * Every range set of a config, checked as Go's {@code LoadIPAMConfig} checks them: each canonical (errors read
     * {@code invalid range set 1: ...}) and no two sets overlapping ({@code range set 0 overlaps with 1}).
     *
     * <p>Not checked here: Go's "CNI version %v does not support more than 1 address per family", which needs the
     * config's cniVersion.
     */
    public static List<RangeSet> canonicalAll(List<List<RangeSpec>> sets) throws IpamException {
        if (sets.isEmpty()) {
            throw new IpamException(Reason.INVALID_RANGE, "no IP ranges specified");
        }
        List<RangeSet> out = new ArrayList<>(sets.size());
        for (int i = 0; i < sets.size(); i++) {
            try {
                out.add(canonical(sets.get(i)));
            } catch (IpamException e) {
                throw e.prefixed("invalid range set " + i + ": ");
            }
        }
        for (int i = 0; i < out.size(); i++) {
            for (int j = i + 1; j < out.size(); j++) {
                if (out.get(i).overlaps(out.get(j))) {
                    throw new IpamException(Reason.INVALID_RANGE, "range set " + i + " overlaps with " + j);
                }
            }
        }
        return List.copyOf(out);
    }

    /** Whether some range of this set holds {@code ip} (Go's {@code RangeSet.Contains}). */
    public boolean contains(IpAddress ip) {
        return rangeFor(ip).isPresent();
    }

    /** The range holding {@code ip}. */
    public Optional<IpRange> rangeFor(IpAddress ip) {
        for (IpRange r : ranges) {
            if (r.contains(ip)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    /** Whether any range of this set shares an address with any range of {@code other}. */
    public boolean overlaps(RangeSet other) {
        for (IpRange a : ranges) {
            for (IpRange b : other.ranges) {
                if (a.overlaps(b)) {
                    return true;
                }
            }
        }
        return false;
    }

    public boolean isV6() {
        return ranges.getFirst().isV6();
    }

    /** The ranges as {@code start-end}, comma-separated: how Go names a range set in its errors. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (IpRange r : ranges) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(r);
        }
        return sb.toString();
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof RangeSet other
                && Objects.equals(ranges, other.ranges);
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(ranges);
        return h;
    }
}
