package io.jcni.plugins.internal.service;

import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import java.io.PrintStream;

/**
 * The service's own log, on its stderr (the journal under systemd): start and stop, the end of its warm-up, refusals
 * (at most one line a second, with the number left out, so that a flood of bad connections cannot flood the log),
 * failures, and with {@code JCNI_DEBUG=1} in the service's environment one line per call.
 */
final class ServiceLog implements MetricsServer.Log {
    private static final long REFUSAL_INTERVAL_NANOS = 1_000_000_000L;

    private final PrintStream out;
    private final boolean debug;
    private long lastRefusal = System.nanoTime() - REFUSAL_INTERVAL_NANOS;
    private long suppressed;

    ServiceLog(PrintStream out, boolean debug) {
        this.out = out;
        this.debug = debug;
    }

    boolean debugEnabled() {
        return debug;
    }

    void info(String message) {
        out.println("jcni serve: " + message);
    }

    void debug(String message) {
        if (debug) {
            info(message);
        }
    }

    @Override
    public synchronized void refusal(String message) {
        long now = System.nanoTime();
        if (now - lastRefusal < REFUSAL_INTERVAL_NANOS) {
            suppressed++;
            return;
        }
        lastRefusal = now;
        info(message + (suppressed == 0 ? "" : " (and " + suppressed + " more refusals not logged)"));
        suppressed = 0;
    }

    @Override
    public void failure(String message, Throwable t) {
        synchronized (out) {
            info(message + ": " + t);
            t.printStackTrace(out);
        }
    }
}
