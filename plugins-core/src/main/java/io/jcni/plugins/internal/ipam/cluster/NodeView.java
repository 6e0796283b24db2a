package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What one node's ADDs read from etcd, kept between the calls of a long-lived JVM (the plugin service, a host of
 * {@code Plugins.inProcess()}) so that the common ADD is one transaction: the network registry, this node's liveness
 * key, its claimed blocks and the address keys in them. An exec'd plugin makes one call and starts with an empty view:
 * it reads everything, as it always did.
 *
 * <p><b>Process-wide state, on purpose</b> (a service-lifetime cache, as {@code EtcdClient}'s list of failing
 * endpoints): one view per etcd endpoints, prefix, network and node, at most {@value #MAX_VIEWS} of them (past that
 * all are dropped and read again). Every method on the view is synchronized; what a call works on is a copy ({@link
 * #assumed}). It also holds the node's {@link QuorumRead}s, so that only calls on the same node and network share one.
 *
 * <p><b>Nothing here is trusted for uniqueness.</b> An address is handed out only by a transaction that compares its
 * key absent, as without the view. The view only chooses what to try, and the transaction that commits the
 * allocation also compares what the view was read from: the registry's and the liveness key's mod revisions, and that
 * no affinity key of this node changed since the view's revision (so no block was claimed behind its back; a claim is
 * released only by the reclaim of a vanished node, which needs the liveness key gone, and that changes its revision).
 * When a compare fails (the view was stale: an exec'd call of this node, another node borrowing from its blocks, a
 * DEL elsewhere), the same transaction's failure branch returns what the next attempt needs, so a stale view costs one
 * more transaction, never a duplicate. A view that says an address is used when it was freed (a DEL by an exec'd call)
 * only makes a block look fuller: when every block looks full, the blocks are read again before a new block is
 * claimed or an address borrowed.
 */
final class NodeView {
    /** Views kept at most (networks × nodes × etcd clusters a JVM serves); past that the map starts afresh. */
    static final int MAX_VIEWS = 256;

    private static final ConcurrentHashMap<String, NodeView> VIEWS = new ConcurrentHashMap<>();

    /** The used addresses of one block (sorted), as read at {@code revision} and changed by this JVM since. */
    static final class Usage {
        final int length;
        final List<IpAddress> used;
        final long revision;

        Usage(int length, List<IpAddress> used, long revision) {
            this.length = length;
            this.used = used;
            this.revision = revision;
        }
    }

    // Guarded by this.
    private boolean known;
    private Kv registry;
    private Kv liveness;
    private List<IpAddress> blocks = List.of();
    private long revision;
    private final Map<IpAddress, Usage> usage = new HashMap<>();
    private boolean imported;
    /** A call of this JVM reads etcd for the node because the view could not serve it ({@link #refill}). */
    private boolean refilling;
    /** Refills ended so far. */
    private long refills;
    /** A block is being claimed ahead of need ({@link PreClaim}). */
    private boolean preclaiming;
    /** No claim ahead of need before this ({@link System#nanoTime()}): the last one found no block, or failed. */
    private long preclaimNotBefore = System.nanoTime();

    /**
     * The quorum reads this node's warm ADDs share ({@link QuorumRead}), one per TLS and credentials files: a call
     * counts only on a read that it would have sent itself, the same request with the same identity.
     */
    private final ConcurrentHashMap<String, QuorumRead> quorumReads = new ConcurrentHashMap<>(2);

    /** The view of {@code node} in {@code network} of the etcd cluster and prefix of {@code config}. */
    static NodeView of(EtcdConfig config, String network, String node) {
        StringBuilder sb = new StringBuilder(config.prefix()).append('\n').append(network).append('\n').append(node);
        for (EtcdConfig.Endpoint e : config.endpoints()) {
            sb.append('\n').append(e.tls()).append(' ').append(e.host()).append(' ').append(e.port());
        }
        String key = sb.toString();
        NodeView view = VIEWS.get(key);
        if (view == null) {
            if (VIEWS.size() >= MAX_VIEWS) {
                VIEWS.clear();
            }
            NodeView fresh = new NodeView();
            view = VIEWS.putIfAbsent(key, fresh);
            if (view == null) {
                view = fresh;
            }
        }
        return view;
    }

    /**
     * An ADD's first attempt from the view: the attachment's owner key assumed absent and the requested addresses
     * free (the transaction compares both); null when the view was never read (then the caller reads).
     */
    synchronized AllocationRead assumed(List<IpAddress> requested) {
        if (!known) {
            return null;
        }
        List<Kv> holders = new ArrayList<>(requested.size());
        for (int i = 0; i < requested.size(); i++) {
            holders.add(null);
        }
        return new AllocationRead(registry, null, blocks, liveness, List.copyOf(requested), holders, revision, true);
    }

    /** What an attempt read from etcd (at {@code read.revision()}), unless the view already holds something newer. */
    synchronized void install(AllocationRead read) {
        if (known && read.revision() <= revision) {
            return;
        }
        known = true;
        registry = read.registry();
        liveness = read.liveness();
        blocks = List.copyOf(read.myBlocks());
        revision = read.revision();
        usage.keySet().retainAll(blocks);
    }

    /**
     * An allocation committed at {@code committed}: the registry and liveness key as it left them, this node's
     * blocks with those it claimed, and the addresses it took.
     */
    synchronized void committed(long committed, Kv registryAfter, Kv livenessAfter, List<IpAddress> blocksAfter,
            List<IpAddress> taken) {
        if (!known || committed > revision) {
            known = true;
            registry = registryAfter;
            liveness = livenessAfter;
            blocks = List.copyOf(blocksAfter);
            revision = committed;
        }
        for (IpAddress ip : taken) {
            mark(ip, true);
        }
    }

    /** The blocks' usage this view knows (a copy). */
    synchronized Map<IpAddress, Usage> usage() {
        return new HashMap<>(usage);
    }

    /** The used addresses of {@code block} (of prefix length {@code length}) as read at {@code at}. */
    synchronized void usage(IpAddress block, int length, List<IpAddress> used, long at) {
        Usage old = usage.get(block);
        if (old == null || old.length != length || at >= old.revision) {
            usage.put(block, new Usage(length, List.copyOf(used), at));
        }
    }

    /** An attempt of this JVM is about to take {@code ip}: other calls here choose another address meanwhile. */
    synchronized void pending(IpAddress ip) {
        mark(ip, true);
    }

    /** Addresses a DEL or GC of this JVM released. */
    synchronized void released(List<IpAddress> ips) {
        for (IpAddress ip : ips) {
            mark(ip, false);
        }
    }

    /** Forgets everything but the import mark: the next ADD reads from etcd. */
    synchronized void forget() {
        known = false;
        usage.clear();
    }

    /** The quorum read shared by this node's warm ADDs that reach etcd as {@code config} says. */
    QuorumRead quorumRead(EtcdConfig config) {
        String access = new StringBuilder().append(config.certFile()).append('\n').append(config.keyFile())
                .append('\n').append(config.trustedCaFile()).append('\n').append(config.credentialsFile()).toString();
        // No computeIfAbsent: a lambda here would be an invokedynamic bootstrap on the start-up path.
        QuorumRead read = quorumReads.get(access);
        if (read == null) {
            QuorumRead fresh = new QuorumRead();
            read = quorumReads.putIfAbsent(access, fresh);
            if (read == null) {
                read = fresh;
            }
        }
        return read;
    }

    /**
     * A call that the view cannot serve (never read, or no free address known in the node's blocks) is about to read
     * etcd, and perhaps claim a block: true if it is to do so now, for the node's other calls too (it then calls
     * {@link #refillEnded}); false once the refill of another call that was under way has ended, or at {@code
     * deadline} ({@link System#nanoTime()}): the caller then tries the view again (or, past its deadline, reads as
     * if nobody refilled). Concurrent ADDs that find a node's blocks full, or a node or network that is new, would
     * otherwise all read at once and race each other for the same block (one wins, the others retry): the slowest
     * calls of a burst.
     */
    synchronized boolean refill(long deadline) throws InterruptedException {
        if (!refilling) {
            refilling = true;
            return true;
        }
        long seen = refills;
        while (refills == seen) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return false;
    }

    /** The refill of {@link #refill} ended (the call succeeded, failed or gave up): waiting calls try the view. */
    synchronized void refillEnded() {
        refilling = false;
        refills++;
        notifyAll();
    }

    /**
     * A warm ADD found the node's blocks running low: true if it is to claim a block ahead of need now ({@link
     * PreClaim}, which then calls {@link #preclaimEnded}); false while one is under way, or for a while after one
     * found no block to claim or failed.
     */
    synchronized boolean startPreclaim() {
        if (preclaiming || System.nanoTime() - preclaimNotBefore < 0) {
            return false;
        }
        preclaiming = true;
        return true;
    }

    /** Whether a claim ahead of need is under way (tests wait for it). */
    synchronized boolean claimingAhead() {
        return preclaiming;
    }

    /** The claim of {@link #startPreclaim} ended; the next may start {@code holdOffNanos} from now. */
    synchronized void preclaimEnded(long holdOffNanos) {
        preclaiming = false;
        preclaimNotBefore = System.nanoTime() + holdOffNanos;
    }

    /**
     * {@code block} was claimed for this node at {@code committed} by a write that compared this node's affinity keys
     * unchanged since the revision of the view it started from: the view's blocks plus this one are what etcd held at
     * {@code committed}, and at any later revision (only the reclaim of a vanished node releases a claim, and that
     * changes the liveness key every write compares). A view forgotten meanwhile stays so: its next read finds it.
     */
    synchronized void claimed(long committed, IpAddress block) {
        if (!known) {
            return;
        }
        if (!blocks.contains(block)) {
            List<IpAddress> more = new ArrayList<>(blocks);
            more.add(block);
            blocks = List.copyOf(more);
        }
        revision = Math.max(revision, committed);
    }

    synchronized boolean imported() {
        return imported;
    }

    synchronized void importedDone() {
        imported = true;
    }

    /** Marks {@code ip} used or free in the block of the view that holds it, if any. */
    private void mark(IpAddress ip, boolean used) {
        for (Map.Entry<IpAddress, Usage> e : usage.entrySet()) {
            IpAddress block = e.getKey();
            Usage u = e.getValue();
            if (block.v6() != ip.v6() || !block.equals(ip.masked(u.length))) {
                continue;
            }
            List<IpAddress> list = new ArrayList<>(u.used);
            int at = Collections.binarySearch(list, ip);
            if (used && at < 0) {
                list.add(-at - 1, ip);
            } else if (!used && at >= 0) {
                list.remove(at);
            } else {
                return;
            }
            e.setValue(new Usage(u.length, List.copyOf(list), u.revision));
            return;
        }
    }
}
