package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.sys.PacketSocket;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.IpText;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The DHCP clients of the daemon's leases: one per exchange, on a packet socket in the lease's namespace, with the
 * lease's identity (MAC, client ID, options) and the daemon's {@code -broadcast}; and the two exchanges that are more
 * than one call: an acquisition retried with Go's backoff, and a release whose failure is only logged.
 */
final class LeaseClients {
    private static final long FAST_RETRY_MILLIS = 2_000;
    private static final int FAST_RETRIES = 4;
    private static final long FIRST_BACKOFF_MILLIS = 4_000;

    private final LeaseManager.Settings settings;
    private final DaemonLog log;
    private final DhcpMetrics metrics;

    LeaseClients(LeaseManager.Settings settings, DaemonLog log, DhcpMetrics metrics) {
        this.settings = settings;
        this.log = log;
        this.metrics = metrics;
    }

    /** A client of {@code lease} on {@code socket}; {@code stop} ends its waits. */
    DhcpClient client(PacketSocket socket, ManagedLease lease, DhcpClient.Stop stop) {
        return new DhcpClient(socket, lease.mac, lease.clientId(), lease.prepared, settings.broadcast(), stop,
                lease.ifName);
    }

    /** A packet socket for DHCP's client port on interface {@code ifIndex} of {@code netns}. */
    static PacketSocket socket(NetNs netns, int ifIndex) throws KernelException {
        return PacketSocket.openUdp(netns, ifIndex, Ipv4Udp.CLIENT_PORT);
    }

    /**
     * Go's {@code backoffRetry} around one acquisition: tries until one succeeds or the resend timeout passes; after a
     * failed try it waits 2 s (±1 s) four times, then 4 s, 8 s... up to the resend maximum (±1 s).
     */
    Lease acquire(ManagedLease lease, NetNs netns, int ifIndex, DhcpClient.Stop stop) throws CniException {
        long start = System.currentTimeMillis();
        long deadline = start + settings.resendTimeoutMillis();
        DhcpFailure last = null;
        try (PacketSocket socket = socket(netns, ifIndex)) {
            DhcpClient client = client(socket, lease, stop);
            long backoff = FIRST_BACKOFF_MILLIS;
            int fast = FAST_RETRIES;
            while (true) {
                long now = System.currentTimeMillis();
                try {
                    return client.acquire(null, Math.min(deadline, now + settings.timeoutMillis()));
                } catch (DhcpFailure f) {
                    if (f.kind() == DhcpFailure.Kind.STOPPED) {
                        throw new CniException(CniError.TRY_AGAIN_LATER, "the dhcp daemon is stopping");
                    }
                    if (f.kind() == DhcpFailure.Kind.LINK) {
                        metrics.failed(DhcpMetrics.Operation.ACQUIRE);
                        throw new CniException(CniError.IO_FAILURE, f.getMessage());
                    }
                    last = f;
                    log.log(lease.describe() + ": " + f.getMessage());
                }
                long pause = (fast > 0 ? FAST_RETRY_MILLIS : backoff) - 1000
                        + ThreadLocalRandom.current().nextLong(2001);
                if (fast > 0) {
                    fast--;
                } else {
                    backoff = Math.min(settings.resendMaxMillis(), backoff * 2);
                }
                if (System.currentTimeMillis() + pause >= deadline) {
                    break;
                }
                if (!sleep(pause, stop)) {
                    throw new CniException(CniError.TRY_AGAIN_LATER, "the dhcp daemon is stopping");
                }
            }
        } catch (KernelException e) {
            metrics.failed(DhcpMetrics.Operation.ACQUIRE);
            throw new CniException(CniError.IO_FAILURE, "dhcp on " + lease.ifName + ": " + e.getMessage());
        }
        metrics.failed(DhcpMetrics.Operation.ACQUIRE);
        throw new CniException(CniError.TRY_AGAIN_LATER, "no DHCP lease on " + lease.ifName + " within "
                + (System.currentTimeMillis() - start) / 1000 + " s: " + last.getMessage(),
                "the daemon tried for its resend timeout of " + settings.resendTimeoutMillis() / 1000
                        + " s (dhcp daemon -resendtimeout); is a DHCP server reachable from this link?");
    }

    /** DHCPRELEASE of {@code managed}'s lease on interface {@code ifIndex}; a failure is logged, as Go's daemon does. */
    void release(ManagedLease managed, NetNs netns, int ifIndex, DhcpClient.Stop stop) {
        log.log(managed.describe() + ": releasing lease of " + IpText.format(managed.lease.address()));
        try (PacketSocket socket = socket(netns, ifIndex)) {
            client(socket, managed, stop).release(managed.lease);
            metrics.released();
        } catch (DhcpFailure | KernelException e) {
            metrics.failed(DhcpMetrics.Operation.RELEASE);
            log.log(managed.describe() + ": failed to release DHCP lease: " + e.getMessage());
        }
    }

    /** Sleeps {@code millis}, polling {@code stop}: false if stopped or interrupted first. */
    static boolean sleep(long millis, DhcpClient.Stop stop) {
        long end = System.currentTimeMillis() + millis;
        while (!stop.stopped()) {
            long left = end - System.currentTimeMillis();
            if (left <= 0) {
                return true;
            }
            try {
                Thread.sleep(Math.min(left, DhcpClient.POLL_MILLIS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }
}
