package io.jcni.plugins.internal.ipam.dhcp;

import java.io.PrintStream;
import java.time.Instant;

/**
 * The daemon's log: one line per event on a stream (stderr for {@code dhcp daemon}, which systemd's journal or the
 * caller collects), each with its UTC time, as Go's daemon logs with {@code log.Printf}.
 */
final class DaemonLog {
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

    /** An epoch time for a message, e.g. an expiration. */
    static String time(long epochMillis) {
        return epochMillis == Long.MAX_VALUE ? "never" : Instant.ofEpochMilli(epochMillis).toString();
    }
}
