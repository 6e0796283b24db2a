package io.jcni.plugins.internal.pkg.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AttachmentLocksTest {
    private final AttachmentLocks locks = new AttachmentLocks();

    @Test
    void otherAttachmentsNeverWaitAndTheSameOneWaitsUntilItsDeadline() throws Exception {
        try (AttachmentLocks.Held held = locks.tryAcquire("c1", "eth0")) {
            assertThat(held).isNotNull();
            assertThat(locks.tryAcquire("c1", "eth0")).isNull();
            try (AttachmentLocks.Held other = locks.tryAcquire("c1", "eth1")) {
                assertThat(other).isNotNull();
            }
            assertThatThrownBy(() -> locks.acquire("c1", "eth0", System.nanoTime() + 50_000_000L))
                    .isInstanceOf(TimeoutException.class).hasMessageContaining("c1/eth0");
            assertThat(locks.inUse()).as("the timed-out waiter left nothing behind").isEqualTo(1);
        }
        assertThat(locks.busy("c1", "eth0")).isFalse();
        assertThat(locks.inUse()).isZero();
    }

    @Test
    void lockOutlastsAnInterruptAndTakesTheLockWhenItIsReleased() throws Exception {
        AttachmentLocks.Held held = locks.lock(AttachmentLocks.key("c1", "eth0"));
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread waiter = new Thread(() -> {
            try (AttachmentLocks.Held mine = locks.lock(AttachmentLocks.key("c1", "eth0"))) {
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        waiter.start();
        while (waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        assertThat(locks.tryAcquire("c1", "eth0")).as("a waiter goes first").isNull();
        waiter.interrupt();
        waiter.join(200);
        assertThat(waiter.isAlive()).as("an interrupt does not end lock()").isTrue();
        held.close();
        held.close(); // idempotent
        waiter.join(10_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(interruptedAfter).as("the interrupt is kept for the caller").isTrue();
        assertThat(locks.inUse()).isZero();
    }

    @Test
    void acquireEndsOnAnInterruptHoldingNothing() throws Exception {
        try (AttachmentLocks.Held held = locks.tryAcquire("c1", "eth0")) {
            CompletableFuture<Throwable> outcome = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try {
                    locks.acquire("c1", "eth0", System.nanoTime() + TimeUnit.MINUTES.toNanos(1)).close();
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            });
            waiter.start();
            while (waiter.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait();
            }
            waiter.interrupt();
            assertThat(outcome.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            assertThat(locks.inUse()).isEqualTo(1);
        }
        assertThat(locks.inUse()).isZero();
    }
}
