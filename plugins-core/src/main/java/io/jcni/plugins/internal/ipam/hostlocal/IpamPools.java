package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The host-local pools a long-lived host (the plugin service with metrics on) has allocated from, for its pool
 * figures: per network and address family, how many addresses its ranges hold and how many are reserved. The ADD of
 * a pool records it with the range sets of its configuration (the last one seen wins); the reservations are counted
 * from the pool's directory when asked, so that DELs, GCs and Go's host-local writing to the same directory are all
 * seen.
 *
 * <p>Process-wide state, on purpose: one switch ({@link #watch}) that only the service turns on, so an exec'd
 * plugin pays one volatile read per ADD. A data directory given as a relative path (the caller's working directory)
 * is not recorded: it would be read from elsewhere later.
 */
public final class IpamPools {
    /** One pool's figures: {@code family} is "ipv4" or "ipv6". */
    public record Usage(String plugin, String network, String dataDir, String family, long capacity,
            long allocated) {
    }

    /** A pool as its last ADD configured it. */
    private record Pool(String network, Path dir, List<RangeSet> sets) {
    }

    /** Null until {@link #watch}: then by the pool's directory. */
    private static volatile Map<Path, Pool> pools;

    private IpamPools() {
    }

    /** From now on, pools that ADDs allocate from are recorded. */
    public static synchronized void watch() {
        if (pools == null) {
            pools = new ConcurrentHashMap<>();
        }
    }

    /** An ADD allocated from {@code network}'s pool under {@code dataDir}, configured as {@code sets}. */
    static void seen(Path dataDir, String network, List<RangeSet> sets) {
        Map<Path, Pool> watched = pools;
        if (watched == null || !dataDir.isAbsolute()) {
            return;
        }
        Path dir = dataDir.resolve(network);
        watched.put(dir, new Pool(network, dir, List.copyOf(sets)));
    }

    /** Every recorded pool's figures, IPv4 before IPv6; an empty list when not watching. */
    public static List<Usage> usage() {
        Map<Path, Pool> watched = pools;
        List<Usage> out = new ArrayList<>();
        if (watched == null) {
            return out;
        }
        List<Path> dirs = new ArrayList<>(watched.keySet());
        java.util.Collections.sort(dirs);
        for (Path dir : dirs) {
            Pool pool = watched.get(dir);
            long[] capacity = new long[2];
            for (RangeSet set : pool.sets()) {
                int f = set.isV6() ? 1 : 0;
                for (IpRange range : set.ranges()) {
                    // The gateway is never handed out (Go's allocator skips it too).
                    long usable = range.size() - (range.gateway() != null && range.contains(range.gateway()) ? 1 : 0);
                    capacity[f] = saturatedAdd(capacity[f], usable);
                }
            }
            long[] allocated = reserved(pool);
            for (int f = 0; f < 2; f++) {
                if (capacity[f] > 0) {
                    out.add(new Usage("host-local", pool.network(), pool.dir().getParent().toString(),
                            f == 0 ? "ipv4" : "ipv6", capacity[f], allocated[f]));
                }
            }
        }
        return out;
    }

    /** The reservations in the pool's directory that fall in its ranges, by family (a file per address, Go's). */
    private static long[] reserved(Pool pool) {
        long[] n = new long[2];
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(pool.dir())) {
            for (Path entry : entries) {
                Optional<IpAddress> ip = IpAddress.parse(entry.getFileName().toString());
                if (ip.isEmpty()) {
                    continue; // lock, last_reserved_ip.N, temporary files
                }
                for (RangeSet set : pool.sets()) {
                    if (set.contains(ip.get())) {
                        n[ip.get().isV4() ? 0 : 1]++;
                        break;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // No directory (yet, or any more): nothing reserved.
        }
        return n;
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
