package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.JsonObject;
import java.util.concurrent.ScheduledFuture;

/**
 * A lease the daemon holds for one attachment, and what it needs to keep it: the attachment (network, container,
 * interface), where its link is (the namespace path, and the namespace's identity so that a path reused by another
 * namespace is noticed), the link's hardware address, the configuration its options came from, the current
 * {@link Lease} and the maintenance state. Everything but the runtime fields ({@link #stopped}, {@link #next}) is
 * what {@link LeaseStore} writes to disk.
 *
 * <p>Threads: {@link #lease} and {@link #state} change only under the attachment's lock ({@link io.jcni.plugins.internal.pkg.locks.AttachmentLocks});
 * {@link #stopped} is set without it, so that a DEL can make a running exchange give up before it waits for the lock.
 */
final class ManagedLease {
    /** Where the lease stands (RFC 2131 4.4's client states, as far as a held lease goes). */
    enum State {
        /** Renewed or acquired; the next event is T1. */
        BOUND,
        /** Lost at its end (or refused by the server) and not regained: the link was set down, as Go does. */
        EXPIRED
    }

    final String network;
    final String containerId;
    final String ifName;
    /** CNI_NETNS as the runtime passed it (without the daemon's host prefix). */
    final String netns;
    final NetNs.Id netnsId;
    final MacAddress mac;
    final String cniArgs;
    final JsonObject ipam;
    final DhcpConfig config;
    final DhcpConfig.Prepared prepared;
    volatile Lease lease;
    volatile State state;
    volatile boolean stopped;
    /** The scheduled maintenance, if any. Guarded by the attachment's lock. */
    ScheduledFuture<?> next;

    ManagedLease(String network, String containerId, String ifName, String netns, NetNs.Id netnsId, MacAddress mac,
            String cniArgs, JsonObject ipam, Lease lease, State state) throws CniException {
        this.network = network;
        this.containerId = containerId;
        this.ifName = ifName;
        this.netns = netns;
        this.netnsId = netnsId;
        this.mac = mac;
        this.cniArgs = cniArgs;
        this.ipam = ipam;
        this.config = DhcpConfig.of(ConfigNode.at(ipam, "ipam"));
        this.prepared = config.prepare(cniArgs);
        this.lease = lease;
        this.state = state;
    }

    String key() {
        return key(network, containerId, ifName);
    }

    /** The attachment's key: also the name of its lease file. */
    static String key(String network, String containerId, String ifName) {
        return network + "-" + containerId + "-" + ifName;
    }

    /** Go's client identifier for this attachment (option 61). */
    byte[] clientId() {
        return DhcpConfig.clientId(containerId, network, ifName);
    }

    /** {@code <container>/<network>/<ifname>}, as Go's daemon names a lease in its log. */
    String describe() {
        return containerId + "/" + network + "/" + ifName;
    }
}
