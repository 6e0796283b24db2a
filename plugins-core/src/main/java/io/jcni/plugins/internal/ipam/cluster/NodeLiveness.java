package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A node's liveness: the key {@code node/<node>} on a lease of {@code nodeTtlSeconds}, refreshed by the node's calls,
 * and the permanent {@code member/<node>} that tells GC the node may hold addresses. A member whose liveness key
 * expired is a vanished node whose reservations another node's GC reclaims ({@link Reclaim}).
 */
final class NodeLiveness {
    private final ClusterEtcd etcd;
    private final ClusterKeys keys;
    private final String node;
    private final long ttlSeconds;

    NodeLiveness(ClusterEtcd etcd, ClusterKeys keys, String node, long ttlSeconds) {
        this.etcd = etcd;
        this.keys = keys;
        this.node = node;
        this.ttlSeconds = ttlSeconds;
    }

    /** Whether liveness is on ({@code nodeTtlSeconds} > 0). */
    boolean enabled() {
        return ttlSeconds > 0;
    }

    /**
     * Refreshes this node's liveness key when it is missing ({@code nodeKv} null) or a third of its TTL old: adds
     * the puts to {@code write} and returns the value it puts, null if none.
     */
    byte[] refresh(Kv nodeKv, Txn write) throws IpamException {
        if (!enabled()) {
            return null;
        }
        long now = System.currentTimeMillis();
        if (nodeKv != null) {
            String v = new String(nodeKv.value, StandardCharsets.UTF_8);
            int space = v.indexOf(' ');
            try {
                long refreshed = Long.parseLong(v.substring(space + 1));
                if (space > 0 && now - refreshed >= 0 && now - refreshed < ttlSeconds * 1000 / 3) {
                    return null;
                }
            } catch (NumberFormatException e) {
                // rewritten below
            }
        }
        long lease = etcd.lease(ttlSeconds);
        byte[] value = (lease + " " + now).getBytes(StandardCharsets.UTF_8);
        write.put(keys.node(node), value, lease).put(keys.member(node), new byte[0], 0);
        return value;
    }

    /** Writes this node's liveness if due (STATUS, GC): a heartbeat without an allocation. */
    void heartbeat() throws IpamException {
        for (int attempt = 0; attempt < 4; attempt++) {
            List<Kv> found = etcd.range(keys.node(node), null, false);
            Kv nodeKv = found.isEmpty() ? null : found.getFirst();
            Txn write = new Txn();
            if (refresh(nodeKv, write) == null) {
                return;
            }
            write.modRevision(keys.node(node), AllocationRead.revisionOf(nodeKv));
            if (etcd.commit(write)) {
                return;
            }
        }
    }
}
