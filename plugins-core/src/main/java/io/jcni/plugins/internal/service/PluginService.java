package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.sys.PeerCredentials;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.internal.pkg.locks.AttachmentLocks;
import io.jcni.plugins.internal.pkg.ns.HostNftables;
import io.jcni.spec.CniError;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code jcni serve}: jcni's plugins, resident. Executes plugin calls that jcni's client ({@code dist/cni/bin/<type>})
 * hands over on a Unix socket, with exactly the inputs and outputs of an exec (see {@link Protocol} and the client).
 *
 * <p>Threads: one acceptor checks each connection's peer ({@code SO_PEERCRED}: only the allowed uids, root by default)
 * and hands it to a pool of {@link Settings#maxCalls()} call threads with a queue of {@link Settings#queue()}
 * connections; beyond that a connection gets error 11 at once (try again later) and the service goes on. A request is
 * read under one deadline ({@link Settings#ioTimeout()} for all of it), so a stalled or malicious client holds a call
 * thread that long at most. Calls on the same attachment are serialized ({@link AttachmentLocks}), a GC runs alone
 * among its network's calls ({@link NetworkGates}), large requests wait for memory ({@link MemoryAdmission}); every
 * such wait has a deadline ({@link Settings#waitTimeout()}, then error 11).
 *
 * <p>One call never stalls the others. A watchdog thread looks at every call in flight: a call whose client went away
 * (the runtime killed it at its timeout) or that ran past {@link Settings#callTimeout()} is cancelled, an interrupt of
 * the thread running it, which kills a delegate it exec'd and fails its plugin, whose rollback then runs; a cancelled
 * call never commits. A call still running {@link Settings#hungGrace()} after its cancellation is written off as hung:
 * counted, logged with where it hangs, its network's GC no longer waits for it, and the pool gets a thread in its
 * place, so hung calls cannot take every call thread (up to {@link #MAX_EXTRA_THREADS} of them; the attachment it
 * holds stays locked). A thread waiting for a lock, a GC or memory likewise gives its place to another call meanwhile.
 *
 * <p>State: none beyond the calls in flight. Everything a plugin keeps is on disk (host-local's Go format, the
 * runtime's cache is the runtime's), so a restart, or a SIGKILL, loses nothing but the calls in flight, whose clients
 * answer with error 11 and whose runtimes then DEL.
 */
final class PluginService implements AutoCloseable {
    /**
     * How a service runs.
     *
     * @param socket      the socket's path (its parent directory is created 0700 if missing; the socket is 0600), or
     *                    the path an inherited socket was bound to (then nothing is created or removed)
     * @param allowedUids the peers served (by effective uid when they connected)
     * @param maxCalls    calls run at once
     * @param queue       connections accepted and waiting for a call thread
     * @param buildId     this build's id; clients of any other get 'M' and run their JVM launcher
     * @param ioTimeout   the longest a client may take to send its whole request, or to take the answer
     * @param callTimeout the longest a call may run; then it is cancelled (its client gets error 11)
     * @param waitTimeout the longest a call waits for its attachment, its network (a GC) or memory: then error 11
     * @param hungGrace   how long a cancelled call may take to end before it is written off as hung
     */
    record Settings(Path socket, Set<Integer> allowedUids, int maxCalls, int queue, String buildId, Duration ioTimeout,
            Duration callTimeout, Duration waitTimeout, Duration hungGrace, boolean debug) {
        /** Longer than a jcni plugin waits by itself (dhcp: 5 minutes for its daemon's lease). */
        static final Duration CALL_TIMEOUT = Duration.ofSeconds(330);
        static final Duration WAIT_TIMEOUT = Duration.ofSeconds(30);
        static final Duration HUNG_GRACE = Duration.ofSeconds(5);

        Settings {
            Objects.requireNonNull(socket, "socket");
            allowedUids = Set.copyOf(allowedUids);
            if (maxCalls < 1 || queue < 0) {
                throw new IllegalArgumentException("maxCalls must be at least 1 and queue not negative");
            }
            Objects.requireNonNull(buildId, "buildId");
            Objects.requireNonNull(ioTimeout, "ioTimeout");
            Objects.requireNonNull(callTimeout, "callTimeout");
            Objects.requireNonNull(waitTimeout, "waitTimeout");
            Objects.requireNonNull(hungGrace, "hungGrace");
        }

        /** With the default call, wait and hung timeouts. */
        Settings(Path socket, Set<Integer> allowedUids, int maxCalls, int queue, String buildId, Duration ioTimeout,
                boolean debug) {
            this(socket, allowedUids, maxCalls, queue, buildId, ioTimeout, CALL_TIMEOUT, WAIT_TIMEOUT, HUNG_GRACE,
                    debug);
        }
    }

    /** What the service did, for its log and for tests. */
    static final class Stats {
        final LongAdder calls = new LongAdder();
        final LongAdder busy = new LongAdder();
        final LongAdder denied = new LongAdder();
        final LongAdder malformed = new LongAdder();
        final LongAdder mismatched = new LongAdder();
        final LongAdder elsewhere = new LongAdder();
        /** Calls cancelled because their client went away, or because they ran past the call timeout. */
        final LongAdder abandoned = new LongAdder();
        final LongAdder timedOut = new LongAdder();
        /** Calls written off as hung, ever; and those of them still running. */
        final LongAdder hung = new LongAdder();
        final AtomicInteger hungNow = new AtomicInteger();
        /** Calls answered "try again later" after waiting for their attachment, network or memory. */
        final LongAdder waitedOut = new LongAdder();

        @Override
        public String toString() {
            return calls.sum() + " calls, refused: " + busy.sum() + " busy, " + denied.sum() + " not allowed, "
                    + malformed.sum() + " malformed; " + mismatched.sum() + " clients of another build, " + elsewhere.sum()
                    + " that see other files; cancelled: " + abandoned.sum() + " whose client left, " + timedOut.sum()
                    + " past the call timeout; " + hung.sum() + " hung (" + hungNow.get() + " still), "
                    + waitedOut.sum() + " waited too long";
        }
    }

    private final Settings settings;
    private final UnixSocket listener;
    private final boolean ownsSocketFile;
    private final ServiceLog log;
    private final ThreadPoolExecutor calls;
    private final AttachmentLocks attachments = new AttachmentLocks();
    private final NetworkGates networks = new NetworkGates();
    private final MemoryAdmission memory = MemoryAdmission.forHeap();
    /** The nf_tables sockets of the service's own namespace, lent to the calls that run there (see HostNftables). */
    private final HostNftables.Keeper nftSockets;
    /** The calls in flight, for the watchdog. */
    private final Set<CallWatch> watched = ConcurrentHashMap.newKeySet();
    /** Connections handed to the call threads whose {@link ServiceCall} has not ended: queued, waiting or running. */
    private final AtomicInteger clientCalls = new AtomicInteger();
    /** {@link System#nanoTime()} when the last client's call ended (the service's start before the first). */
    private volatile long lastClientCallEnded = System.nanoTime();
    /** Call threads added beyond maxCalls for calls that hang or wait. Monitor: {@link #calls}' resizing, this set. */
    private int extraThreads;
    private final Object resizing = new Object();
    private final MountView mounts = new MountView();
    private final Stats stats = new Stats();
    private final NetNs.Id home;
    private final Thread acceptor;
    /** The first client call's lead: set by the acceptor as it starts, used by it and the watchdog. */
    private volatile FirstCallLead lead;
    private final Thread watchdog;
    private volatile boolean closing;
    /** Null unless the service was started with metrics ({@link #enableMetrics}): then every call is counted. */
    private volatile ServiceMetrics metrics;
    /** The watchdog goes on while the calls finish after {@link #closing}: a client may still leave. */
    private volatile boolean watchdogStops;

    /** Call threads added at most for hung and waiting calls: beyond, they take the pool's own threads. */
    static final int MAX_EXTRA_THREADS = 256;
    /** How often the watchdog looks at the calls in flight. */
    static final long WATCH_PERIOD_MILLIS = 50;

    private PluginService(Settings settings, UnixSocket listener, boolean ownsSocketFile, ServiceLog log) {
        this.settings = settings;
        this.listener = listener;
        this.ownsSocketFile = ownsSocketFile;
        this.log = log;
        try (NetNs own = NetNs.current()) {
            this.home = own.id();
        }
        this.nftSockets = new HostNftables.Keeper(Math.max(16, settings.maxCalls()));
        this.calls = new ThreadPoolExecutor(settings.maxCalls(), settings.maxCalls(), 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<Runnable>(Math.max(1, settings.queue())), new CallThreads());
        calls.allowCoreThreadTimeOut(true);
        this.acceptor = new Thread(new Acceptor(), "jcni-service-acceptor");
        acceptor.setDaemon(true);
        this.watchdog = new Thread(new Watchdog(), "jcni-service-watchdog");
        watchdog.setDaemon(true);
    }

    /**
     * Binds {@link Settings#socket()} and starts serving. Refused when the parent directory is not the service user's
     * own and closed to others (whoever can write there could put a socket of theirs in its place), when a service
     * already answers there, or when something other than a stale socket is at the path.
     */
    static PluginService bind(Settings settings, ServiceLog log) throws IOException {
        Path socket = settings.socket().toAbsolutePath();
        Path dir = socket.getParent();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir.getParent());
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        PosixFileAttributes attrs = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> perms = attrs.permissions();
        if (!attrs.owner().equals(Files.getOwner(Path.of("/proc/self"))) || perms.contains(PosixFilePermission.GROUP_WRITE)
                || perms.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("the socket's directory " + dir + " must belong to " + Files.getOwner(Path.of(
                    "/proc/self")).getName() + " and not be writable by others (it is "
                    + attrs.owner().getName() + ", " + PosixFilePermissions.toString(perms) + ")");
        }
        if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            if (!Files.readAttributes(socket, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isOther()) {
                throw new IOException(socket + " exists and is not a socket: not removed");
            }
            if (answers(socket)) {
                throw new IOException("a service already listens on " + socket);
            }
            Files.delete(socket); // a stale socket of a service that ended without removing it
        }
        UnixSocket listener = UnixSocket.listen(socket, 128);
        try {
            Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException | RuntimeException e) {
            listener.close();
            Files.deleteIfExists(socket);
            throw e;
        }
        return start(new PluginService(settings, listener, true, log));
    }

    /** Serves on {@code listener}, a socket inherited from systemd (socket activation), which owns its file. */
    static PluginService adopt(UnixSocket listener, Settings settings, ServiceLog log) {
        return start(new PluginService(settings, listener, false, log));
    }

    private static PluginService start(PluginService service) {
        service.watchdog.start();
        service.acceptor.start();
        return service;
    }

    private static boolean answers(Path socket) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return probe.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    Settings settings() {
        return settings;
    }

    Stats stats() {
        return stats;
    }

    /** Counts calls from now on for {@code --metrics-address}; the figures. */
    synchronized ServiceMetrics enableMetrics() {
        if (metrics == null) {
            metrics = new ServiceMetrics(this);
        }
        return metrics;
    }

    /** The figures calls are counted in, or null with metrics off. */
    ServiceMetrics metrics() {
        return metrics;
    }

    /** Calls read and admitted that have not ended: running, or waiting for their attachment or network. */
    int watchedCalls() {
        return watched.size();
    }

    /** A {@link ServiceCall} handed over by the acceptor has ended. */
    void clientCallEnded() {
        lastClientCallEnded = System.nanoTime();
        clientCalls.decrementAndGet();
    }

    /** Nanoseconds since the last client's call ended, 0 while clients' calls are in the service. */
    long idleNanos() {
        if (clientCalls.get() > 0) {
            return 0;
        }
        return Math.max(0, System.nanoTime() - lastClientCallEnded);
    }

    /** Connections waiting for a call thread. */
    int queueDepth() {
        return calls.getQueue().size();
    }

    ServiceLog log() {
        return log;
    }

    /** Whether a client sees the files this service sees. */
    MountView mounts() {
        return mounts;
    }

    AttachmentLocks attachments() {
        return attachments;
    }

    NetworkGates networks() {
        return networks;
    }

    MemoryAdmission memory() {
        return memory;
    }

    /** The nf_tables sockets kept for calls that run in the service's own namespace. */
    HostNftables.Keeper nftSockets() {
        return nftSockets;
    }

    /** Watches a call from now until {@link #unwatch}: cancelled when its client leaves or its time is up. */
    CallWatch watch(UnixSocket conn, String what) {
        CallWatch w = new CallWatch(conn, what, System.nanoTime() + settings.callTimeout().toNanos());
        watched.add(w);
        synchronized (watched) {
            watched.notifyAll(); // the watchdog sleeps while nothing is in flight
        }
        return w;
    }

    /** The call is over; if it had been written off as hung, the thread added in its place goes. */
    void unwatch(CallWatch w) {
        watched.remove(w);
        CallWatch.Ending ending = w.end();
        if (ending != CallWatch.Ending.NORMALLY) {
            stats.hungNow.decrementAndGet();
            if (ending == CallWatch.Ending.HUNG_REPLACED) {
                stepBack();
            }
            log.info("a call written off as hung ended after " + (System.nanoTime() - w.started) / 1_000_000_000
                    + " s: " + w.what);
        }
    }

    /**
     * A call thread is about to wait (for a lock, a GC, memory) or hangs: the pool may start another thread, so that
     * waiting and hung calls cannot take every call thread. False when {@link #MAX_EXTRA_THREADS} are out already;
     * then nothing is added and nothing must be given back.
     */
    boolean stepAside() {
        synchronized (resizing) {
            if (extraThreads >= MAX_EXTRA_THREADS || closing) {
                return false;
            }
            extraThreads++;
            int size = settings.maxCalls() + extraThreads;
            calls.setMaximumPoolSize(size);
            calls.setCorePoolSize(size);
            return true;
        }
    }

    /** Undoes one {@link #stepAside} that returned true. */
    void stepBack() {
        synchronized (resizing) {
            extraThreads--;
            int size = settings.maxCalls() + extraThreads;
            calls.setCorePoolSize(size);
            calls.setMaximumPoolSize(size);
        }
    }

    /**
     * Whether {@code netns}, a client's network namespace, is the service's own: one {@code stat}, where opening it
     * as a {@link NetNs} (and checking it is one) takes several calls. Calls from there run on the call thread itself.
     */
    boolean isHome(io.jcni.netlink.sys.Descriptor netns) {
        try {
            java.util.Map<String, Object> id = Files.readAttributes(netns.procPath(), "unix:dev,ino");
            return home.device() == (Long) id.get("dev") && home.inode() == (Long) id.get("ino");
        } catch (IOException | RuntimeException e) {
            return false; // opening it as a namespace reports what it is
        }
    }

    /** Calls running or waiting. */
    int inFlight() {
        return calls.getActiveCount() + calls.getQueue().size();
    }

    /**
     * Stops: no new connection is accepted, the calls accepted run to their end (for {@code grace} at most), the
     * socket file is removed if this service made it. Idempotent.
     */
    void stop(Duration grace) {
        if (closing) {
            return;
        }
        closing = true;
        try {
            listener.shutdown();
        } catch (KernelException e) {
            // Already shut down.
        }
        calls.shutdown();
        try {
            if (!calls.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                // What is left past the grace is cancelled (rolled back), as a runtime's timeout would.
                int left = 0;
                for (CallWatch w : watched) {
                    left += w.cancel("the service is stopping") ? 1 : 0;
                }
                log.info("stopping: cancelled " + left + " calls still running after " + grace.toSeconds() + " s");
                if (!calls.awaitTermination(settings.hungGrace().toMillis(), TimeUnit.MILLISECONDS)) {
                    log.info("stopping with " + inFlight() + " calls still running");
                }
            }
            acceptor.join(grace.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        watchdogStops = true;
        watchdog.interrupt();
        if (ownsSocketFile) {
            try {
                Files.deleteIfExists(settings.socket());
            } catch (IOException e) {
                log.info("cannot remove " + settings.socket() + ": " + e.getMessage());
            }
        }
        listener.close();
        nftSockets.close();
        log.info("stopped: " + stats);
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(30));
    }

    /** Accepts connections until the service stops. */
    private final class Acceptor implements Runnable {
        @Override
        public void run() {
            lead = FirstCallLead.startOnAcceptor(log);
            while (!closing) {
                UnixSocket conn;
                try {
                    conn = listener.accept();
                } catch (KernelException e) {
                    if (!closing) {
                        // EMFILE and the like: the connection waits in the backlog; do not spin on it.
                        log.refusal("accept failed: " + e.getMessage());
                        pause();
                    }
                    continue;
                }
                try {
                    dispatch(conn);
                } catch (RuntimeException | Error e) {
                    // Out of memory or threads while handing over a connection: that connection is lost, the
                    // service is not (the acceptor must outlive every call's troubles).
                    conn.close();
                    log.refusal("could not hand a connection to a call thread: " + e);
                    pause();
                }
            }
        }

        private void dispatch(UnixSocket conn) {
            PeerCredentials peer;
            try {
                peer = conn.peer();
            } catch (KernelException e) {
                conn.close();
                return;
            }
            if (!settings.allowedUids().contains(peer.uid())) {
                stats.denied.increment();
                log.refusal("refused a client (" + peer + "): uid " + peer.uid() + " is not allowed");
                refuse(conn, Protocol.error(CniError.IO_FAILURE, "the jcni plugin service does not serve uid "
                        + peer.uid(), "it serves uids " + settings.allowedUids() + " (jcni serve --allow-uid)"));
                return;
            }
            clientCalls.incrementAndGet();
            boolean handed = false;
            // The first client call leads; a call thread started for it takes the acceptor's raised nice value.
            boolean leads = lead.claim();
            try {
                calls.execute(new ServiceCall(PluginService.this, conn, peer, leads ? lead : null));
                handed = true;
            } catch (RejectedExecutionException e) {
                stats.busy.increment();
                log.refusal("busy: refused a call from " + peer + " (" + settings.maxCalls() + " running, "
                        + settings.queue() + " waiting)");
                refuse(conn, Protocol.error(CniError.TRY_AGAIN_LATER, "the jcni plugin service is busy",
                        settings.maxCalls() + " calls running and " + settings.queue() + " waiting; try again later"));
            } finally {
                if (leads) {
                    lead.acceptorBack();
                    if (!handed) {
                        lead.end();
                    }
                }
                if (!handed) {
                    clientCalls.decrementAndGet(); // no ServiceCall will end for it
                }
            }
        }

        private void refuse(UnixSocket conn, byte[] answer) {
            try {
                conn.timeouts(Duration.ofSeconds(1), Duration.ofSeconds(1));
                conn.send(answer);
            } catch (KernelException e) {
                // The client left; nothing to tell it.
            } finally {
                conn.close();
            }
        }

        private void pause() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Cancels the calls whose client went away or whose time is up, and writes off those that do not end after their
     * cancellation. Sleeps while no call is in flight.
     */
    private final class Watchdog implements Runnable {
        @Override
        public void run() {
            while (!watchdogStops) {
                try {
                    if (watched.isEmpty()) {
                        synchronized (watched) {
                            if (watched.isEmpty()) {
                                watched.wait(1000);
                            }
                        }
                    } else {
                        Thread.sleep(WATCH_PERIOD_MILLIS);
                    }
                    long now = System.nanoTime();
                    for (CallWatch w : watched) {
                        look(w, now);
                    }
                    FirstCallLead first = lead;
                    if (first != null) {
                        first.expire(now);
                    }
                } catch (InterruptedException e) {
                    return; // stopping
                } catch (RuntimeException | Error e) {
                    log.failure("the call watchdog failed (it goes on)", e);
                }
            }
        }

        private void look(CallWatch w, long now) {
            long since = w.sinceCancelled(now);
            if (since < 0) {
                if (now - w.deadline > 0) {
                    if (w.cancel("it ran longer than " + settings.callTimeout().toSeconds() + " s (--call-timeout)")) {
                        stats.timedOut.increment();
                        log.info("cancelled a call that ran past " + settings.callTimeout().toSeconds() + " s: "
                                + w.what);
                    }
                } else if (w.clientGone() && w.cancel("its client went away")) {
                    stats.abandoned.increment();
                    log.debug("cancelled a call whose client went away: " + w.what);
                }
            } else if (since > settings.callTimeout().toNanos() && w.interruptAgain()) {
                log.info("interrupted a cancelled call again: what it runs since its cancellation (its rollback) took "
                        + settings.callTimeout().toSeconds() + " s: " + w.what);
            } else if (since > settings.hungGrace().toNanos()) {
                boolean added;
                synchronized (w) { // so that the call cannot end between its write-off and the thread added for it
                    if (!w.writeOff()) {
                        return;
                    }
                    stats.hung.increment();
                    stats.hungNow.incrementAndGet();
                    added = stepAside();
                    if (added) {
                        w.threadAdded();
                    }
                }
                Thread t = w.thread();
                StackTraceElement[] where = t == null ? new StackTraceElement[0] : t.getStackTrace();
                log.info("a call hangs " + since / 1_000_000 + " ms after it was cancelled (" + w.cancelled() + "): "
                        + w.what + "; " + (added ? "another call thread takes its place" : "no thread added (" +
                        MAX_EXTRA_THREADS + " already)") + "; " + stats.hungNow.get() + " hung now; it waits in "
                        + (where.length == 0 ? "?" : where[0] + (where.length > 1 ? " < " + where[1] : "")));
            }
        }
    }

    /** Call threads: platform threads (calls block in the kernel, and may switch namespaces through NetNs). */
    private static final class CallThreads implements ThreadFactory {
        private final AtomicInteger next = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(null, r, "jcni-call-" + next.incrementAndGet(), 1 << 20);
            t.setDaemon(true);
            return t;
        }
    }
}
