package io.jcni.plugins.sdk;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A plugin's log: lines on its stderr, prefixed with the plugin type ({@code host-local: ...}). Stdout belongs to the
 * skel (results and errors), so this is the only place a plugin writes text.
 *
 * <p>{@link #debug} lines appear only when the plugin's environment sets {@code JCNI_DEBUG} to {@code 1} or
 * {@code true}. Writing never fails: a closed stderr loses the line, not the operation.
 */
public final class PluginLog {
    /** The environment variable that enables {@link #debug} lines. */
    public static final String DEBUG_ENV = "JCNI_DEBUG";

    private final String prefix;
    private final OutputStream stderr;
    private final boolean debug;

    PluginLog(String type, OutputStream stderr, boolean debug) {
        this.prefix = type + ": ";
        this.stderr = stderr;
        this.debug = debug;
    }

    /**
     * A log for plugin work done outside a skel's call (a daemon such as dhcp's, a host of plugins): lines on {@code
     * stderr} prefixed with {@code name}, {@link #debug} lines only if {@code debug}.
     */
    public static PluginLog of(String name, OutputStream stderr, boolean debug) {
        return new PluginLog(name, stderr, debug);
    }

    /** Whether {@link #debug} lines are written. */
    public boolean debugEnabled() {
        return debug;
    }

    /** A line worth an operator's attention (something was skipped, cleaned up, or failed and was tolerated). */
    public void warn(String message) {
        line(message);
    }

    /** A line for someone tracing a problem; written only in debug mode. */
    public void debug(String message) {
        if (debug) {
            line(message);
        }
    }

    /** A failure with its stack trace, for the operator (never on stdout). */
    public void failure(String message, Throwable failure) {
        line(message);
        PrintStream out = new PrintStream(stderr, false, StandardCharsets.UTF_8);
        failure.printStackTrace(out);
        out.flush();
    }

    private void line(String message) {
        byte[] bytes = new StringBuilder(prefix.length() + message.length() + 1).append(prefix).append(message)
                .append('\n').toString().getBytes(StandardCharsets.UTF_8);
        try {
            stderr.write(bytes);
            stderr.flush();
        } catch (IOException lost) {
            // Nowhere left to report it.
        }
    }
}
