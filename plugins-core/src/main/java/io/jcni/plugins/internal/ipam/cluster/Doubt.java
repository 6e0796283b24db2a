package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Kv;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import java.util.List;

/**
 * An ADD's write whose fate is unknown: it was sent, and no answer said whether etcd applied it (the attempt timed
 * out, the connection failed after the request went out, or etcd answered an error that does not prove it was not
 * applied). Such a write can still commit later, for example from the log of a member that had no quorum when the
 * call gave up with code 11: an address held by an attachment whose ADD failed. The doubt holds what the write would
 * have left, so that an undo can remove exactly that ({@link DoubtResolver#undo}).
 *
 * <p>Immutable. {@code ipKeys} are the keys of {@code ips}, the addresses the write took, each with the value {@code holder};
 * {@code ownerValue} is the owner key's value it wrote, {@code previousOwner} what the owner key held before (null:
 * absent, the undo deletes it; else the undo puts it back). A doubt that is {@code fenceOnly} removes nothing: its
 * call ended well after all (a retry committed, or found the write applied), and only the fence is left to do, so that
 * the write can never commit later.
 */
final class Doubt {
    final EtcdConfig config;
    final String registryKey;
    /** The registry as the write compared it (null: absent); the fence's first guess of what the key holds. */
    final Kv registry;
    final String ownerKey;
    final byte[] ownerValue;
    final byte[] previousOwner;
    final List<IpAddress> ips;
    final List<String> ipKeys;
    final byte[] holder;
    final boolean fenceOnly;

    Doubt(EtcdConfig config, String registryKey, Kv registry, String ownerKey, byte[] ownerValue,
            byte[] previousOwner, List<IpAddress> ips, List<String> ipKeys, byte[] holder, boolean fenceOnly) {
        this.config = config;
        this.registryKey = registryKey;
        this.registry = registry;
        this.ownerKey = ownerKey;
        this.ownerValue = ownerValue;
        this.previousOwner = previousOwner;
        this.ips = List.copyOf(ips);
        this.ipKeys = List.copyOf(ipKeys);
        this.holder = holder;
        this.fenceOnly = fenceOnly;
    }

    /** The same doubt once its call succeeded: only the fence is left. */
    Doubt settled() {
        return new Doubt(config, registryKey, registry, ownerKey, ownerValue, previousOwner, ips, ipKeys, holder,
                true);
    }
}
