package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Go host-local's round-robin order ({@code RangeIter}), walked quickly.
 *
 * <p>Go's iterator, starting after the last reserved address {@code L} of range {@code i} (or at the first range's
 * start when {@code L} is unknown or outside the set), visits: {@code L+1 .. end(i)}, every later range, every
 * earlier range, then {@code start(i) .. L}; it skips each range's gateway and tries to create each address's file
 * until one succeeds. The same order is cut here into segments; in a range with a bitmap the walk jumps to the next
 * clear bit (64 addresses per step) instead of trying every taken address, which keeps the cost flat as the range
 * fills. The file create still decides: a clear bit whose file exists only costs one more try.
 */
final class RangeWalk {

    /** Tries to reserve one address: true if it is now ours. */
    interface Probe {
        boolean tryReserve(IpAddress ip) throws IOException;
    }

    record Segment(IpRange range, IpAddress from, IpAddress to) {}

    private RangeWalk() {}

    /** The first address of {@code set}, in Go's order after {@code last}, that {@code probe} reserves; or null. */
    static IpAddress walk(RangeSet set, IpAddress last, StoreIndex index, Probe probe) throws IOException {
        for (Segment seg : segments(set, last)) {
            IpAddress got = walk(seg, index, probe);
            if (got != null) {
                return got;
            }
        }
        return null;
    }

    static List<Segment> segments(RangeSet set, IpAddress last) {
        List<IpRange> ranges = set.ranges();
        List<Segment> out = new ArrayList<>(ranges.size() + 1);
        int at = -1;
        if (last != null) {
            for (int i = 0; i < ranges.size(); i++) {
                if (ranges.get(i).contains(last)) {
                    at = i;
                    break;
                }
            }
        }
        if (at < 0) {
            for (IpRange r : ranges) {
                out.add(new Segment(r, r.rangeStart(), r.rangeEnd()));
            }
            return out;
        }
        IpRange first = ranges.get(at);
        if (!last.equals(first.rangeEnd())) {
            out.add(new Segment(first, last.next(), first.rangeEnd()));
        }
        for (int k = 1; k < ranges.size(); k++) {
            IpRange r = ranges.get((at + k) % ranges.size());
            out.add(new Segment(r, r.rangeStart(), r.rangeEnd()));
        }
        out.add(new Segment(first, first.rangeStart(), last));
        return out;
    }

    private static IpAddress walk(Segment seg, StoreIndex index, Probe probe) throws IOException {
        IpRange r = seg.range();
        IpAddress gateway = r.gateway();
        int bitmap = index.bitmapFor(r);
        if (bitmap >= 0) {
            long bit = IpAddress.distance(r.rangeStart(), seg.from());
            long end = IpAddress.distance(r.rangeStart(), seg.to());
            while (bit <= end) {
                bit = index.nextClear(bitmap, bit, end);
                if (bit < 0) {
                    return null;
                }
                IpAddress ip = r.rangeStart().plus(bit);
                if (!ip.equals(gateway) && probe.tryReserve(ip)) {
                    return ip;
                }
                bit++;
            }
            return null;
        }
        // A range too large for a bitmap: try address after address, as Go does.
        for (IpAddress ip = seg.from(); ; ip = ip.next()) {
            if (!ip.equals(gateway) && probe.tryReserve(ip)) {
                return ip;
            }
            if (ip.equals(seg.to())) {
                return null;
            }
        }
    }
}
