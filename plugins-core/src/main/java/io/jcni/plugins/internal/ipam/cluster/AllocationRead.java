package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import java.util.ArrayList;
import java.util.List;

/**
 * What one ADD attempt works from: the network registry, the attachment's owner key, this node's claimed blocks, its
 * liveness key, and the address key of each requested address. A key that does not exist is null. Read in one
 * transaction (so at one revision): on its own ({@link #of}), or as the failure branch of the previous attempt's write
 * ({@link #addOnFailure}, {@link #parse}); or taken from the node's {@link NodeView} ({@code assumed}: the owner
 * assumed absent and the requested addresses free, which the write compares).
 *
 * @param requestedHolders the address key of {@code requested.get(i)} at index {@code i}, or null where it is free
 * @param revision the etcd revision the registry, liveness key and blocks were read at
 * @param assumed whether the owner and requested keys were assumed rather than read: such an attempt never answers
 *        an error or an existing reservation, it reads first
 */
record AllocationRead(Kv registry, Kv owner, List<IpAddress> myBlocks, Kv liveness, List<IpAddress> requested,
        List<Kv> requestedHolders, long revision, boolean assumed) {

    /**
     * Adds to {@code write} the compares of what this read says of {@code node}: no affinity key of it written since
     * {@link #revision} (no block claimed behind the read's back) and, with node liveness, its liveness key as read.
     */
    void compareNode(Txn write, ClusterKeys keys, String node, boolean liveness) {
        String affinities = keys.affinities(node);
        write.unchangedSince(affinities, EtcdClient.prefixEnd(affinities), revision);
        if (liveness) {
            write.modRevision(keys.node(node), revisionOf(this.liveness));
        }
    }

    /** The range operations of the read, in {@link #parse}'s order. */
    private static final int FIXED = 4;

    /** Reads it for {@code who} on {@code node}. */
    static AllocationRead of(ClusterEtcd etcd, ClusterKeys keys, String node, Attachment who,
            List<IpAddress> requested) throws IpamException {
        Txn read = new Txn();
        ranges(read, false, keys, node, who, requested);
        return parse(etcd.call(read), requested);
    }

    /** Adds the read to {@code write}'s failure branch: a write that fails returns what its retry needs. */
    static void addOnFailure(Txn write, ClusterKeys keys, String node, Attachment who, List<IpAddress> requested) {
        ranges(write, true, keys, node, who, requested);
    }

    /** The index of the first range operation after the read (the caller's own). */
    static int after(List<IpAddress> requested) {
        return FIXED + requested.size();
    }

    private static void ranges(Txn txn, boolean onFailure, ClusterKeys keys, String node, Attachment who,
            List<IpAddress> requested) {
        String affinities = keys.affinities(node);
        range(txn, onFailure, keys.registry(), null, false);
        range(txn, onFailure, keys.owner(node, who), null, false);
        range(txn, onFailure, affinities, EtcdClient.prefixEnd(affinities), true);
        range(txn, onFailure, keys.node(node), null, false);
        for (IpAddress ip : requested) {
            range(txn, onFailure, keys.ip(ip), null, false);
        }
    }

    private static void range(Txn txn, boolean onFailure, String key, String end, boolean keysOnly) {
        if (onFailure) {
            txn.rangeOnFailure(key, end, keysOnly, 0);
        } else {
            txn.range(key, end, keysOnly, 0);
        }
    }

    /** The read from the responses of a transaction that ran it (its success or its failure branch). */
    static AllocationRead parse(TxnResult state, List<IpAddress> requested) throws IpamException {
        List<IpAddress> myBlocks = new ArrayList<>();
        for (Kv kv : state.range(2)) {
            myBlocks.add(ClusterKeys.addressOf(kv, "a block"));
        }
        List<Kv> holders = new ArrayList<>(requested.size());
        for (int i = 0; i < requested.size(); i++) {
            holders.add(single(state.range(FIXED + i)));
        }
        return new AllocationRead(single(state.range(0)), single(state.range(1)), myBlocks, single(state.range(3)),
                List.copyOf(requested), holders, state.revision, false);
    }

    /** Whether the requested {@code ip} was free at the read. */
    boolean free(IpAddress ip) {
        return requestedHolders.get(requested.indexOf(ip)) == null;
    }

    /** The mod revision of {@code kv} for a compare, 0 (must not exist) if it is null. */
    static long revisionOf(Kv kv) {
        return kv == null ? 0 : kv.modRevision;
    }

    private static Kv single(List<Kv> kvs) {
        return kvs.isEmpty() ? null : kvs.getFirst();
    }
}
