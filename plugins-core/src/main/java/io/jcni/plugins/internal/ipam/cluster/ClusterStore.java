package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamStore;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeAllocator;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The cluster IPAM store: one network's reservations in etcd, shared by every node. See the package documentation
 * for the key layout and the allocation protocol; in short, every change is one compare-and-swap transaction (no
 * lock is held across the network), an attachment's addresses and its owner record are created and deleted
 * together, and a node allocates from blocks it claimed (one transaction) before it borrows from anyone's.
 *
 * <p>One instance serves one plugin call (its {@link EtcdClient} carries the call's deadline). Not thread-safe.
 */
public final class ClusterStore implements IpamStore {
    /** Writes that lose a race are retried from a fresh read this many times (each loss means another call won). */
    static final int MAX_ATTEMPTS = 400;
    /** Keys read per page when scanning a range for a free address. */
    static final int PAGE = 1024;
    /** Operations per transaction (etcd's default --max-txn-ops is 128). */
    static final int MAX_TXN_OPS = 100;

    private final EtcdClient etcd;
    private final Settings settings;
    private final String network;
    private final String node;
    private final String root;
    private final SplittableRandom random;
    /** A lease granted during this call, reused by its retries. */
    private long grantedLease;

    /** What a store needs beside etcd: who this node is, block sizes and node liveness. */
    public record Settings(String node, int blockSizeV4, int blockSizeV6, long nodeTtlSeconds,
            List<IpPrefix> exclude, java.nio.file.Path importHostLocal) {
    }

    /** Whether {@code ip} lies in one of the configured {@code exclude} prefixes. */
    private boolean excluded(IpAddress ip) {
        for (IpPrefix p : settings.exclude()) {
            IpAddress net = IpAddress.of(p.address());
            if (net.v6() == ip.v6() && net.masked(p.prefixLength()).equals(ip.masked(p.prefixLength()))) {
                return true;
            }
        }
        return false;
    }

    ClusterStore(EtcdClient etcd, String prefix, String network, Settings settings) {
        this.etcd = etcd;
        this.settings = settings;
        this.network = network;
        this.node = settings.node();
        this.root = prefix + "/" + network + "/";
        this.random = new SplittableRandom(System.nanoTime() ^ ((long) node.hashCode() << 32));
    }

    static ClusterStore open(EtcdConfig config, String network, Settings settings) {
        return new ClusterStore(EtcdClient.open(config), config.prefix(), network, settings);
    }

    // ---------------------------------------------------------------------------------------------- keys

    private String registryKey() {
        return root.substring(0, root.length() - network.length() - 1) + "networks";
    }

    private String ownerKey(String node, Attachment who) {
        return root + "owner/" + node + "/" + who.containerId() + "/" + who.ifname();
    }

    private String ipKey(IpAddress ip) {
        return root + "ip/" + hex(ip);
    }

    private String blockKey(IpAddress blockStart) {
        return root + "block/" + hex(blockStart);
    }

    private String affinityKey(String node, IpAddress blockStart) {
        return root + "affinity/" + node + "/" + hex(blockStart);
    }

    private String nodeKey(String node) {
        return root + "node/" + node;
    }

    private String memberKey(String node) {
        return root + "member/" + node;
    }

    private String importedKey(String node) {
        return root + "imported/" + node;
    }

    /** {@code 4/0a000105} or {@code 6/<32 hex digits>}: fixed width, so key order is address order. */
    static String hex(IpAddress ip) {
        if (ip.isV4()) {
            String h = Long.toHexString(ip.low());
            return "4/" + "00000000".substring(h.length()) + h;
        }
        String hi = Long.toHexString(ip.high());
        String lo = Long.toHexString(ip.low());
        return "6/" + "0000000000000000".substring(hi.length()) + hi + "0000000000000000".substring(lo.length()) + lo;
    }

    /** The address of a key ending in {@link #hex}; null if it is not one. */
    static IpAddress parseHex(String key) {
        int slash = key.lastIndexOf('/');
        if (slash < 1) {
            return null;
        }
        String digits = key.substring(slash + 1);
        char family = key.charAt(slash - 1);
        try {
            if (family == '4' && digits.length() == 8) {
                return IpAddress.v4((int) Long.parseLong(digits, 16));
            }
            if (family == '6' && digits.length() == 32) {
                return IpAddress.v6(Long.parseUnsignedLong(digits.substring(0, 16), 16),
                        Long.parseUnsignedLong(digits.substring(16), 16));
            }
        } catch (NumberFormatException e) {
            return null;
        }
        return null;
    }

    /** The value of an address key: who holds it. */
    private byte[] holder(Attachment who) {
        return (node + "\n" + who.containerId() + "\n" + who.ifname()).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] holderOf(String node, Attachment who) {
        return (node + "\n" + who.containerId() + "\n" + who.ifname()).getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------------------------------------- ADD

    @Override
    public List<Allocation> allocate(Attachment who, List<RangeSet> rangeSets, List<IpAddress> requested,
            OnExisting onExisting) throws IpamException {
        checked(who);
        ensureImported();
        String ownerKey = ownerKey(node, who);
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            Txn read = new Txn().range(registryKey(), null, false, 0).range(ownerKey, null, false, 0)
                    .range(root + "affinity/" + node + "/", EtcdClient.prefixEnd(root + "affinity/" + node + "/"),
                            true, 0)
                    .range(nodeKey(node), null, false, 0);
            for (IpAddress ip : requested) {
                read.range(ipKey(ip), null, false, 0);
            }
            TxnResult state = call(read);
            Txn write = new Txn();
            boolean changes = false;

            // The network's ranges, registered in etcd so that no other network can overlap them. Every write
            // compares the registry it read: an address is taken only while the ranges it lies in are registered.
            List<Kv> registry = state.range(0);
            JsonObject networks = parseRegistry(registry);
            JsonArray ours = encode(rangeSets);
            Optional<Json> registered = networks.get(network);
            write.modRevision(registryKey(), registry.isEmpty() ? 0 : registry.getFirst().modRevision);
            if (registered.isEmpty() || !registered.get().toString().equals(ours.toString())) {
                checkOverlaps(networks, rangeSets);
                requireNothingOutside(rangeSets, write);
                write.put(registryKey(), CniJson.encode(networks.with(network, ours)), 0);
                changes = true;
            }

            // What the attachment already holds (an ADD repeated, or a retry after a lost race).
            List<Kv> ownerKv = state.range(1);
            List<IpAddress> held = ownerKv.isEmpty() ? List.of() : parseOwner(ownerKv.getFirst());
            write.modRevision(ownerKey, ownerKv.isEmpty() ? 0 : ownerKv.getFirst().modRevision);

            List<IpAddress> myBlocks = new ArrayList<>();
            for (Kv kv : state.range(2)) {
                IpAddress b = parseHex(kv.key);
                if (b == null) {
                    throw corrupt(kv.key, "not a block of this plugin");
                }
                myBlocks.add(b);
            }
            changes |= liveness(state.range(3), write);

            Pool pool = new Pool(state, requested, myBlocks, write);
            List<Allocation> out = RangeAllocator.allocate(who.containerId(), rangeSets, requested, held, onExisting,
                    pool);
            List<IpAddress> fresh = new ArrayList<>();
            for (Allocation allocation : out) {
                if (!allocation.existing()) {
                    fresh.add(allocation.address());
                }
            }
            if (!fresh.isEmpty()) {
                List<IpAddress> all = new ArrayList<>(held);
                for (IpAddress ip : fresh) {
                    write.absent(ipKey(ip)).put(ipKey(ip), holder(who), 0);
                    all.add(ip);
                }
                write.put(ownerKey, ownerValue(all), 0);
                changes = true;
            }
            if (!changes) {
                return out;
            }
            if (commit(write)) {
                return out;
            }
            backoff(attempt);
        }
        throw new IpamException(Reason.STORE_UNAVAILABLE, "cluster-ipam: " + MAX_ATTEMPTS
                + " allocation attempts lost their race in etcd; try again");
    }

    /** What the allocation rules ask of one attempt: answered from its read, new blocks claimed in its write. */
    private final class Pool implements RangeAllocator.Pool<RuntimeException> {
        private final TxnResult state;
        private final List<IpAddress> requested;
        private final List<IpAddress> myBlocks;
        private final Txn write;

        Pool(TxnResult state, List<IpAddress> requested, List<IpAddress> myBlocks, Txn write) {
            this.state = state;
            this.requested = requested;
            this.myBlocks = myBlocks;
            this.write = write;
        }

        @Override
        public String refusal(IpAddress ip) {
            return excluded(ip) ? "is excluded by ipam.exclude" : null;
        }

        /** Free if its key was absent at the read (the write compares that it still is). */
        @Override
        public boolean takeRequested(int setIndex, RangeSet set, IpAddress ip) {
            return state.range(4 + requested.indexOf(ip)).isEmpty();
        }

        /** From this node's blocks, else from a block claimed now, else borrowed from another node's. */
        @Override
        public IpAddress takeNext(int setIndex, RangeSet set) throws IpamException {
            IpAddress got = fromMyBlocks(set, myBlocks);
            if (got == null) {
                got = claimBlock(set, write);
            }
            if (got == null) {
                got = borrow(set);
            }
            return got;
        }
    }

    // ---------------------------------------------------------------------------------------------- blocks

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
                read.range(ipKey(first(blocks.get(k), blockLength(r), r)),
                        ipKey(last(blocks.get(k), blockLength(r), r)) + "\0", true, 0);
            }
            TxnResult used = call(read);
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
            List<Kv> claimedKvs = call(new Txn().range(blockKey(firstBlock), blockKey(lastBlock) + "\0", true, 0))
                    .range(0);
            if (claimedKvs.size() >= blockCount) {
                continue;
            }
            Set<IpAddress> claimed = new HashSet<>();
            for (Kv kv : claimedKvs) {
                IpAddress b = parseHex(kv.key);
                if (b == null) {
                    throw corrupt(kv.key, "not a block of this plugin");
                }
                claimed.add(b);
            }
            // Start where this node's name hashes to, so that nodes claiming at once rarely want the same block.
            // (A huge IPv6 range is searched in its first 2^20 blocks: claimed blocks are far fewer.)
            long span = Math.min(blockCount, 1L << 20);
            long start = Math.floorMod((long) node.hashCode() * 0x9E3779B9L, span);
            int tries = 0;
            for (long k = 0; k < span && tries < 8; k++) {
                IpAddress b = firstBlock.plus(((start + k) % span) << (r.rangeStart().bitLength() - length));
                if (claimed.contains(b)) {
                    continue;
                }
                tries++;
                IpAddress from = first(b, length, r);
                IpAddress to = last(b, length, r);
                List<Kv> used = call(new Txn().range(ipKey(from), ipKey(to) + "\0", true, 0)).range(0);
                IpAddress got = pickFree(r, from, to, used);
                if (got != null) {
                    write.absent(blockKey(b)).put(blockKey(b), node.getBytes(StandardCharsets.UTF_8), 0)
                            .put(affinityKey(node, b), new byte[0], 0);
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
            List<Kv> page = call(new Txn().range(ipKey(cursor), ipKey(to) + "\0", true, limit)).range(0);
            IpAddress last = page.isEmpty() ? to : parseHex(page.getLast().key);
            if (last == null) {
                throw corrupt(page.getLast().key, "not an address key of this plugin");
            }
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
        IpAddress ip = parseHex(used.get(k).key);
        if (ip == null) {
            throw corrupt(used.get(k).key, "not an address key of this plugin");
        }
        return ip;
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

    // ---------------------------------------------------------------------------------------------- liveness

    /**
     * Refreshes this node's liveness key when it is missing or a third of its TTL old: a lease of {@code
     * nodeTtlSeconds} (granted once per call) and the key {@code node/<node>} on it, plus the permanent {@code
     * member/<node>} that tells GC this node may hold addresses. Returns whether {@code write} got those puts.
     */
    private boolean liveness(List<Kv> nodeKv, Txn write) throws IpamException {
        long ttl = settings.nodeTtlSeconds();
        if (ttl <= 0) {
            return false;
        }
        long now = System.currentTimeMillis();
        if (!nodeKv.isEmpty()) {
            String v = new String(nodeKv.getFirst().value, StandardCharsets.UTF_8);
            int space = v.indexOf(' ');
            try {
                long refreshed = Long.parseLong(v.substring(space + 1));
                if (space > 0 && now - refreshed >= 0 && now - refreshed < ttl * 1000 / 3) {
                    return false;
                }
            } catch (NumberFormatException e) {
                // rewritten below
            }
        }
        if (grantedLease == 0) {
            try {
                grantedLease = etcd.grantLease(ttl);
            } catch (EtcdException e) {
                throw failure(e);
            }
        }
        write.put(nodeKey(node), (grantedLease + " " + now).getBytes(StandardCharsets.UTF_8), grantedLease)
                .put(memberKey(node), new byte[0], 0);
        return true;
    }

    /** Writes this node's liveness if due (STATUS, GC, CHECK): a heartbeat without an allocation. */
    public void heartbeat() throws IpamException {
        for (int attempt = 0; attempt < 4; attempt++) {
            List<Kv> nodeKv = call(new Txn().range(nodeKey(node), null, false, 0)).range(0);
            Txn write = new Txn();
            if (!liveness(nodeKv, write)) {
                return;
            }
            write.modRevision(nodeKey(node), nodeKv.isEmpty() ? 0 : nodeKv.getFirst().modRevision);
            if (commit(write)) {
                return;
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- CHECK, DEL

    @Override
    public List<Reservation> find(Attachment who) throws IpamException {
        checked(who);
        ensureImported();
        List<Kv> ownerKv = call(new Txn().range(ownerKey(node, who), null, false, 0)).range(0);
        List<Reservation> out = new ArrayList<>();
        if (ownerKv.isEmpty()) {
            return out;
        }
        List<IpAddress> held = parseOwner(ownerKv.getFirst());
        Txn read = new Txn();
        for (IpAddress ip : held) {
            read.range(ipKey(ip), null, false, 0);
        }
        TxnResult values = call(read);
        byte[] mine = holder(who);
        for (int i = 0; i < held.size(); i++) {
            List<Kv> kv = values.range(i);
            if (!kv.isEmpty() && java.util.Arrays.equals(kv.getFirst().value, mine)) {
                out.add(new Reservation(held.get(i), who.containerId(), who.ifname()));
            }
        }
        return out;
    }

    @Override
    public List<IpAddress> release(Attachment who) throws IpamException {
        checked(who);
        ensureImported();
        return releaseOwner(ownerKey(node, who), node, who, null);
    }

    /**
     * Deletes an owner record and the address keys that still name it, in one transaction that holds only if
     * neither changed since they were read. {@code unlessAlive}: a node whose liveness key must still be absent (the
     * reclaim of a vanished node's reservations), or null.
     */
    private List<IpAddress> releaseOwner(String ownerKey, String holderNode, Attachment who, String unlessAlive)
            throws IpamException {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            List<Kv> ownerKv = call(new Txn().range(ownerKey, null, false, 0)).range(0);
            if (ownerKv.isEmpty()) {
                return List.of();
            }
            List<IpAddress> held = parseOwner(ownerKv.getFirst());
            byte[] mine = holderOf(holderNode, who);
            if (attempt == 0) {
                // The common case in one transaction: every address key still names this attachment.
                Txn direct = new Txn().modRevision(ownerKey, ownerKv.getFirst().modRevision).delete(ownerKey);
                if (unlessAlive != null) {
                    direct.absent(nodeKey(unlessAlive));
                }
                for (IpAddress ip : held) {
                    direct.value(ipKey(ip), mine).delete(ipKey(ip));
                }
                if (commit(direct)) {
                    return held;
                }
            }
            Txn read = new Txn();
            for (IpAddress ip : held) {
                read.range(ipKey(ip), null, false, 0);
            }
            TxnResult values = held.isEmpty() ? null : call(read);
            Txn write = new Txn().modRevision(ownerKey, ownerKv.getFirst().modRevision).delete(ownerKey);
            if (unlessAlive != null) {
                write.absent(nodeKey(unlessAlive));
            }
            List<IpAddress> released = new ArrayList<>();
            for (int i = 0; i < held.size(); i++) {
                List<Kv> kv = values.range(i);
                if (!kv.isEmpty() && java.util.Arrays.equals(kv.getFirst().value, mine)) {
                    String key = ipKey(held.get(i));
                    write.modRevision(key, kv.getFirst().modRevision).delete(key);
                    released.add(held.get(i));
                }
            }
            if (commit(write)) {
                return released;
            }
            backoff(attempt);
        }
        throw new IpamException(Reason.STORE_UNAVAILABLE, "cluster-ipam: the release of " + ownerKey
                + " kept losing its race in etcd; try again");
    }

    // ---------------------------------------------------------------------------------------------- GC

    /**
     * Releases this node's reservations whose attachment is not in {@code valid}; then, if node liveness is on, the
     * reservations and block claims of every node whose liveness key has expired (it made no call for {@code
     * nodeTtlSeconds}): each in a transaction that holds only while that node is still absent.
     */
    @Override
    public List<Reservation> gc(Collection<Attachment> valid) throws IpamException {
        ensureImported();
        Set<String> keep = new HashSet<>();
        for (Attachment a : valid) {
            keep.add(ownerKey(node, a));
        }
        List<Reservation> released = new ArrayList<>();
        String mine = root + "owner/" + node + "/";
        for (Kv kv : call(new Txn().range(mine, EtcdClient.prefixEnd(mine), true, 0)).range(0)) {
            if (!keep.contains(kv.key)) {
                Attachment who = attachmentOf(kv.key, mine);
                for (IpAddress ip : releaseOwner(kv.key, node, who, null)) {
                    released.add(new Reservation(ip, who.containerId(), who.ifname()));
                }
            }
        }
        heartbeat();
        if (settings.nodeTtlSeconds() > 0) {
            released.addAll(reclaimVanishedNodes());
        }
        return released;
    }

    private List<Reservation> reclaimVanishedNodes() throws IpamException {
        String members = root + "member/";
        String alive = root + "node/";
        TxnResult state = call(new Txn().range(members, EtcdClient.prefixEnd(members), true, 0)
                .range(alive, EtcdClient.prefixEnd(alive), true, 0));
        Set<String> live = new HashSet<>();
        for (Kv kv : state.range(1)) {
            live.add(kv.key.substring(alive.length()));
        }
        List<Reservation> released = new ArrayList<>();
        for (Kv kv : state.range(0)) {
            String gone = kv.key.substring(members.length());
            if (live.contains(gone) || gone.equals(node)) {
                continue;
            }
            String owners = root + "owner/" + gone + "/";
            for (Kv owner : call(new Txn().range(owners, EtcdClient.prefixEnd(owners), true, 0)).range(0)) {
                Attachment who = attachmentOf(owner.key, owners);
                for (IpAddress ip : releaseOwner(owner.key, gone, who, gone)) {
                    released.add(new Reservation(ip, who.containerId(), who.ifname()));
                }
            }
            String affinities = root + "affinity/" + gone + "/";
            List<Kv> blocks = call(new Txn().range(affinities, EtcdClient.prefixEnd(affinities), true, 0)).range(0);
            for (int from = 0; from <= blocks.size(); from += MAX_TXN_OPS / 3) {
                Txn write = new Txn().absent(nodeKey(gone));
                for (int k = from; k < Math.min(blocks.size(), from + MAX_TXN_OPS / 3); k++) {
                    IpAddress b = parseHex(blocks.get(k).key);
                    if (b == null) {
                        throw corrupt(blocks.get(k).key, "not a block of this plugin");
                    }
                    write.value(blockKey(b), gone.getBytes(StandardCharsets.UTF_8)).delete(blockKey(b))
                            .delete(blocks.get(k).key);
                }
                if (from + MAX_TXN_OPS / 3 >= blocks.size()) {
                    write.delete(kv.key);
                }
                if (!commit(write)) {
                    break; // the node came back, or a block changed hands: leave the rest to the next GC
                }
            }
        }
        return released;
    }

    private Attachment attachmentOf(String ownerKey, String prefix) throws IpamException {
        String rest = ownerKey.substring(prefix.length());
        int slash = rest.lastIndexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw corrupt(ownerKey, "not an owner key of this plugin");
        }
        return new Attachment(rest.substring(0, slash), rest.substring(slash + 1));
    }

    // ---------------------------------------------------------------------------------------------- records

    private static byte[] ownerValue(List<IpAddress> ips) {
        StringBuilder sb = new StringBuilder();
        for (IpAddress ip : ips) {
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(hex(ip));
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static List<IpAddress> parseOwner(Kv kv) throws IpamException {
        String v = new String(kv.value, StandardCharsets.UTF_8);
        List<IpAddress> out = new ArrayList<>(2);
        if (v.isEmpty()) {
            return out;
        }
        int from = 0;
        while (from <= v.length()) {
            int comma = v.indexOf(',', from);
            String item = comma < 0 ? v.substring(from) : v.substring(from, comma);
            IpAddress ip = parseHex("x/" + item);
            if (ip == null || !("x/" + item).equals("x/" + hex(ip))) {
                throw corrupt(kv.key, "holds \"" + printable(v) + "\", not a list of addresses");
            }
            out.add(ip);
            if (comma < 0) {
                break;
            }
            from = comma + 1;
        }
        return out;
    }

    /** The ranges of every network, {@code {"<network>": [["<subnet> <start> <end> <gateway>", ...], ...]}}. */
    private JsonObject parseRegistry(List<Kv> registry) throws IpamException {
        if (registry.isEmpty()) {
            return JsonObject.EMPTY;
        }
        try {
            Json json = Json.parse(registry.getFirst().value);
            if (json instanceof JsonObject o) {
                return o;
            }
        } catch (CniException e) {
            // reported below
        }
        throw corrupt(registryKey(), "is not the network registry of this plugin");
    }

    static JsonArray encode(List<RangeSet> sets) {
        List<Json> out = new ArrayList<>(sets.size());
        for (RangeSet set : sets) {
            List<Json> ranges = new ArrayList<>(set.ranges().size());
            for (IpRange r : set.ranges()) {
                ranges.add(new JsonString(r.subnet() + " " + r.rangeStart() + " " + r.rangeEnd() + " "
                        + r.gateway()));
            }
            out.add(new JsonArray(ranges));
        }
        return new JsonArray(out);
    }

    /** Refuses ranges that share an address with another network's registered ranges (code 7). */
    private void checkOverlaps(JsonObject networks, List<RangeSet> sets) throws IpamException {
        for (Map.Entry<String, Json> entry : new LinkedHashMap<>(networks.members()).entrySet()) {
            if (entry.getKey().equals(network)) {
                continue;
            }
            if (!(entry.getValue() instanceof JsonArray theirSets)) {
                throw corrupt(registryKey(), "names network " + entry.getKey() + " without ranges");
            }
            for (Json theirSet : theirSets.elements()) {
                if (!(theirSet instanceof JsonArray theirRanges)) {
                    throw corrupt(registryKey(), "names network " + entry.getKey() + " without ranges");
                }
                for (Json text : theirRanges.elements()) {
                    IpRange theirs = parseRange(text);
                    for (int i = 0; i < sets.size(); i++) {
                        for (IpRange r : sets.get(i).ranges()) {
                            if (r.isV6() == theirs.isV6() && r.overlaps(theirs)) {
                                throw new IpamException(Reason.INVALID_RANGE, "range set " + i + " (" + r
                                        + ") overlaps range " + theirs + " of network \"" + entry.getKey()
                                        + "\" in the same etcd prefix");
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Before the network's ranges are registered anew (its first ADD, or a range change): refuses (code 7) while the
     * network holds an address outside the new ranges, and adds to {@code write} that this is still so when it
     * commits. Otherwise the old range would stop counting as taken: another network could be accepted on it and
     * hand out an address still held here (issue 23). The reservations must be released (DEL) first.
     *
     * <p>The network's address keys outside the ranges are the gaps between them in the key space of {@code ip/}
     * (fixed-width hex, so key order is address order, IPv4 before IPv6): one read with a range per gap, at one
     * revision, and one compare per gap that no key appeared there since.
     */
    private void requireNothingOutside(List<RangeSet> sets, Txn write) throws IpamException {
        List<IpRange> ranges = new ArrayList<>();
        for (RangeSet set : sets) {
            ranges.addAll(set.ranges());
        }
        ranges.sort(BY_KEY);
        List<String> gaps = new ArrayList<>(); // start, end (exclusive), start, end, ...
        String from = root + "ip/";
        for (IpRange r : ranges) {
            String start = ipKey(r.rangeStart());
            if (from.compareTo(start) < 0) {
                gaps.add(from);
                gaps.add(start);
            }
            String after = ipKey(r.rangeEnd()) + "\0";
            if (after.compareTo(from) > 0) {
                from = after;
            }
        }
        gaps.add(from);
        gaps.add(EtcdClient.prefixEnd(root + "ip/"));
        if (gaps.size() / 2 > MAX_TXN_OPS / 2) {
            throw new IpamException(Reason.INVALID_RANGE, "cluster-ipam: " + ranges.size() + " ranges are more than"
                    + " a change of them can be checked for in one etcd transaction");
        }
        Txn read = new Txn();
        for (int i = 0; i < gaps.size(); i += 2) {
            read.range(gaps.get(i), gaps.get(i + 1), false, 1);
        }
        TxnResult found = call(read);
        for (int i = 0; i < gaps.size() / 2; i++) {
            List<Kv> held = found.range(i);
            if (!held.isEmpty()) {
                Kv kv = held.getFirst();
                IpAddress ip = parseHex(kv.key);
                String[] holder = new String(kv.value, StandardCharsets.UTF_8).split("\n");
                throw new IpamException(Reason.INVALID_RANGE, "cluster-ipam: network \"" + network + "\" still holds "
                        + (ip == null ? kv.key : ip.toString()) + (holder.length == 3 ? " (container " + holder[1]
                        + ", " + holder[2] + " on node " + holder[0] + ")" : "") + " outside its new ranges "
                        + encode(sets) + "; its ranges cannot change until every address outside them is released"
                        + " (DEL)");
            }
            write.unchangedSince(gaps.get(2 * i), gaps.get(2 * i + 1), found.revision);
        }
    }

    /** Ranges in the order of their address keys: IPv4 first, then by start. */
    private static final Comparator<IpRange> BY_KEY = new Comparator<IpRange>() {
        @Override
        public int compare(IpRange a, IpRange b) {
            return a.isV6() != b.isV6() ? (a.isV6() ? 1 : -1) : a.rangeStart().compareTo(b.rangeStart());
        }
    };

    private IpRange parseRange(Json text) throws IpamException {
        if (text instanceof JsonString s) {
            String[] parts = s.value().split(" ");
            if (parts.length == 4) {
                try {
                    IpPrefix subnet = IpPrefix.parse(parts[0], "range");
                    Optional<IpAddress> start = IpAddress.parse(parts[1]);
                    Optional<IpAddress> end = IpAddress.parse(parts[2]);
                    Optional<IpAddress> gw = IpAddress.parse(parts[3]);
                    if (start.isPresent() && end.isPresent() && gw.isPresent()) {
                        return new IpRange(subnet, start.get(), end.get(), gw.get());
                    }
                } catch (CniException e) {
                    // reported below
                }
            }
        }
        throw corrupt(registryKey(), "holds a range that cannot be read: " + printable(text.toString()));
    }

    // ---------------------------------------------------------------------------------------------- plumbing

    private TxnResult call(Txn txn) throws IpamException {
        try {
            return etcd.txn(txn);
        } catch (EtcdException e) {
            throw failure(e);
        }
    }

    /** Runs a write; false if a compare failed. A lease that expired in between is granted again on the retry. */
    private boolean commit(Txn write) throws IpamException {
        try {
            return etcd.txn(write).succeeded;
        } catch (EtcdException e) {
            if (e.getMessage().contains("lease not found")) {
                grantedLease = 0;
                return false;
            }
            throw failure(e);
        }
    }

    private void backoff(int attempt) {
        long micros = random.nextLong(200L + 100L * Math.min(attempt, 50));
        try {
            Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static IpamException failure(EtcdException e) {
        Reason reason = switch (e.kind()) {
            case UNAVAILABLE -> Reason.STORE_UNAVAILABLE;
            case AUTH, CONFIG -> Reason.STORE_REFUSED;
            case CORRUPT -> Reason.STORE_CORRUPT;
            default -> Reason.STORE_FAILURE;
        };
        return new IpamException(reason, "cluster-ipam: " + e.getMessage(), e);
    }

    private static IpamException corrupt(String key, String problem) {
        return new IpamException(Reason.STORE_CORRUPT, "cluster-ipam: etcd key " + printable(key) + " " + problem
                + "; nothing was changed (remove or repair the key)");
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder(Math.min(s.length(), 100));
        for (int i = 0; i < s.length() && i < 100; i++) {
            char c = s.charAt(i);
            sb.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return s.length() > 100 ? sb + "..." : sb.toString();
    }

    /** Container IDs and interface names become key segments: no slash, no line break, not empty. */
    private static void checked(Attachment who) throws IpamException {
        for (String s : List.of(who.containerId(), who.ifname())) {
            if (s.isEmpty() || s.indexOf('/') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0
                    || s.indexOf('\0') >= 0) {
                throw new IpamException(Reason.INVALID_ARGUMENT, "container ID \"" + printable(who.containerId())
                        + "\" or interface name \"" + printable(who.ifname())
                        + "\" cannot be stored: empty, or with a slash, NUL or line break");
            }
        }
    }

    /**
     * Imports one host-local reservation as this node's: address and owner keys in one transaction, if neither
     * exists. Returns false if the address is held by someone else in etcd (the caller reports it).
     */
    boolean importReservation(IpAddress ip, Attachment who) throws IpamException {
        checked(who);
        String ownerKey = ownerKey(node, who);
        for (int attempt = 0; attempt < 8; attempt++) {
            TxnResult state = call(new Txn().range(ipKey(ip), null, false, 0).range(ownerKey, null, false, 0));
            List<Kv> ipKv = state.range(0);
            if (!ipKv.isEmpty()) {
                return java.util.Arrays.equals(ipKv.getFirst().value, holder(who));
            }
            List<Kv> ownerKv = state.range(1);
            List<IpAddress> held = new ArrayList<>(ownerKv.isEmpty() ? List.of() : parseOwner(ownerKv.getFirst()));
            held.add(ip);
            Txn write = new Txn().absent(ipKey(ip)).put(ipKey(ip), holder(who), 0)
                    .modRevision(ownerKey, ownerKv.isEmpty() ? 0 : ownerKv.getFirst().modRevision)
                    .put(ownerKey, ownerValue(held), 0).put(memberKey(node), new byte[0], 0);
            if (commit(write)) {
                return true;
            }
        }
        return false;
    }

    /** With {@code importHostLocal}: this node's host-local reservations are imported before anything else. */
    private void ensureImported() throws IpamException {
        if (settings.importHostLocal() != null
                && call(new Txn().range(importedKey(node), null, true, 0)).range(0).isEmpty()) {
            HostLocalImport.run(this, settings.importHostLocal().resolve(network));
        }
    }

    /** Marks this node's host-local import done ({@code imported/<node>}), with what it could not import. */
    void importDone(String report) throws IpamException {
        commit(new Txn().put(importedKey(node), report.getBytes(StandardCharsets.UTF_8), 0));
    }

    @Override
    public void close() {
        etcd.close();
    }
}
