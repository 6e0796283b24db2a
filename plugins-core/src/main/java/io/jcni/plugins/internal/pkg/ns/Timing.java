package io.jcni.plugins.internal.pkg.ns;

import io.jcni.plugins.sdk.PluginLog;

/**
 * A phase timer for a plugin call, written to the log in debug mode only ({@code JCNI_DEBUG=1}): one line such as
 * {@code timing ADD: netns 310 us, bridge 420 us, veth 1650 us, ipam 5200 us, ..., handler 9300 us}. It shows where
 * the time inside the handler goes; JVM start and the skel's decoding are the rest of the exec's wall time. Costs
 * nothing when debug is off.
 */
public final class Timing {
    private final PluginLog log;
    private final String what;
    private final long start;
    private long last;
    private final StringBuilder line;

    private Timing(PluginLog log, String what) {
        this.log = log;
        this.what = what;
        this.start = log.debugEnabled() ? System.nanoTime() : 0;
        this.last = start;
        this.line = log.debugEnabled() ? new StringBuilder(200) : null;
    }

    /** Starts timing a handler: {@code what} names it in the line ("ADD"). */
    public static Timing start(PluginLog log, String what) {
        return new Timing(log, what);
    }

    /** Ends the current phase, naming it. */
    public void mark(String phase) {
        if (line == null) {
            return;
        }
        long now = System.nanoTime();
        line.append(line.isEmpty() ? "" : ", ").append(phase).append(' ').append((now - last) / 1000).append(" us");
        last = now;
    }

    /** Writes the line (debug mode only). */
    public void report() {
        if (line == null) {
            return;
        }
        log.debug("timing " + what + ": " + line + (line.isEmpty() ? "" : ", ") + "handler "
                + (System.nanoTime() - start) / 1000 + " us");
    }
}
