package io.jcni.plugins.sdk;

import io.jcni.plugins.internal.trace.CallSpan;
import io.jcni.plugins.internal.trace.PhaseSink;

/**
 * Where a call's time goes, in debug mode ({@code JCNI_DEBUG=1}), for a traced call (its phases become spans) and for
 * a host that counts phases (the plugin service's metrics): the skel times every handler and writes one
 * line such as {@code timing ADD: config 310 us, netns 1650 us, bridge 420 us, ..., handler 9300 us} (JVM start and
 * the skel's decoding are the rest of an exec's wall time; {@code benchmarks/compare.sh} reads the line). The phases
 * come from the steps themselves: a step ends its phase with {@link #phase}, so a plugin's {@code add} and
 * {@code del} read without timing lines. Costs nothing when debug is off.
 *
 * <p>Sharp edge: a step finds its call's timing through a thread-local that the skel sets on the thread running the
 * handler, for the handler's duration (an in-process delegate's call has its own and restores its caller's). A phase
 * marked on another thread (a namespace thread), outside a skel (a test calling a step) or with debug off is not
 * counted.
 */
public final class Timing {
    private static final ThreadLocal<Timing> CURRENT = new ThreadLocal<>();

    private final Timing outer;
    private final long start;
    private final StringBuilder line = new StringBuilder(200);
    private long last;
    /** The phases so far, by name and end ({@link System#nanoTime()}), for a traced call's phase spans. */
    private String[] names = new String[8];
    private long[] ends = new long[8];
    private int count;

    private Timing(Timing outer) {
        this.outer = outer;
        this.start = System.nanoTime();
        this.last = start;
    }

    /** Ends the current phase of the running call, naming it ("veth"): the time since the previous phase ended. */
    public static void phase(String name) {
        Timing timing = CURRENT.get();
        if (timing != null) {
            long now = System.nanoTime();
            timing.line.append(timing.line.isEmpty() ? "" : ", ").append(name).append(' ')
                    .append((now - timing.last) / 1000).append(" us");
            timing.last = now;
            if (timing.count == timing.names.length) {
                timing.names = java.util.Arrays.copyOf(timing.names, timing.count * 2);
                timing.ends = java.util.Arrays.copyOf(timing.ends, timing.count * 2);
            }
            timing.names[timing.count] = name;
            timing.ends[timing.count++] = now;
        }
    }

    /** The skel, for a host that counts phases (the service's metrics): each phase so far, with its time. */
    void phasesTo(String plugin, PhaseSink sink) {
        long from = start;
        for (int i = 0; i < count; i++) {
            sink.phase(plugin, names[i], ends[i] - from);
            from = ends[i];
        }
    }

    /** The skel, for a traced call: each phase so far becomes a child span of the call's. */
    void phasesTo(CallSpan span) {
        long from = start;
        for (int i = 0; i < count; i++) {
            span.phase(names[i], from, ends[i]);
            from = ends[i];
        }
    }

    /** The skel, before a handler in debug mode: phases marked on this thread from now on are this call's. */
    static Timing begin() {
        Timing timing = new Timing(CURRENT.get());
        CURRENT.set(timing);
        return timing;
    }

    /** The phases so far and the handler's total: {@code first 10 us, second 20 us, handler 40 us}. */
    String line() {
        return line + (line.isEmpty() ? "" : ", ") + "handler " + (System.nanoTime() - start) / 1000 + " us";
    }

    /** The skel, after the handler: the calling call's timing (if any) is current again. */
    void end() {
        if (outer == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(outer);
        }
    }
}
