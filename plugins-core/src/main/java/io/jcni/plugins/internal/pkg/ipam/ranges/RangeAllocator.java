package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Go host-local's allocation rules ({@code backend/allocator}), once for every range-IPAM store: which address each
 * range set gets for an attachment, and Go's error texts when it gets none. The store answers the questions the
 * rules ask ({@link Pool}); it keeps its own format and its own search order.
 *
 * <p>For range set {@code i}: if an address of {@code requested} lies in it, that address is reserved (refused if it
 * is the range's gateway, refused by the store, or taken); otherwise, if the attachment already holds an address of
 * the set, {@code onExisting} decides; otherwise the store's next free address of the set is reserved. A requested
 * address that fits no set fails the call. Requested addresses count once each, as Go's map of them does.
 */
public final class RangeAllocator {
    private RangeAllocator() {
    }

    /**
     * What the rules ask a store, inside one of its operations. What the pool reserves belongs to that operation: the
     * store undoes it if the operation fails ({@code allocate} throws).
     *
     * @param <X> the store's own failure (host-local's file I/O); {@link RuntimeException} for none
     */
    public interface Pool<X extends Exception> {
        /** Why a requested address can never be handed out by this store (besides being a gateway); null if it can. */
        String refusal(IpAddress ip);

        /** Reserves the requested {@code ip} of range set {@code setIndex}: false if someone holds it. */
        boolean takeRequested(int setIndex, RangeSet set, IpAddress ip) throws X, IpamException;

        /** Reserves the store's next free address of range set {@code setIndex}; null if the set has none. */
        IpAddress takeNext(int setIndex, RangeSet set) throws X, IpamException;
    }

    /**
     * One allocation per range set, in order.
     *
     * @param containerId the holder, as the duplicate-allocation error names it
     * @param held the addresses the attachment already holds (from any range set)
     */
    public static <X extends Exception> List<Allocation> allocate(String containerId, List<RangeSet> rangeSets,
            List<IpAddress> requested, List<IpAddress> held, OnExisting onExisting, Pool<X> pool)
            throws X, IpamException {
        List<IpAddress> pending = new ArrayList<>(requested.size());
        for (IpAddress ip : requested) {
            if (!pending.contains(ip)) {
                pending.add(ip);
            }
        }
        List<Allocation> out = new ArrayList<>(rangeSets.size());
        for (int i = 0; i < rangeSets.size(); i++) {
            RangeSet set = rangeSets.get(i);
            IpAddress wanted = takeFirstIn(set, pending);
            try {
                out.add(wanted != null
                        ? requested(i, set, wanted, held, onExisting, pool)
                        : next(i, set, containerId, held, onExisting, pool));
            } catch (IpamException e) {
                throw e.prefixed("failed to allocate for range " + i + ": ");
            }
        }
        if (!pending.isEmpty()) {
            StringBuilder msg = new StringBuilder("failed to allocate all requested IPs:");
            for (IpAddress ip : pending) {
                msg.append(' ').append(ip);
            }
            throw new IpamException(Reason.REQUESTED_IP_UNAVAILABLE, msg.toString());
        }
        return out;
    }

    /** The first of {@code pending} that lies in {@code set}, removed from it; null if none does. */
    private static IpAddress takeFirstIn(RangeSet set, List<IpAddress> pending) {
        for (IpAddress ip : pending) {
            if (set.contains(ip)) {
                pending.remove(ip);
                return ip;
            }
        }
        return null;
    }

    private static <X extends Exception> Allocation requested(int setIndex, RangeSet set, IpAddress ip,
            List<IpAddress> held, OnExisting onExisting, Pool<X> pool) throws X, IpamException {
        IpRange range = set.rangeFor(ip).orElseThrow();
        if (ip.equals(range.gateway())) {
            throw new IpamException(Reason.REQUESTED_IP_UNAVAILABLE, "requested ip " + ip + " is subnet's gateway");
        }
        String refusal = pool.refusal(ip);
        if (refusal != null) {
            throw new IpamException(Reason.REQUESTED_IP_UNAVAILABLE, "requested ip " + ip + " " + refusal);
        }
        if (onExisting == OnExisting.REUSE && held.contains(ip)) {
            return new Allocation(setIndex, ip, range, true);
        }
        if (!pool.takeRequested(setIndex, set, ip)) {
            throw new IpamException(Reason.REQUESTED_IP_UNAVAILABLE,
                    "requested IP address " + ip + " is not available in range set " + set);
        }
        return new Allocation(setIndex, ip, range, false);
    }

    private static <X extends Exception> Allocation next(int setIndex, RangeSet set, String containerId,
            List<IpAddress> held, OnExisting onExisting, Pool<X> pool) throws X, IpamException {
        for (IpAddress ip : held) {
            Optional<IpRange> range = set.rangeFor(ip);
            if (range.isPresent()) {
                if (onExisting == OnExisting.REUSE) {
                    return new Allocation(setIndex, ip, range.get(), true);
                }
                throw new IpamException(Reason.DUPLICATE_ALLOCATION,
                        ip + " has been allocated to " + containerId + ", duplicate allocation is not allowed");
            }
        }
        IpAddress got = pool.takeNext(setIndex, set);
        if (got == null) {
            throw new IpamException(Reason.NO_ADDRESS_AVAILABLE, "no IP addresses available in range set: " + set);
        }
        return new Allocation(setIndex, got, set.rangeFor(got).orElseThrow(), false);
    }
}
