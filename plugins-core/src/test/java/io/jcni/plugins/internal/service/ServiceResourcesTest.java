package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * File descriptors and heap stay flat over 100,000 calls: VERSION calls (the cheapest, so that the test runs in
 * reasonable time on two cores), each from its own connection with both descriptors a client hands over (its network
 * namespace and CNI_NETNS), from four client threads at once; with a malformed request and a refusal mixed in every
 * 1,000 calls. Kernel-touching calls are measured for memory by benchmarks/compare.sh (the service's RSS after 10k
 * bridge ADD/DEL).
 */
class ServiceResourcesTest {
    static final int CALLS = 100_000;
    static final int CLIENTS = 4;

    @TempDir
    Path dir;

    @Test
    void descriptorsAndHeapStayFlatOverOneHundredThousandCalls() throws Exception {
        Path socket = dir.resolve("run/plugins.sock");
        PluginService service = PluginService.bind(new PluginService.Settings(socket, ServiceTest.us(), 8, 256,
                ServiceTest.BUILD_ID, Duration.ofSeconds(10), false), new ServiceLog(System.err, false));
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            run(clients, socket, 10_000); // warm-up: classes, pools, JIT
            long fdsBefore = openDescriptors();
            long heapBefore = usedHeapAfterGc();
            long callsBefore = service.stats().calls.sum();
            run(clients, socket, CALLS);
            long fdsAfter = openDescriptors();
            long heapAfter = usedHeapAfterGc();
            assertThat(service.stats().calls.sum() - callsBefore).isEqualTo(CALLS - CALLS / 1000);
            assertThat(fdsAfter).as("open descriptors of this JVM, before %d and after", fdsBefore)
                    .isLessThanOrEqualTo(fdsBefore);
            assertThat(heapAfter - heapBefore).as("heap growth in bytes over %d calls (before %d)", CALLS,
                    heapBefore).isLessThan(4L << 20);
        } finally {
            clients.shutdownNow();
            service.stop(Duration.ofSeconds(10));
        }
    }

    /** {@code n} calls from {@link #CLIENTS} threads; every 1,000th is malformed (and refused). */
    private static void run(ExecutorService clients, Path socket, int n) throws Exception {
        AtomicInteger next = new AtomicInteger();
        List<Future<Integer>> done = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            done.add(clients.submit(() -> {
                int failures = 0;
                TestClient good = TestClient.call("VERSION").netns("/var/run/netns/x", Path.of("/proc/self/ns/net"));
                byte[] frame = good.frame();
                byte[] garbage = frame.clone();
                garbage[0] = 'X';
                for (int k; (k = next.getAndIncrement()) < n; ) {
                    boolean bad = k % 1000 == 999;
                    try (var conn = io.jcni.netlink.sys.UnixSocket.connect(socket)) {
                        TestClient.Reply reply = good.send(conn, bad ? garbage : frame);
                        if (reply.status() != (bad ? 1 : 0)) {
                            failures++;
                        }
                    }
                }
                return failures;
            }));
        }
        int failures = 0;
        for (Future<Integer> f : done) {
            failures += f.get();
        }
        assertThat(failures).as("calls answered otherwise than expected").isZero();
    }

    private static long openDescriptors() throws Exception {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        Runtime runtime = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
            best = Math.min(best, runtime.totalMemory() - runtime.freeMemory());
        }
        return best;
    }
}
