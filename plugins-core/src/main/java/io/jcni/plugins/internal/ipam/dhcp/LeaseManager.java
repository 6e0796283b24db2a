package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.OperState;
import io.jcni.plugins.internal.pkg.locks.AttachmentLocks;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.sdk.PluginLog;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.IpText;
import io.jcni.spec.JsonObject;
import io.jcni.spec.Result;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The DHCP leases of the containers on a node, kept alive in the background: the engine of {@code dhcp daemon}, and a
 * component any long-lived JVM can host (the resident plugin service can embed it as it is, with a
 * {@link DaemonServer} on the same socket or its own dispatch to {@link #handle}).
 *
 * <p>Go's model (its {@code dhcp daemon}): ADD obtains a lease on the container's link from inside its namespace and
 * keeps it, renewing at T1 (unicast to the server), rebinding at T2 (broadcast), and, when the lease ends unrenewed,
 * setting the link down; DEL stops that and sends DHCPRELEASE; a lease whose link or namespace disappears is dropped
 * (nothing can be sent for it any more). One difference, by design: nothing lives only in memory. Every lease is on
 * disk ({@link LeaseStore}) before ADD answers and after every renewal, so a daemon killed at any moment and started
 * again resumes each lease where the files say (renewing what is due, expiring what ended meanwhile) and a DEL after
 * the restart releases the lease at the server. Go's daemon forgets its leases when it stops.
 *
 * <p>Failures leave nothing: an ADD that gets no lease within the resend timeout answers code 11 with no file, no
 * scheduled work and no lease at any server (a lease obtained before a later step failed is released). A server that
 * stops answering affects renewals only; they are retried, logged, and end as described above.
 *
 * <p>Threads: requests run on their callers' threads; maintenance on a small scheduled pool of daemon threads. ADD,
 * DEL, CHECK and maintenance of one attachment exclude each other ({@link AttachmentLocks}); different attachments never
 * wait for each other. Memory: a few kilobytes per lease; one packet socket (64 KiB of native buffer) per running
 * exchange, closed after it.
 */
public final class LeaseManager implements AutoCloseable {

    /**
     * The daemon's options, named as Go's {@code dhcp daemon} flags.
     *
     * @param stateDir where lease files live (jcni's; {@code -statedir}, default {@code /run/cni/dhcp})
     * @param hostPrefix prepended to every namespace path ({@code -hostprefix}: a daemon in a container with the
     *     host's root mounted there)
     * @param broadcast ask servers to broadcast their answers ({@code -broadcast})
     * @param timeoutMillis how long one exchange waits for its answer ({@code -timeout}, Go's default 10 s)
     * @param resendMaxMillis the longest pause between two tries of an acquisition ({@code -resendmax}, 62 s)
     * @param resendTimeoutMillis how long an ADD tries before it gives up with code 11 ({@code -resendtimeout},
     *     208 s)
     */
    public record Settings(Path stateDir, String hostPrefix, boolean broadcast, long timeoutMillis,
            long resendMaxMillis, long resendTimeoutMillis) {
        public static final Path DEFAULT_STATE_DIR = Path.of("/run/cni/dhcp");

        /** Go's defaults, leases in {@code stateDir}. */
        public static Settings defaults(Path stateDir) {
            return new Settings(stateDir, "", false, 10_000, 62_000, 208_000);
        }
    }

    private static final long CARRIER_WAIT_MILLIS = 3_000;

    private final Settings settings;
    private final DaemonLog log;
    /** Where the undo steps of a failed ADD report a failure of their own. */
    private final PluginLog rollbackLog;
    private final LeaseStore store;
    private final ConcurrentHashMap<String, ManagedLease> leases = new ConcurrentHashMap<>();
    private final AttachmentLocks locks = new AttachmentLocks();
    private final ScheduledThreadPoolExecutor scheduler;
    private final LeaseClients clients;
    private final LeaseMaintenance maintenance;
    private final DhcpMetrics metrics;
    private volatile boolean closed;

    private LeaseManager(Settings settings, PrintStream log) {
        this.settings = settings;
        this.log = new DaemonLog(log);
        this.rollbackLog = PluginLog.of("dhcp daemon", log, false);
        this.store = new LeaseStore(settings.stateDir());
        this.scheduler = new ScheduledThreadPoolExecutor(2, new Threads("jcni-dhcp-lease-"));
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.metrics = new DhcpMetrics(this);
        this.clients = new LeaseClients(settings, this.log, metrics);
        this.maintenance = new LeaseMaintenance(this, store, clients, locks, this.log, scheduler, metrics);
    }

    /**
     * Starts the manager: creates the state directory, reads every lease file in it and resumes those whose link is
     * still there (dropping the others, logged), then schedules their maintenance.
     *
     * @param log where events are written (the daemon's stderr)
     */
    public static LeaseManager start(Settings settings, PrintStream log) throws IOException {
        LeaseManager manager = new LeaseManager(settings, log);
        try {
            manager.store.create();
            manager.resumeAll();
        } catch (IOException | RuntimeException e) {
            manager.close();
            throw e;
        }
        return manager;
    }

    public Settings settings() {
        return settings;
    }

    /** The leases held now (for tests and STATUS). */
    int leaseCount() {
        return leases.size();
    }

    /** The leases in {@code state} now (for the metrics: a pass over the map, which calls may change meanwhile). */
    int leaseCount(ManagedLease.State state) {
        int n = 0;
        for (ManagedLease lease : leases.values()) {
            if (lease.state == state) {
                n++;
            }
        }
        return n;
    }

    /** The figures of this manager's leases and exchanges ({@code dhcp daemon -metrics-address}). */
    DhcpMetrics metrics() {
        return metrics;
    }

    /** Keys with a lock in use now (for tests: none once every call is done). */
    int locksInUse() {
        return locks.inUse();
    }

    // -------------------------------------------------------------------------------------------- requests

    /**
     * The answer to one request: the reply to send back, and the lease the request created, if any (an ADD that
     * acquired one), which {@link #abandon} releases when the reply cannot be delivered.
     */
    public static final class Answer {
        private final JsonObject reply;
        private final ManagedLease created;

        Answer(JsonObject reply, ManagedLease created) {
            this.reply = reply;
            this.created = created;
        }

        /** The reply frame's body. */
        public JsonObject reply() {
            return reply;
        }
    }

    /**
     * Answers one request (a {@link DaemonProtocol} frame's body): an error reply for any failure, bad input
     * included; never throws for it.
     */
    public Answer handle(byte[] frame) {
        DaemonProtocol.Request request;
        try {
            request = DaemonProtocol.parseRequest(io.jcni.spec.CniJson.parse(frame));
        } catch (CniException e) {
            return new Answer(DaemonProtocol.error(e.error()), null);
        }
        return handle(request);
    }

    Answer handle(DaemonProtocol.Request request) {
        try {
            switch (request.command()) {
                case DaemonProtocol.ADD:
                    return add(request);
                case DaemonProtocol.DEL:
                    del(ManagedLease.key(request.network(), request.containerId(), request.ifName()));
                    return new Answer(DaemonProtocol.ok(), null);
                case DaemonProtocol.CHECK:
                    return new Answer(DaemonProtocol.ok(check(request)), null);
                case DaemonProtocol.GC:
                    gc(request.network(), request.valid());
                    return new Answer(DaemonProtocol.ok(), null);
                default:
                    if (closed) {
                        throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "the dhcp daemon is stopping");
                    }
                    return new Answer(DaemonProtocol.ok(), null);
            }
        } catch (CniException e) {
            return new Answer(DaemonProtocol.error(e.error()), null);
        } catch (RuntimeException e) {
            log.log("internal error in " + request.command() + ": " + e);
            return new Answer(DaemonProtocol.error(new CniError(CniError.INTERNAL, "dhcp daemon: internal error in "
                    + request.command(), e.getMessage())), null);
        }
    }

    /**
     * The client went away before {@code answer} was delivered: a lease its ADD created is released, as the caller
     * that does not know it succeeded will not DEL it. A lease an earlier ADD created (a repeated ADD's answer) is
     * left alone.
     */
    public void abandon(Answer answer) {
        ManagedLease created = answer.created;
        if (created == null) {
            return;
        }
        log.log(created.describe() + ": the plugin went away before the answer, releasing the lease");
        String key = created.key();
        created.stopped = true;
        try (AttachmentLocks.Held held = locks.lock(key)) {
            if (!leases.remove(key, created)) {
                return; // already DELeted (and maybe added again): not this answer's any more
            }
            LeaseMaintenance.cancel(created);
            release(created);
            try {
                store.delete(key);
            } catch (IOException e) {
                log.log(created.describe() + ": cannot remove its lease file: " + IoText.reason(e));
            }
        }
    }

    // -------------------------------------------------------------------------------------------- ADD

    private Answer add(DaemonProtocol.Request request) throws CniException {
        String key = ManagedLease.key(request.network(), request.containerId(), request.ifName());
        DhcpConfig config = DhcpConfig.of(io.jcni.spec.ConfigNode.at(request.ipam(), "ipam"));
        try (AttachmentLocks.Held held = locks.lock(key)) {
            if (closed) {
                throw new CniException(CniError.TRY_AGAIN_LATER, "the dhcp daemon is stopping");
            }
            ManagedLease existing = leases.get(key);
            if (existing != null) {
                if (existing.state == ManagedLease.State.BOUND) {
                    // Go's daemon answers a repeated ADD with the lease it holds.
                    return new Answer(DaemonProtocol.ok(existing.lease.result(existing.config.priority())), null);
                }
                forget(existing, "expired lease replaced by a new ADD");
            }
            ManagedLease created = acquire(request, key, config);
            return new Answer(DaemonProtocol.ok(created.lease.result(config.priority())), created);
        }
    }

    private ManagedLease acquire(DaemonProtocol.Request request, String key, DhcpConfig config)
            throws CniException {
        String path = settings.hostPrefix() + request.netns();
        try (Namespace container = Namespace.container(path)) {
            NetNs.Id id = container.netns().id();
            Optional<Link> found = container.nl().findLink(request.ifName());
            if (found.isEmpty()) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "error looking up \""
                        + request.ifName() + "\": no such link in " + request.netns());
            }
            Link link = found.get();
            if (link.address() == null || link.address().bytes().length != 6) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "\"" + request.ifName()
                        + "\" has no Ethernet address: DHCP needs one");
            }
            ManagedLease lease = new ManagedLease(request.network(), request.containerId(), request.ifName(),
                    request.netns(), id, link.address(), request.args(), request.ipam(), null,
                    ManagedLease.State.BOUND);
            try (Rollback undo = Rollback.standalone(rollbackLog)) {
                if (!link.isUp()) {
                    log.log(lease.describe() + ": link " + request.ifName() + " down, setting it up");
                    container.nl().setUp(link.index());
                    undo.onFailure("set " + request.ifName() + " down again", new SetDown(container, link.index()));
                }
                awaitOperationallyUp(container, link.index());
                log.log(lease.describe() + ": acquiring lease");
                lease.lease = clients.acquire(lease, container.netns(), link.index(), stop(null));
                undo.onFailure("release the lease on " + request.ifName(),
                        new Release(lease, container.netns(), link.index()));
                lease.lease.result(config.priority()); // a lease without a usable result is not kept
                try {
                    store.write(lease);
                } catch (IOException e) {
                    throw new CniException(CniError.IO_FAILURE, "cannot record the lease in " + store.dir(),
                            IoText.reason(e));
                }
                leases.put(key, lease);
                maintenance.schedule(lease, lease.lease.renewAt());
                undo.commit();
                metrics.acquired();
                log.log(lease.describe() + ": lease of " + IpText.format(lease.lease.address())
                        + " acquired, expiration is " + DaemonLog.time(lease.lease.expiresAt()));
                return lease;
            }
        } catch (KernelException e) {
            throw new CniException(CniError.IO_FAILURE, "dhcp on " + request.ifName() + ": " + e.getMessage());
        }
    }

    /** Undo of ADD: the link set down again (it was down before the ADD). */
    private final class SetDown implements Rollback.Undo {
        private final Namespace container;
        private final int index;

        SetDown(Namespace container, int index) {
            this.container = container;
            this.index = index;
        }

        @Override
        public void undo() {
            maintenance.setDown(container, index);
        }
    }

    /** Undo of ADD: DHCPRELEASE of a lease obtained before a later step failed. */
    private final class Release implements Rollback.Undo {
        private final ManagedLease lease;
        private final NetNs netns;
        private final int index;

        Release(ManagedLease lease, NetNs netns, int index) {
            this.lease = lease;
            this.netns = netns;
            this.index = index;
        }

        @Override
        public void undo() {
            clients.release(lease, netns, index, stop(null));
        }
    }

    /**
     * Waits (at most {@value #CARRIER_WAIT_MILLIS} ms) until the link is operationally up: a link just set up drops
     * what is sent until the kernel's link watch has activated its queue (up to a second later), and a first
     * DHCPDISCOVER lost that way costs a whole exchange timeout. A link that never gets there is tried anyway.
     */
    private static void awaitOperationallyUp(Namespace container, int index) {
        long end = System.currentTimeMillis() + CARRIER_WAIT_MILLIS;
        while (System.currentTimeMillis() < end) {
            Link now = container.nl().link(index);
            if (now.operState() == OperState.UP
                    || (now.operState() == OperState.UNKNOWN && now.isLowerUp())) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // -------------------------------------------------------------------------------------------- DEL, CHECK, GC

    private void del(String key) throws CniException {
        ManagedLease early = leases.get(key);
        if (early != null) {
            early.stopped = true; // a running renewal gives up within DhcpClient.POLL_MILLIS
        }
        try (AttachmentLocks.Held held = locks.lock(key)) {
            ManagedLease lease = leases.remove(key);
            if (lease != null) {
                lease.stopped = true;
                LeaseMaintenance.cancel(lease);
                if (lease.state == ManagedLease.State.BOUND) {
                    release(lease);
                }
            }
            try {
                store.delete(key);
            } catch (IOException e) {
                throw new CniException(CniError.IO_FAILURE, "cannot remove the lease file of " + key + " from "
                        + store.dir(), IoText.reason(e));
            }
        }
    }

    private Result check(DaemonProtocol.Request request) throws CniException {
        String key = ManagedLease.key(request.network(), request.containerId(), request.ifName());
        try (AttachmentLocks.Held held = locks.lock(key)) {
            ManagedLease lease = leases.get(key);
            if (lease == null) {
                throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "dhcp: no lease for " + request.containerId()
                        + "/" + request.network() + "/" + request.ifName());
            }
            if (lease.state != ManagedLease.State.BOUND) {
                throw new CniException(CniError.FIRST_PLUGIN_SPECIFIC, "dhcp: the lease of "
                        + IpText.format(lease.lease.address()) + " on " + request.ifName() + " expired at "
                        + DaemonLog.time(lease.lease.expiresAt()));
            }
            return lease.lease.result(lease.config.priority());
        }
    }

    /** Releases the leases of {@code network} whose attachment is not in {@code valid}; goes on past failures. */
    private void gc(String network, List<GcAttachment> valid) throws CniException {
        List<String> keys = new ArrayList<>();
        for (ManagedLease lease : leases.values()) {
            if (!lease.network.equals(network)) {
                continue;
            }
            boolean keep = false;
            for (GcAttachment a : valid) {
                if (a.containerId().equals(lease.containerId) && a.ifName().equals(lease.ifName)) {
                    keep = true;
                    break;
                }
            }
            if (!keep) {
                keys.add(lease.key());
            }
        }
        CniException first = null;
        for (String key : keys) {
            log.log("GC of network " + network + ": " + key + " is not a valid attachment");
            try {
                del(key);
            } catch (CniException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Drops a lease without a release (its link is gone, or it expired): out of memory and off the disk. */
    void forget(ManagedLease managed, String why) {
        managed.stopped = true;
        LeaseMaintenance.cancel(managed);
        leases.remove(managed.key(), managed);
        if (why != null) {
            log.log(managed.describe() + ": " + why);
        }
        try {
            store.delete(managed.key());
        } catch (IOException e) {
            log.log(managed.describe() + ": cannot remove its lease file: " + IoText.reason(e));
        }
    }

    /** DHCPRELEASE of a held lease, if its link is still there; failures are logged, as Go's daemon does. */
    private void release(ManagedLease managed) {
        Optional<AttachmentLink> found;
        try {
            found = AttachmentLink.find(settings.hostPrefix() + managed.netns, managed.netnsId, managed.ifName,
                    managed.mac);
        } catch (CniException | KernelException e) {
            log.log(managed.describe() + ": cannot release the lease: " + e.getMessage());
            return;
        }
        if (found.isEmpty()) {
            log.log(managed.describe() + ": interface " + managed.ifName
                    + " is gone, the lease cannot be released (it ends at the server at "
                    + DaemonLog.time(managed.lease.expiresAt()) + ")");
            return;
        }
        try (AttachmentLink link = found.get()) {
            clients.release(managed, link.netns(), link.link.index(), stop(null));
        }
    }

    // -------------------------------------------------------------------------------------------- start, stop

    private void resumeAll() throws IOException {
        for (Path file : store.files()) {
            ManagedLease lease;
            try {
                lease = store.read(file);
            } catch (IOException e) {
                log.log("skipping unreadable lease file " + file + ": " + IoText.reason(e));
                continue;
            } catch (CniException e) {
                log.log("skipping lease file " + file + ": " + e.getMessage());
                continue;
            }
            try (AttachmentLocks.Held held = locks.lock(lease.key())) {
                leases.put(lease.key(), lease);
                if (lease.state != ManagedLease.State.BOUND) {
                    log.log(lease.describe() + ": resumed, expired");
                    continue;
                }
                log.log(lease.describe() + ": resumed lease of " + IpText.format(lease.lease.address())
                        + ", expiration is " + DaemonLog.time(lease.lease.expiresAt()));
                maintenance.schedule(lease, System.currentTimeMillis()); // checks the link, and renews what is due
            } catch (RuntimeException e) {
                log.log(lease.describe() + ": cannot resume: " + e.getMessage());
            }
        }
    }

    /**
     * Stops maintenance and refuses further requests; leases stay on disk and at their servers (a daemon started
     * again resumes them). Waits up to five seconds for running exchanges.
     */
    @Override
    public void close() {
        closed = true;
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the manager is closing or closed. */
    boolean closed() {
        return closed;
    }

    /** Whether {@code lease} is still the one held for its attachment. */
    boolean holds(ManagedLease lease) {
        return leases.get(lease.key()) == lease;
    }

    /** What ends an exchange: the manager closing, or, for a lease's maintenance ({@code lease} not null), its DEL. */
    DhcpClient.Stop stop(ManagedLease lease) {
        return new Stop(this, lease);
    }

    /** Stops an exchange when the manager closes or, for a lease's maintenance, when the lease is stopped. */
    private static final class Stop implements DhcpClient.Stop {
        private final LeaseManager manager;
        private final ManagedLease lease;

        Stop(LeaseManager manager, ManagedLease lease) {
            this.manager = manager;
            this.lease = lease;
        }

        @Override
        public boolean stopped() {
            return manager.closed || (lease != null && lease.stopped);
        }
    }

    /** Daemon threads with a name, so a thread dump says whose they are. */
    static final class Threads implements ThreadFactory {
        private final String prefix;
        private final AtomicInteger next = new AtomicInteger();

        Threads(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, prefix + next.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }
}
