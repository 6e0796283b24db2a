package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamStore;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeAllocator;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.IpPrefix;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The cluster IPAM store: one network's reservations in etcd, shared by every node. See the package documentation
 * for the key layout and the allocation protocol; in short, every change is one compare-and-swap transaction (no
 * lock is held across the network), an attachment's addresses and its owner record are created and deleted
 * together, and a node allocates from blocks it claimed (one transaction) before it borrows from anyone's.
 *
 * <p>The parts: {@link ClusterKeys} (key layout and values), {@link AllocationRead} (what an ADD works from), {@link
 * NodeView} (what this JVM's ADDs of the node read before, kept between calls), {@link
 * RangeRegistry} (the networks' ranges), {@link Blocks} (where a free address is found), {@link NodeLiveness},
 * {@link Reclaim} (DEL and GC) and {@link ClusterEtcd} (transactions, lost races, the call's lease). This class runs
 * the operations of {@link IpamStore} over them.
 *
 * <p>One instance serves one plugin call (its {@link EtcdClient} carries the call's deadline). Not thread-safe; the
 * {@link NodeView} it shares with the JVM's other calls is, and so is the {@link QuorumRead} (in the view) through
 * which this node's concurrent warm ADDs share the read that precedes their write.
 */
public final class ClusterStore implements IpamStore {
    /** Writes that lose a race are retried from a fresh read this many times (each loss means another call won). */
    static final int MAX_ATTEMPTS = 400;

    private final ClusterEtcd etcd;
    private final ClusterKeys keys;
    private final Settings settings;
    private final String network;
    private final String node;
    private final RangeRegistry registry;
    private final Blocks blocks;
    private final NodeLiveness liveness;
    private final Reclaim reclaim;
    private final NodeView view;

    /** What a store needs beside etcd: who this node is, block sizes and node liveness. */
    public record Settings(String node, int blockSizeV4, int blockSizeV6, long nodeTtlSeconds,
            List<IpPrefix> exclude, Path importHostLocal) {
        /** A random source for one call (or claim ahead) of this node: nodes and calls start apart. */
        SplittableRandom random() {
            return new SplittableRandom(System.nanoTime() ^ ((long) node.hashCode() << 32));
        }
    }

    ClusterStore(EtcdClient client, String prefix, String network, Settings settings, NodeView view) {
        SplittableRandom random = settings.random();
        // The node's calls prove a quorum to each other with every request answered, not only with the shared read.
        this.etcd = new ClusterEtcd(client, random, view.quorumRead(client.config()));
        this.keys = new ClusterKeys(prefix, network);
        this.settings = settings;
        this.network = network;
        this.node = settings.node();
        this.registry = new RangeRegistry(etcd, keys, network);
        this.view = view;
        this.blocks = new Blocks(etcd, keys, settings, random, view);
        this.liveness = new NodeLiveness(etcd, keys, node, settings.nodeTtlSeconds());
        this.reclaim = new Reclaim(etcd, keys, node);
    }

    static ClusterStore open(EtcdConfig config, String network, Settings settings) {
        return new ClusterStore(EtcdClient.open(config), config.prefix(), network, settings,
                NodeView.of(config, network, settings.node()));
    }

    // ---------------------------------------------------------------------------------------------- ADD

    /**
     * One compare-and-swap write, from what the node's {@link NodeView} knows when this JVM made calls before (the
     * plugin service), else from one read; the rules of {@link RangeAllocator} decide on it. A write that loses its
     * race (or finds the view stale) returns in its failure branch what the next attempt needs, so each retry is one
     * transaction again.
     */
    @Override
    public List<Allocation> allocate(Attachment who, List<RangeSet> rangeSets, List<IpAddress> requested,
            OnExisting onExisting) throws IpamException {
        checked(who);
        ensureImported();
        AllocationRead read = view.assumed(requested);
        boolean refilling = false;
        try {
            for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
                if (read == null && !refilling) {
                    // The view cannot serve this call: one call of the node reads (and claims) at a time, the
                    // others wait for it and try the view again (NodeView.refill).
                    if (refill()) {
                        refilling = true;
                    } else {
                        Timing.phase("wait");
                        if (System.nanoTime() - etcd.deadline() < 0) {
                            read = view.assumed(requested);
                        }
                    }
                }
                if (read == null) {
                    read = AllocationRead.of(etcd, keys, node, who, requested);
                    view.install(read);
                    Timing.phase("read");
                }
                Plan plan = plan(read, who, rangeSets, requested, onExisting);
                if (plan == null || (!plan.changes && read.assumed())) {
                    // An error, or nothing to write, is answered from what etcd holds, never from the view: read,
                    // and decide again.
                    read = null;
                    continue;
                }
                if (!plan.changes) {
                    return plan.out;
                }
                TxnResult result = send(plan, read, who, requested);
                Timing.phase("txn");
                if (result != null && result.succeeded) {
                    remember(result.revision, read, plan.registers, plan.beat, plan.claims, plan.out);
                    if (read.assumed()) {
                        claimAheadIfLow(rangeSets);
                    }
                    return plan.out;
                }
                boolean wasAssumed = read.assumed();
                read = result == null ? null : learn(result, plan, requested);
                if (!wasAssumed) {
                    // A stale view is not a lost race: its retry goes at once.
                    etcd.backoff(attempt);
                }
            }
        } finally {
            if (refilling) {
                view.refillEnded();
            }
        }
        throw new IpamException(Reason.STORE_UNAVAILABLE, "cluster-ipam: " + MAX_ATTEMPTS
                + " allocation attempts lost their race in etcd; try again");
    }

    /**
     * After a warm ADD: a block claimed ahead of need ({@link PreClaim}, on a thread of its own) if the node's blocks
     * of one of the sets run low, so that a later ADD does not have to.
     */
    private void claimAheadIfLow(List<RangeSet> rangeSets) {
        AllocationRead now = view.assumed(List.of());
        for (RangeSet set : rangeSets) {
            PreClaim.ifRunningLow(etcd.config(), keys, settings, view, blocks, set, now, liveness.enabled());
        }
    }

    /** {@link NodeView#refill} until this call's deadline; a call cancelled while it waits fails as etcd's would. */
    private boolean refill() throws IpamException {
        try {
            return view.refill(etcd.deadline());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IpamException(Reason.STORE_UNAVAILABLE, "cluster-ipam: the call was cancelled while it waited"
                    + " for another call of this node to read etcd");
        }
    }

    /** One attempt's write, and what the allocation rules decided for it. */
    private static final class Plan {
        final Txn write = new Txn();
        /** Blocks the write claims for this node. */
        final List<IpAddress> claims = new ArrayList<>();
        /** This node's blocks the new allocations took from, and their prefix lengths (filled by send). */
        final List<IpAddress> touched = new ArrayList<>(2);
        final List<Integer> lengths = new ArrayList<>(2);
        List<Allocation> out;
        /** The registry's value the write puts (it registers the ranges), null if none. */
        byte[] registers;
        /** The liveness value the write refreshes, null if none. */
        byte[] beat;
        /** The write changes anything at all. */
        boolean changes;
    }

    /**
     * Decides the allocation from {@code read} and builds the write that makes it; null if the rules refused while
     * {@code read} came from the view and not from etcd (the next attempt reads).
     */
    private Plan plan(AllocationRead read, Attachment who, List<RangeSet> rangeSets, List<IpAddress> requested,
            OnExisting onExisting) throws IpamException {
        Plan plan = new Plan();
        List<IpAddress> held;
        try {
            // Every write compares the registry it read: an address is taken only while its ranges are registered.
            if (!read.assumed()) {
                plan.registers = registry.register(read.registry(), rangeSets, plan.write);
            } else if (!registry.registeredAsRead(read.registry(), rangeSets, plan.write)) {
                // A registration first reads etcd (what lies outside the new ranges), and the view never reads: the
                // next attempt reads, or waits for the node's call that does. (A view installed by a call that is
                // about to register the network, before its write, lacks the network.)
                return null;
            }
            // What the attachment already holds (an ADD repeated, or a retry after a lost race).
            held = ClusterKeys.parseOwner(read.owner());
            plan.write.modRevision(keys.owner(node, who), AllocationRead.revisionOf(read.owner()));
            plan.beat = guardView(read, plan.write);
            plan.out = RangeAllocator.allocate(who.containerId(), rangeSets, requested, held, onExisting,
                    new Pool(read, plan.write, plan.claims));
        } catch (IpamException e) {
            if (read.assumed() && !fromEtcd(e)) {
                return null;
            }
            throw e;
        }
        plan.changes = reserve(who, held, plan.out, plan.write) | plan.registers != null | plan.beat != null;
        return plan;
    }

    /**
     * Sends the plan's write, with the reads its failure branch answers (what the next attempt needs: the
     * attachment's keys and the blocks it touched); null if etcd did not answer.
     */
    private TxnResult send(Plan plan, AllocationRead read, Attachment who, List<IpAddress> requested)
            throws IpamException {
        touchedBlocks(read, plan.out, plan.touched, plan.lengths);
        AllocationRead.addOnFailure(plan.write, keys, node, who, requested);
        for (int k = 0; k < plan.touched.size(); k++) {
            blocks.readOnFailure(plan.write, plan.touched.get(k), plan.lengths.get(k));
        }
        if (read.assumed()) {
            // Nothing was read for this write, so first one linearizable read (this node's liveness key), which
            // needs a quorum. Without a quorum a write sent blind waits in a lone member's log and can commit once
            // the quorum is back, after this call answered code 11: an address that no attachment holds (seen in
            // ClusterIpamExecTest through the service). The read fails here instead, and nothing is proposed. Its
            // answer is not used, so this node's concurrent ADDs share it: any read sent after this call began (or
            // just before: QuorumRead's grace) proves the quorum for it as well.
            Timing.phase("plan");
            etcd.quorum(keys.node(node));
            Timing.phase("quorum");
        }
        // From the view nothing else was read: a write that a follower forwarded to a stopped leader is given up
        // quickly, and the next attempt reads (waiting out the election) instead of waiting for the write.
        return etcd.attempt(plan.write, read.assumed());
    }

    /** The read a lost write's failure branch returned, installed in the view, its blocks learned. */
    private AllocationRead learn(TxnResult result, Plan plan, List<IpAddress> requested) throws IpamException {
        AllocationRead read = AllocationRead.parse(result, requested);
        view.install(read);
        for (int k = 0; k < plan.touched.size(); k++) {
            blocks.learn(plan.touched.get(k), plan.lengths.get(k),
                    result.range(AllocationRead.after(requested) + k), result.revision);
        }
        return read;
    }

    /**
     * Adds to {@code write} the compares of what the attempt's view of this node rests on (no affinity key of this
     * node written since the view's revision, its liveness key as read), and the liveness refresh if due; the value
     * that refresh writes, null if none.
     */
    private byte[] guardView(AllocationRead read, Txn write) throws IpamException {
        read.compareNode(write, keys, node, liveness.enabled());
        return liveness.refresh(read.liveness(), write);
    }

    /** An etcd failure (unreachable, refused, unreadable answer), as opposed to an answer of the rules. */
    private static boolean fromEtcd(IpamException e) {
        return e.reason() == Reason.STORE_UNAVAILABLE || e.reason() == Reason.STORE_REFUSED
                || e.reason() == Reason.STORE_FAILURE;
    }

    /** The blocks of this node that the new allocations took from, with their prefix lengths. */
    private void touchedBlocks(AllocationRead read, List<Allocation> out, List<IpAddress> touched,
            List<Integer> lengths) {
        for (Allocation allocation : out) {
            if (allocation.existing()) {
                continue;
            }
            IpAddress b = blocks.blockOf(allocation.address(), allocation.range());
            if (read.myBlocks().contains(b) && !touched.contains(b)) {
                touched.add(b);
                lengths.add(blocks.blockLength(allocation.range()));
            }
        }
    }

    /** Tells the view what a committed allocation left in etcd. */
    private void remember(long revision, AllocationRead read, byte[] registered, byte[] beat, List<IpAddress> claims,
            List<Allocation> out) {
        if (beat != null && read.liveness() == null && read.assumed()) {
            // The view said the liveness key had lapsed (another node's GC may have released this node's blocks
            // since the view was read): the next ADD reads. After a read of this attempt the write's compares
            // proved its blocks unchanged up to the commit, so the view below is what etcd holds; so is the
            // registry this write put (the first ADDs of a new node or network keep their view).
            view.forget();
            return;
        }
        Kv registryAfter = registered == null ? read.registry() : new Kv(keys.registry(), registered, 0, revision, 0);
        Kv livenessAfter = beat == null ? read.liveness() : new Kv(keys.node(node), beat, 0, revision, 0);
        List<IpAddress> blocksAfter = new ArrayList<>(read.myBlocks());
        blocksAfter.addAll(claims);
        List<IpAddress> taken = new ArrayList<>(out.size());
        for (Allocation allocation : out) {
            if (!allocation.existing()) {
                taken.add(allocation.address());
            }
        }
        view.committed(revision, registryAfter, livenessAfter, blocksAfter, taken);
    }

    /** Adds to {@code write} the address keys of the new allocations and the owner key naming all; whether any. */
    private boolean reserve(Attachment who, List<IpAddress> held, List<Allocation> allocations, Txn write) {
        List<IpAddress> all = new ArrayList<>(held);
        for (Allocation allocation : allocations) {
            if (!allocation.existing()) {
                IpAddress ip = allocation.address();
                write.absent(keys.ip(ip)).put(keys.ip(ip), ClusterKeys.holder(node, who), 0);
                all.add(ip);
            }
        }
        if (all.size() == held.size()) {
            return false;
        }
        write.put(keys.owner(node, who), ClusterKeys.ownerValue(all), 0);
        return true;
    }

    /** What the allocation rules ask of one attempt: answered from its read, new blocks claimed in its write. */
    private final class Pool implements RangeAllocator.Pool<RuntimeException> {
        private final AllocationRead read;
        private final Txn write;
        private final List<IpAddress> claims;

        Pool(AllocationRead read, Txn write, List<IpAddress> claims) {
            this.read = read;
            this.write = write;
            this.claims = claims;
        }

        @Override
        public String refusal(IpAddress ip) {
            return blocks.excluded(ip) ? "is excluded by ipam.exclude" : null;
        }

        /** Free if its key was absent at the read (the write compares that it still is). */
        @Override
        public boolean takeRequested(int setIndex, RangeSet set, IpAddress ip) {
            return read.free(ip);
        }

        @Override
        public IpAddress takeNext(int setIndex, RangeSet set) throws IpamException {
            // An attempt from the view reads nothing: with no free address the view knows of, it gives up (the
            // allocator answers "none available") and the next attempt reads.
            return blocks.next(set, read.myBlocks(), write, claims, read.assumed());
        }
    }

    // ---------------------------------------------------------------------------------------------- CHECK, DEL, GC

    @Override
    public List<Reservation> find(Attachment who) throws IpamException {
        checked(who);
        ensureImported();
        List<Kv> ownerKv = etcd.range(keys.owner(node, who), null, false);
        List<Reservation> out = new ArrayList<>();
        if (ownerKv.isEmpty()) {
            return out;
        }
        List<IpAddress> held = ClusterKeys.parseOwner(ownerKv.getFirst());
        Txn read = new Txn();
        for (IpAddress ip : held) {
            read.range(keys.ip(ip), null, false, 0);
        }
        TxnResult values = etcd.call(read);
        byte[] mine = ClusterKeys.holder(node, who);
        for (int i = 0; i < held.size(); i++) {
            List<Kv> kv = values.range(i); // the key of held.get(i)
            if (!kv.isEmpty() && Arrays.equals(kv.getFirst().value, mine)) {
                out.add(new Reservation(held.get(i), who.containerId(), who.ifname()));
            }
        }
        return out;
    }

    @Override
    public List<IpAddress> release(Attachment who) throws IpamException {
        checked(who);
        ensureImported();
        List<IpAddress> released = reclaim.releaseOwner(keys.owner(node, who), node, who, null);
        view.released(released);
        return released;
    }

    /**
     * Releases this node's reservations whose attachment is not in {@code valid}; then, if node liveness is on, the
     * reservations and block claims of every node whose liveness key has expired.
     */
    @Override
    public List<Reservation> gc(Collection<Attachment> valid) throws IpamException {
        ensureImported();
        List<Reservation> released = reclaim.invalid(valid);
        liveness.heartbeat();
        if (liveness.enabled()) {
            released.addAll(reclaim.vanishedNodes());
        }
        List<IpAddress> freed = new ArrayList<>(released.size());
        for (Reservation reservation : released) {
            freed.add(reservation.address());
        }
        view.released(freed);
        return released;
    }

    /** Writes this node's liveness if due (STATUS): a heartbeat without an allocation. */
    public void heartbeat() throws IpamException {
        liveness.heartbeat();
    }

    /** Container IDs and interface names become key segments: no slash, no line break, not empty. */
    private static void checked(Attachment who) throws IpamException {
        for (String s : List.of(who.containerId(), who.ifname())) {
            if (s.isEmpty() || s.indexOf('/') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0
                    || s.indexOf('\0') >= 0) {
                throw new IpamException(Reason.INVALID_ARGUMENT, "container ID \""
                        + ClusterEtcd.printable(who.containerId()) + "\" or interface name \""
                        + ClusterEtcd.printable(who.ifname()) + "\" cannot be stored: empty, or with a slash, NUL or"
                        + " line break");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- import

    /**
     * Imports one host-local reservation as this node's: address and owner keys in one transaction, if neither
     * exists. Returns false if the address is held by someone else in etcd (the caller reports it).
     */
    boolean importReservation(IpAddress ip, Attachment who) throws IpamException {
        checked(who);
        String ownerKey = keys.owner(node, who);
        byte[] holder = ClusterKeys.holder(node, who);
        for (int attempt = 0; attempt < 8; attempt++) {
            TxnResult state = etcd.call(new Txn().range(keys.ip(ip), null, false, 0).range(ownerKey, null, false, 0));
            List<Kv> ipKv = state.range(0);
            List<Kv> ownerKv = state.range(1);
            if (!ipKv.isEmpty()) {
                return Arrays.equals(ipKv.getFirst().value, holder);
            }
            List<IpAddress> held = ClusterKeys.parseOwner(ownerKv.isEmpty() ? null : ownerKv.getFirst());
            held.add(ip);
            Txn write = new Txn().absent(keys.ip(ip)).put(keys.ip(ip), holder, 0)
                    .modRevision(ownerKey, ownerKv.isEmpty() ? 0 : ownerKv.getFirst().modRevision)
                    .put(ownerKey, ClusterKeys.ownerValue(held), 0).put(keys.member(node), new byte[0], 0);
            if (etcd.commit(write)) {
                return true;
            }
        }
        return false;
    }

    /** With {@code importHostLocal}: this node's host-local reservations are imported before anything else. */
    private void ensureImported() throws IpamException {
        if (settings.importHostLocal() == null || view.imported()) {
            return;
        }
        if (etcd.range(keys.imported(node), null, true).isEmpty()) {
            HostLocalImport.run(this, settings.importHostLocal().resolve(network));
        }
        view.importedDone();
    }

    /** Marks this node's host-local import done ({@code imported/<node>}), with what it could not import. */
    void importDone(String report) throws IpamException {
        etcd.commit(new Txn().put(keys.imported(node), report.getBytes(StandardCharsets.UTF_8), 0));
    }

    /** The requests this store sent to etcd so far (tests count round trips with it). */
    int etcdRequests() {
        return etcd.requests();
    }

    @Override
    public void close() {
        etcd.close();
    }
}
