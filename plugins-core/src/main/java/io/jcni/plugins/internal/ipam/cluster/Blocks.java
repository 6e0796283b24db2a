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
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Where a node finds a free address (the design is in the package documentation): in the blocks it claimed (from what
 * the node's {@link NodeView} knows of them, else read now), else in a block it claims now (in the same transaction
 * as the allocation), else anywhere in the range (borrowing). Reads only; a claim goes into the caller's write, and
 * what is read goes into the view.
 */
final class Blocks {
    /** Keys read per page when scanning a range for a free address. */
    static final int PAGE = 1024;

    private final ClusterEtcd etcd;
    private final ClusterKeys keys;
    private final ClusterStore.Settings settings;
    private final SplittableRandom random;
    private final NodeView view;

    Blocks(ClusterEtcd etcd, ClusterKeys keys, ClusterStore.Settings settings, SplittableRandom random,
            NodeView view) {
        this.view = view;
        this.etcd = etcd;
        this.keys = keys;
        this.settings = settings;
        this.random = random;
    }

    /**
     * A free address of {@code set}: from one of {@code myBlocks} whose use the node's view knows (no read), else
     * (unless {@code knownOnly}) from {@code myBlocks} read now, else from a block claimed into {@code write} (and
     * added to {@code claims}), else borrowed. Null if there is none (with {@code knownOnly}: none the view knows).
     */
    IpAddress next(RangeSet set, List<IpAddress> myBlocks, Txn write, List<IpAddress> claims, boolean knownOnly)
            throws IpamException {
        IpAddress got = fromKnownBlocks(set, myBlocks);
        if (got != null || knownOnly) {
            return got;
        }
        got = fromMyBlocks(set, myBlocks);
        if (got == null) {
            got = claimBlock(set, write, claims, myBlocks);
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
    int blockLength(IpRange range) {
        int configured = range.isV6() ? settings.blockSizeV6() : settings.blockSizeV4();
        return Math.max(configured, range.subnet().prefixLength());
    }

    /** The block of {@code ip}, an address of {@code range}. */
    IpAddress blockOf(IpAddress ip, IpRange range) {
        return ip.masked(blockLength(range));
    }

    /** Adds to {@code txn}'s failure branch the read of the address keys of {@code block} (see {@link #learn}). */
    void readOnFailure(Txn txn, IpAddress block, int length) {
        txn.rangeOnFailure(keys.ip(block), blockEnd(block, length), true, 0);
    }

    /** Adds to {@code txn} the read of the address keys of {@code block} (keys only); returns {@code txn}. */
    private Txn readBlock(Txn txn, IpAddress block, int length) {
        return txn.range(keys.ip(block), blockEnd(block, length), true, 0);
    }

    /** The end (exclusive) of the address keys of {@code block}. */
    private String blockEnd(IpAddress block, int length) {
        return keys.ip(block.lastInPrefix(length)) + "\0";
    }

    /** Tells the node's view the address keys of {@code block}, as read at {@code revision}. */
    void learn(IpAddress block, int length, List<Kv> used, long revision) throws IpamException {
        view.usage(block, length, addresses(used), revision);
    }

    /** A free address in one of this node's blocks whose use the view knows, without reading; null if none. */
    private IpAddress fromKnownBlocks(RangeSet set, List<IpAddress> myBlocks) throws IpamException {
        Map<IpAddress, NodeView.Usage> known = view.usage();
        if (known.isEmpty()) {
            return null;
        }
        List<IpAddress> blocks = new ArrayList<>();
        List<IpRange> ranges = new ArrayList<>();
        mine(set, myBlocks, blocks, ranges);
        rotate(blocks, ranges);
        for (int k = 0; k < blocks.size(); k++) {
            IpRange r = ranges.get(k);
            int length = blockLength(r);
            NodeView.Usage usage = known.get(blocks.get(k));
            if (usage == null || usage.length != length) {
                continue;
            }
            IpAddress got = pickFree(r, first(blocks.get(k), length, r), last(blocks.get(k), length, r), usage.used);
            if (got != null) {
                view.pending(got);
                return got;
            }
        }
        return null;
    }

    /**
     * Whether the free addresses the view knows in this node's blocks of {@code set} are running low: fewer than a
     * quarter of a block's size (at least 2; the gateway and exclusions are counted as free: a guess). False when the
     * view does not know the use of every such block (its next ADD that finds no free address reads them first) or when
     * the node has none (its first ADD claims one).
     */
    boolean runningLow(RangeSet set, List<IpAddress> myBlocks) {
        List<IpAddress> blocks = new ArrayList<>();
        List<IpRange> ranges = new ArrayList<>();
        mine(set, myBlocks, blocks, ranges);
        if (blocks.isEmpty()) {
            return false;
        }
        Map<IpAddress, NodeView.Usage> known = view.usage();
        long free = 0;
        long lowWater = 2;
        for (int k = 0; k < blocks.size(); k++) {
            IpRange r = ranges.get(k);
            int length = blockLength(r);
            NodeView.Usage usage = known.get(blocks.get(k));
            if (usage == null || usage.length != length) {
                return false;
            }
            IpAddress b = blocks.get(k);
            long size = Math.min(IpAddress.distance(first(b, length, r), last(b, length, r)), 1L << 20) + 1;
            free += Math.max(0, size - usage.used.size());
            lowWater = Math.max(lowWater, (1L << Math.min(20, b.bitLength() - length)) / 4);
        }
        return free < lowWater;
    }

    /** The blocks of {@code myBlocks} that lie in {@code set}, each with its range, into the two lists. */
    private void mine(RangeSet set, List<IpAddress> myBlocks, List<IpAddress> blocks, List<IpRange> ranges) {
        for (IpAddress b : myBlocks) {
            for (IpRange r : set.ranges()) {
                if (b.v6() == r.isV6() && blockIntersects(b, blockLength(r), r)) {
                    blocks.add(b);
                    ranges.add(r);
                    break;
                }
            }
        }
    }

    /** Starting at a random block spreads one node's concurrent calls. */
    private void rotate(List<IpAddress> blocks, List<IpRange> ranges) {
        if (blocks.size() > 1) {
            int shift = random.nextInt(blocks.size());
            Collections.rotate(blocks, shift);
            Collections.rotate(ranges, shift);
        }
    }

    /**
     * A free address in one of this node's blocks that lie in {@code set}, reading their address keys (and telling
     * the view what it read); null if they are all full.
     */
    private IpAddress fromMyBlocks(RangeSet set, List<IpAddress> myBlocks) throws IpamException {
        List<IpAddress> blocks = new ArrayList<>();
        List<IpRange> ranges = new ArrayList<>();
        mine(set, myBlocks, blocks, ranges);
        rotate(blocks, ranges);
        // One block first (it usually has room), then growing batches: a node with many full blocks does not read
        // them all for every ADD.
        int batch = 1;
        for (int from = 0; from < blocks.size(); from += batch, batch = Math.min(16, batch * 4)) {
            int to = Math.min(blocks.size(), from + batch);
            Txn read = new Txn();
            for (int k = from; k < to; k++) {
                readBlock(read, blocks.get(k), blockLength(ranges.get(k)));
            }
            TxnResult used = etcd.call(read);
            for (int k = from; k < to; k++) {
                IpRange r = ranges.get(k);
                int length = blockLength(r);
                List<IpAddress> taken = addresses(used.range(k - from));
                view.usage(blocks.get(k), length, taken, used.revision);
                IpAddress got = pickFree(r, first(blocks.get(k), length, r), last(blocks.get(k), length, r), taken);
                if (got != null) {
                    view.pending(got);
                    return got;
                }
            }
        }
        return null;
    }

    /**
     * Claims a block no node holds and returns a free address in it; the claim (block key, this node's affinity) is
     * added to {@code write}, so it happens in the same transaction as the allocation, or not at all. Null when every
     * block of the set is claimed. {@code myBlocks} (this node's, all claimed) only helps to guess: the first block
     * of the node's search order that is not among them has its addresses read in the same transaction as the block
     * keys, so that a claim of a block that proves free costs one read, not two (the first ADD of a node, and each
     * block a node fills, under load each round trip to etcd is several milliseconds).
     */
    IpAddress claimBlock(RangeSet set, Txn write, List<IpAddress> claims, List<IpAddress> myBlocks)
            throws IpamException {
        for (IpRange r : set.ranges()) {
            int length = blockLength(r);
            IpAddress firstBlock = r.rangeStart().masked(length);
            IpAddress lastBlock = r.rangeEnd().masked(length);
            long blockCount = blockIndex(firstBlock, lastBlock, length);
            if (blockCount == Long.MAX_VALUE) {
                blockCount = Long.MAX_VALUE - 1;
            }
            blockCount++;
            // Start where this node's name hashes to, so that nodes claiming at once rarely want the same block.
            // (A huge IPv6 range is searched in its first 2^20 blocks: claimed blocks are far fewer.)
            long span = Math.min(blockCount, 1L << 20);
            long start = Math.floorMod((long) settings.node().hashCode() * 0x9E3779B9L, span);
            int shift = r.rangeStart().bitLength() - length;
            IpAddress guess = null;
            for (long k = 0; k < span && k <= myBlocks.size() + claims.size(); k++) {
                IpAddress b = firstBlock.plus(((start + k) % span) << shift);
                if (!myBlocks.contains(b) && !claims.contains(b)) {
                    guess = b;
                    break;
                }
            }
            Txn first = new Txn().range(keys.block(firstBlock), keys.block(lastBlock) + "\0", true, 0);
            if (guess != null) {
                readBlock(first, guess, length);
            }
            TxnResult found = etcd.call(first);
            List<Kv> claimedKvs = found.range(0);
            if (claimedKvs.size() >= blockCount) {
                continue;
            }
            Set<IpAddress> claimed = new HashSet<>();
            for (Kv kv : claimedKvs) {
                claimed.add(ClusterKeys.addressOf(kv, "a block"));
            }
            int tries = 0;
            for (long k = 0; k < span && tries < 8; k++) {
                IpAddress b = firstBlock.plus(((start + k) % span) << shift);
                if (claimed.contains(b)) {
                    continue;
                }
                tries++;
                boolean guessed = b.equals(guess);
                TxnResult read = guessed ? found : etcd.call(readBlock(new Txn(), b, length));
                List<IpAddress> used = addresses(read.range(guessed ? 1 : 0));
                IpAddress got = pickFree(r, first(b, length, r), last(b, length, r), used);
                if (got != null) {
                    write.absent(keys.block(b))
                            .put(keys.block(b), settings.node().getBytes(StandardCharsets.UTF_8), 0)
                            .put(keys.affinity(settings.node(), b), new byte[0], 0);
                    view.usage(b, length, used, read.revision);
                    claims.add(b);
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
            IpAddress got = pickFree(r, cursor, end, addresses(page));
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
    private IpAddress pickFree(IpRange r, IpAddress from, IpAddress to, List<IpAddress> used) {
        List<IpAddress> free = new ArrayList<>(8);
        IpAddress cursor = from;
        int k = 0;
        IpAddress nextUsed = k < used.size() ? used.get(k) : null;
        while (free.size() < 32) {
            while (nextUsed != null && nextUsed.compareTo(cursor) < 0) {
                nextUsed = ++k < used.size() ? used.get(k) : null;
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

    /** The addresses of address keys (in key order, which is address order). */
    private static List<IpAddress> addresses(List<Kv> kvs) throws IpamException {
        List<IpAddress> out = new ArrayList<>(kvs.size());
        for (Kv kv : kvs) {
            out.add(ClusterKeys.addressOf(kv, "an address key"));
        }
        return out;
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
