package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.OperState;
import io.jcni.netlink.sys.PacketSocket;
import io.jcni.plugins.internal.pkg.ns.Namespace;
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
import java.util.concurrent.ThreadLocalRandom;
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
 * DEL, CHECK and maintenance of one attachment exclude each other ({@link KeyLocks}); different attachments never
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

    /** RFC 2131's floor for the pause between two renewal or rebinding tries. */
    private static final long MIN_RETRY_MILLIS = 60_000;
    private static final long FAST_RETRY_MILLIS = 2_000;
    private static final int FAST_RETRIES = 4;
    private static final long FIRST_BACKOFF_MILLIS = 4_000;
    private static final long CARRIER_WAIT_MILLIS = 3_000;

    private final Settings settings;
    private final DaemonLog log;
    private final LeaseStore store;
    private final ConcurrentHashMap<String, ManagedLease> leases = new ConcurrentHashMap<>();
    private final KeyLocks locks = new KeyLocks();
    private final ScheduledThreadPoolExecutor scheduler;
    private volatile boolean closed;

    private LeaseManager(Settings settings, PrintStream log) {
        this.settings = settings;
        this.log = new DaemonLog(log);
        this.store = new LeaseStore(settings.stateDir());
        this.scheduler = new ScheduledThreadPoolExecutor(2, new Threads("jcni-dhcp-lease-"));
        scheduler.setRemoveOnCancelPolicy(true);
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
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
        try (KeyLocks.Held held = locks.lock(key)) {
            if (!leases.remove(key, created)) {
                return; // already DELeted (and maybe added again): not this answer's any more
            }
            cancel(created);
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
        try (KeyLocks.Held held = locks.lock(key)) {
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
            boolean setUp = !link.isUp();
            if (setUp) {
                log.log(lease.describe() + ": link " + request.ifName() + " down, setting it up");
                container.nl().setUp(link.index());
            }
            awaitOperationallyUp(container, link.index());
            boolean obtained = false;
            boolean kept = false;
            try {
                log.log(lease.describe() + ": acquiring lease");
                lease.lease = acquireWithRetries(lease, container.netns(), link.index());
                obtained = true;
                lease.lease.result(config.priority()); // a lease without a usable result is not kept
                try {
                    store.write(lease);
                } catch (IOException e) {
                    throw new CniException(CniError.IO_FAILURE, "cannot record the lease in " + store.dir(),
                            IoText.reason(e));
                }
                leases.put(key, lease);
                schedule(lease, lease.lease.renewAt());
                kept = true;
                log.log(lease.describe() + ": lease of " + IpText.format(lease.lease.address())
                        + " acquired, expiration is " + DaemonLog.time(lease.lease.expiresAt()));
                return lease;
            } finally {
                if (!kept) {
                    if (obtained) {
                        releaseNow(lease, container.netns(), link.index());
                    }
                    if (setUp) {
                        setDown(container, link.index());
                    }
                }
            }
        } catch (KernelException e) {
            throw new CniException(CniError.IO_FAILURE, "dhcp on " + request.ifName() + ": " + e.getMessage());
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

    /**
     * Go's {@code backoffRetry} around one acquisition: tries until one succeeds or the resend timeout passes; after a
     * failed try it waits 2 s (±1 s) four times, then 4 s, 8 s... up to the resend maximum (±1 s).
     */
    private Lease acquireWithRetries(ManagedLease lease, NetNs netns, int ifIndex) throws CniException {
        long start = System.currentTimeMillis();
        long deadline = start + settings.resendTimeoutMillis();
        Stop stop = new Stop(this, null);
        DhcpFailure last = null;
        try (PacketSocket socket = PacketSocket.openUdp(netns, ifIndex, Ipv4Udp.CLIENT_PORT)) {
            DhcpClient client = new DhcpClient(socket, lease.mac, lease.clientId(), lease.prepared,
                    settings.broadcast(), stop, lease.ifName);
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
        }
        throw new CniException(CniError.TRY_AGAIN_LATER, "no DHCP lease on " + lease.ifName + " within "
                + (System.currentTimeMillis() - start) / 1000 + " s: " + last.getMessage(),
                "the daemon tried for its resend timeout of " + settings.resendTimeoutMillis() / 1000
                        + " s (dhcp daemon -resendtimeout); is a DHCP server reachable from this link?");
    }

    // -------------------------------------------------------------------------------------------- DEL, CHECK, GC

    private void del(String key) throws CniException {
        ManagedLease early = leases.get(key);
        if (early != null) {
            early.stopped = true; // a running renewal gives up within DhcpClient.POLL_MILLIS
        }
        try (KeyLocks.Held held = locks.lock(key)) {
            ManagedLease lease = leases.remove(key);
            if (lease != null) {
                lease.stopped = true;
                cancel(lease);
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
        try (KeyLocks.Held held = locks.lock(key)) {
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

    // -------------------------------------------------------------------------------------------- maintenance

    private void schedule(ManagedLease lease, long at) {
        if (closed || lease.stopped || at == Long.MAX_VALUE) {
            return;
        }
        cancel(lease);
        long delay = Math.max(0, at - System.currentTimeMillis());
        lease.next = scheduler.schedule(new Maintain(this, lease), delay, TimeUnit.MILLISECONDS);
    }

    private static void cancel(ManagedLease lease) {
        if (lease.next != null) {
            lease.next.cancel(false);
            lease.next = null;
        }
    }

    /** A lease's next step, on the scheduler. A named class: no lambdas in this module. */
    private static final class Maintain implements Runnable {
        private final LeaseManager manager;
        private final ManagedLease lease;

        Maintain(LeaseManager manager, ManagedLease lease) {
            this.manager = manager;
            this.lease = lease;
        }

        @Override
        public void run() {
            try (KeyLocks.Held held = manager.locks.lock(lease.key())) {
                if (manager.closed || lease.stopped || manager.leases.get(lease.key()) != lease) {
                    return;
                }
                lease.next = null;
                manager.step(lease);
            } catch (RuntimeException e) { // CniException is one since the library work
                manager.log.log(lease.describe() + ": maintenance failed, trying again in a minute: "
                        + e.getMessage());
                manager.schedule(lease, System.currentTimeMillis() + MIN_RETRY_MILLIS);
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
            forget(managed, null);
            return;
        }
        try (AttachmentLink link = found.get()) {
            Lease lease = managed.lease;
            long now = System.currentTimeMillis();
            if (now < lease.renewAt()) {
                schedule(managed, lease.renewAt());
                return;
            }
            if (now >= lease.expiresAt()) {
                expire(managed, link);
                return;
            }
            boolean rebinding = now >= lease.rebindAt();
            long until = rebinding ? lease.expiresAt() : lease.rebindAt();
            try (PacketSocket socket = PacketSocket.openUdp(link.netns(), link.link.index(), Ipv4Udp.CLIENT_PORT)) {
                DhcpClient client = new DhcpClient(socket, managed.mac, managed.clientId(), managed.prepared,
                        settings.broadcast(), new Stop(this, managed), managed.ifName);
                log.log(managed.describe() + (rebinding ? ": rebinding lease" : ": renewing lease"));
                long window = Math.min(until, now + settings.timeoutMillis());
                Lease fresh = rebinding ? client.rebind(lease, window) : client.renew(lease, window);
                commit(managed, fresh, rebinding ? "rebound" : "renewed");
            } catch (DhcpFailure f) {
                if (f.kind() == DhcpFailure.Kind.STOPPED) {
                    return;
                }
                log.log(managed.describe() + ": " + f.getMessage());
                if (f.kind() == DhcpFailure.Kind.NAK) {
                    regain(managed, link);
                    return;
                }
                long after = System.currentTimeMillis();
                long left = until - after;
                schedule(managed, after + Math.max(Math.min(MIN_RETRY_MILLIS, left), left / 2));
            }
        } catch (KernelException e) {
            log.log(managed.describe() + ": " + e.getMessage() + "; trying again in a minute");
            schedule(managed, System.currentTimeMillis() + MIN_RETRY_MILLIS);
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
        try (PacketSocket socket = PacketSocket.openUdp(link.netns(), link.link.index(), Ipv4Udp.CLIENT_PORT)) {
            DhcpClient client = new DhcpClient(socket, managed.mac, managed.clientId(), managed.prepared,
                    settings.broadcast(), new Stop(this, managed), managed.ifName);
            Lease fresh = client.acquire(managed.lease.address(), System.currentTimeMillis()
                    + settings.timeoutMillis());
            if (java.util.Arrays.equals(fresh.address(), managed.lease.address())) {
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
            log.log(managed.describe() + ": " + f.getMessage());
        } catch (KernelException e) {
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

    /** Drops a lease without a release (its link is gone, or it expired): out of memory and off the disk. */
    private void forget(ManagedLease managed, String why) {
        managed.stopped = true;
        cancel(managed);
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
            releaseNow(managed, link.netns(), link.link.index());
        }
    }

    private void releaseNow(ManagedLease managed, NetNs netns, int ifIndex) {
        log.log(managed.describe() + ": releasing lease of " + IpText.format(managed.lease.address()));
        try (PacketSocket socket = PacketSocket.openUdp(netns, ifIndex, Ipv4Udp.CLIENT_PORT)) {
            new DhcpClient(socket, managed.mac, managed.clientId(), managed.prepared, settings.broadcast(),
                    new Stop(this, null), managed.ifName).release(managed.lease);
        } catch (DhcpFailure | KernelException e) {
            log.log(managed.describe() + ": failed to release DHCP lease: " + e.getMessage());
        }
    }

    private void setDown(Namespace namespace, int index) {
        try {
            namespace.nl().setDown(index);
        } catch (KernelException e) {
            log.log("cannot set link " + index + " in " + namespace.path() + " down: " + e.getMessage());
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
            try (KeyLocks.Held held = locks.lock(lease.key())) {
                leases.put(lease.key(), lease);
                if (lease.state != ManagedLease.State.BOUND) {
                    log.log(lease.describe() + ": resumed, expired");
                    continue;
                }
                log.log(lease.describe() + ": resumed lease of " + IpText.format(lease.lease.address())
                        + ", expiration is " + DaemonLog.time(lease.lease.expiresAt()));
                schedule(lease, System.currentTimeMillis()); // checks the link, and renews what is due
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

    private static boolean sleep(long millis, Stop stop) {
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
