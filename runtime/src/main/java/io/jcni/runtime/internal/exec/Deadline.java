package io.jcni.runtime.internal.exec;

import java.time.Duration;
import java.time.Instant;

/**
 * When one runtime call must be over, on the monotonic clock ({@link System#nanoTime}), or no limit. Immutable. Created
 * at the start of each call of a runtime with a timeout or deadline ({@code CniRuntime.withTimeout},
 * {@code withDeadline}); every blocking step of the call takes what is left of it.
 */
public final class Deadline {
    /** No limit. */
    public static final Deadline NONE = new Deadline(false, 0, 0);

    private final boolean limited;
    private final long at;
    private final long budget;

    private Deadline(boolean limited, long at, long budget) {
        this.limited = limited;
        this.at = at;
        this.budget = budget;
    }

    /** {@code timeout} from now. */
    public static Deadline after(Duration timeout) {
        long nanos = saturatedNanos(timeout);
        return new Deadline(true, System.nanoTime() + nanos, nanos);
    }

    /** At {@code instant} of the wall clock, measured from now on the monotonic clock (a past instant: expired). */
    public static Deadline at(Instant instant) {
        return after(Duration.between(Instant.now(), instant));
    }

    private static long saturatedNanos(Duration duration) {
        if (duration.isNegative()) {
            return 0;
        }
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 4; // centuries: no overflow when added to nanoTime
        }
    }

    public boolean limited() {
        return limited;
    }

    /** Nanoseconds left (0 when expired), or {@link Long#MAX_VALUE} without a limit. */
    public long remainingNanos() {
        if (!limited) {
            return Long.MAX_VALUE;
        }
        return Math.max(0, at - System.nanoTime());
    }

    public boolean expired() {
        return limited && at - System.nanoTime() <= 0;
    }

    /** The whole budget the call was given, in milliseconds (for messages). */
    public long budgetMillis() {
        return budget / 1_000_000;
    }

    /**
     * How long one plugin may run: the earlier of what is left and {@code pluginTimeoutNanos} (0: no per-plugin
     * limit); 0 when neither limits it. At least 1 ns when limited, so that 0 keeps meaning "no limit".
     */
    public long pluginLimitNanos(long pluginTimeoutNanos) {
        if (!limited) {
            return pluginTimeoutNanos;
        }
        long left = Math.max(1, remainingNanos());
        return pluginTimeoutNanos > 0 ? Math.min(left, pluginTimeoutNanos) : left;
    }

    /** Whether a plugin stopped at {@link #pluginLimitNanos} was stopped by this deadline rather than its own limit. */
    public boolean isTheLimit(long pluginTimeoutNanos) {
        return limited && (pluginTimeoutNanos <= 0 || remainingNanos() < pluginTimeoutNanos);
    }

    /**
     * The budget of a rollback: as long as the call's own or {@code minimumNanos}, whichever is longer, from now; no
     * limit for a call without one. A call that ran out of a short deadline still gets its rollback done.
     */
    public Deadline forRollback(long minimumNanos) {
        if (!limited) {
            return NONE;
        }
        long nanos = Math.max(budget, minimumNanos);
        return new Deadline(true, System.nanoTime() + nanos, nanos);
    }
}
