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
 * What one ADD attempt reads, in one transaction (so at one revision): the network registry, the attachment's owner
 * key, this node's claimed blocks, its liveness key, and the address key of each requested address. A key that does
 * not exist is null.
 *
 * @param requestedHolders the address key of {@code requested.get(i)} at index {@code i}, or null where it is free
 */
record AllocationRead(Kv registry, Kv owner, List<IpAddress> myBlocks, Kv liveness, List<IpAddress> requested,
        List<Kv> requestedHolders) {

    /** Reads it for {@code who} on {@code node}. */
    static AllocationRead of(ClusterEtcd etcd, ClusterKeys keys, String node, Attachment who,
            List<IpAddress> requested) throws IpamException {
        String affinities = keys.affinities(node);
        Txn read = new Txn().range(keys.registry(), null, false, 0).range(keys.owner(node, who), null, false, 0)
                .range(affinities, EtcdClient.prefixEnd(affinities), true, 0)
                .range(keys.node(node), null, false, 0);
        for (IpAddress ip : requested) {
            read.range(keys.ip(ip), null, false, 0);
        }
        TxnResult state = etcd.call(read);
        List<IpAddress> myBlocks = new ArrayList<>();
        for (Kv kv : state.range(2)) {
            myBlocks.add(ClusterKeys.addressOf(kv, "a block"));
        }
        List<Kv> holders = new ArrayList<>(requested.size());
        for (int i = 0; i < requested.size(); i++) {
            holders.add(single(state.range(4 + i)));
        }
        return new AllocationRead(single(state.range(0)), single(state.range(1)), myBlocks, single(state.range(3)),
                List.copyOf(requested), holders);
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
