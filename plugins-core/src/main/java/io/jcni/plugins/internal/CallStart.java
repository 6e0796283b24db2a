package io.jcni.plugins.internal;

/**
 * When the plugin call running on a thread began ({@link System#nanoTime()}), set by the skel for the outermost call
 * and seen by its in-process delegates, whose work is part of that call: cluster-ipam counts on a quorum read sent
 * after it, or just before (see its {@code QuorumRead}), and for cluster-ipam delegated to by bridge, that is
 * bridge's call.
 *
 * <p>Sharp edge: a thread-local, as the skel's timing is: work on another thread, or outside any skel (a test calling
 * a store), sees "now".
 */
public final class CallStart {
    private static final ThreadLocal<long[]> STARTED = new ThreadLocal<>();

    private CallStart() {
    }

    /** The skel, as a call begins: true if it is the outermost call on this thread (it then calls {@link #end}). */
    public static boolean begin() {
        if (STARTED.get() != null) {
            return false;
        }
        STARTED.set(new long[] {System.nanoTime()});
        return true;
    }

    /** The skel, as the outermost call on this thread ends. */
    public static void end() {
        STARTED.remove();
    }

    /** When the call running on this thread began; now, outside a call. */
    public static long started() {
        long[] started = STARTED.get();
        return started == null ? System.nanoTime() : started[0];
    }
}
