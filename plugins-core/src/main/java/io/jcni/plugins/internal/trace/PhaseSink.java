package io.jcni.plugins.internal.trace;

/**
 * Where a host wants the phases of the calls it runs (the plugin service with metrics on): set on the thread that runs
 * a call, for that call, and read by the skel, which then times the handler's phases ({@code Timing.phase}) and hands
 * each over with the plugin's type (a delegate run in-process reports its own phases under its own type). Without a
 * sink, and without debug or tracing, the skel times nothing.
 */
public interface PhaseSink {
    /** {@code plugin}'s phase {@code phase} took {@code nanos}. */
    void phase(String plugin, String phase, long nanos);

    /** The sink of the calls on this thread, or null. */
    static PhaseSink current() {
        return Holder.CURRENT.get();
    }

    /** Sets the sink of this thread's calls (null: none). */
    static void set(PhaseSink sink) {
        if (sink == null) {
            Holder.CURRENT.remove();
        } else {
            Holder.CURRENT.set(sink);
        }
    }

    /** The thread-local (an interface cannot hold a private field). */
    final class Holder {
        static final ThreadLocal<PhaseSink> CURRENT = new ThreadLocal<>();

        private Holder() {
        }
    }
}
