package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import java.io.PrintStream;
import java.time.Instant;

/**
 * The daemon's log: one line per event on a stream (stderr for {@code dhcp daemon}, which systemd's journal or the
 * caller collects), each with its UTC time, as Go's daemon logs with {@code log.Printf}.
 */
final class DaemonLog implements MetricsServer.Log {
    private final PrintStream out;

    DaemonLog(PrintStream out) {
        this.out = out;
    }

    void log(String message) {
        String line = Instant.now().toString() + " " + message;
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }

    /** The metrics listener could not take a connection (it logs that at most once a second). */
    @Override
    public void refusal(String message) {
        log(message);
    }

    @Override
    public void failure(String message, Throwable t) {
        log(message + ": " + t);
    }

    /** An epoch time for a message, e.g. an expiration. */
    static String time(long epochMillis) {
        return epochMillis == Long.MAX_VALUE ? "never" : Instant.ofEpochMilli(epochMillis).toString();
    }
}
