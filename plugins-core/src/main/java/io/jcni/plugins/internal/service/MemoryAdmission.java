package io.jcni.plugins.internal.service;

import java.util.concurrent.TimeoutException;

/**
 * Admission of calls by the memory they may need, so that large configurations (legal up to 4 MiB) wait for each
 * other instead of exhausting the heap every call shares, and a bridge ADD with a 300-byte configuration never fails
 * because twelve 4 MiB ones run beside it.
 *
 * <p>What a call may need is estimated from its request before its body is read: {@value #HEAP_PER_STDIN_BYTE} bytes
 * of heap per byte of stdin and {@value #HEAP_PER_ENV_BYTE} per byte of environment. Measured (JDK 25, this codec): a
 * 4 MiB configuration of small numbers or empty objects keeps 135 to 154 MiB as a decoded tree, one of short strings
 * 23 MiB; a delegating plugin decodes it a second time in its in-process IPAM delegate. Calls whose estimate is at
 * most {@link #SMALL} (stdin up to about 25 KiB: every configuration seen in practice) are admitted at once and
 * counted nowhere; larger ones share {@code budget} bytes (half the heap), each taking its estimate, capped at the
 * whole budget. So the large calls together never take more than half the heap, and the small ones keep the rest. A
 * call whose estimate exceeds the whole budget is not run by the service at all: its client runs its JVM launcher
 * ({@code 'E'}), a JVM with a heap of its own.
 *
 * <p>A wait has a deadline ({@link TimeoutException}) and ends on an interrupt. First come, first served among the
 * large calls.
 */
final class MemoryAdmission {
    static final int HEAP_PER_STDIN_BYTE = 80;
    static final int HEAP_PER_ENV_BYTE = 4;
    /** Estimates up to this are admitted without counting (2 MiB). */
    static final long SMALL = 2L << 20;

    private final long budget;
    /** Bytes of the budget taken. Monitor: this. */
    private long used;
    /** Tickets: a large call waits until every earlier one was admitted. Monitor: this. */
    private long nextTicket;
    private long serving;

    MemoryAdmission(long budget) {
        this.budget = Math.max(SMALL, budget);
    }

    /** The budget for this JVM: half its maximum heap. */
    static MemoryAdmission forHeap() {
        return new MemoryAdmission(Runtime.getRuntime().maxMemory() / 2);
    }

    /** The heap a request of these lengths may need. */
    static long estimate(long envBytes, long stdinBytes) {
        return envBytes * HEAP_PER_ENV_BYTE + stdinBytes * HEAP_PER_STDIN_BYTE;
    }

    /** Whether a call of this estimate must be admitted (and may wait). */
    static boolean counted(long estimate) {
        return estimate > SMALL;
    }

    /** What a call admitted without counting holds. */
    static final Admitted FREE = new Admitted(null, 0);

    /** What is admitted: released once, by whoever ends the call. */
    static final class Admitted implements AutoCloseable {
        private final MemoryAdmission owner;
        private final long bytes;
        private boolean released;

        private Admitted(MemoryAdmission owner, long bytes) {
            this.owner = owner;
            this.bytes = bytes;
        }

        @Override
        public void close() {
            if (owner == null) {
                return;
            }
            synchronized (owner) {
                if (!released) {
                    released = true;
                    owner.used -= bytes;
                    owner.notifyAll();
                }
            }
        }
    }

    /** Admits a call whose estimate is {@code estimate} bytes; waits until {@code deadline} at most. */
    Admitted admit(long estimate, long deadline) throws TimeoutException, InterruptedException {
        if (!counted(estimate)) {
            return FREE;
        }
        long bytes = Math.min(estimate, budget); // the caller sends larger ones elsewhere
        synchronized (this) {
            long ticket = nextTicket++;
            try {
                while (serving != ticket || used + bytes > budget) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new TimeoutException("large calls use the memory set aside for them ("
                                + (used >> 20) + " of " + (budget >> 20) + " MiB)");
                    }
                    wait(Math.max(1, left / 1_000_000));
                }
            } catch (TimeoutException | InterruptedException e) {
                abandon(ticket);
                throw e;
            }
            used += bytes;
            advance();
            return new Admitted(this, bytes);
        }
    }

    /** Tickets abandoned out of turn, skipped when their turn comes. Monitor: this. */
    private final java.util.TreeSet<Long> abandoned = new java.util.TreeSet<>();

    private void abandon(long ticket) {
        if (ticket == serving) {
            advance();
        } else {
            abandoned.add(ticket);
        }
    }

    /** The turn passes to the next ticket still waiting. */
    private void advance() {
        serving++;
        while (abandoned.remove(serving)) {
            serving++;
        }
        notifyAll();
    }

    /** Bytes of the budget in use (for tests and the log). */
    synchronized long used() {
        return used;
    }

    long budget() {
        return budget;
    }
}
