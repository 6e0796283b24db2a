package io.jcni.plugins.internal.service;

import java.util.concurrent.atomic.LongAdder;

/**
 * A latency histogram with fixed bucket bounds, as Prometheus' client libraries keep one: a counter per bucket (not
 * cumulative here; {@link #write} adds them up) and the sum (the count is the +Inf bucket's). Recording is two
 * {@link LongAdder} increments, so call threads never contend on one cache line; a scrape reads while calls record,
 * which may show a call's time in {@code _sum} before its bucket, as any lock-free client library may.
 */
final class Histogram {
    /**
     * Upper bounds in seconds: a service call of a bridge ADD takes a few milliseconds, a dhcp ADD up to the lease's
     * wait, a call is cancelled after 330 s by default.
     */
    static final double[] BOUNDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
            30, 60, 120, 330};
    private static final long[] BOUNDS_NANOS = new long[BOUNDS.length];
    /** The bounds as {@code le} values, written as Go's client writes them ("0.0005", "1", "2.5"). */
    private static final String[] LE = new String[BOUNDS.length];

    static {
        for (int i = 0; i < BOUNDS.length; i++) {
            BOUNDS_NANOS[i] = Math.round(BOUNDS[i] * 1e9);
            LE[i] = new java.math.BigDecimal(Double.toString(BOUNDS[i])).stripTrailingZeros().toPlainString();
        }
    }

    /** One per bound and one for +Inf. */
    private final LongAdder[] buckets = new LongAdder[BOUNDS.length + 1];
    private final LongAdder sumNanos = new LongAdder();

    Histogram() {
        for (int i = 0; i < buckets.length; i++) {
            buckets[i] = new LongAdder();
        }
    }

    void record(long nanos) {
        int i = 0;
        while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
            i++;
        }
        buckets[i].increment();
        sumNanos.add(nanos);
    }

    /**
     * Writes {@code name_bucket}, {@code name_sum} and {@code name_count} lines, {@code labels} being the series'
     * other labels already formatted ({@code type="bridge",command="ADD"}).
     */
    void write(StringBuilder out, String name, String labels) {
        long cumulative = 0;
        for (int i = 0; i < buckets.length; i++) {
            cumulative += buckets[i].sum();
            out.append(name).append("_bucket{").append(labels).append(labels.isEmpty() ? "" : ",").append("le=\"")
                    .append(i < BOUNDS.length ? LE[i] : "+Inf").append("\"} ").append(cumulative)
                    .append('\n');
        }
        out.append(name).append("_sum{").append(labels).append("} ").append(sumNanos.sum() / 1e9).append('\n');
        out.append(name).append("_count{").append(labels).append("} ").append(cumulative).append('\n');
    }
}
