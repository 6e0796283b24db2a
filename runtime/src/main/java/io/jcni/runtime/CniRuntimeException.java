package io.jcni.runtime;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.concurrent.TimeoutException;

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
 *
 * <p>Unchecked, and a {@link CniException}: code that speaks spec-model catches both with one clause, and runtime
 * calls compose with lambdas and executors. What is worth catching: a plugin's error ({@link #fromPlugin()}, its
 * {@link #code()}: 11 "try again later" is the one a runtime may retry as it is), a call that ran out of its deadline
 * or was cancelled ({@link #timedOut()}, {@link #interrupted()}), and, at ADD, that the attachment is already added
 * (code 4). Invalid names, versions and configurations (codes 1, 3, 4, 7) are bugs of the caller's input.
 */
public final class CniRuntimeException extends CniException {
    private static final long serialVersionUID = 1L;

    private final boolean fromPlugin;
    private final String pluginType;
    private final String stderr;
    private final boolean rolledBack;

    /**
     * @param message    the full text (libcni's wording, with the operation and plugin)
     * @param error      the CNI error (see the class comment)
     * @param fromPlugin whether a plugin ran and produced this failure
     * @param pluginType the plugin's type, or "" when the failure concerns no single plugin
     * @param stderr     what the failing plugin wrote to stderr, or ""
     */
    public CniRuntimeException(String message, CniError error, boolean fromPlugin, String pluginType, String stderr,
            Throwable cause) {
        this(message, error, fromPlugin, pluginType, stderr, cause, false);
    }

    /**
     * As the constructor above, for a failed ADD.
     *
     * @param rolledBack whether nothing of the failed ADD is left (see {@link #rolledBack()})
     */
    public CniRuntimeException(String message, CniError error, boolean fromPlugin, String pluginType, String stderr,
            Throwable cause, boolean rolledBack) {
        super(message, error, cause);
        this.fromPlugin = fromPlugin;
        this.pluginType = pluginType == null ? "" : pluginType;
        this.stderr = stderr == null ? "" : stderr;
        this.rolledBack = rolledBack;
    }

    /** A failure on the runtime's side, not concerning one plugin. */
    public CniRuntimeException(String message, CniError error, Throwable cause) {
        this(message, error, false, "", "", cause);
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
     * For a failed ADD: true when nothing of it is left on the node. Either it failed before any plugin ran (an
     * invalid name, an attachment already added, its lock or its network busy), or its rollback completed: every plugin
     * that may have made something got its DEL and succeeded, and a cache entry it wrote is gone.
     *
     * <p>False when something may be left: the rollback is off ({@link CniRuntime.Options#withDeleteOnAddFailure}),
     * one of its DELs failed (the failures are {@linkplain #getSuppressed() suppressed} exceptions), or it ran out of
     * its budget ({@link CniRuntime.Options#rollbackTimeout()}) or was interrupted again. What the ADD started is then
     * in its journal, and the next ADD or DEL of the attachment, or {@link CniRuntime#gcStale}, finishes it; a runtime
     * that wants it gone now sends DEL for the attachment, as after any failed ADD with libcni. Always false for a
     * failure of another operation.
     */
    public boolean rolledBack() {
        return rolledBack;
    }

    /**
     * True when the call ran out of time: its deadline ({@link CniRuntime#withTimeout}, {@link CniRuntime#withDeadline})
     * passed, or a plugin overran {@link CniRuntime.Options#pluginTimeout()} and was killed. The cause chain then holds
     * a {@link TimeoutException} saying which.
     */
    public boolean timedOut() {
        return causedBy(TimeoutException.class);
    }

    /**
     * True when the call was cancelled by an interrupt of the thread running it (see {@link CniRuntime}, "Deadlines
     * and cancellation"). The cause chain then holds an {@link InterruptedException}; the thread's interrupt status is
     * set again when the exception is thrown.
     */
    public boolean interrupted() {
        return causedBy(InterruptedException.class);
    }

    private boolean causedBy(Class<? extends Throwable> type) {
        int depth = 0;
        for (Throwable t = getCause(); t != null && depth < 32; t = t.getCause(), depth++) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * This failure as a CNI error exception for code that speaks spec-model: code and details of {@link #error()}, with
     * this exception's full message as {@code msg} so the operation and plugin are not lost.
     */
    public CniException toCniException() {
        CniError error = error();
        CniException e = new CniException(new CniError(error.cniVersion(), error.code(), getMessage(), ""));
        e.initCause(this);
        return e;
    }
}
