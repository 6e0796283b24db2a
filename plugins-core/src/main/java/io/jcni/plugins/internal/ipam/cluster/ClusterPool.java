package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamPools;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.spec.IpPrefix;
import java.util.List;

/**
 * A cluster-ipam pool for the service's pool figures ({@link IpamPools}): the whole cluster's reservations of one
 * network in one etcd prefix. They are counted lazily, when a scrape asks, not derived from the ADD's read: an ADD
 * reads only this node's blocks, so it never sees the cluster's fill, and counting on the call's path would add a
 * round trip to every ADD. A scrape costs one {@code count_only} range request per range of the pool (address keys
 * are fixed-width hex, so a range's keys are one key range; etcd sends the count, not the keys), within the scrape's
 * deadline; etcd not answering in time leaves the pool without an allocated figure in that scrape.
 *
 * <p>Pools are told apart by network and prefix: two etcd clusters that both hold the same network under the same
 * prefix are reported as one, the last one an ADD used.
 */
final class ClusterPool extends IpamPools.Pool {
    private final EtcdConfig etcd;
    private final ClusterKeys keys;
    private final List<IpPrefix> exclude;

    private ClusterPool(String network, List<RangeSet> sets, EtcdConfig etcd, List<IpPrefix> exclude) {
        super("cluster-ipam", network, sets);
        this.etcd = etcd;
        this.keys = new ClusterKeys(etcd.prefix(), network);
        this.exclude = exclude;
    }

    /** An ADD allocated from {@code config}'s network, configured as {@code sets}. */
    static void seen(ClusterIpamPlugin.Config config, List<RangeSet> sets) {
        if (IpamPools.watching()) {
            IpamPools.seen(new ClusterPool(config.ranges().network(), sets, config.etcd(),
                    config.settings().exclude()));
        }
    }

    @Override
    protected String where() {
        return "etcd_prefix";
    }

    @Override
    protected String store() {
        return etcd.prefix();
    }

    /** The address keys in each range, by family; null if etcd did not answer by {@code deadline}. */
    @Override
    protected long[] reserved(long deadline) {
        if (System.nanoTime() - deadline >= 0) {
            return null;
        }
        long[] n = new long[2];
        long own = System.nanoTime() + etcd.requestTimeoutSeconds() * 1_000_000_000L;
        try (EtcdClient client = new EtcdClient(etcd, own - deadline < 0 ? own : deadline)) {
            for (RangeSet set : sets()) {
                for (IpRange range : set.ranges()) {
                    // [first key, last key + NUL): no address key is longer than another of its family.
                    n[set.isV6() ? 1 : 0] += client.count(keys.ip(range.rangeStart()),
                            keys.ip(range.rangeEnd()) + '\0');
                }
            }
        } catch (EtcdException e) {
            return null;
        }
        return n;
    }

    /** The addresses of {@code range} that {@code exclude} covers (overlapping exclusions counted once each). */
    @Override
    protected long excluded(IpRange range) {
        long n = 0;
        for (IpPrefix p : exclude) {
            IpAddress net = IpAddress.of(p.address());
            if (net.v6() != range.isV6()) {
                continue;
            }
            IpAddress first = net.masked(p.prefixLength());
            IpAddress last = net.lastInPrefix(p.prefixLength());
            IpAddress from = first.compareTo(range.rangeStart()) > 0 ? first : range.rangeStart();
            IpAddress to = last.compareTo(range.rangeEnd()) < 0 ? last : range.rangeEnd();
            if (from.compareTo(to) <= 0) {
                long d = IpAddress.distance(from, to);
                long covered = d == Long.MAX_VALUE ? d : d + 1;
                if (range.gateway() != null && range.contains(range.gateway())
                        && range.gateway().compareTo(from) >= 0 && range.gateway().compareTo(to) <= 0) {
                    covered--; // already left out as the gateway
                }
                n = n + covered < 0 ? Long.MAX_VALUE : n + covered;
            }
        }
        return n;
    }
}
