package io.jcni.runtime.internal.exec;

import io.jcni.runtime.InProcessPlugin;
import io.jcni.spec.CniError;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;

/**
 * Runs a plugin, exec'd or in-process, and turns how it ended into its stdout (success) or a {@link PluginFailure}
 * decoded as libcni does. The plugin's stderr goes to the caller's sink after the call, success or failure (libcni
 * passes it on only on success and otherwise quotes it in the error when stdout is empty: jcni does both, so a failing
 * plugin's log is never lost). Each call's stderr is written in one piece, so parallel calls do not interleave lines.
 */
public final class PluginInvoker {
    /**
     * How many in-process plugin calls of a runtime this thread is inside (nested: a delegate run in-process by an
     * in-process plugin). While it is positive, an interrupt of the thread is a runtime's cancellation or deadline, so
     * plugins exec'd from here (a delegated IPAM plugin) are watched for it ({@link ProcessRunner#DEFAULT}).
     */
    private static final ThreadLocal<int[]> IN_RUNTIME_CALL = new ThreadLocal<>();

    private final ProcessRunner runner;
    private final OutputStream stderrSink;
    private final WarmSpawner spawner;

    /** @param stderrSink where plugins' stderr goes; null discards it */
    public PluginInvoker(ProcessRunner runner, OutputStream stderrSink) {
        this(runner, stderrSink, null);
    }

    /**
     * @param stderrSink where plugins' stderr goes; null discards it
     * @param spawner    warm launch helpers for execs with the base environment they were started with, or null
     */
    public PluginInvoker(ProcessRunner runner, OutputStream stderrSink, WarmSpawner spawner) {
        this.runner = runner;
        this.stderrSink = stderrSink;
        this.spawner = spawner;
    }

    /**
     * Execs {@code executable} and returns its stdout if it exited 0.
     *
     * @param timeoutNanos 0 for none; a plugin killed for overrunning fails like libcni's ({@code signal: killed}),
     *                     with the timeout as the error's details
     */
    public byte[] exec(Path executable, byte[] stdin, Map<String, String> baseEnv, Map<String, String> cniEnv,
            long timeoutNanos) throws PluginFailure {
        return exec(executable, stdin, baseEnv, cniEnv, timeoutNanos, Deadline.NONE);
    }

    /**
     * Execs {@code executable} and returns its stdout if it exited 0, killing it (and its descendants) when its own
     * limit or the call's deadline comes first. Either way it fails as libcni's killed plugin does ({@code signal:
     * killed}, code 0), with what stopped it as the details and a {@link TimeoutException} as the cause; the failure
     * is {@linkplain PluginFailure#stopped() stopped}.
     *
     * @param pluginTimeoutNanos the per-plugin limit, 0 for none
     * @param deadline           the call's deadline
     */
    public byte[] exec(Path executable, byte[] stdin, Map<String, String> baseEnv, Map<String, String> cniEnv,
            long pluginTimeoutNanos, Deadline deadline) throws PluginFailure {
        if (deadline.expired()) {
            throw notStarted(executable.toString(), deadline);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw cancelled(executable.toString());
        }
        long timeoutNanos = deadline.pluginLimitNanos(pluginTimeoutNanos);
        boolean deadlineIsTheLimit = deadline.isTheLimit(pluginTimeoutNanos);
        ProcessRunner.Outcome outcome = runner.run(executable, stdin, baseEnv, cniEnv, timeoutNanos, spawner);
        forward(outcome.stderr);
        if (outcome.stdoutOverflow) {
            throw new PluginFailure(new CniError(CniError.DECODING_FAILURE, "plugin " + executable
                    + " printed more than " + ProcessRunner.MAX_STDOUT_BYTES + " bytes on stdout and was killed"),
                    true, outcome.stderr, null);
        }
        if (outcome.timedOut) {
            String why = deadlineIsTheLimit
                    ? "the call's deadline (" + deadline.budgetMillis() + " ms) passed while plugin " + executable
                            + " ran"
                    : "plugin " + executable + " did not finish within " + timeoutNanos / 1_000_000 + " ms";
            PluginFailure killed = PluginOutput.failure("signal: killed", outcome.stdout, outcome.stderr, why);
            throw new PluginFailure(killed.error(), true, outcome.stderr, new TimeoutException(why), true);
        }
        if (outcome.status != 0) {
            throw PluginOutput.failure(GoText.exitText(outcome.status), outcome.stdout, outcome.stderr, "");
        }
        return outcome.stdout;
    }

    /** As {@link #inProcess(String, InProcessPlugin, byte[], Map, long, Deadline)} without a time limit. */
    public byte[] inProcess(String type, InProcessPlugin plugin, byte[] stdin, Map<String, String> env)
            throws PluginFailure {
        return inProcess(type, plugin, stdin, env, 0, Deadline.NONE);
    }

    /**
     * Runs an in-process plugin with the same inputs and returns its stdout if it returned 0. An exception escaping the
     * plugin (a contract violation) is code 999 naming it.
     *
     * <p>A thread cannot be killed, so a time limit (the earlier of {@code pluginTimeoutNanos} and the deadline) is an
     * interrupt of the calling thread while the plugin runs: the plugin stops at its next interruptible wait and
     * fails, undoing its own work as a failing plugin does; parts that do not respond to interrupts run to their end.
     * The interrupt is cleared again when the plugin returns (unless the thread was interrupted before, by its
     * owner). A plugin that fails after that interrupt fails with its own error and a {@link TimeoutException} as the
     * cause; one that finished anyway succeeded.
     */
    public byte[] inProcess(String type, InProcessPlugin plugin, byte[] stdin, Map<String, String> env,
            long pluginTimeoutNanos, Deadline deadline) throws PluginFailure {
        if (deadline.expired()) {
            throw notStarted("in-process plugin " + type, deadline);
        }
        if (Thread.currentThread().isInterrupted()) {
            throw cancelled("in-process plugin " + type);
        }
        long limitNanos = deadline.pluginLimitNanos(pluginTimeoutNanos);
        boolean deadlineIsTheLimit = deadline.isTheLimit(pluginTimeoutNanos);
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        ByteArrayOutputStream err = new ByteArrayOutputStream(0);
        Interrupter interrupter = limitNanos > 0 ? new Interrupter(Thread.currentThread()) : null;
        ScheduledFuture<?> timer = interrupter == null ? null : ProcessRunner.schedule(interrupter, limitNanos);
        int status;
        int[] depth = enterRuntimeCall();
        try {
            status = plugin.run(Collections.unmodifiableMap(env), stdin, out, err);
        } catch (RuntimeException | StackOverflowError e) {
            leaveRuntimeCall(depth);
            boolean fired = interrupter != null && interrupter.finish(timer);
            byte[] stderr = err.toByteArray();
            forward(stderr);
            // The class name goes to the stack trace's readers, not into the message (see IoText).
            throw new PluginFailure(new CniError(CniError.INTERNAL, "in-process plugin " + type + " failed"
                    + (e instanceof StackOverflowError ? ": stack overflow" : e.getMessage() == null ? ""
                            : ": " + e.getMessage())),
                    true, stderr, fired ? timeout(type, limitNanos, deadline, deadlineIsTheLimit, e) : e);
        }
        leaveRuntimeCall(depth);
        boolean fired = interrupter != null && interrupter.finish(timer);
        byte[] stderr = err.toByteArray();
        forward(stderr);
        if (status != 0) {
            PluginFailure failure = PluginOutput.failure("exit status " + status, out.toByteArray(), stderr, "");
            if (fired) {
                throw new PluginFailure(failure.error(), true, stderr,
                        timeout(type, limitNanos, deadline, deadlineIsTheLimit, null));
            }
            throw failure;
        }
        return out.toByteArray();
    }

    /** Whether this thread is running an in-process plugin for a runtime (see {@link #IN_RUNTIME_CALL}). */
    static boolean inRuntimeCall() {
        int[] depth = IN_RUNTIME_CALL.get();
        return depth != null && depth[0] > 0;
    }

    /**
     * Marks this thread as running a cancellable plugin call for the runtime's public {@code CancellableCall}; the
     * returned token goes to {@link #leaveCancellable}.
     */
    public static int[] enterCancellable() {
        return enterRuntimeCall();
    }

    /** Ends a mark of {@link #enterCancellable} on this thread. */
    public static void leaveCancellable(int[] depth) {
        leaveRuntimeCall(depth);
    }

    private static int[] enterRuntimeCall() {
        int[] depth = IN_RUNTIME_CALL.get();
        if (depth == null) {
            depth = new int[1];
            IN_RUNTIME_CALL.set(depth);
        }
        depth[0]++;
        return depth;
    }

    private static void leaveRuntimeCall(int[] depth) {
        if (--depth[0] == 0) {
            IN_RUNTIME_CALL.remove();
        }
    }

    private static TimeoutException timeout(String type, long limitNanos, Deadline deadline,
            boolean deadlineIsTheLimit, Throwable cause) {
        TimeoutException e = new TimeoutException(deadlineIsTheLimit
                ? "the call's deadline (" + deadline.budgetMillis() + " ms) passed while in-process plugin " + type
                        + " ran; it was interrupted"
                : "in-process plugin " + type + " did not finish within " + limitNanos / 1_000_000
                        + " ms; it was interrupted");
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /** The call's deadline passed before the plugin started: code 0 with libcni's text for an expired context. */
    static PluginFailure notStarted(String what, Deadline deadline) {
        String why = "the call's deadline (" + deadline.budgetMillis() + " ms) passed before " + what + " started";
        return new PluginFailure(new CniError("", CniError.UNKNOWN, "netplugin failed with no error message: "
                + "context deadline exceeded", why), false, null, new TimeoutException(why));
    }

    /** The calling thread was interrupted (the call cancelled) before the plugin started: it is not started. */
    static PluginFailure cancelled(String what) {
        String msg = "interrupted before " + what + " started";
        return new PluginFailure(new CniError(CniError.INTERNAL, msg), false, null, new InterruptedException(msg));
    }

    /**
     * Interrupts the thread running an in-process plugin when its time is up, once, and only while it runs. Monitor:
     * itself, shared by the timer thread and the plugin's thread.
     */
    private static final class Interrupter implements Runnable {
        private final Thread thread;
        private boolean done;
        private boolean fired;

        Interrupter(Thread thread) {
            this.thread = thread;
        }

        @Override
        public synchronized void run() {
            // Not when its owner interrupted it already: that interrupt is the owner's to see.
            if (!done && !thread.isInterrupted()) {
                fired = true;
                thread.interrupt();
            }
        }

        /** The plugin returned: no interrupt from now on; ours is cleared. Returns whether it fired. */
        boolean finish(ScheduledFuture<?> timer) {
            timer.cancel(false);
            synchronized (this) {
                done = true;
                if (fired) {
                    Thread.interrupted();
                }
                return fired;
            }
        }
    }

    private void forward(byte[] stderr) {
        if (stderrSink == null || stderr.length == 0) {
            return;
        }
        synchronized (stderrSink) {
            try {
                stderrSink.write(stderr);
                stderrSink.flush();
            } catch (IOException e) {
                // Plugin logs are informational: a broken sink must not fail the operation.
            }
        }
    }
}
