package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.sys.PeerCredentials;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.CallerNetns;
import io.jcni.plugins.sdk.Skel;
import io.jcni.spec.CniError;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One connection: read the request, refuse it or run it, answer. Runs on one of the service's call threads.
 *
 * <p>Order, which the client's guarantees rest on: the request is read and checked completely; the attachment's lock
 * is taken; for a call that changes state (ADD, DEL, GC) 'A' is sent, and if that fails (the client was killed while
 * waiting) nothing runs; the call runs to its end (completed or rolled back by the plugin) even if the client goes
 * away meanwhile; the whole answer is sent in one frame (for the other calls, with their 'A' in front). The client
 * prints nothing before it has that frame complete.
 */
final class ServiceCall implements Runnable {
    private final PluginService service;
    private final UnixSocket conn;
    private final PeerCredentials peer;
    /** When the acceptor handed the connection over (for the debug line's times). */
    private final long accepted = System.nanoTime();
    private long read;

    ServiceCall(PluginService service, UnixSocket conn, PeerCredentials peer) {
        this.service = service;
        this.conn = conn;
        this.peer = peer;
    }

    @Override
    public void run() {
        Request request = null;
        try {
            conn.timeouts(service.settings().ioTimeout(), service.settings().ioTimeout());
            try {
                request = Request.read(conn);
            } catch (Request.VersionSkew e) {
                service.stats().mismatched.increment();
                conn.send(Protocol.mismatch(service.settings().buildId()));
                return;
            } catch (BadRequest e) {
                service.stats().malformed.increment();
                if (e.probe()) {
                    service.log().debug("connection from " + peer + ": " + e.getMessage());
                    return;
                }
                service.log().refusal("refused a request from " + peer + ": " + e.getMessage());
                conn.send(Protocol.error(CniError.IO_FAILURE, e.getMessage(), "see the service's log"));
                return;
            }
            read = System.nanoTime();
            if (!request.buildId.equals(service.settings().buildId())) {
                service.stats().mismatched.increment();
                conn.send(Protocol.mismatch(service.settings().buildId()));
                return;
            }
            String elsewhere = service.mounts().difference(
                    request.mountNs == null ? null : request.mountNs.procPath(),
                    request.mountInfo == null ? null : request.mountInfo.procPath());
            if (elsewhere != null) {
                service.stats().elsewhere.increment();
                service.log().debug("a client of " + peer + " sees other files: " + elsewhere);
                conn.send(Protocol.elsewhere(elsewhere));
                return;
            }
            byte[] answer = call(request);
            if (answer != null) {
                conn.send(answer);
            }
        } catch (KernelException e) {
            // The client went away or stalled past the timeout: nobody is left to answer.
            service.log().debug("connection from " + peer + ": " + e.getMessage());
        } catch (RuntimeException | Error e) {
            service.log().failure("a call from " + peer + " failed", e);
        } finally {
            if (request != null) {
                request.close();
            }
            conn.close();
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
        ReentrantLock lock = null;
        Lock collection = null;
        if (command.equals("ADD") || command.equals("DEL") || command.equals("CHECK")) {
            lock = service.attachments().of(request.variable("CNI_CONTAINERID"), request.variable("CNI_IFNAME"));
            collection = service.collection().readLock();
        } else if (command.equals("GC")) {
            collection = service.collection().writeLock();
        }
        try {
            if (collection != null) {
                collection.lock();
            }
            if (lock != null) {
                lock.lock();
            }
            try {
                if (changesState(command)) {
                    try {
                        conn.send(new byte[] {Protocol.ACCEPTED});
                    } catch (KernelException e) {
                        service.log().debug("a client of " + peer + " left before its call started: "
                                + e.getMessage());
                        return null;
                    }
                    return run(skel, request, client);
                }
                // Nothing to run or not: a call that changes nothing is acknowledged with its answer, in one send.
                byte[] answer = run(skel, request, client);
                byte[] frame = new byte[answer.length + 1];
                frame[0] = Protocol.ACCEPTED;
                System.arraycopy(answer, 0, frame, 1, answer.length);
                return frame;
            } finally {
                if (lock != null) {
                    lock.unlock();
                }
                if (collection != null) {
                    collection.unlock();
                }
            }
        } finally {
            if (client != null) {
                client.close();
            }
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
    private static boolean changesState(String command) {
        return command.equals("ADD") || command.equals("DEL") || command.equals("GC");
    }

    private byte[] run(Skel skel, Request request, NetNs client) {
        long start = System.nanoTime();
        // In the client's network namespace when it is not the service's: the plugin's "host" side is the runtime's.
        SkelCall call = new SkelCall(skel, environment(request.env), request.stdin, handedNetns(request));
        int status = client == null ? call.run() : client.call(call);
        service.stats().calls.increment();
        if (service.log().debugEnabled()) {
            service.log().debug(request.variable("CNI_COMMAND") + " " + request.type + " for " + peer + ": status "
                    + status + "; waited " + (read - accepted) / 1000 + " us for a thread and the request, ran "
                    + (System.nanoTime() - start) / 1000 + " us" + (client == null ? "" : " in " + client));
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

    /** The skel's run as a task for {@link NetNs#call} (a named class: no lambdas in this module). */
    private static final class SkelCall implements NetNs.Task<Integer, RuntimeException> {
        final BoundedOutput out = new BoundedOutput(Protocol.MAX_STDOUT);
        final BoundedOutput err = new BoundedOutput(Protocol.KEPT_STDERR);
        private final Skel skel;
        private final Map<String, String> env;
        private final byte[] stdin;
        private final CallerNetns netns;

        SkelCall(Skel skel, Map<String, String> env, byte[] stdin, CallerNetns netns) {
            this.skel = skel;
            this.env = env;
            this.stdin = stdin;
            this.netns = netns;
        }

        @Override
        public Integer run() {
            OutputStream stdout = out;
            return skel.run(env, stdin, stdout, err, netns);
        }
    }
}
