package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.sys.Descriptor;
import io.jcni.netlink.sys.PeerCredentials;
import io.jcni.netlink.sys.ThreadDirectory;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.pkg.locks.AttachmentLocks;
import io.jcni.plugins.internal.pkg.ns.HostNftables;
import io.jcni.plugins.internal.trace.PhaseSink;
import io.jcni.plugins.sdk.CallerNetns;
import io.jcni.plugins.sdk.Skel;
import io.jcni.runtime.CancellableCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.Command;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * One connection: read the request, refuse it or run it, answer. Runs on one of the service's call threads.
 *
 * <p>Order, which the client's guarantees rest on: the request's header is read, the call is admitted by its size
 * ({@link MemoryAdmission}), the rest is read and everything checked; the call passes its network's gate
 * ({@link NetworkGates}: a GC waits for its network's calls, and they for it), then takes its attachment's lock
 * ({@link AttachmentLocks}); for a call that changes
 * state (ADD, DEL, GC) 'A' is sent, and if that fails (the client was killed while waiting) nothing runs; the call runs
 * until it ends, or until the service's watchdog cancels it (its client went away, or its time is up: the plugin fails
 * and rolls back, and a cancelled call never commits); the whole answer is sent in one frame (for the other calls,
 * with their 'A' in front). The client prints nothing before it has that frame complete. Every wait has a deadline:
 * one that passes answers error 11, "try again later".
 */
final class ServiceCall implements Runnable {
    private final PluginService service;
    private final UnixSocket conn;
    private final PeerCredentials peer;
    /** When the acceptor handed the connection over (for the debug line's times). */
    private final long accepted = System.nanoTime();
    private long read;
    /** The memory the call was admitted with, once {@link #readRequest} admitted it. */
    private MemoryAdmission.Admitted admitted;

    /** The service's first client call leads while it runs ({@link FirstCallLead}); null for the others. */
    private final FirstCallLead lead;

    ServiceCall(PluginService service, UnixSocket conn, PeerCredentials peer, FirstCallLead lead) {
        this.service = service;
        this.conn = conn;
        this.peer = peer;
        this.lead = lead;
    }

    @Override
    public void run() {
        Request request = null;
        try {
            if (lead != null) {
                lead.enter();
            }
            request = readRequest();
            if (request == null) {
                return;
            }
            read = System.nanoTime();
            byte[] refusal = refusal(request);
            if (refusal != null) {
                answer(refusal);
                return;
            }
            byte[] answer = call(request);
            if (answer != null) {
                answer(answer);
            }
        } catch (KernelException e) {
            // The client went away or stalled past the timeout: nobody is left to answer.
            service.log().debug("connection from " + peer + ": " + e.getMessage());
        } catch (RuntimeException | Error e) {
            service.log().failure("a call from " + peer + " failed", e);
        } finally {
            if (admitted != null) {
                admitted.close();
            }
            if (request != null) {
                request.close();
            }
            conn.close();
            service.clientCallEnded();
            if (lead != null) {
                lead.end();
            }
        }
    }

    /**
     * Reads the request, admitted by the memory it may need ({@link #admitted}, which {@link #run} closes); null when
     * it is not to run: already answered (another protocol version, malformed, waited too long) or its client left.
     */
    private Request readRequest() {
        PluginService.Settings settings = service.settings();
        try {
            Request.Header header = Request.Header.read(conn, System.nanoTime() + settings.ioTimeout().toNanos());
            try {
                admitted = admit(header);
                if (admitted == null) {
                    return null;
                }
                return header.readBody(conn, System.nanoTime() + settings.ioTimeout().toNanos());
            } finally {
                header.closeUnclaimed();
            }
        } catch (Request.VersionSkew e) {
            service.stats().mismatched.increment();
            conn.send(Protocol.mismatch(settings.buildId()));
            return null;
        } catch (BadRequest e) {
            service.stats().malformed.increment();
            if (e.probe()) {
                service.log().debug("connection from " + peer + ": " + e.getMessage());
                return null;
            }
            service.log().refusal("refused a request from " + peer + ": " + e.getMessage());
            answer(Protocol.error(CniError.IO_FAILURE, e.getMessage(), "see the service's log"));
            return null;
        }
    }

    /**
     * The answer to a request this service does not run: a client of another build (its JVM launcher runs it), or
     * one that sees other files than the service; null to run it.
     */
    private byte[] refusal(Request request) {
        PluginService.Settings settings = service.settings();
        if (!request.buildId.equals(settings.buildId())) {
            service.stats().mismatched.increment();
            return Protocol.mismatch(settings.buildId());
        }
        String elsewhere = elsewhere(request);
        if (elsewhere != null) {
            service.stats().elsewhere.increment();
            service.log().debug("a client of " + peer + " sees other files: " + elsewhere);
            return Protocol.elsewhere(elsewhere);
        }
        return null;
    }

    /**
     * Admits the call by the memory its request may need; null if it waited too long (answered 11) or its client
     * left meanwhile. A call that waits gives its thread's place in the pool to another meanwhile.
     */
    private MemoryAdmission.Admitted admit(Request.Header header) {
        long estimate = header.memoryEstimate();
        if (!MemoryAdmission.counted(estimate)) {
            return MemoryAdmission.FREE;
        }
        if (estimate > service.memory().budget()) {
            // Not even alone would it fit beside the others: its JVM launcher runs it, with a heap of its own.
            service.stats().elsewhere.increment();
            answer(Protocol.elsewhere("a call with " + header.stdinLength + " bytes of stdin may need "
                    + (estimate >> 20) + " MiB, more than the " + (service.memory().budget() >> 20)
                    + " MiB the service sets aside for large calls"));
            return null;
        }
        boolean aside = service.stepAside();
        try {
            return service.memory().admit(estimate, System.nanoTime() + service.settings().waitTimeout().toNanos());
        } catch (TimeoutException e) {
            service.stats().waitedOut.increment();
            answer(Protocol.error(CniError.TRY_AGAIN_LATER, "the jcni plugin service is busy with large calls",
                    "this request (" + header.stdinLength + " bytes of stdin) waited "
                            + service.settings().waitTimeout().toSeconds() + " s for memory: " + e.getMessage()));
            return null;
        } catch (InterruptedException e) {
            return null; // the service is stopping
        } finally {
            if (aside) {
                service.stepBack();
            }
        }
    }

    /** Why the client sees other files than the service (a chroot, other mounts), or null. */
    private String elsewhere(Request request) {
        if (request.root != null && !service.mounts().isRoot(request.root.procPath())) {
            return "the client runs in another root directory (chroot)";
        }
        return service.mounts().difference(request.mountNs == null ? null : request.mountNs.procPath(),
                request.mountInfo == null ? null : request.mountInfo.procPath());
    }

    /**
     * Sends a frame, giving the client {@code ioTimeout} to take all of it (a client that reads a byte now and then
     * does not hold the thread longer).
     */
    private void answer(byte[] frame) {
        long deadline = System.nanoTime() + service.settings().ioTimeout().toNanos();
        for (int at = 0; at < frame.length; ) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new KernelException("send the answer to " + peer, KernelException.Kind.OTHER,
                        "the client did not take it in time", null);
            }
            Duration t = Duration.ofNanos(Math.max(1_000_000, left));
            conn.timeouts(t, t);
            int n = Math.min(frame.length - at, 64 << 10);
            conn.send(frame, at, n, java.util.List.of());
            at += n;
        }
    }

    /** Runs the request; its answer frame, or null if the client left before the call started. */
    private byte[] call(Request request) {
        Skel skel = PluginRegistry.skel(request.type);
        if (skel == null) {
            return Protocol.error(CniError.INTERNAL, "jcni launcher: unknown plugin type \"" + request.type + "\"",
                    "this image has " + PluginRegistry.TYPES);
        }
        NetNs client = null;
        if (request.ownNetns != null && !service.isHome(request.ownNetns)) {
            try {
                client = NetNs.openDescriptor(request.ownNetns, Path.of("/proc/" + peer.pid() + "/ns/net"));
            } catch (KernelException e) {
                service.stats().malformed.increment();
                return Protocol.error(CniError.IO_FAILURE, "malformed request: the client's network namespace: "
                        + e.getMessage(), "");
            }
        }
        String command = request.variable("CNI_COMMAND");
        CallWatch watch = service.watch(conn, command + " " + request.type + " of " + describe(request) + " for "
                + peer);
        Thread caller = watch.enter();
        try {
            return gated(skel, request, client, watch);
        } finally {
            watch.leave(caller);
            service.unwatch(watch);
            if (client != null) {
                client.close();
            }
        }
    }

    /**
     * Runs the request once its network's gate and its attachment's lock are held (both released afterwards); the
     * answer of a call that waited too long, or null if the client left meanwhile.
     */
    private byte[] gated(Skel skel, Request request, NetNs client, CallWatch watch) {
        String command = request.variable("CNI_COMMAND");
        Command verb = Command.parse(command);
        AttachmentLocks.Held attachment = null;
        NetworkGates.Pass pass = null;
        try {
            long waitUntil = System.nanoTime() + service.settings().waitTimeout().toNanos();
            try {
                if (verb != null && verb.hasAttachment()) {
                    // The gate first: a GC sent after this call reached the service waits for it, as for one
                    // that runs (the runtime may think it over: it killed its client at its own timeout).
                    pass = waiting(new GateWait(request, false), waitUntil);
                    attachment = waiting(new AttachmentWait(request), waitUntil);
                } else if (verb == Command.GC) {
                    pass = waiting(new GateWait(request, true), waitUntil);
                }
            } catch (TimeoutException e) {
                service.stats().waitedOut.increment();
                service.log().debug(command + " for " + peer + " waited too long: " + e.getMessage());
                return Protocol.error(CniError.TRY_AGAIN_LATER, "the jcni plugin service cannot run this call now: "
                        + e.getMessage(), "it waited " + service.settings().waitTimeout().toSeconds()
                        + " s; try again later");
            } catch (InterruptedException e) {
                service.log().debug("a client of " + peer + " left before its call started");
                return null;
            }
            watch.passed(pass);
            return acknowledged(skel, request, client, watch, verb);
        } finally {
            if (pass != null) {
                pass.close();
            }
            if (attachment != null) {
                attachment.close();
            }
        }
    }

    /**
     * 'A' and then the run: for a call that changes state, 'A' goes first and nothing runs if the client cannot take
     * it (null); a call that changes nothing is acknowledged with its answer, in one send.
     */
    private byte[] acknowledged(Skel skel, Request request, NetNs client, CallWatch watch, Command verb) {
        if (changesState(verb)) {
            try {
                answer(new byte[] {Protocol.ACCEPTED});
            } catch (KernelException e) {
                service.log().debug("a client of " + peer + " left before its call started: " + e.getMessage());
                return null;
            }
            return run(skel, request, client, watch);
        }
        byte[] answer = run(skel, request, client, watch);
        byte[] frame = new byte[answer.length + 1];
        frame[0] = Protocol.ACCEPTED;
        System.arraycopy(answer, 0, frame, 1, answer.length);
        return frame;
    }

    /** "network N, attachment C/I" for the log. */
    private static String describe(Request request) {
        return "network \"" + network(request) + "\", attachment " + request.variable("CNI_CONTAINERID") + "/"
                + request.variable("CNI_IFNAME");
    }

    /**
     * The network a call is about: the {@code name} of its configuration as Go's struct decoding finds it (any case,
     * the last one), "" when there is none or the configuration is not JSON (the plugin then fails it at once).
     */
    static String network(Request request) {
        if (request.network == null) {
            String name = "";
            try {
                if (CniJson.parse(request.stdin) instanceof JsonObject config
                        && config.field("name").orElse(null) instanceof JsonString s) {
                    name = s.value();
                }
            } catch (RuntimeException e) {
                // not JSON (CniException), or not one: the plugin reports it
            }
            request.network = name;
        }
        return request.network;
    }

    /** Something a call waits for before it runs, with a deadline; {@link #waiting} runs it. */
    private interface Wait<T> {
        T tryNow();

        T await(long deadline) throws TimeoutException, InterruptedException;
    }

    /**
     * Takes what {@code wait} waits for: at once if it is free, else waiting until {@code deadline}, with this thread's
     * place in the pool given to another call meanwhile.
     */
    private <T> T waiting(Wait<T> wait, long deadline) throws TimeoutException, InterruptedException {
        T now = wait.tryNow();
        if (now != null) {
            return now;
        }
        boolean aside = service.stepAside();
        try {
            return wait.await(deadline);
        } finally {
            if (aside) {
                service.stepBack();
            }
        }
    }

    private final class AttachmentWait implements Wait<AttachmentLocks.Held> {
        private final String containerId;
        private final String ifName;

        AttachmentWait(Request request) {
            this.containerId = request.variable("CNI_CONTAINERID");
            this.ifName = request.variable("CNI_IFNAME");
        }

        @Override
        public AttachmentLocks.Held tryNow() {
            return service.attachments().tryAcquire(containerId, ifName);
        }

        @Override
        public AttachmentLocks.Held await(long deadline) throws TimeoutException, InterruptedException {
            return service.attachments().acquire(containerId, ifName, deadline);
        }
    }

    private final class GateWait implements Wait<NetworkGates.Pass> {
        private final String network;
        private final boolean collector;

        GateWait(Request request, boolean collector) {
            this.network = network(request);
            this.collector = collector;
        }

        @Override
        public NetworkGates.Pass tryNow() {
            return service.networks().tryPass(network, collector);
        }

        @Override
        public NetworkGates.Pass await(long deadline) throws TimeoutException, InterruptedException {
            return collector ? service.networks().collect(network, deadline)
                    : service.networks().call(network, deadline);
        }
    }

    /**
     * The plugin's environment: the client's, with {@code JCNI_SERVICE_SOCKET=off}, so that a delegate the plugin
     * execs (a jcni client this service does not run in-process, e.g. of another version) runs its JVM launcher
     * instead of coming back here: a call waiting for a call queued behind it could wait forever.
     */
    static Map<String, String> environment(Map<String, String> client) {
        if ("off".equals(client.get(ServiceMain.SOCKET_ENV))) {
            return client;
        }
        Map<String, String> env = new java.util.HashMap<>(client);
        env.put(ServiceMain.SOCKET_ENV, "off");
        return java.util.Collections.unmodifiableMap(env);
    }

    /** ADD, DEL and GC change state; VERSION, CHECK and STATUS (and an unknown command, an error) do not. */
    private static boolean changesState(Command verb) {
        return verb == Command.ADD || verb == Command.DEL || verb == Command.GC;
    }

    private byte[] run(Skel skel, Request request, NetNs client, CallWatch watch) {
        long start = System.nanoTime();
        // In the client's network namespace when it is not the service's: the plugin's "host" side is the runtime's.
        SkelCall call = new SkelCall(skel, environment(request.env), request.stdin, handedNetns(request), watch,
                service.mounts().otherCwd(request.cwd), service.mounts().ownCwd(), service.metrics(),
                client == null ? service.nftSockets() : null);
        int status = client == null ? call.run() : client.call(call);
        service.stats().calls.increment();
        ServiceMetrics metrics = service.metrics();
        if (metrics != null) {
            String error = watch.cancelled() != null ? Integer.toString(CniError.TRY_AGAIN_LATER)
                    : call.out.overflowed() ? Integer.toString(CniError.IO_FAILURE)
                    : status == 0 ? null : ServiceMetrics.errorCode(call.out.buffer(), call.out.length());
            metrics.call(request.type, request.variable("CNI_COMMAND"), error, System.nanoTime() - start);
        }
        if (service.log().debugEnabled()) {
            service.log().debug(request.variable("CNI_COMMAND") + " " + request.type + " for " + peer + ": status "
                    + status + "; waited " + (read - accepted) / 1000 + " us for a thread and the request, ran "
                    + (System.nanoTime() - start) / 1000 + " us" + (client == null ? "" : " in " + client));
        }
        String cancelled = watch.cancelled();
        if (cancelled != null) {
            // The client is gone (nobody reads this) or its time is up: say so rather than what the plugin said.
            byte[] json = CniJson.encode(new CniError(CniError.TRY_AGAIN_LATER,
                    "the jcni plugin service cancelled the call: " + cancelled,
                    "what the plugin did was undone; its output: " + call.out.text(2000)));
            return Protocol.answer(1, json, json.length, call.err.buffer(), call.err.length());
        }
        if (call.out.overflowed()) {
            return Protocol.error(CniError.IO_FAILURE, "plugin " + request.type + " printed more than "
                    + Protocol.MAX_STDOUT + " bytes on stdout", "a result that large is not passed on");
        }
        return Protocol.answer(status, call.out.buffer(), call.out.length(), call.err.buffer(), call.err.length());
    }

    private static CallerNetns handedNetns(Request request) {
        CallerNetns netns;
        switch (request.netnsState) {
            case Protocol.NETNS_DESCRIPTOR:
                netns = CallerNetns.descriptor(request.netns);
                break;
            case Protocol.NETNS_ABSENT:
                netns = CallerNetns.absent();
                break;
            default:
                netns = CallerNetns.byPath(); // unset, or for the plugin to open (and report) itself
                break;
        }
        return request.sysfs == null ? netns : netns.withSysfs(request.sysfs);
    }

    /**
     * The skel's run as a task for {@link NetNs#call} (a named class: no lambdas in this module), on whichever thread
     * runs it: that thread is the one the watchdog interrupts to cancel the call, and an interrupt there kills the
     * delegates the plugin execs ({@link CancellableCall}).
     */
    private static final class SkelCall implements NetNs.Task<Integer, RuntimeException> {
        final BoundedOutput out = new BoundedOutput(Protocol.MAX_STDOUT);
        final BoundedOutput err = new BoundedOutput(Protocol.KEPT_STDERR);
        private final Skel skel;
        private final Map<String, String> env;
        private final byte[] stdin;
        private final CallerNetns netns;
        private final CallWatch watch;
        /** The client's working directory when it is not the service's, else null; and the service's. */
        private final Descriptor cwd;
        private final Descriptor home;

        /** The phases' sink with metrics on, else null. */
        private final PhaseSink phases;
        /** The service's nf_tables sockets when the call runs in the service's namespace (on the call thread). */
        private final HostNftables.Keeper nftSockets;

        SkelCall(Skel skel, Map<String, String> env, byte[] stdin, CallerNetns netns, CallWatch watch, Descriptor cwd,
                Descriptor home, PhaseSink phases, HostNftables.Keeper nftSockets) {
            this.phases = phases;
            this.nftSockets = nftSockets;
            this.skel = skel;
            this.env = env;
            this.stdin = stdin;
            this.netns = netns;
            this.watch = watch;
            this.cwd = cwd;
            this.home = home;
        }

        @Override
        public Integer run() {
            OutputStream stdout = out;
            Thread previous = watch.enter();
            if (phases != null) {
                PhaseSink.set(phases);
            }
            HostNftables.Scope sockets = nftSockets == null ? null : nftSockets.enter();
            try (CancellableCall.Scope cancellable = CancellableCall.enter()) {
                if (cwd == null) {
                    return skel.run(env, stdin, stdout, err, netns);
                }
                // In the client's working directory, on this thread only: a relative dataDir, resolvConf or
                // CNI_PATH entry, and a delegate this call execs, find what an exec'd plugin would find.
                try {
                    ThreadDirectory.detach();
                    ThreadDirectory.enter(cwd);
                } catch (KernelException e) {
                    byte[] json = CniJson.encode(new CniError(CniError.IO_FAILURE, "the jcni plugin service cannot"
                            + " run the call in its caller's working directory: " + e.getMessage(), ""));
                    out.write(json, 0, json.length);
                    return 1;
                }
                try {
                    return skel.run(env, stdin, stdout, err, netns);
                } finally {
                    ThreadDirectory.enter(home);
                }
            } finally {
                if (sockets != null) {
                    sockets.close();
                }
                if (phases != null) {
                    PhaseSink.set(null);
                }
                watch.leave(previous);
            }
        }
    }
}
