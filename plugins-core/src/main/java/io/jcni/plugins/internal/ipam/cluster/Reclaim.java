package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import io.jcni.plugins.internal.ipam.cluster.EtcdClient.TxnResult;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Giving addresses back: an attachment's (DEL), this node's attachments that are no longer valid (GC), and every
 * reservation and block claim of a node whose liveness expired (GC, when liveness is on). Each release is one
 * transaction that holds only if what it deletes did not change since it was read.
 */
final class Reclaim {
    /** Releases that lose a race are retried from a fresh read this many times. */
    static final int MAX_ATTEMPTS = ClusterStore.MAX_ATTEMPTS;

    private final ClusterEtcd etcd;
    private final ClusterKeys keys;
    private final String node;

    Reclaim(ClusterEtcd etcd, ClusterKeys keys, String node) {
        this.etcd = etcd;
        this.keys = keys;
        this.node = node;
    }

    /** Releases this node's reservations whose attachment is not in {@code valid}. */
    List<Reservation> invalid(Collection<Attachment> valid) throws IpamException {
        Set<String> keep = new HashSet<>();
        for (Attachment a : valid) {
            keep.add(keys.owner(node, a));
        }
        List<Reservation> released = new ArrayList<>();
        String mine = keys.owners(node);
        for (Kv kv : etcd.prefix(mine, true)) {
            if (!keep.contains(kv.key)) {
                Attachment who = ClusterKeys.attachmentOf(kv.key, mine);
                for (IpAddress ip : releaseOwner(kv.key, node, who, null)) {
                    released.add(new Reservation(ip, who.containerId(), who.ifname()));
                }
            }
        }
        return released;
    }

    /**
     * Deletes an owner record and the address keys that still name it, in one transaction that holds only if
     * neither changed since they were read. {@code unlessAlive}: a node whose liveness key must still be absent (the
     * reclaim of a vanished node's reservations), or null.
     */
    List<IpAddress> releaseOwner(String ownerKey, String holderNode, Attachment who, String unlessAlive)
            throws IpamException {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            List<Kv> ownerKv = etcd.range(ownerKey, null, false);
            if (ownerKv.isEmpty()) {
                return List.of();
            }
            List<IpAddress> held = ClusterKeys.parseOwner(ownerKv.getFirst());
            byte[] mine = ClusterKeys.holder(holderNode, who);
            if (attempt == 0) {
                // The common case in one transaction: every address key still names this attachment.
                Txn direct = new Txn().modRevision(ownerKey, ownerKv.getFirst().modRevision).delete(ownerKey);
                if (unlessAlive != null) {
                    direct.absent(keys.node(unlessAlive));
                }
                for (IpAddress ip : held) {
                    direct.value(keys.ip(ip), mine).delete(keys.ip(ip));
                }
                if (etcd.commit(direct)) {
                    return held;
                }
            }
            Txn read = new Txn();
            for (IpAddress ip : held) {
                read.range(keys.ip(ip), null, false, 0);
            }
            TxnResult values = held.isEmpty() ? null : etcd.call(read);
            Txn write = new Txn().modRevision(ownerKey, ownerKv.getFirst().modRevision).delete(ownerKey);
            if (unlessAlive != null) {
                write.absent(keys.node(unlessAlive));
            }
            List<IpAddress> released = new ArrayList<>();
            for (int i = 0; i < held.size(); i++) {
                List<Kv> kv = values.range(i);
                if (!kv.isEmpty() && Arrays.equals(kv.getFirst().value, mine)) {
                    String key = keys.ip(held.get(i));
                    write.modRevision(key, kv.getFirst().modRevision).delete(key);
                    released.add(held.get(i));
                }
            }
            if (etcd.commit(write)) {
                return released;
            }
            etcd.backoff(attempt);
        }
        throw new IpamException(Reason.STORE_UNAVAILABLE, "cluster-ipam: the release of " + ownerKey
                + " kept losing its race in etcd; try again");
    }

    /**
     * Releases the reservations and block claims of every node whose liveness key has expired (it made no call for
     * {@code nodeTtlSeconds}): each in a transaction that holds only while that node is still absent.
     */
    List<Reservation> vanishedNodes() throws IpamException {
        String members = keys.members();
        String alive = keys.nodes();
        // One read, so members and liveness keys are seen at one revision.
        TxnResult state = etcd.call(new Txn().range(members, EtcdClient.prefixEnd(members), true, 0)
                .range(alive, EtcdClient.prefixEnd(alive), true, 0));
        List<Kv> memberKeys = state.range(0);
        List<Kv> aliveKeys = state.range(1);
        Set<String> live = new HashSet<>();
        for (Kv kv : aliveKeys) {
            live.add(kv.key.substring(alive.length()));
        }
        List<Reservation> released = new ArrayList<>();
        for (Kv kv : memberKeys) {
            String gone = kv.key.substring(members.length());
            if (live.contains(gone) || gone.equals(node)) {
                continue;
            }
            String owners = keys.owners(gone);
            for (Kv owner : etcd.prefix(owners, true)) {
                Attachment who = ClusterKeys.attachmentOf(owner.key, owners);
                for (IpAddress ip : releaseOwner(owner.key, gone, who, gone)) {
                    released.add(new Reservation(ip, who.containerId(), who.ifname()));
                }
            }
            releaseBlocks(gone, kv.key);
        }
        return released;
    }

    /**
     * Deletes the block claims of the vanished node {@code gone}, a few per transaction while it is still absent, and
     * with the last of them its member key; stops at the first that fails (the node came back, or a block changed
     * hands): the next GC does the rest.
     */
    private void releaseBlocks(String gone, String memberKey) throws IpamException {
        List<Kv> blocks = etcd.prefix(keys.affinities(gone), true);
        int perTxn = RangeRegistry.MAX_TXN_OPS / 3;
        for (int from = 0; from <= blocks.size(); from += perTxn) {
            Txn write = new Txn().absent(keys.node(gone));
            for (int k = from; k < Math.min(blocks.size(), from + perTxn); k++) {
                IpAddress b = ClusterKeys.addressOf(blocks.get(k), "a block");
                write.value(keys.block(b), gone.getBytes(StandardCharsets.UTF_8)).delete(keys.block(b))
                        .delete(blocks.get(k).key);
            }
            if (from + perTxn >= blocks.size()) {
                write.delete(memberKey);
            }
            if (!etcd.commit(write)) {
                return;
            }
        }
    }
}
