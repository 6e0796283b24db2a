package io.jcni.runtime.internal.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Attachment locks exclude other threads of this JVM and other processes, and let different attachments proceed.
 * Blocking is proven by thread state (parked on the bucket lock) or by the kernel's answer to a try-lock, never by
 * timing.
 */
class AttachmentLocksTest {
    @TempDir
    Path tmp;

    @Test
    void bucketsAreStableAndSpread() {
        // Pinned: every jcni process on a node, of any version, must pick the same lock file for an attachment.
        assertThat(AttachmentLocks.bucket("ctr-1", "eth0")).as("CRC32C of \"ctr-1\\0eth0\" mod 1024").isEqualTo(136);
        Set<Integer> buckets = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            buckets.add(AttachmentLocks.bucket("container-" + i, "eth0"));
        }
        assertThat(buckets).hasSizeGreaterThan(550); // 1000 keys into 1024 buckets: ~630 expected when uniform
        assertThat(AttachmentLocks.bucket("a-b", "c")).as("the separator is not ambiguous")
                .isNotEqualTo(AttachmentLocks.bucket("a", "b-c"));
    }

    @Test
    void theSameAttachmentWaitsForTheHolderInThisJvm() throws Exception {
        AttachmentLocks locks = new AttachmentLocks(tmp);
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter;
        try (AttachmentLocks.Held held = locks.acquire("ctr", "eth0")) {
            waiter = Thread.ofPlatform().start(() -> {
                try (AttachmentLocks.Held second = locks.acquire("ctr", "eth0")) {
                    acquired.set(true);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitState(waiter, Thread.State.WAITING);
            assertThat(acquired).isFalse();
        }
        waiter.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(acquired).isTrue();
    }

    @Test
    void differentAttachmentsDoNotWaitForEachOther() throws Exception {
        AttachmentLocks locks = new AttachmentLocks(tmp);
        String other = otherBucket("ctr", "eth0");
        try (AttachmentLocks.Held held = locks.acquire("ctr", "eth0")) {
            CountDownLatch done = new CountDownLatch(1);
            Thread.ofPlatform().start(() -> {
                try (AttachmentLocks.Held second = locks.acquire(other, "eth0")) {
                    done.countDown();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(done.await(30, TimeUnit.SECONDS)).as("acquired while the first is held").isTrue();
        }
    }

    @Test
    void aHolderCanReacquireItsOwnAttachment() throws Exception {
        AttachmentLocks locks = new AttachmentLocks(tmp);
        try (AttachmentLocks.Held outer = locks.acquire("ctr", "eth0");
                AttachmentLocks.Held inner = locks.acquire("ctr", "eth0")) {
            assertThat(outer).isNotSameAs(inner);
        }
    }

    @Test
    void anotherProcessHoldingTheAttachmentIsExcluded() throws Exception {
        AttachmentLocks locks = new AttachmentLocks(tmp);
        String classPath = codeSource(AttachmentLocks.class) + File.pathSeparator + codeSource(LockHolder.class);
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, LockHolder.class.getName(), tmp.toString(), "ctr", "eth0")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).isEqualTo("locked");
            assertThat(locks.heldElsewhere("ctr", "eth0")).as("the kernel says the child holds it").isTrue();
            assertThat(locks.heldElsewhere(otherBucket("ctr", "eth0"), "eth0")).isFalse();

            AtomicBoolean acquired = new AtomicBoolean();
            Thread waiter = Thread.ofPlatform().start(() -> {
                try (AttachmentLocks.Held held = locks.acquire("ctr", "eth0")) {
                    acquired.set(true);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            // The child holds the kernel lock until its stdin closes, so the waiter cannot have it yet.
            assertThat(acquired).isFalse();
            holder.getOutputStream().close();
            waiter.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(acquired).isTrue();
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(holder.exitValue()).isZero();
        } finally {
            holder.destroyForcibly();
        }
        assertThat(Files.list(tmp.resolve("locks")).count()).as("lock files are bucket files, never more")
                .isLessThanOrEqualTo(2);
    }

    static String otherBucket(String containerId, String ifName) {
        int bucket = AttachmentLocks.bucket(containerId, ifName);
        for (int i = 0; ; i++) {
            if (AttachmentLocks.bucket(containerId + "-other-" + i, ifName) != bucket) {
                return containerId + "-other-" + i;
            }
        }
    }

    static String codeSource(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (thread.getState() != state) {
            assertThat(System.nanoTime()).as("thread reached " + state).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Child process: takes the lock, says so, holds it until stdin closes. */
    public static final class LockHolder {
        public static void main(String[] args) throws Exception {
            AttachmentLocks locks = new AttachmentLocks(Path.of(args[0]));
            try (AttachmentLocks.Held held = locks.acquire(args[1], args[2])) {
                System.out.println("locked");
                System.out.flush();
                System.in.readAllBytes();
            }
        }
    }

    @Test
    void aSymbolicLinkPlantedAtALockFileIsRefusedAndItsTargetIsNotCreated() throws Exception {
        AttachmentLocks locks = new AttachmentLocks(tmp);
        Path lockFile = locks.file("ctr-1", "eth0");
        Files.createDirectories(lockFile.getParent());
        Path target = tmp.resolve("elsewhere");
        Files.createSymbolicLink(lockFile, target);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> locks.acquire("ctr-1", "eth0"))
                .isInstanceOf(java.nio.file.FileSystemException.class)
                .hasMessage(lockFile + ": the lock file is a symbolic link, which is not followed");
        assertThat(target).doesNotExist();
    }
}
