package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.spec.IpPrefix;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's {@link NodeView}, the state a long-lived JVM keeps between ADDs so that the common ADD is one etcd
 * transaction, against one real etcd member: a warm view costs one request, a stale one a retry and never a duplicate,
 * whether what it missed was an exec'd call of the same node (a store with a view of its own, as a fresh JVM has),
 * another node, or the reclaim of the node itself. Stores are built directly, each with the view it would have:
 * {@code NodeView.of} (the service's, shared by its calls) or {@code new NodeView()} (an exec'd plugin's).
 */
class ClusterIpamViewTest {
    private static final AtomicInteger PREFIXES = new AtomicInteger();

    @TempDir
    static Path etcdDir;

    static EtcdCluster etcd;

    private final String prefix = "/v" + PREFIXES.incrementAndGet() + "-" + System.nanoTime();

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(etcdDir, 1);
    }

    @AfterAll
    static void stopEtcd() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    private EtcdConfig config() {
        URI url = URI.create(etcd.clientUrl(0));
        return new EtcdConfig(List.of(new EtcdConfig.Endpoint(false, url.getHost(), url.getPort())), 2, 10, null,
                null, null, null, prefix);
    }

    private static ClusterStore.Settings settings(String node, int blockSize, long ttl) {
        return new ClusterStore.Settings(node, blockSize, 122, ttl, List.of(), null);
    }

    /** A store of the plugin service on {@code node}: the JVM's shared view. */
    private ClusterStore service(String network, String node, int blockSize, long ttl) {
        EtcdConfig config = config();
        return new ClusterStore(EtcdClient.open(config), prefix, network, settings(node, blockSize, ttl),
                NodeView.of(config, network, node));
    }

    /** A store of an exec'd plugin on {@code node}: a fresh JVM, a view that knows nothing. */
    private ClusterStore execd(String network, String node, int blockSize, long ttl) {
        return new ClusterStore(EtcdClient.open(config()), prefix, network, settings(node, blockSize, ttl),
                new NodeView());
    }

    private static List<RangeSet> sets(String subnet) throws Exception {
        return List.of(RangeSet.canonical(List.of(RangeSpec.of(IpPrefix.parse(subnet, "subnet")))));
    }

    /** ADD of {@code cid} on {@code store}, then its close; the address and the requests it sent. */
    private static Added add(ClusterStore store, String cid, List<RangeSet> sets) throws IpamException {
        try (store) {
            List<Allocation> out = store.allocate(new Attachment(cid, "eth0"), sets, List.of(), OnExisting.REUSE);
            return new Added(out.getFirst().address().toString(), store.etcdRequests());
        }
    }

    private record Added(String ip, int requests) {
    }

    /** Waits out {@link QuorumRead#GRACE_NANOS} and as much again. */
    private static void pastTheGrace() throws InterruptedException {
        Thread.sleep(2 * TimeUnit.NANOSECONDS.toMillis(QuorumRead.GRACE_NANOS));
    }

    /** The addresses held in etcd, each with its holder's container. */
    private List<String> held(String network) throws Exception {
        List<String> out = new ArrayList<>();
        for (String e : etcd.entries(prefix + "/" + network + "/ip/")) {
            out.add(e.substring(e.indexOf('=') + 1).split("\n")[1]);
        }
        return out;
    }

    @Test
    void aWarmViewAllocatesInOneRequestAnExecdCallInThree() throws Exception {
        List<RangeSet> sets = sets("10.90.0.0/24");
        Set<String> ips = new HashSet<>();
        ips.add(add(service("warm", "node-a", 26, 3600), "c0", sets).ip()); // registers the network
        // Each ADD begins longer than the quorum read's grace after the node's last request: it reads (a call right
        // after one of the node's requests counts on it: ClusterQuorumReadTest).
        pastTheGrace();
        Added cold = add(service("warm", "node-a", 26, 3600), "c1", sets);
        assertThat(cold.requests()).as("the registration the view made is in it: the quorum read, then the write")
                .isEqualTo(2);
        pastTheGrace();
        Added warm = add(service("warm", "node-a", 26, 3600), "c2", sets);
        assertThat(warm.requests()).as("a warm view: the quorum read of its liveness key, then the write")
                .isEqualTo(2);
        Added execd = add(execd("warm", "node-a", 26, 3600), "c3", sets);
        assertThat(execd.requests()).as("an exec'd call, as before the view: read, its block, the write")
                .isEqualTo(3);
        Added afterExecd = add(service("warm", "node-a", 26, 3600), "c4", sets);
        assertThat(afterExecd.requests()).as("the view missed c3: at most one retry").isLessThanOrEqualTo(3);
        for (Added a : List.of(cold, warm, execd, afterExecd)) {
            assertThat(ips.add(a.ip())).as("duplicate %s", a.ip()).isTrue();
        }
        assertThat(held("warm")).containsExactlyInAnyOrder("c0", "c1", "c2", "c3", "c4");
    }

    /**
     * A claim reads the block keys and, in the same request, the address keys of the first block the node would try
     * (by its name's hash: node-a and node-e start at the same block of a /24's four /26s, node-b at another): a node
     * whose first block is free claims it with one read, one whose first block is taken reads the next one too.
     */
    @Test
    void aClaimOfTheBlockANodeTriesFirstIsOneRead() throws Exception {
        List<RangeSet> sets = sets("10.96.0.0/24");
        add(execd("guess", "node-a", 26, 0), "r0", sets); // registers the network, claims node-a's first block
        Added own = add(execd("guess", "node-b", 26, 0), "b0", sets);
        assertThat(own.requests()).as("node-b's first block is free: its read, the block keys with that block's"
                + " addresses, the write").isEqualTo(3);
        Added taken = add(execd("guess", "node-e", 26, 0), "e0", sets);
        assertThat(taken.requests()).as("node-e's first block is node-a's: the next block's addresses read too")
                .isEqualTo(4);
        assertThat(etcd.entries(prefix + "/guess/block/")).as("a block each").hasSize(3);
        assertThat(held("guess")).containsExactlyInAnyOrder("r0", "b0", "e0");
    }

    /**
     * A warm ADD that leaves the node's blocks with less than a quarter of a block free claims the next block on a
     * thread of its own ({@link PreClaim}), so that the ADD that would have found them full allocates from the view
     * like any other (the quorum read and its write) instead of reading its blocks, claiming one and writing.
     */
    @Test
    void aNodeRunningLowClaimsItsNextBlockAheadOfTheAddThatNeedsIt() throws Exception {
        // A /26 in blocks of /28: 61 addresses (.1 is the gateway, .63 the broadcast), 59 ADDs.
        List<RangeSet> sets = sets("10.96.0.0/26");
        NodeView view = NodeView.of(config(), "ahead", "node-a");
        Set<String> ips = new HashSet<>();
        List<Integer> requests = new ArrayList<>();
        List<Integer> blocksAfter = new ArrayList<>();
        for (int i = 0; i < 59; i++) {
            Added added = add(service("ahead", "node-a", 28, 3600), "p" + i, sets);
            assertThat(ips.add(added.ip())).as("duplicate %s", added.ip()).isTrue();
            requests.add(added.requests());
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (view.claimingAhead() && System.nanoTime() - until < 0) {
                Thread.sleep(5);
            }
            assertThat(view.claimingAhead()).as("the claim ahead after p%d ended", i).isFalse();
            blocksAfter.add(etcd.keys(prefix + "/ahead/affinity/node-a/").size());
        }
        assertThat(requests.subList(1, requests.size())).as("requests of each ADD after the first")
                .allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(2));
        // The next block is claimed once fewer than 4 addresses (a quarter of a block) are free in the node's blocks,
        // one block at a time, never before: the first block the node claims holds 15 or 16 addresses. (Which block
        // comes first depends on the node's name.) Then no ADD needed to claim one: none sent more than 2 requests.
        assertThat(blocksAfter.subList(0, 11)).containsOnly(1);
        assertThat(blocksAfter).isSorted().last().isEqualTo(4);
        for (int i = 1; i < blocksAfter.size(); i++) {
            assertThat(blocksAfter.get(i) - blocksAfter.get(i - 1)).as("blocks claimed after p%d", i).isLessThan(2);
        }
        assertThat(etcd.entries(prefix + "/ahead/block/")).hasSize(4)
                .allSatisfy(e -> assertThat(e).endsWith("=node-a"));
        assertThat(held("ahead")).hasSize(59);
    }

    /**
     * Warm ADDs of one node at once: each gets its own address, and some of them send only their write, having
     * counted on a quorum read another call sent after they asked ({@link QuorumRead}; without it every warm ADD
     * sends two requests).
     */
    @Test
    void concurrentWarmAddsOfANodeShareTheQuorumRead() throws Exception {
        List<RangeSet> sets = sets("10.94.0.0/24");
        add(service("shared", "node-a", 26, 3600), "r0", sets); // registers the network
        add(service("shared", "node-a", 26, 3600), "r1", sets); // reads: the view is warm from here
        int threads = 8;
        int each = 10;
        List<Added> added = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Added>>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int worker = t;
                workers.add(pool.submit(() -> {
                    List<Added> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        mine.add(add(service("shared", "node-a", 26, 3600), "w" + worker + "-" + i, sets));
                    }
                    return mine;
                }));
            }
            for (Future<List<Added>> w : workers) {
                added.addAll(w.get());
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> ips = new HashSet<>();
        int writeOnly = 0;
        for (Added a : added) {
            assertThat(ips.add(a.ip())).as("duplicate %s", a.ip()).isTrue();
            writeOnly += a.requests() == 1 ? 1 : 0;
        }
        assertThat(held("shared")).hasSize(2 + threads * each);
        assertThat(writeOnly).as("ADDs that sent only their write, of %d", added.size()).isPositive();
    }

    /**
     * The first ADDs of a node on a new network, all at once (a burst on a fresh node): one of them reads etcd,
     * registers the network and claims the block while the others wait for it ({@link NodeView#refill}) and then
     * allocate from the view. Without that, each of them read, claimed the same block, and all but one retried.
     */
    @Test
    void concurrentFirstAddsOfANodeLeaveTheReadAndTheClaimToOneOfThem() throws Exception {
        List<RangeSet> sets = sets("10.95.0.0/24");
        int threads = 8;
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        List<Added> added = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<Added>> calls = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String cid = "f" + t;
                ClusterStore store = service("fresh", "node-a", 26, 3600);
                calls.add(pool.submit(() -> {
                    go.await();
                    return add(store, cid, sets);
                }));
            }
            go.countDown();
            for (Future<Added> c : calls) {
                added.add(c.get());
            }
        } finally {
            pool.shutdownNow();
        }
        Set<String> ips = new HashSet<>();
        int requests = 0;
        for (Added a : added) {
            assertThat(ips.add(a.ip())).as("duplicate %s", a.ip()).isTrue();
            requests += a.requests();
        }
        assertThat(held("fresh")).hasSize(threads);
        assertThat(etcd.entries(prefix + "/fresh/block/")).as("one block claimed").hasSize(1);
        // The reader: its read, the check of what lies outside the ranges it registers, the claimed blocks with the
        // keys of the block it tries first (free: the range is new), the node's lease, the write (5); each of the
        // others its write and at most one more (its own quorum read, or a retry). None of the others reads for the
        // registration: a call that finds the reader's view before its write (the network not registered in it)
        // waits instead of checking the ranges itself (it did, 2 more requests each, and the sum reached 28 in 2 of
        // 60 runs).
        assertThat(requests).as("requests of %d first ADDs at once", threads)
                .isLessThanOrEqualTo(5 + 2 * (threads - 1));
    }

    @Test
    void aStaleViewCostsARetryNotADuplicateAndAFullRangeIsAnsweredFromEtcd() throws Exception {
        // A /28 in one block of /28: 13 addresses (.2 to .14).
        List<RangeSet> sets = sets("10.91.0.0/28");
        Set<String> ips = new HashSet<>();
        for (int i = 0; i < 3; i++) {
            ips.add(add(service("stale", "node-a", 28, 3600), "s" + i, sets).ip());
        }
        // Exec'd calls of the same node take all but one address; the service's view still sees ten free.
        for (int i = 0; i < 9; i++) {
            ips.add(add(execd("stale", "node-a", 28, 3600), "x" + i, sets).ip());
        }
        assertThat(ips).hasSize(12);
        Added last = add(service("stale", "node-a", 28, 3600), "s3", sets);
        assertThat(ips).as("the one free address, not one the view thought free").doesNotContain(last.ip());
        assertThat(last.requests()).as("a stale pick: the failed write's failure branch read the block")
                .isLessThanOrEqualTo(3);

        Added again = add(service("stale", "node-a", 28, 3600), "s3", sets);
        assertThat(again.ip()).as("a repeated ADD through the view").isEqualTo(last.ip());
        assertThat(again.requests()).as("the owner assumed absent: the write fails and its failure branch reads"
                + " the owner, or (the view knowing the range full) one read").isLessThanOrEqualTo(3);

        assertThatThrownBy(() -> add(service("stale", "node-a", 28, 3600), "s4", sets))
                .isInstanceOfSatisfying(IpamException.class,
                        e -> assertThat(e.reason()).isEqualTo(IpamException.Reason.NO_ADDRESS_AVAILABLE));
        assertThat(held("stale")).hasSize(13).doesNotContain("s4");
    }

    @Test
    void twoNodesServicesAndExecdCallsRacingOnOneRangeNeverHoldOneAddressTwice() throws Exception {
        // A /26 in blocks of /28: the nodes claim blocks, then borrow from each other's.
        List<RangeSet> sets = sets("10.92.0.0/26");
        Map<String, String> live = new ConcurrentHashMap<>();
        AtomicInteger full = new AtomicInteger();
        List<String> duplicates = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                String node = t % 2 == 0 ? "node-a" : "node-b";
                boolean exec = t >= 4;
                int worker = t;
                workers.add(pool.submit(() -> {
                    SplittableRandom random = new SplittableRandom(worker);
                    List<String> mine = new ArrayList<>();
                    for (int i = 0; i < 40; i++) {
                        ClusterStore store = exec ? execd("race", node, 28, 3600) : service("race", node, 28, 3600);
                        if (!mine.isEmpty() && random.nextInt(3) == 0) {
                            String cid = mine.remove(random.nextInt(mine.size()));
                            // Out of the live map before the DEL: once it commits another call may take the address.
                            live.values().remove(cid);
                            try (store) {
                                store.release(new Attachment(cid, "eth0"));
                            }
                            continue;
                        }
                        String cid = "w" + worker + "-" + i;
                        try {
                            String ip = add(store, cid, sets).ip();
                            String other = live.putIfAbsent(ip, cid);
                            if (other != null) {
                                synchronized (duplicates) {
                                    duplicates.add(ip + " to " + other + " and " + cid);
                                }
                            }
                            mine.add(cid);
                        } catch (IpamException e) {
                            assertThat(e.reason()).as(e.getMessage())
                                    .isEqualTo(IpamException.Reason.NO_ADDRESS_AVAILABLE);
                            full.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(duplicates).isEmpty();
        assertThat(full.get()).as("the range filled up at least once").isPositive();
        assertThat(held("race")).as("etcd holds exactly the live allocations")
                .containsExactlyInAnyOrderElementsOf(live.values());
    }

    @Test
    void aNodeReclaimedWhileItsViewWasWarmComesBackWithoutADuplicate() throws Exception {
        List<RangeSet> sets = sets("10.93.0.0/28");
        List<String> a = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            a.add(add(service("back", "node-a", 28, 5), "a" + i, sets).ip());
        }
        // node-a's lease ends (as when it made no call for nodeTtlSeconds); node-b's GC reclaims its addresses and
        // its block, then claims the block and fills it but for three addresses.
        String nodeKey = etcd.entries(prefix + "/back/node/node-a").getFirst();
        etcd.revokeLease(Long.parseLong(nodeKey.substring(nodeKey.indexOf('=') + 1).split(" ")[0]));
        try (ClusterStore b = service("back", "node-b", 28, 5)) {
            assertThat(b.gc(List.of())).hasSize(3);
        }
        assertThat(held("back")).isEmpty();
        Set<String> ips = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            ips.add(add(service("back", "node-b", 28, 5), "b" + i, sets).ip());
        }
        assertThat(etcd.keys(prefix + "/back/block/")).hasSize(1);
        assertThat(etcd.entries(prefix + "/back/block/").getFirst()).endsWith("=node-b");

        // node-a's view still says the block is node-a's with a0..a2 in it, and its liveness key fresh.
        for (int i = 3; i < 6; i++) {
            String ip = add(service("back", "node-a", 28, 5), "a" + i, sets).ip();
            assertThat(ips.add(ip)).as("duplicate %s", ip).isTrue();
        }
        assertThat(held("back")).hasSize(13).contains("a3", "a4", "a5").doesNotContain("a0", "a1", "a2");
        assertThat(etcd.keys(prefix + "/back/node/node-a")).as("node-a is alive again").hasSize(1);
        assertThat(etcd.keys(prefix + "/back/affinity/node-a/")).as("and borrowed: the block stays node-b's")
                .isEmpty();
    }
}
