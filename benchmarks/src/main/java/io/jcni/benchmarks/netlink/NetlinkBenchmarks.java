package io.jcni.benchmarks.netlink;

import io.jcni.netlink.Batch;
import io.jcni.netlink.BatchResult;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Requests and their acknowledgements, in process, against the kernel: address add, route add, veth add and delete,
 * one request at a time and batched ({@value #BATCH} per batch for addresses and routes, {@value #LINK_BATCH} for
 * links; a batch is one send system call per 64 requests). Every benchmark works in an anonymous network namespace
 * it creates ({@code NetNs.create()}), which disappears with everything in it when the trial ends: nothing touches
 * the host. Only the requests under test are timed; undoing them (delete after add, add before delete) happens in
 * untimed per-invocation fixtures. Scores are per request. Needs root.
 *
 * <p>{@code java -jar benchmarks/target/benchmarks.jar io.jcni.benchmarks.netlink -f 1 -wi 2 -i 3}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class NetlinkBenchmarks {
    static final int BATCH = 64;
    static final int LINK_BATCH = 16;

    /**
     * The namespace, a handle in it and a veth end {@code v0} (up) to put addresses and routes on. Each state below
     * extends it and calls {@link #create()} from its own trial setup (JMH gives a state injected into another
     * state's setup its own instance, so states do not share one by injection).
     */
    @State(Scope.Thread)
    public static class Namespace {
        NetNs ns;
        NetlinkHandle nl;
        int dev;

        void create() {
            ns = NetNs.create();
            nl = Netlink.open(ns);
            nl.addVeth(LinkAttrs.named("v0").up(true), LinkAttrs.named("v1"));
            nl.setUp(nl.link("v1").index());
            dev = nl.link("v0").index();
        }

        @TearDown(Level.Trial)
        public void remove() {
            nl.close();
            ns.close(); // the last reference: the kernel removes the namespace and its links
        }
    }

    /** {@code 10.1.0.1/32}, deleted after each invocation. */
    @State(Scope.Thread)
    public static class OneAddress extends Namespace {
        final InetAddress address = v4(10, 1, 0, 1);
        @Setup(Level.Trial)
        public void init() {
            create();
        }

        @TearDown(Level.Invocation)
        public void delete() {
            nl.deleteAddress(dev, address, 32);
        }
    }

    /** {@value #BATCH} addresses, deleted (in one batch) after each invocation. */
    @State(Scope.Thread)
    public static class ManyAddresses extends Namespace {
        final InetAddress[] addresses = new InetAddress[BATCH];
        @Setup(Level.Trial)
        public void init() {
            create();
            for (int i = 0; i < BATCH; i++) {
                addresses[i] = v4(10, 2, 0, i + 1);
            }
        }

        @TearDown(Level.Invocation)
        public void delete() {
            Batch b = nl.batch();
            for (InetAddress address : addresses) {
                b.deleteAddress(dev, address, 32);
            }
            b.execute().throwIfFailed();
        }
    }

    /** {@code 10.200.0.0/24 dev v0}, deleted after each invocation. */
    @State(Scope.Thread)
    public static class OneRoute extends Namespace {
        Route route;
        @Setup(Level.Trial)
        public void init() {
            create();
            route = Route.to(v4(10, 200, 0, 0), 24).dev(dev);
        }

        @TearDown(Level.Invocation)
        public void delete() {
            nl.deleteRoute(route);
        }
    }

    /** {@value #BATCH} routes, deleted (in one batch) after each invocation. */
    @State(Scope.Thread)
    public static class ManyRoutes extends Namespace {
        final Route[] routes = new Route[BATCH];
        @Setup(Level.Trial)
        public void init() {
            create();
            for (int i = 0; i < BATCH; i++) {
                routes[i] = Route.to(v4(10, 201, i, 0), 24).dev(dev);
            }
        }

        @TearDown(Level.Invocation)
        public void delete() {
            Batch b = nl.batch();
            for (Route r : routes) {
                b.deleteRoute(r);
            }
            b.execute().throwIfFailed();
        }
    }

    /** Veth pairs {@code bN}/{@code bNp}: created or deleted around each invocation, as the benchmark needs. */
    @State(Scope.Thread)
    public static class Veths extends Namespace {
        final String[] names = new String[LINK_BATCH];
        @Setup(Level.Trial)
        public void init() {
            create();
            for (int i = 0; i < LINK_BATCH; i++) {
                names[i] = "b" + i;
            }
        }

        void addAll(int count) {
            Batch b = nl.batch();
            for (int i = 0; i < count; i++) {
                b.addVeth(LinkAttrs.named(names[i]), LinkAttrs.named(names[i] + "p"));
            }
            b.execute().throwIfFailed();
        }

        void deleteAll(int count) {
            Batch b = nl.batch();
            for (int i = 0; i < count; i++) {
                b.deleteLink(names[i]);
            }
            b.execute().throwIfFailed();
        }
    }

    /** Deletes the one veth {@link #vethAdd} created. */
    @State(Scope.Thread)
    public static class VethAdded extends Veths {
        @TearDown(Level.Invocation)
        public void delete() {
            deleteAll(1);
        }
    }

    /** Deletes the veths {@link #vethAddBatched} created. */
    @State(Scope.Thread)
    public static class VethsAdded extends Veths {
        @TearDown(Level.Invocation)
        public void delete() {
            deleteAll(LINK_BATCH);
        }
    }

    /** Creates the one veth {@link #vethDelete} deletes. */
    @State(Scope.Thread)
    public static class VethToDelete extends Veths {
        @Setup(Level.Invocation)
        public void add() {
            addAll(1);
        }
    }

    /** Creates the veths {@link #vethDeleteBatched} deletes. */
    @State(Scope.Thread)
    public static class VethsToDelete extends Veths {
        @Setup(Level.Invocation)
        public void add() {
            addAll(LINK_BATCH);
        }
    }

    /** {@code ip addr add 10.1.0.1/32 dev v0}: one request, one acknowledgement. */
    @Benchmark
    public void addressAdd(OneAddress a) {
        a.nl.addAddress(a.dev, a.address, 32);
    }

    /** 64 address adds in one batch: one send, 64 acknowledgements. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public BatchResult addressAddBatched(ManyAddresses a) {
        Batch b = a.nl.batch();
        for (InetAddress address : a.addresses) {
            b.addAddress(a.dev, address, 32);
        }
        return b.execute();
    }

    /** {@code ip route add 10.200.0.0/24 dev v0}. */
    @Benchmark
    public void routeAdd(OneRoute r) {
        r.nl.addRoute(r.route);
    }

    /** 64 route adds in one batch. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public BatchResult routeAddBatched(ManyRoutes r) {
        Batch b = r.nl.batch();
        for (Route route : r.routes) {
            b.addRoute(route);
        }
        return b.execute();
    }

    /** {@code ip link add b0 type veth peer name b0p}. */
    @Benchmark
    public void vethAdd(VethAdded v) {
        v.nl.addVeth(LinkAttrs.named(v.names[0]), LinkAttrs.named(v.names[0] + "p"));
    }

    /** 16 veth adds in one batch. */
    @Benchmark
    @OperationsPerInvocation(LINK_BATCH)
    public BatchResult vethAddBatched(VethsAdded v) {
        Batch b = v.nl.batch();
        for (String name : v.names) {
            b.addVeth(LinkAttrs.named(name), LinkAttrs.named(name + "p"));
        }
        return b.execute();
    }

    /** {@code ip link del b0} (deletes the pair). */
    @Benchmark
    public void vethDelete(VethToDelete v) {
        v.nl.deleteLink(v.names[0]);
    }

    /** 16 veth deletes in one batch. */
    @Benchmark
    @OperationsPerInvocation(LINK_BATCH)
    public BatchResult vethDeleteBatched(VethsToDelete v) {
        Batch b = v.nl.batch();
        for (String name : v.names) {
            b.deleteLink(name);
        }
        return b.execute();
    }

    /** The IPv4 address a.b.c.d, from its bytes (netlink-ffm reads no IP text). */
    static InetAddress v4(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (java.net.UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
