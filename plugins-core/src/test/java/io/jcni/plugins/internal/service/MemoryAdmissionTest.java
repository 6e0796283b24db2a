package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Admission by size (issue 23, harm 4): large calls share half the heap, first come first served; small ones pass. */
class MemoryAdmissionTest {
    private static final long MIB = 1 << 20;

    private static long in(long seconds) {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    }

    @Test
    void aCallOfAnOrdinaryConfigurationIsNeverCountedNorKeptWaiting() throws Exception {
        MemoryAdmission memory = new MemoryAdmission(10 * MIB);
        long ordinary = MemoryAdmission.estimate(8 << 10, 600); // a bridge ADD: 8 KiB of environment, 600 bytes
        assertThat(MemoryAdmission.counted(ordinary)).isFalse();
        try (MemoryAdmission.Admitted big = memory.admit(10 * MIB, in(1))) {
            assertThat(memory.admit(ordinary, System.nanoTime())).isSameAs(MemoryAdmission.FREE);
        }
    }

    @Test
    void largeCallsWaitForMemoryInTheOrderTheyCameAndGiveUpAtTheirDeadline() throws Exception {
        MemoryAdmission memory = new MemoryAdmission(10 * MIB);
        MemoryAdmission.Admitted first = memory.admit(6 * MIB, in(1));
        assertThat(memory.used()).isEqualTo(6 * MIB);
        CompletableFuture<MemoryAdmission.Admitted> second = CompletableFuture.supplyAsync(() -> admit(memory, 6));
        Thread.sleep(200);
        CompletableFuture<MemoryAdmission.Admitted> third = CompletableFuture.supplyAsync(() -> admit(memory, 3));
        Thread.sleep(200);
        assertThat(second).as("6 + 6 MiB do not fit in 10").isNotDone();
        assertThat(third).as("3 MiB would fit, but it came after the 6 MiB call").isNotDone();
        first.close();
        MemoryAdmission.Admitted s = second.get(10, TimeUnit.SECONDS);
        MemoryAdmission.Admitted t = third.get(10, TimeUnit.SECONDS);
        assertThat(memory.used()).isEqualTo(9 * MIB);
        assertThatThrownBy(() -> memory.admit(2 * MIB + 1, System.nanoTime() + 100_000_000L))
                .isInstanceOf(TimeoutException.class).hasMessageContaining("9 of 10 MiB");
        s.close();
        t.close();
        s.close(); // idempotent
        assertThat(memory.used()).isZero();
        try (MemoryAdmission.Admitted all = memory.admit(10 * MIB, in(1))) {
            assertThat(memory.used()).isEqualTo(10 * MIB);
        }
    }

    @Test
    void aCallThatGaveUpDoesNotHoldUpTheOnesBehindIt() throws Exception {
        MemoryAdmission memory = new MemoryAdmission(10 * MIB);
        MemoryAdmission.Admitted first = memory.admit(8 * MIB, in(1));
        CompletableFuture<MemoryAdmission.Admitted> impatient = CompletableFuture.supplyAsync(() -> {
            try {
                return memory.admit(8 * MIB, System.nanoTime() + 300_000_000L);
            } catch (TimeoutException | InterruptedException e) {
                return null;
            }
        });
        Thread.sleep(100);
        CompletableFuture<MemoryAdmission.Admitted> patient = CompletableFuture.supplyAsync(() -> admit(memory, 1));
        assertThat(impatient.get(10, TimeUnit.SECONDS)).isNull();
        first.close();
        patient.get(10, TimeUnit.SECONDS).close();
    }

    private static MemoryAdmission.Admitted admit(MemoryAdmission memory, long mib) {
        try {
            return memory.admit(mib * MIB, in(20));
        } catch (TimeoutException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
