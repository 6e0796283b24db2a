package io.jcni.plugins.internal.ipam.hostlocal;

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
}
