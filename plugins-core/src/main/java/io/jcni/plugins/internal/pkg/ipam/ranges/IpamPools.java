package io.jcni.plugins.internal.pkg.ipam.ranges;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The range-IPAM pools a long-lived host (the plugin service with metrics on) has allocated from, for its pool
 * figures: per plugin, network and address family, how many addresses the pool's ranges hold and how many are
 * reserved. The ADD of a pool records it ({@link #seen}) with the range sets of its configuration (the last one seen
 * wins); the reservations are counted by the pool's {@link Pool#reserved} when a scrape asks, so that DELs, GCs and
 * other writers (Go's host-local in the same directory, other nodes in the same etcd) are all seen, and the ADD's path
 * pays nothing but a map put.
 *
 * <p>Process-wide state, on purpose: one switch ({@link #watch}) that only the service turns on, so an exec'd
 * plugin pays one volatile read per ADD.
 */
public final class IpamPools {
    /**
     * One pool's figures: {@code family} is "ipv4" or "ipv6"; {@code where} names the store ({@code data_dir} or
     * {@code etcd_prefix}) and {@code store} is its value; {@code allocated} is -1 when it could not be counted.
     */
    public record Usage(String plugin, String network, String where, String store, String family, long capacity,
            long allocated) {
    }

    /** A pool as its last ADD configured it; {@link #key} tells pools apart (two ADDs of one pool have equal keys). */
    public abstract static class Pool {
        private final String plugin;
        private final String network;
        private final List<RangeSet> sets;

        protected Pool(String plugin, String network, List<RangeSet> sets) {
            this.plugin = plugin;
            this.network = network;
            this.sets = List.copyOf(sets);
        }

        /** Where the pool is kept, its label name ({@code data_dir}). */
        protected abstract String where();

        /** Its label value (the directory), also the pool's identity with the plugin and network. */
        protected abstract String store();

        /**
         * The reservations that fall in the pool's ranges, IPv4 at index 0 and IPv6 at 1, counted now; null if they
         * cannot be counted. A store across the network gives up at {@code deadline} ({@link System#nanoTime()}),
         * or at once when it has passed; a local one (a directory) need not.
         */
        protected abstract long[] reserved(long deadline);

        /** Addresses that are never handed out although in a range (besides the gateway): cluster-ipam's exclude. */
        protected long excluded(IpRange range) {
            return 0;
        }

        public final List<RangeSet> sets() {
            return sets;
        }

        final String key() {
            return plugin + '\n' + network + '\n' + store();
        }
    }

    /** Null until {@link #watch}: then by {@link Pool#key}. */
    private static volatile Map<String, Pool> pools;

    /**
     * Set on a thread whose ADDs are not a client's (the service's own warm-up): they allocate from a pool of their
     * own that no scrape may show.
     */
    private static final ThreadLocal<Boolean> UNRECORDED = new ThreadLocal<>();

    private IpamPools() {
    }

    /** From now on, pools that ADDs allocate from are recorded. */
    public static synchronized void watch() {
        if (pools == null) {
            pools = new ConcurrentHashMap<>();
        }
    }

    /** Whether {@link #watch} was called: a plugin builds its {@link Pool} only then. */
    public static boolean watching() {
        return pools != null;
    }

    /** An ADD allocated from {@code pool}. */
    public static void seen(Pool pool) {
        Map<String, Pool> watched = pools;
        if (watched != null && UNRECORDED.get() == null) {
            watched.put(pool.key(), pool);
        }
    }

    /**
     * Until the scope closes, the ADDs this thread runs record no pool (the service's warm-up, in a pool of its own).
     * Scopes do not nest.
     */
    public static Unrecorded unrecorded() {
        UNRECORDED.set(Boolean.TRUE);
        return new Unrecorded();
    }

    /** The scope of {@link #unrecorded()}, on the thread that opened it. */
    public static final class Unrecorded implements AutoCloseable {
        private Unrecorded() {
        }

        @Override
        public void close() {
            UNRECORDED.remove();
        }
    }

    /**
     * Every recorded pool's figures, IPv4 before IPv6, in plugin, network and store order; an empty list when not
     * watching. Pools are counted one after the other; those across the network all before {@code deadline}: one
     * reached after it (a slow etcd before it) is reported with {@code allocated} -1.
     */
    public static List<Usage> usage(long deadline) {
        Map<String, Pool> watched = pools;
        List<Usage> out = new ArrayList<>();
        if (watched == null) {
            return out;
        }
        List<String> keys = new ArrayList<>(watched.keySet());
        Collections.sort(keys);
        for (String key : keys) {
            Pool pool = watched.get(key);
            long[] capacity = new long[2];
            for (RangeSet set : pool.sets()) {
                int f = set.isV6() ? 1 : 0;
                for (IpRange range : set.ranges()) {
                    // The gateway is never handed out (Go's allocator skips it too).
                    long usable = range.size() - (range.gateway() != null && range.contains(range.gateway()) ? 1 : 0);
                    capacity[f] = saturatedAdd(capacity[f], Math.max(0, usable - pool.excluded(range)));
                }
            }
            long[] allocated = pool.reserved(deadline);
            for (int f = 0; f < 2; f++) {
                if (capacity[f] > 0) {
                    out.add(new Usage(pool.plugin, pool.network, pool.where(), pool.store(), f == 0 ? "ipv4" : "ipv6",
                            capacity[f], allocated == null ? -1 : allocated[f]));
                }
            }
        }
        return out;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
