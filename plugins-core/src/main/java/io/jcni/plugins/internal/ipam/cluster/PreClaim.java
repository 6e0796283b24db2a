package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The claim of a block ahead of need, off the ADDs' path: when a warm ADD of the plugin service leaves fewer free
 * addresses in the node's blocks than a quarter of a block ({@link Blocks#runningLow}), a thread of its own claims
 * the next block, so that the node's later ADDs find it in the view instead of one of them reading the blocks,
 * claiming one and writing while the others wait ({@link NodeView#refill}: three or four requests in a row, under a
 * burst the slowest calls but the very first).
 *
 * <p>The claim is the one an ADD makes ({@link Blocks#claimBlock}: the block keys read with the address keys of the
 * block the node would try first, a free block's address keys read if that one was taken, then {@code block/B
 * absent}, put the block and this node's affinity), without an address, in a write that
 * also compares the registry, the liveness key and this node's affinity keys as the view had them: so at its commit
 * the view plus this block is exactly what etcd holds ({@link NodeView#claimed}), and a claim is never made for a node
 * whose liveness key lapsed (its blocks may be reclaimed). A block claimed and left empty is what DELs leave anyway;
 * the reclaim of a vanished node releases it with the others. If anything fails, nothing was claimed or it does not
 * matter: the ADD that finds no free address claims as it always did. One at a time per view; after one that found
 * nothing to claim or failed, none for {@link #HOLD_OFF_NANOS}, so that a range whose blocks are all claimed is not
 * scanned after every ADD. An exec'd plugin never claims ahead: only an ADD served from the view starts one.
 */
final class PreClaim implements Runnable {
    /** After a claim ahead that claimed nothing, the next waits this long. */
    static final long HOLD_OFF_NANOS = 5_000_000_000L;

    private final EtcdConfig config;
    private final ClusterKeys keys;
    private final ClusterStore.Settings settings;
    private final NodeView view;
    private final RangeSet set;
    private final AllocationRead from;
    private final boolean liveness;

    private PreClaim(EtcdConfig config, ClusterKeys keys, ClusterStore.Settings settings, NodeView view, RangeSet set,
            AllocationRead from, boolean liveness) {
        this.config = config;
        this.keys = keys;
        this.settings = settings;
        this.view = view;
        this.set = set;
        this.from = from;
        this.liveness = liveness;
    }

    /**
     * Starts the claim of a block of {@code set} for the node of {@code view} if it runs low and none is under way;
     * {@code from} is the view as an ADD just left it ({@link NodeView#assumed}).
     */
    static void ifRunningLow(EtcdConfig config, ClusterKeys keys, ClusterStore.Settings settings, NodeView view,
            Blocks blocks, RangeSet set, AllocationRead from, boolean liveness) {
        if (from == null || from.registry() == null || liveness && from.liveness() == null
                || !blocks.runningLow(set, from.myBlocks()) || !view.startPreclaim()) {
            return;
        }
        Thread thread = new Thread(new PreClaim(config, keys, settings, view, set, from, liveness),
                "cluster-ipam-claim-ahead");
        thread.setDaemon(true);
        try {
            thread.start();
        } catch (RuntimeException | OutOfMemoryError e) {
            view.preclaimEnded(HOLD_OFF_NANOS);
        }
    }

    @Override
    public void run() {
        boolean claimed = false;
        SplittableRandom random = settings.random();
        try (ClusterEtcd etcd = new ClusterEtcd(EtcdClient.open(config), random, view.quorumRead(config))) {
            Blocks blocks = new Blocks(etcd, keys, settings, random, view);
            Txn write = new Txn();
            List<IpAddress> claims = new ArrayList<>(1);
            if (blocks.claimBlock(set, write, claims, from.myBlocks()) != null) {
                write.modRevision(keys.registry(), AllocationRead.revisionOf(from.registry()));
                from.compareNode(write, keys, settings.node(), liveness);
                TxnResult result = etcd.attempt(write, false);
                if (result != null && result.succeeded) {
                    view.claimed(result.revision, claims.getFirst());
                    claimed = true;
                }
            }
        } catch (IpamException | RuntimeException e) {
            // Nothing claimed, or claimed without the view knowing (its next read finds it): an ADD that needs a
            // block claims one as it would have without this.
        } finally {
            view.preclaimEnded(claimed ? 0 : HOLD_OFF_NANOS);
        }
    }
}
