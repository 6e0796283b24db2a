package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.spec.IpPrefix;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Where a node finds a free address (the design is in the package documentation): in the blocks it claimed, else in a
 * block it claims now (in the same transaction as the allocation), else anywhere in the range (borrowing). Reads only;
 * a claim goes into the caller's write.
 */
final class Blocks {
    /** Keys read per page when scanning a range for a free address. */
    static final int PAGE = 1024;

    private final ClusterEtcd etcd;
    private final ClusterKeys keys;
    private final ClusterStore.Settings settings;
    private final SplittableRandom random;

    Blocks(ClusterEtcd etcd, ClusterKeys keys, ClusterStore.Settings settings, SplittableRandom random) {
        this.etcd = etcd;
        this.keys = keys;
        this.settings = settings;
        this.random = random;
    }

    /** A free address of {@code set}: from {@code myBlocks}, a block claimed into {@code write}, or borrowed. */
    IpAddress next(RangeSet set, List<IpAddress> myBlocks, Txn write) throws IpamException {
        IpAddress got = fromMyBlocks(set, myBlocks);
        if (got == null) {
            got = claimBlock(set, write);
        }
        if (got == null) {
            got = borrow(set);
        }
        return got;
    }

    /** Whether {@code ip} lies in one of the configured {@code exclude} prefixes. */
    boolean excluded(IpAddress ip) {
        for (IpPrefix p : settings.exclude()) {
            IpAddress net = IpAddress.of(p.address());
            if (net.v6() == ip.v6() && net.masked(p.prefixLength()).equals(ip.masked(p.prefixLength()))) {
                return true;
            }
        }
        return false;
    }

    /** The prefix length of the blocks of {@code range}: the configured size, or the subnet if that is smaller. */
    private int blockLength(IpRange range) {
        int configured = range.isV6() ? settings.blockSizeV6() : settings.blockSizeV4();
        return Math.max(configured, range.subnet().prefixLength());
    }

    /** A free address in one of this node's blocks that lie in {@code set}; null if they are all full. */
    private IpAddress fromMyBlocks(RangeSet set, List<IpAddress> myBlocks) throws IpamException {
        List<IpAddress> blocks = new ArrayList<>();
        List<IpRange> ranges = new ArrayList<>();
        for (IpAddress b : myBlocks) {
            for (IpRange r : set.ranges()) {
                if (b.v6() == r.isV6() && blockIntersects(b, blockLength(r), r)) {
                    blocks.add(b);
                    ranges.add(r);
                    break;
                }
            }
        }
        // One block first (it usually has room), then growing batches: a node with many full blocks does not read
        // them all for every ADD. Starting at a random block spreads one node's concurrent calls.
        if (blocks.size() > 1) {
            int shift = random.nextInt(blocks.size());
            Collections.rotate(blocks, shift);
            Collections.rotate(ranges, shift);
        }
        int batch = 1;
        for (int from = 0; from < blocks.size(); from += batch, batch = Math.min(16, batch * 4)) {
            int to = Math.min(blocks.size(), from + batch);
            Txn read = new Txn();
            for (int k = from; k < to; k++) {
                IpRange r = ranges.get(k);
                read.range(keys.ip(first(blocks.get(k), blockLength(r), r)),
                        keys.ip(last(blocks.get(k), blockLength(r), r)) + "\0", true, 0);
            }
            TxnResult used = etcd.call(read);
            for (int k = from; k < to; k++) {
                IpRange r = ranges.get(k);
                IpAddress got = pickFree(r, first(blocks.get(k), blockLength(r), r),
                        last(blocks.get(k), blockLength(r), r), used.range(k - from));
                if (got != null) {
                    return got;
                }
            }
        }
        return null;
    }

    /**
     * Claims a block no node holds and returns a free address in it; the claim (block key, this node's affinity) is
     * added to {@code write}, so it happens in the same transaction as the allocation, or not at all. Null when every
     * block of the set is claimed.
     */
    private IpAddress claimBlock(RangeSet set, Txn write) throws IpamException {
        for (IpRange r : set.ranges()) {
            int length = blockLength(r);
            IpAddress firstBlock = r.rangeStart().masked(length);
            IpAddress lastBlock = r.rangeEnd().masked(length);
            long blockCount = blockIndex(firstBlock, lastBlock, length);
            if (blockCount == Long.MAX_VALUE) {
                blockCount = Long.MAX_VALUE - 1;
            }
            blockCount++;
            List<Kv> claimedKvs = etcd.range(keys.block(firstBlock), keys.block(lastBlock) + "\0", true);
            if (claimedKvs.size() >= blockCount) {
                continue;
            }
            Set<IpAddress> claimed = new HashSet<>();
            for (Kv kv : claimedKvs) {
                claimed.add(ClusterKeys.addressOf(kv, "a block"));
            }
            // Start where this node's name hashes to, so that nodes claiming at once rarely want the same block.
            // (A huge IPv6 range is searched in its first 2^20 blocks: claimed blocks are far fewer.)
            long span = Math.min(blockCount, 1L << 20);
            long start = Math.floorMod((long) settings.node().hashCode() * 0x9E3779B9L, span);
            int tries = 0;
            for (long k = 0; k < span && tries < 8; k++) {
                IpAddress b = firstBlock.plus(((start + k) % span) << (r.rangeStart().bitLength() - length));
                if (claimed.contains(b)) {
                    continue;
                }
                tries++;
                IpAddress from = first(b, length, r);
                IpAddress to = last(b, length, r);
                List<Kv> used = etcd.range(keys.ip(from), keys.ip(to) + "\0", true);
                IpAddress got = pickFree(r, from, to, used);
                if (got != null) {
                    write.absent(keys.block(b))
                            .put(keys.block(b), settings.node().getBytes(StandardCharsets.UTF_8), 0)
                            .put(keys.affinity(settings.node(), b), new byte[0], 0);
                    return got;
                }
            }
        }
        return null;
    }

    /**
     * The fallback when every block is claimed: a free address anywhere in the set, found by scanning the address
     * keys page by page from a random point (so that nodes borrowing at once spread out). This is what lets a full
     * cluster hand out its last free address whichever node asks.
     */
    private IpAddress borrow(RangeSet set) throws IpamException {
        for (IpRange r : set.ranges()) {
            long size = r.size();
            IpAddress start = r.rangeStart().plus(size == Long.MAX_VALUE ? 0 : random.nextLong(size));
            IpAddress got = firstFree(r, start, r.rangeEnd());
            if (got == null && !start.equals(r.rangeStart())) {
                got = firstFree(r, r.rangeStart(), start);
            }
            if (got != null) {
                return got;
            }
        }
        return null;
    }

    /** A free address in {@code [from, to]} of {@code r}, reading the used ones a page at a time; null if none. */
    private IpAddress firstFree(IpRange r, IpAddress from, IpAddress to) throws IpamException {
        IpAddress cursor = from;
        // Small pages first: in a range that is not completely full the first 64 keys usually leave a gap.
        int limit = 64;
        while (true) {
            List<Kv> page = etcd.call(new Txn().range(keys.ip(cursor), keys.ip(to) + "\0", true, limit)).range(0);
            IpAddress last = page.isEmpty() ? to : ClusterKeys.addressOf(page.getLast(), "an address key");
            IpAddress end = page.size() < limit ? to : last;
            IpAddress got = pickFree(r, cursor, end, page);
            if (got != null || page.size() < limit || last.equals(to)) {
                return got;
            }
            cursor = last.next();
            limit = Math.min(PAGE, limit * 4);
        }
    }

    /**
     * A free address of {@code r} in {@code [from, to]} given the used address keys there (sorted), chosen at random
     * among the first free ones so that concurrent allocations on one node rarely collide; null if none is free.
     */
    private IpAddress pickFree(IpRange r, IpAddress from, IpAddress to, List<Kv> used) throws IpamException {
        List<IpAddress> free = new ArrayList<>(8);
        IpAddress cursor = from;
        int k = 0;
        IpAddress nextUsed = nextUsed(used, k);
        while (free.size() < 32) {
            while (nextUsed != null && nextUsed.compareTo(cursor) < 0) {
                nextUsed = nextUsed(used, ++k);
            }
            if (!cursor.equals(nextUsed) && !cursor.equals(r.gateway()) && r.contains(cursor) && !excluded(cursor)) {
                free.add(cursor);
            }
            if (cursor.equals(to)) {
                break;
            }
            cursor = cursor.next();
        }
        return free.isEmpty() ? null : free.get(random.nextInt(free.size()));
    }

    private static IpAddress nextUsed(List<Kv> used, int k) throws IpamException {
        if (k >= used.size()) {
            return null;
        }
        return ClusterKeys.addressOf(used.get(k), "an address key");
    }

    private static boolean blockIntersects(IpAddress block, int length, IpRange r) {
        IpAddress end = block.lastInPrefix(length);
        return block.compareTo(r.rangeEnd()) <= 0 && end.compareTo(r.rangeStart()) >= 0;
    }

    /** The first address of block {@code b} that is in range {@code r}. */
    private static IpAddress first(IpAddress b, int length, IpRange r) {
        return b.compareTo(r.rangeStart()) < 0 ? r.rangeStart() : b;
    }

    private static IpAddress last(IpAddress b, int length, IpRange r) {
        IpAddress end = b.lastInPrefix(length);
        return end.compareTo(r.rangeEnd()) > 0 ? r.rangeEnd() : end;
    }

    private static long blockIndex(IpAddress firstBlock, IpAddress block, int length) {
        long d = IpAddress.distance(firstBlock, block);
        return d == Long.MAX_VALUE ? d : d >>> (block.bitLength() - length);
    }
}
