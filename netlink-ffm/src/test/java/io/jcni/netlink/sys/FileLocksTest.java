package io.jcni.netlink.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.jcni.netlink.Kernel;
import io.jcni.netlink.KernelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code flock(2)} locks exclude util-linux's {@code flock} (what Go's host-local uses) in another process, and other
 * threads of this one; {@link java.nio.channels.FileChannel#lock()} would do neither against flock.
 */
class FileLocksTest {
    @TempDir
    Path dir;

    private static int flockNonBlocking(Path path) {
        return Kernel.run("flock", "--nonblock", "--exclusive", path.toString(), "true").exit();
    }

    @Test
    void excludesTheFlockCommandInAnotherProcessUntilClosed() throws Exception {
        Path lock = dir.resolve("net1").resolve("lock");
        Files.createDirectories(lock.getParent());
        try (FileLocks.ExclusiveLock held = FileLocks.exclusive(lock)) {
            assertThat(held.path()).isEqualTo(lock);
            assertThat(flockNonBlocking(lock)).as("flock -n exits 1 while we hold the lock").isEqualTo(1);
        }
        assertThat(flockNonBlocking(lock)).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(lock))).startsWith("rw-");
    }

    @Test
    void aSymbolicLinkPlantedAtTheLockPathIsRefusedNotFollowed() throws Exception {
        Path target = dir.resolve("elsewhere");
        Path lock = Files.createSymbolicLink(dir.resolve("lock"), target);

        assertThatThrownBy(() -> FileLocks.exclusive(lock)).isInstanceOfSatisfying(KernelException.class,
                e -> assertThat(e.getMessage()).isEqualTo("open " + lock + ": ELOOP (Too many levels of symbolic "
                        + "links): the lock file is a symbolic link, which is not followed"));
        assertThatThrownBy(() -> FileLocks.tryExclusive(lock)).as("a lock failure is no netlink failure")
                .isExactlyInstanceOf(KernelException.class);
        assertThat(target).as("the link's target is not created").doesNotExist();
    }

    @Test
    void aFifoAtTheLockPathDoesNotBlockTheOpen() throws Exception {
        Path lock = dir.resolve("lock");
        Kernel.sh("mkfifo", lock.toString());
        try {
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
                try (FileLocks.ExclusiveLock held = FileLocks.exclusive(lock)) {
                    assertThat(held.path()).isEqualTo(lock);
                }
            });
        } finally {
            java.nio.channels.FileChannel.open(lock, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE).close();
        }
    }

    @Test
    void waitsForALockHeldByAnotherProcess() throws Exception {
        Path lock = dir.resolve("lock");
        Path ready = dir.resolve("ready");
        Path done = dir.resolve("done");
        Process holder = new ProcessBuilder("flock", "--exclusive", lock.toString(), "sh", "-c",
                "touch " + ready + "; sleep 0.5; touch " + done).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.exists(ready) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(Files.exists(ready)).isTrue();
            assertThat(FileLocks.tryExclusive(lock)).isEmpty();
            try (FileLocks.ExclusiveLock _ = FileLocks.exclusive(lock)) {
                assertThat(Files.exists(done)).as("we got the lock only after the holder finished").isTrue();
            }
        } finally {
            holder.destroyForcibly().waitFor();
        }
    }

    /** A runtime's deadline or cancellation reaches an in-process host-local waiting here as an interrupt. */
    @Test
    void aPlatformThreadWaitingForABusyLockStopsWhenInterrupted() throws Exception {
        Path lock = dir.resolve("lock");
        Path ready = dir.resolve("ready");
        Process holder = new ProcessBuilder("flock", "--exclusive", lock.toString(), "sh", "-c",
                "touch " + ready + "; exec sleep 60").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.exists(ready) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(Files.exists(ready)).isTrue();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicBoolean interruptedAfter = new AtomicBoolean();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try (FileLocks.ExclusiveLock _ = FileLocks.exclusive(lock)) {
                    thrown.set(new AssertionError("got a lock another process holds"));
                } catch (Throwable t) {
                    thrown.set(t);
                }
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            });
            Thread.sleep(100);
            assertThat(waiter.isAlive()).as("still waiting for the lock").isTrue();
            waiter.interrupt();
            waiter.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(waiter.isAlive()).isFalse();
            assertThat(thrown.get()).isExactlyInstanceOf(KernelException.class)
                    .hasMessage("flock " + lock + ": interrupted while waiting for the lock");
            assertThat(interruptedAfter).isTrue();
            assertThat(holder.isAlive()).as("the holder still has the lock").isTrue();
        } finally {
            holder.descendants().forEach(ProcessHandle::destroyForcibly);
            holder.destroyForcibly().waitFor();
        }
    }

    @Test
    void excludesAnotherThreadOfThisProcess() throws Exception {
        Path lock = dir.resolve("lock");
        try (FileLocks.ExclusiveLock _ = FileLocks.exclusive(lock)) {
            Optional<FileLocks.ExclusiveLock> other = CompletableFuture.supplyAsync(() -> FileLocks.tryExclusive(lock))
                    .get();
            assertThat(other).isEmpty();
        }
        Optional<FileLocks.ExclusiveLock> after = CompletableFuture.supplyAsync(() -> FileLocks.tryExclusive(lock))
                .get();
        assertThat(after).isPresent();
        after.get().close();
    }

    @Test
    void aVirtualThreadWaitsWithoutHoldingTheLockEarly() throws Exception {
        Path lock = dir.resolve("lock");
        CountDownLatch acquired = new CountDownLatch(1);
        Thread waiter;
        try (FileLocks.ExclusiveLock _ = FileLocks.exclusive(lock)) {
            waiter = Thread.ofVirtual().start(() -> {
                try (FileLocks.ExclusiveLock _ = FileLocks.exclusive(lock)) {
                    acquired.countDown();
                }
            });
            assertThat(acquired.await(200, TimeUnit.MILLISECONDS)).isFalse();
        }
        assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
        waiter.join();
    }

    @Test
    void closeIsIdempotentAndReleases() throws Exception {
        Path lock = dir.resolve("lock");
        FileLocks.ExclusiveLock held = FileLocks.exclusive(lock);
        held.close();
        held.close();
        assertThat(flockNonBlocking(lock)).isZero();
    }
    /**
     * The lock Go's sbr takes ({@code flock} on its CNI_NETNS path) and ours on the same namespace exclude each other,
     * whichever path each side opened: one nsfs inode per namespace.
     */
    @Test
    void aNamespaceLockExcludesFlockOnItsPathAndAnotherOpeningOfIt() throws Exception {
        try (io.jcni.netlink.TestNamespace t = io.jcni.netlink.TestNamespace.create()) {
            Path named = Path.of("/run/netns", t.name);
            CountDownLatch acquired = new CountDownLatch(1);
            Thread waiter;
            try (FileLocks.ExclusiveLock held = FileLocks.exclusive(t.ns)) {
                assertThat(held.path()).isEqualTo(named);
                assertThat(flockNonBlocking(named)).as("flock -n on /run/netns/NAME while we hold it").isEqualTo(1);
                waiter = Thread.ofPlatform().start(() -> {
                    try (io.jcni.netlink.NetNs again = io.jcni.netlink.NetNs.open(Path.of("/proc/self/fd/"
                            + t.ns.fd())); FileLocks.ExclusiveLock _ = FileLocks.exclusive(again)) {
                        acquired.countDown();
                    }
                });
                assertThat(acquired.await(200, TimeUnit.MILLISECONDS)).as("another opening waits").isFalse();
            }
            assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
            waiter.join();
            assertThat(flockNonBlocking(named)).as("released").isZero();
        }
    }
}
