package io.jcni.runtime;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.Objects;

/**
 * A runtime operation that failed. The message reads like libcni's error for the same failure, e.g.
 * {@code plugin type="bridge" failed (add): failed to allocate for range 0: no IP addresses available in range set};
 * {@link #error()} is the CNI error to act on or to hand on to a caller.
 *
 * <ul>
 * <li>A plugin that printed an error result: {@link #error()} is that error, code, msg and details unchanged, and
 * {@link #fromPlugin()} is true.</li>
 * <li>A plugin that failed without a readable error (crash, garbage, timeout): code 0 with libcni's text
 * ({@code netplugin failed with no error message: signal: killed}); {@link #fromPlugin()} true.</li>
 * <li>Failures on the runtime's side: plugin not found (999), invalid container ID, interface or network name (3, 4,
 * 7, as spec-model's rules say), unsupported version (1), undecodable output or cache file (6), cache I/O (5).</li>
 * </ul>
 * Secondary failures (the cleanup DEL after a failed ADD, further GC errors) are attached as
 * {@linkplain #getSuppressed() suppressed} exceptions.
 */
public final class CniRuntimeException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient CniError error;
    private final boolean fromPlugin;
    private final String pluginType;
    private final String stderr;

    /**
     * @param message    the full text (libcni's wording, with the operation and plugin)
     * @param error      the CNI error (see the class comment)
     * @param fromPlugin whether a plugin ran and produced this failure
     * @param pluginType the plugin's type, or "" when the failure concerns no single plugin
     * @param stderr     what the failing plugin wrote to stderr, or ""
     */
    public CniRuntimeException(String message, CniError error, boolean fromPlugin, String pluginType, String stderr,
            Throwable cause) {
        super(message, cause);
        this.error = Objects.requireNonNull(error, "error");
        this.fromPlugin = fromPlugin;
        this.pluginType = pluginType == null ? "" : pluginType;
        this.stderr = stderr == null ? "" : stderr;
    }

    /** A failure on the runtime's side, not concerning one plugin. */
    public CniRuntimeException(String message, CniError error, Throwable cause) {
        this(message, error, false, "", "", cause);
    }

    /** The CNI error: the plugin's own when it printed one (see the class comment). */
    public CniError error() {
        return error;
    }

    /** Shorthand for {@code error().code()}. */
    public int code() {
        return error.code();
    }

    /** True when a plugin ran and failed (its error, crash, garbage output or timeout). */
    public boolean fromPlugin() {
        return fromPlugin;
    }

    /** The type of the plugin that failed, or "". */
    public String pluginType() {
        return pluginType;
    }

    /** What the failing plugin wrote to stderr (also passed to the runtime's stderr sink), or "". */
    public String stderr() {
        return stderr;
    }

    /**
     * This failure as a CNI error exception for code that speaks spec-model: code and details of {@link #error()}, with
     * this exception's full message as {@code msg} so the operation and plugin are not lost.
     */
    public CniException toCniException() {
        CniException e = new CniException(new CniError(error.cniVersion(), error.code(), getMessage(), ""));
        e.initCause(this);
        return e;
    }
}
