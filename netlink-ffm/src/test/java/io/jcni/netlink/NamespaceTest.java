package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jcni.netlink.sys.Sysctl;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Namespaces: opening, creating, comparing, running inside, and that no caller thread is ever switched. */
class NamespaceTest {

    @Test
    void opensByBindMountPathAndByProcPathAndComparesByDeviceAndInode() throws Exception {
        try (TestNamespace t = TestNamespace.create();
                NetNs again = NetNs.open(Path.of("/run/netns", t.name));
                NetNs current = NetNs.current();
                NetNs self = NetNs.open(Path.of("/proc/self/ns/net"))) {
            assertThat(again.isSame(t.ns)).isTrue();
            assertThat(again.id()).isEqualTo(t.ns.id());
            assertThat(current.isSame(t.ns)).isFalse();
            assertThat(current.isSame(self)).isTrue();
            assertThat(current.id().inode()).isEqualTo(Kernel.threadNetnsInode());
            String ipInode = Kernel.sh("stat", "-L", "-c", "%i", "/run/netns/" + t.name).strip();
            assertThat(t.ns.id().inode()).isEqualTo(Long.parseLong(ipInode));
            assertThat(t.ns.id().toString()).isEqualTo("net:[" + ipInode + "]");
        }
    }

    @Test
    void rejectsMissingPathsAndFilesThatAreNoNetworkNamespace(@TempDir Path dir) throws Exception {
        Kernel.assumeRoot();
        assertThatThrownBy(() -> NetNs.open(dir.resolve("missing"))).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.isNotFound()).isTrue());
        Path plain = Files.writeString(dir.resolve("plain"), "x");
        assertThatThrownBy(() -> NetNs.open(plain)).isInstanceOfSatisfying(NetlinkException.class, e -> {
            assertThat(e.kind()).isEqualTo(NetlinkException.Kind.INVALID);
            assertThat(e.getMessage()).contains("not a namespace file");
        });
        assertThatThrownBy(() -> NetNs.open(Path.of("/proc/self/ns/uts")))
                .isInstanceOfSatisfying(NetlinkException.class,
                        e -> assertThat(e.getMessage()).contains("a namespace of another type"));
    }

    @Test
    void aFifoAtTheNetnsPathIsRefusedAtOnceInsteadOfBlockingTheOpen(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo");
        Kernel.sh("mkfifo", fifo.toString());
        Path link = Files.createSymbolicLink(dir.resolve("link-to-fifo"), fifo);
        try {
            for (Path path : List.of(fifo, link)) {
                assertTimeoutPreemptively(Duration.ofSeconds(20), () -> assertThatThrownBy(() -> NetNs.open(path))
                        .isInstanceOfSatisfying(NetlinkException.class, e -> {
                            assertThat(e.kind()).isEqualTo(NetlinkException.Kind.INVALID);
                            assertThat(e.getMessage()).isEqualTo("open netns " + path
                                    + ": EINVAL (Invalid argument): not a namespace file (a FIFO)");
                        }));
            }
        } finally {
            // A reader stuck in open(2) (the bug this guards against) is released by a writer; O_RDWR never blocks.
            FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE).close();
        }
    }

    @Test
    void aDeviceOrDirectoryAtTheNetnsPathIsRefusedWithoutBeingOpened(@TempDir Path dir) throws Exception {
        assertThatThrownBy(() -> NetNs.open(Path.of("/dev/null"))).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.getMessage()).endsWith("not a namespace file (a character device)"));
        assertThatThrownBy(() -> NetNs.open(dir)).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.getMessage()).endsWith("not a namespace file (a directory)"));
    }

    @Test
    void aSymbolicLinkToANetworkNamespaceIsFollowed(@TempDir Path dir) throws Exception {
        Path link = Files.createSymbolicLink(dir.resolve("ns"), Path.of("/proc/self/ns/net"));
        try (NetNs viaLink = NetNs.open(link); NetNs current = NetNs.current()) {
            assertThat(viaLink.isSame(current)).isTrue();
        }
    }

    @Test
    void createsAnAnonymousNamespaceWithoutAMount() throws Exception {
        Kernel.assumeRoot();
        List<String> mountsBefore = Files.readAllLines(Path.of("/proc/self/mountinfo"));
        try (NetNs ns = NetNs.create(); NetlinkHandle nl = Netlink.open(ns); NetNs current = NetNs.current()) {
            assertThat(ns.isSame(current)).isFalse();
            assertThat(nl.links()).extracting(Link::name).containsExactly("lo");
            assertThat(nl.link("lo").isUp()).isFalse();
            assertThat(Files.readAllLines(Path.of("/proc/self/mountinfo"))).isEqualTo(mountsBefore);
            assertThat(ns.path().toString()).startsWith("/proc/" + ProcessHandle.current().pid() + "/fd/");
            // other tools can enter it through the path
            String links = Kernel.sh("nsenter", "--net=" + ns.path(), "ip", "-o", "link", "show");
            assertThat(links).contains("lo:").doesNotContain("eth0");
        }
    }

    /**
     * A worker started by a thread that is itself inside a namespace (a nested call; jcni's plugin service running a
     * whole plugin call in its client's namespace) must not stay there between tasks: an idle worker would keep that
     * namespace, and everything in it, alive for its keep-alive time.
     */
    @Test
    void workersStartedFromInsideATaskWaitInTheProcesssNamespace() throws Exception {
        try (TestNamespace t = TestNamespace.create()) {
            long own = Kernel.threadNetnsInode();
            // Nested calls: each level's worker is busy, so the next level needs a worker started from inside t.
            assertThat(t.ns.call(new Nest(t.ns, 24))).isEqualTo(24);
            List<String> elsewhere = new ArrayList<>();
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path task : tasks.toList()) {
                    String name = Files.readString(task.resolve("comm")).strip();
                    String ns = Files.readSymbolicLink(task.resolve("ns/net")).toString();
                    if (name.startsWith("jcni-netns-") && !ns.equals("net:[" + own + "]")) {
                        elsewhere.add(name + " in " + ns);
                    }
                }
            }
            assertThat(elsewhere).as("idle workers outside the process's namespace").isEmpty();
        }
    }

    private record Nest(NetNs ns, int depth) implements NetNs.Task<Integer, RuntimeException> {
        @Override
        public Integer run() {
            return depth == 0 ? 0 : 1 + ns.call(new Nest(ns, depth - 1));
        }
    }

    @Test
    void callRunsInsideOnAnotherPlatformThreadAndLeavesTheCallerAlone() throws Exception {
        try (TestNamespace t = TestNamespace.create()) {
            long before = Kernel.threadNetnsInode();
            Thread caller = Thread.currentThread();
            long inside = t.ns.call(() -> {
                assertThat(Thread.currentThread()).isNotSameAs(caller);
                assertThat(Thread.currentThread().isVirtual()).isFalse();
                return Kernel.threadNetnsInode();
            });
            assertThat(inside).isEqualTo(t.ns.id().inode());
            assertThat(Kernel.threadNetnsInode()).isEqualTo(before);
            // and the worker went back: a later task that does not switch would see the worker's home
            assertThatThrownBy(() -> t.ns.call(() -> {
                throw new java.io.IOException("from inside");
            })).isInstanceOf(java.io.IOException.class).hasMessage("from inside");
        }
    }

    @Test
    void idleWorkersAreReusedConcurrentCallsGetTheirOwnAndAnInterruptedCallerStillGetsTheResult() throws Exception {
        try (TestNamespace t = TestNamespace.create()) {
            String first = t.ns.call(() -> Thread.currentThread().getName());
            String second = t.ns.call(() -> Thread.currentThread().getName());
            assertThat(first).startsWith("jcni-netns-");
            assertThat(second).as("an idle worker serves the next call").isEqualTo(first);

            // While one call blocks inside, another gets a worker of its own.
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try (ExecutorService caller = Executors.newSingleThreadExecutor()) {
                Future<String> blocked = caller.submit(() -> t.ns.call(() -> {
                    inside.countDown();
                    release.await();
                    return Thread.currentThread().getName();
                }));
                inside.await();
                String concurrent = t.ns.call(() -> Thread.currentThread().getName());
                release.countDown();
                assertThat(concurrent).startsWith("jcni-netns-").isNotEqualTo(blocked.get());
            }

            // The wait for a task is uninterruptible: the result arrives and the interrupt is kept.
            Thread self = Thread.currentThread();
            long inode = t.ns.call(() -> {
                self.interrupt();
                Thread.sleep(50);
                return Kernel.threadNetnsInode();
            });
            assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
            assertThat(inode).isEqualTo(t.ns.id().inode());
        }
    }

    @Test
    void twoNamespacesDrivenConcurrentlyFromPlatformThreadsNeverLeak() throws Exception {
        driveConcurrently(Executors.newFixedThreadPool(4));
    }

    @Test
    void twoNamespacesDrivenConcurrentlyFromVirtualThreadsNeverLeak() throws Exception {
        driveConcurrently(Executors.newVirtualThreadPerTaskExecutor());
    }

    private void driveConcurrently(ExecutorService executor) throws Exception {
        try (TestNamespace a = TestNamespace.create(); TestNamespace b = TestNamespace.create(); executor) {
            long testThread = Kernel.threadNetnsInode();
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Long>> results = new ArrayList<>();
            for (int worker = 0; worker < 8; worker++) {
                TestNamespace target = worker % 2 == 0 ? a : b;
                int id = worker;
                results.add(executor.submit(() -> {
                    long mine = Kernel.threadNetnsInode();
                    start.await();
                    for (int round = 0; round < 20; round++) {
                        // a fresh handle each round: the namespace switch happens every time
                        try (NetlinkHandle nl = Netlink.open(target.ns)) {
                            String name = "w" + id + "r" + round;
                            nl.addVeth(LinkAttrs.named(name), LinkAttrs.named(name + "p"));
                            nl.deleteLink(name);
                        }
                        Sysctl.write(target.ns, "net.ipv4.ip_forward", "1");
                        assertThat(Kernel.threadNetnsInode()).isEqualTo(mine);
                    }
                    return Kernel.threadNetnsInode() == mine ? mine : -1L;
                }));
            }
            start.countDown();
            for (Future<Long> r : results) {
                assertThat(r.get()).isPositive();
            }
            assertThat(Kernel.threadNetnsInode()).isEqualTo(testThread);
            assertThat(a.nl.links()).extracting(Link::name).containsExactly("lo");
            assertThat(b.nl.links()).extracting(Link::name).containsExactly("lo");
            assertThat(Sysctl.read("net.ipv4.ip_forward")).as("host untouched").isEqualTo(hostForwarding);
        }
    }

    private final String hostForwarding = Kernel.isRoot() ? Sysctl.read("net.ipv4.ip_forward") : "";

    @Test
    void aHandleStaysInItsNamespaceAfterTheNetNsIsClosed() throws Exception {
        Kernel.assumeRoot();
        NetNs ns = NetNs.create();
        try (NetlinkHandle nl = Netlink.open(ns)) {
            ns.close();
            assertThatThrownBy(ns::fd).isInstanceOf(NetlinkException.class);
            nl.addVeth(LinkAttrs.named("a"), LinkAttrs.named("b"));
            assertThat(nl.links()).extracting(Link::name).containsExactlyInAnyOrder("lo", "a", "b");
        }
    }
}
