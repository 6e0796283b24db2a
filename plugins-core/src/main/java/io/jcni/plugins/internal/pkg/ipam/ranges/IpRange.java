package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.spec.IpPrefix;
import java.util.Objects;

/**
 * A canonical range: every field set, {@code rangeStart <= rangeEnd}, both inside {@code subnet}. Build one with
 * {@link #canonical}, which applies Go host-local's defaults and checks (its {@code Range.Canonicalize}).
 *
 * <p>The gateway need not lie between {@code rangeStart} and {@code rangeEnd}; when it does, the allocator skips it.
 */
public record IpRange(IpPrefix subnet, IpAddress rangeStart, IpAddress rangeEnd, IpAddress gateway) {

    public IpRange {
        Objects.requireNonNull(subnet, "subnet");
        Objects.requireNonNull(rangeStart, "rangeStart");
        Objects.requireNonNull(rangeEnd, "rangeEnd");
        Objects.requireNonNull(gateway, "gateway");
    }

    /**
     * Go's defaults and checks, with Go's messages:
     * <ul>
     *   <li>the subnet must leave two addresses ({@code Network 10.0.0.0/31 too small to allocate from}) and have no
     *       host bits set;</li>
     *   <li>gateway defaults to the network address + 1; a given gateway must lie in the subnet (newer upstream
     *       releases check this; 1.1.1 accepted any gateway);</li>
     *   <li>rangeStart defaults to network + 1, rangeEnd to the last address (IPv4: broadcast - 1); given ones must lie
     *       in the subnet with start &le; end ({@code RangeStart 10.1.0.9 not in network 10.0.0.0/24}).</li>
     * </ul>
     */
    public static IpRange canonical(RangeSpec spec) throws IpamException {
        IpPrefix subnet = spec.subnet();
        int length = subnet.prefixLength();
        IpAddress net = IpAddress.of(subnet.address());
        if (length > net.bitLength() - 2) {
            throw invalid("Network " + subnet + " too small to allocate from");
        }
        if (!net.equals(net.masked(length))) {
            throw invalid("Network has host bits set. For a subnet mask of length " + length
                    + " the network address is " + net.masked(length));
        }
        IpAddress gateway = spec.gateway();
        if (gateway == null) {
            gateway = net.next();
        } else if (!contains(subnet, gateway)) {
            throw invalid("gateway " + gateway + " not in network " + subnet);
        }
        IpAddress start = spec.rangeStart();
        IpAddress configuredEnd = spec.rangeEnd();
        if (start == null) {
            start = net.next();
        } else if (!contains(subnet, start) || (configuredEnd != null && configuredEnd.v6() == start.v6()
                && start.compareTo(configuredEnd) > 0)) {
            throw invalid("RangeStart " + start + " not in network " + subnet);
        }
        IpAddress end = configuredEnd;
        if (end == null) {
            end = net.lastInPrefix(length);
            if (end.isV4()) {
                end = IpAddress.v4((int) end.low() - 1);
            }
        } else if (!contains(subnet, end) || end.compareTo(start) < 0) {
            throw invalid("RangeEnd " + end + " not in network " + subnet);
        }
        return new IpRange(subnet, start, end, gateway);
    }

    /** Whether {@code ip} lies in {@code subnet} (same family, same network bits). */
    private static boolean contains(IpPrefix subnet, IpAddress ip) {
        IpAddress net = IpAddress.of(subnet.address());
        return ip.v6() == net.v6() && ip.masked(subnet.prefixLength()).equals(net.masked(subnet.prefixLength()));
    }

    private static IpamException invalid(String message) {
        return new IpamException(Reason.INVALID_RANGE, message);
    }

    /** Whether {@code ip} is an address of this range (Go's {@code Range.Contains}: start..end, inclusive). */
    public boolean contains(IpAddress ip) {
        return ip.v6() == rangeStart.v6() && ip.compareTo(rangeStart) >= 0 && ip.compareTo(rangeEnd) <= 0;
    }

    /** Whether the two ranges share an address (Go's {@code Range.Overlaps}). */
    public boolean overlaps(IpRange other) {
        return contains(other.rangeStart) || contains(other.rangeEnd)
                || other.contains(rangeStart) || other.contains(rangeEnd);
    }

    public boolean isV6() {
        return rangeStart.v6();
    }

    /** Number of addresses from start to end, saturated at {@link Long#MAX_VALUE}. */
    public long size() {
        long d = IpAddress.distance(rangeStart, rangeEnd);
        return d == Long.MAX_VALUE ? d : d + 1;
    }

    /** {@code rangeStart-rangeEnd}, as Go prints a range in its errors. */
    @Override
    public String toString() {
        return rangeStart + "-" + rangeEnd;
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof IpRange other
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
}
