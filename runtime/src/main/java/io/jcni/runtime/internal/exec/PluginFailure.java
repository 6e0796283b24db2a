package io.jcni.runtime.internal.exec;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.nio.charset.StandardCharsets;

/**
 * A plugin call that did not succeed, as the exec engine reports it to the runtime and to {@code Delegation}.
 *
 * <p>{@link #error()} is what to report: the plugin's own error result unchanged when it printed one; code 0 with
 * libcni's text when it failed without a readable one (libcni's {@code pluginErr} gives those code 0 too); a code
 * chosen by the engine for failures of the engine's side (plugin not found: 999, output not decodable: 6).
 * {@link #fromPlugin()} says whether the plugin ran and failed (as opposed to never being started or its success output
 * being unreadable). The message is the error's {@code msg; details}.
 */
public final class PluginFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient CniError error;
    private final boolean fromPlugin;
    private final byte[] stderr;
    private final boolean stopped;

    public PluginFailure(CniError error, boolean fromPlugin, byte[] stderr, Throwable cause) {
        this(error, fromPlugin, stderr, cause, false);
    }

    /**
     * @param stopped the plugin was running and the runtime stopped it (killed at its time limit, or on an interrupt
     *                of the calling thread): it had no chance to undo what it had made
     */
    public PluginFailure(CniError error, boolean fromPlugin, byte[] stderr, Throwable cause, boolean stopped) {
        super(error.message(), cause);
        this.error = error;
        this.fromPlugin = fromPlugin;
        this.stderr = stderr == null ? new byte[0] : stderr;
        this.stopped = stopped;
    }

    /** A failure of the engine's side, not the plugin's, with a libcni-style message. */
    public static PluginFailure engine(int code, String msg) {
        return new PluginFailure(new CniError(code, msg), false, null, null);
    }

    public CniError error() {
        return error;
    }

    public boolean fromPlugin() {
        return fromPlugin;
    }

    /** Whether the runtime killed the plugin while it ran (see the constructor). */
    public boolean stopped() {
        return stopped;
    }

    /** What the plugin wrote to stderr (already passed to the caller's sink as well); empty if nothing. */
    public byte[] stderr() {
        return stderr.clone();
    }

    public String stderrText() {
        return new String(stderr, StandardCharsets.UTF_8);
    }

    /** The failure as the spec-model exception, carrying {@link #error()} unchanged (for {@code Delegation}). */
    public CniException toCniException() {
        CniException e = new CniException(error);
        e.initCause(this);
        return e;
    }
}
