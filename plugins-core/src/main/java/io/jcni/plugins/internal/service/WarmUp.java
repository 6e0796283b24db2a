package io.jcni.plugins.internal.service;

import io.jcni.netlink.NetNs;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamPools;
import io.jcni.plugins.internal.pkg.ns.HostNftables;
import io.jcni.plugins.sdk.CallerNetns;
import io.jcni.plugins.sdk.Skel;
import io.jcni.runtime.JcniLaunchers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The service's warm-up of its own (issue 25): right after it starts serving, a thread of its own runs the calls a
 * node makes when it starts and removes pods, so that the JVM has loaded, linked and initialized their code and the JIT
 * has compiled its hot parts before (or while) the first clients call: a bridge + host-local ADD and DEL as a default
 * network makes them, and a pod's chain of bridge (ipMasq, hairpin) → portmap → firewall → tuning, ADD then DEL.
 *
 * <p>Sharp edges:
 * <ul>
 * <li><b>Nothing of it reaches the node.</b> The calls run in two network namespaces it creates (anonymous, never
 * mounted: a "node" the plugins' host side is, and a "pod"), so their bridges, veths, addresses, routes, sysctls and
 * nftables rules exist only there and vanish with them; their files are in a directory of its own under
 * {@code java.io.tmpdir}, removed when it ends. Its calls are not clients' calls: they bypass {@link ServiceCall}, so
 * they are not logged, not counted in the service's statistics or metrics, and host-local records no pool for them
 * ({@link IpamPools#unrecorded()}).</li>
 * <li><b>It yields to clients.</b> Before its set-up and before each of its calls it waits until the service has had
 * no client call for {@link #IDLE_NANOS} ({@link PluginService#idleNanos()}): it runs while the node is quiet, not
 * between the calls of a runtime that is busy. Measured with a shorter yield (only while a client's call was in the
 * service), its veth and namespace work in the kernel (the rtnl lock is the whole machine's) slowed the clients' calls
 * and other processes' (Go's exec'd bridge beside it took 1.7 to 2.2 times as long on a loaded 2-core machine). A
 * client call arriving during one of its calls shares the cores with that one call only; it holds no lock a client's
 * call takes (its attachments, networks and files are its own), and the socket is served before it starts.</li>
 * <li><b>It gives up quietly.</b> A call of its own that fails (a kernel without nf_tables, a read-only tmpdir) ends
 * the warm-up with one line in the debug log; the service serves as it would have without it.</li>
 * </ul>
 */
final class WarmUp implements Runnable {
    /** Rounds when {@code --warm-up} is not given. */
    static final int DEFAULT_ROUNDS = 30;
    /** How often a warm-up waiting for the clients' calls to end looks again. */
    private static final long IDLE_POLL_NANOS = 2_000_000;
    /** How long the service must have been without clients' calls before the warm-up makes a call of its own. */
    static final long IDLE_NANOS = 100_000_000;
    private static final String NETWORK = "jcni-warm-up";
    private static final String POD_NETWORK = "jcni-warm-up-pods";
    /** Its directory's name: this prefix, the service's pid, a dash and a random part. */
    private static final String PREFIX = "jcni-warm-up-";

    private final PluginService service;
    private final int rounds;
    private final ServiceLog log;
    private final Thread thread;
    private volatile boolean stopping;
    /** Calls made, and the time spent waiting for clients' calls; read once it ended. */
    private int calls;
    private long yieldedNanos;

    private WarmUp(PluginService service, int rounds, ServiceLog log) {
        this.service = service;
        this.rounds = rounds;
        this.log = log;
        this.thread = new Thread(this, "jcni-service-warm-up");
        thread.setDaemon(true);
    }

    /** Starts {@code rounds} rounds of warm-up on a thread of its own; null (nothing started) when {@code rounds} is 0. */
    static WarmUp start(PluginService service, int rounds, ServiceLog log) {
        if (rounds <= 0) {
            return null;
        }
        WarmUp w = new WarmUp(service, rounds, log);
        log.debug("warm-up: " + rounds + " rounds in namespaces of its own, yielding to clients' calls");
        w.thread.start();
        return w;
    }

    /** Stops it (the call in progress is interrupted and rolls back) and waits up to {@code millis} for its clean-up. */
    void stop(long millis) {
        stopping = true;
        thread.interrupt();
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void run() {
        long started = System.nanoTime();
        // Its set-up (two namespaces, nf_tables sockets, a directory, the classes of all that, which the JIT then
        // compiles) waits for a quiet service too: a socket-activated service's first call comes at once and shared
        // the two cores with it (first bridge ADD of a fresh service 2.33x Go's with the set-up beside it, 1.63x
        // without; medians of 8 fresh services each, busy machine).
        if (!yieldToClients()) {
            log.info("warm-up stopped with the service before it began");
            return;
        }
        Path dir = null;
        String outcome;
        try (NetNs node = NetNs.create(); HostNftables.Keeper sockets = new HostNftables.Keeper(2)) {
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            removeStale(tmp);
            dir = Files.createTempDirectory(tmp, PREFIX + ProcessHandle.current().pid() + "-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path bin = dir.resolve("bin");
            Files.createDirectory(bin);
            // host-local as a jcni launcher in CNI_PATH: the delegation finds its marker and runs it in-process, as
            // it does for clients' calls (never exec'd; a file of its own, so it works in any dist layout).
            Files.writeString(bin.resolve("host-local"), "#!/bin/false\n" + JcniLaunchers.markerLine("host-local")
                    + "\n", StandardCharsets.US_ASCII);
            Files.setPosixFilePermissions(bin.resolve("host-local"), PosixFilePermissions.fromString("rwx------"));
            outcome = rounds(node, sockets, dir);
        } catch (IOException | RuntimeException e) { // KernelException: no namespaces (not root), no nf_tables
            outcome = "stopped: " + e;
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
        // Not only in debug mode: how an operator (and the AOT training, which waits for it) knows the service is warm.
        log.info("warm-up " + outcome + ": " + calls + " calls in " + (System.nanoTime() - started) / 1_000_000
                + " ms, " + yieldedNanos / 1_000_000 + " ms of it waiting for clients' calls");
    }

    /** The rounds, in one pod namespace (each round's DELs leave it empty again); how they ended. */
    private String rounds(NetNs node, HostNftables.Keeper sockets, Path dir) {
        Pod pod = new Pod(node, sockets, dir);
        try (NetNs podNs = NetNs.create()) {
            for (int round = 0; round < rounds; round++) {
                String failure = pod.round(podNs, round);
                if (failure != null) {
                    return "stopped: " + failure;
                }
                if (stopping) {
                    return "stopped with the service";
                }
            }
        }
        return "done (" + rounds + " rounds)";
    }

    /**
     * Waits until the service has been without clients' calls for {@link #IDLE_NANOS}; false if the service stops
     * meanwhile. Not merely between two calls: clients that call one after the other (a runtime adding a pod's
     * networks, a benchmark) leave gaps of milliseconds, and a warm-up call there would share the cores, and the
     * kernel's rtnl lock, with their next call.
     */
    private boolean yieldToClients() {
        long idle = service.idleNanos();
        if (idle >= IDLE_NANOS) {
            return !stopping;
        }
        long from = System.nanoTime();
        while (!stopping && (idle = service.idleNanos()) < IDLE_NANOS) {
            LockSupport.parkNanos(Math.max(IDLE_POLL_NANOS, IDLE_NANOS - idle));
        }
        yieldedNanos += System.nanoTime() - from;
        return !stopping;
    }

    /** One round's calls: the default network's ADD and DEL, then the pod chain's ADDs and DELs (reverse order). */
    private final class Pod {
        private final NetNs node;
        /** The node namespace's nf_tables sockets, kept from call to call as the service keeps its own. */
        private final HostNftables.Keeper sockets;
        private final Path dir;

        Pod(NetNs node, HostNftables.Keeper sockets, Path dir) {
            this.node = node;
            this.sockets = sockets;
            this.dir = dir;
        }

        /** Null when every call succeeded (or the service stops), else what failed. */
        String round(NetNs pod, int round) {
            String plain = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"bridge\",\"bridge\":"
                    + "\"jcni-warm0\",\"isGateway\":true,\"ipam\":{\"type\":\"host-local\",\"dataDir\":\""
                    + dir.resolve("ipam") + "\",\"ranges\":[[{\"subnet\":\"10.250.0.0/24\"}]],\"routes\":[{\"dst\":"
                    + "\"0.0.0.0/0\"}]}}";
            String id = "warm-up-" + round;
            CallResult added = call("bridge", "ADD", pod, id, "eth0", plain);
            if (added.failure() != null) {
                return added.failure();
            }
            CallResult deleted = call("bridge", "DEL", pod, id, "eth0", plain);
            if (deleted.failure() != null) {
                return deleted.failure();
            }
            return chain(pod, id, round);
        }

        private String chain(NetNs pod, String id, int round) {
            String bridge = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + POD_NETWORK + "\",\"type\":\"bridge\",\"bridge\":"
                    + "\"jcni-warm1\",\"isGateway\":true,\"ipMasq\":true,\"hairpinMode\":true,\"ipam\":{\"type\":"
                    + "\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\",\"ranges\":[[{\"subnet\":"
                    + "\"10.250.1.0/24\"}]]}}";
            CallResult added = call("bridge", "ADD", pod, id, "eth1", bridge);
            if (added.failure() != null) {
                return added.failure();
            }
            String prev = added.stdout();
            String ports = "\"runtimeConfig\":{\"portMappings\":[{\"hostPort\":" + (20000 + round % 1000)
                    + ",\"containerPort\":80,\"protocol\":\"tcp\"}]},";
            String[] types = {"portmap", "firewall", "tuning"};
            String[] confs = {
                "{\"cniVersion\":\"1.0.0\",\"name\":\"" + POD_NETWORK + "\",\"type\":\"portmap\",\"capabilities\":"
                        + "{\"portMappings\":true},\"snat\":true," + ports + "\"prevResult\":" + prev + "}",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"" + POD_NETWORK + "\",\"type\":\"firewall\",\"prevResult\":"
                        + prev + "}",
                "{\"cniVersion\":\"1.0.0\",\"name\":\"" + POD_NETWORK + "\",\"type\":\"tuning\",\"sysctl\":"
                        + "{\"net.core.somaxconn\":\"512\"},\"dataDir\":\"" + dir.resolve("tuning")
                        + "\",\"prevResult\":" + prev + "}"};
            String failure = null;
            int done = 0;
            for (; done < types.length && failure == null; done++) {
                failure = call(types[done], "ADD", pod, id, "eth1", confs[done]).failure();
            }
            // DEL in reverse, as a runtime runs it, also after a failed ADD (what that left is undone either way).
            for (int i = done - 1; i >= 0; i--) {
                String f = call(types[i], "DEL", pod, id, "eth1", confs[i]).failure();
                failure = failure == null ? f : failure;
            }
            String bridgeDel = bridge.substring(0, bridge.length() - 1) + ",\"prevResult\":" + prev + "}";
            String f = call("bridge", "DEL", pod, id, "eth1", bridgeDel).failure();
            return failure == null ? f : failure;
        }

        /** One plugin call in the node namespace, once no client's call is in the service. */
        private CallResult call(String type, String command, NetNs pod, String id, String ifName, String config) {
            if (!yieldToClients()) {
                return new CallResult(null, null);
            }
            Map<String, String> env = new HashMap<>();
            env.put("CNI_COMMAND", command);
            env.put("CNI_CONTAINERID", id);
            env.put("CNI_NETNS", pod.path().toString());
            env.put("CNI_IFNAME", ifName);
            env.put("CNI_PATH", dir.resolve("bin").toString());
            env.put(ServiceMain.SOCKET_ENV, "off");
            OwnCall own = new OwnCall(PluginRegistry.skel(type), env, config.getBytes(StandardCharsets.UTF_8),
                    sockets);
            int status = node.call(own);
            calls++;
            if (status != 0 && !stopping) {
                return new CallResult(null, type + " " + command + " failed: " + own.out.text(500) + " "
                        + own.err.text(500));
            }
            return new CallResult(own.out.text(Protocol.MAX_STDOUT), null);
        }
    }

    /** A call's stdout (ADD's result), or why it failed. */
    private record CallResult(String stdout, String failure) {
    }

    /** The skel's run in the node namespace (a named class: no lambdas in this module). */
    private static final class OwnCall implements NetNs.Task<Integer, RuntimeException> {
        final BoundedOutput out = new BoundedOutput(Protocol.MAX_STDOUT);
        final BoundedOutput err = new BoundedOutput(Protocol.KEPT_STDERR);
        private final Skel skel;
        private final Map<String, String> env;
        private final byte[] stdin;
        private final HostNftables.Keeper sockets;

        OwnCall(Skel skel, Map<String, String> env, byte[] stdin, HostNftables.Keeper sockets) {
            this.skel = skel;
            this.env = env;
            this.stdin = stdin;
            this.sockets = sockets;
        }

        /** On a namespace worker inside the node namespace, where the kept sockets were opened. */
        @Override
        public Integer run() {
            try (IpamPools.Unrecorded quiet = IpamPools.unrecorded(); HostNftables.Scope lent = sockets.enter()) {
                return skel.run(env, stdin, out, err, CallerNetns.byPath());
            }
        }
    }

    /** Removes the directories of warm-ups whose service is gone (one killed during its warm-up). */
    private static void removeStale(Path tmp) {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path e : entries) {
                String name = e.getFileName().toString();
                int dash = name.indexOf('-', PREFIX.length());
                long pid;
                try {
                    pid = dash < 0 ? -1 : Long.parseLong(name.substring(PREFIX.length(), dash));
                } catch (NumberFormatException ignored) {
                    continue;
                }
                if (pid > 0 && ProcessHandle.of(pid).isEmpty() && Files.isDirectory(e, LinkOption.NOFOLLOW_LINKS)) {
                    deleteTree(e);
                }
            }
        } catch (IOException | RuntimeException e) {
            // nothing to clean, or not readable: the new directory does not depend on it
        }
    }

    /** Removes what the warm-up wrote (a few files); what cannot be removed stays, quietly. */
    private static void deleteTree(Path p) {
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {
                for (Path e : entries) {
                    deleteTree(e);
                }
            } catch (IOException e) {
                // left for tmpfiles cleaners
            }
        }
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // likewise
        }
    }
}
