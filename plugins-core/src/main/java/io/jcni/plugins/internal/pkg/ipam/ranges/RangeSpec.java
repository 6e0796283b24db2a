package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.spec.IpPrefix;
import java.util.Objects;

/**
 * One range as written in a host-local config ({@code {"subnet": ..., "rangeStart": ..., "rangeEnd": ...,
 * "gateway": ...}}). {@code rangeStart}, {@code rangeEnd} and {@code gateway} are {@code null} when absent; {@link
 * IpRange#canonical} fills in Go's defaults.
 */
public record RangeSpec(IpPrefix subnet, IpAddress rangeStart, IpAddress rangeEnd, IpAddress gateway) {

    public RangeSpec {
        Objects.requireNonNull(subnet, "subnet");
    }

    /** A range that is the whole subnet, with every default. */
    public static RangeSpec of(IpPrefix subnet) {
        return new RangeSpec(subnet, null, null, null);
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof RangeSpec other
                && Objects.equals(subnet, other.subnet)
                && Objects.equals(rangeStart, other.rangeStart)
                && Objects.equals(rangeEnd, other.rangeEnd)
                && Objects.equals(gateway, other.gateway);
    }

    @Override
    public int hashCode() {
        int h = Objects.hashCode(subnet);
        h = 31 * h + Objects.hashCode(rangeStart);
        h = 31 * h + Objects.hashCode(rangeEnd);
        h = 31 * h + Objects.hashCode(gateway);
        return h;
    }

    @Override
    public String toString() {
        return "RangeSpec[subnet=" + subnet + ", rangeStart=" + rangeStart + ", rangeEnd=" + rangeEnd
                + ", gateway=" + gateway + "]";
    }
}
