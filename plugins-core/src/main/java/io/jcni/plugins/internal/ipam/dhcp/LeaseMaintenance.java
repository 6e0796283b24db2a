package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.PacketSocket;
import io.jcni.plugins.internal.pkg.locks.AttachmentLocks;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniException;
import io.jcni.spec.IpText;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A held lease's life after its ADD, on the manager's scheduler and under its attachment's lock: renew at T1 (unicast
 * to the server), rebind from T2 (broadcast), after a DHCPNAK ask for the address once more, and when the lease ends
 * unrenewed set the link down (Go's "lease expired, bringing interface DOWN"); a lease whose link is gone is dropped.
 * Every change is written to the {@link LeaseStore} before the next step is scheduled.
 */
final class LeaseMaintenance {
    /** RFC 2131's floor for the pause between two renewal or rebinding tries. */
    static final long MIN_RETRY_MILLIS = 60_000;

    private final LeaseManager manager;
    private final LeaseManager.Settings settings;
    private final LeaseStore store;
    private final LeaseClients clients;
    private final AttachmentLocks locks;
    private final DaemonLog log;
    private final ScheduledThreadPoolExecutor scheduler;
    private final DhcpMetrics metrics;

    LeaseMaintenance(LeaseManager manager, LeaseStore store, LeaseClients clients, AttachmentLocks locks,
            DaemonLog log, ScheduledThreadPoolExecutor scheduler, DhcpMetrics metrics) {
        this.manager = manager;
        this.settings = manager.settings();
        this.store = store;
        this.clients = clients;
        this.locks = locks;
        this.log = log;
        this.scheduler = scheduler;
        this.metrics = metrics;
    }

    /** Runs the lease's next step at {@code at} (replacing one scheduled), unless the lease or the manager stopped. */
    void schedule(ManagedLease lease, long at) {
        if (manager.closed() || lease.stopped || at == Long.MAX_VALUE) {
            return;
        }
        cancel(lease);
        long delay = Math.max(0, at - System.currentTimeMillis());
        lease.next = scheduler.schedule(new Maintain(this, lease), delay, TimeUnit.MILLISECONDS);
    }

    static void cancel(ManagedLease lease) {
        if (lease.next != null) {
            lease.next.cancel(false);
            lease.next = null;
        }
    }

    /** A lease's next step, on the scheduler. A named class: no lambdas in this module. */
    private static final class Maintain implements Runnable {
        private final LeaseMaintenance maintenance;
        private final ManagedLease lease;

        Maintain(LeaseMaintenance maintenance, ManagedLease lease) {
            this.maintenance = maintenance;
            this.lease = lease;
        }

        @Override
        public void run() {
            try (AttachmentLocks.Held held = maintenance.locks.lock(lease.key())) {
                if (maintenance.manager.closed() || lease.stopped || !maintenance.manager.holds(lease)) {
                    return;
                }
                lease.next = null;
                maintenance.step(lease);
            } catch (RuntimeException e) { // CniException is one since the library work
                maintenance.log.log(lease.describe() + ": maintenance failed, trying again in a minute: "
                        + e.getMessage());
                maintenance.schedule(lease, System.currentTimeMillis() + MIN_RETRY_MILLIS);
            }
        }
    }

    /**
     * One step of a held lease, under its attachment's lock: renew at T1, rebind from T2, expire at the end; drop the
     * lease when its link is gone.
     */
    private void step(ManagedLease managed) throws CniException {
        if (managed.state != ManagedLease.State.BOUND) {
            return;
        }
        Optional<AttachmentLink> found = AttachmentLink.find(settings.hostPrefix() + managed.netns, managed.netnsId,
                managed.ifName, managed.mac);
        if (found.isEmpty()) {
            log.log(managed.describe() + ": interface " + managed.ifName
                    + " no longer exists, terminating lease maintenance");
            manager.forget(managed, null);
            return;
        }
        try (AttachmentLink link = found.get()) {
            Lease lease = managed.lease;
            long now = System.currentTimeMillis();
            if (now < lease.renewAt()) {
                schedule(managed, lease.renewAt());
            } else if (now >= lease.expiresAt()) {
                expire(managed, link);
            } else {
                renew(managed, link, now >= lease.rebindAt());
            }
        } catch (KernelException e) {
            log.log(managed.describe() + ": " + e.getMessage() + "; trying again in a minute");
            schedule(managed, System.currentTimeMillis() + MIN_RETRY_MILLIS);
        }
    }

    /** A renewal (before T2) or rebinding (from T2) exchange; a failure is tried again, halfway to the next time. */
    private void renew(ManagedLease managed, AttachmentLink link, boolean rebinding) throws KernelException {
        Lease lease = managed.lease;
        long now = System.currentTimeMillis();
        long until = rebinding ? lease.expiresAt() : lease.rebindAt();
        try (PacketSocket socket = LeaseClients.socket(link.netns(), link.link.index())) {
            DhcpClient client = clients.client(socket, managed, manager.stop(managed));
            log.log(managed.describe() + (rebinding ? ": rebinding lease" : ": renewing lease"));
            long window = Math.min(until, now + settings.timeoutMillis());
            Lease fresh = rebinding ? client.rebind(lease, window) : client.renew(lease, window);
            metrics.renewed(rebinding);
            commit(managed, fresh, rebinding ? "rebound" : "renewed");
        } catch (KernelException e) {
            metrics.failed(rebinding ? DhcpMetrics.Operation.REBIND : DhcpMetrics.Operation.RENEW);
            throw e;
        } catch (DhcpFailure f) {
            if (f.kind() == DhcpFailure.Kind.STOPPED) {
                return;
            }
            metrics.failed(rebinding ? DhcpMetrics.Operation.REBIND : DhcpMetrics.Operation.RENEW);
            log.log(managed.describe() + ": " + f.getMessage());
            if (f.kind() == DhcpFailure.Kind.NAK) {
                regain(managed, link);
                return;
            }
            long after = System.currentTimeMillis();
            long left = until - after;
            schedule(managed, after + Math.max(Math.min(MIN_RETRY_MILLIS, left), left / 2));
        }
    }

    private void commit(ManagedLease managed, Lease fresh, String how) {
        managed.lease = fresh;
        try {
            store.write(managed);
        } catch (IOException e) {
            // The lease is held; a daemon restarted now would renew earlier than needed, which is harmless.
            log.log(managed.describe() + ": cannot record the " + how + " lease: " + IoText.reason(e));
        }
        log.log(managed.describe() + ": lease " + how + ", expiration is " + DaemonLog.time(fresh.expiresAt()));
        schedule(managed, fresh.renewAt());
    }

    /**
     * After a DHCPNAK the address is not ours any more (RFC 2131 4.4.5): one acquisition asking for it again. The
     * same address back keeps the lease; anything else ends it as an expiry does (the container's address cannot
     * change under it).
     */
    private void regain(ManagedLease managed, AttachmentLink link) {
        try (PacketSocket socket = LeaseClients.socket(link.netns(), link.link.index())) {
            DhcpClient client = clients.client(socket, managed, manager.stop(managed));
            Lease fresh = client.acquire(managed.lease.address(), System.currentTimeMillis()
                    + settings.timeoutMillis());
            metrics.acquired();
            if (Arrays.equals(fresh.address(), managed.lease.address())) {
                commit(managed, fresh, "regained");
                return;
            }
            log.log(managed.describe() + ": the server offers " + IpText.format(fresh.address()) + " instead of "
                    + IpText.format(managed.lease.address()) + "; releasing it");
            client.release(fresh);
        } catch (DhcpFailure f) {
            if (f.kind() == DhcpFailure.Kind.STOPPED) {
                return;
            }
            metrics.failed(DhcpMetrics.Operation.ACQUIRE);
            log.log(managed.describe() + ": " + f.getMessage());
        } catch (KernelException e) {
            metrics.failed(DhcpMetrics.Operation.ACQUIRE);
            log.log(managed.describe() + ": " + e.getMessage());
        }
        expire(managed, link);
    }

    /** Go's end of a lease: "lease expired, bringing interface DOWN"; kept (as expired) until DEL. */
    private void expire(ManagedLease managed, AttachmentLink link) {
        log.log(managed.describe() + ": lease of " + IpText.format(managed.lease.address())
                + " expired, bringing interface " + managed.ifName + " DOWN");
        managed.state = ManagedLease.State.EXPIRED;
        setDown(link.namespace, link.link.index());
        try {
            store.write(managed);
        } catch (IOException e) {
            log.log(managed.describe() + ": cannot record the expiry: " + IoText.reason(e));
        }
    }

    /** Sets a link down; a failure is logged (the lease's state is what counts). */
    void setDown(Namespace namespace, int index) {
        try {
            namespace.nl().setDown(index);
        } catch (KernelException e) {
            log.log("cannot set link " + index + " in " + namespace.path() + " down: " + e.getMessage());
        }
    }
}
