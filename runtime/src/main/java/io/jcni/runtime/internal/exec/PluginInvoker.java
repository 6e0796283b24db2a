package io.jcni.runtime.internal.exec;

import io.jcni.runtime.InProcessPlugin;
import io.jcni.spec.CniError;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;

/**
 * Runs a plugin, exec'd or in-process, and turns how it ended into its stdout (success) or a {@link PluginFailure}
 * decoded as libcni does. The plugin's stderr goes to the caller's sink after the call, success or failure (libcni
 * passes it on only on success and otherwise quotes it in the error when stdout is empty: jcni does both, so a failing
 * plugin's log is never lost). Each call's stderr is written in one piece, so parallel calls do not interleave lines.
 */
public final class PluginInvoker {
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
        ProcessRunner.Outcome outcome = runner.run(executable, stdin, baseEnv, cniEnv, timeoutNanos, spawner);
        forward(outcome.stderr);
        if (outcome.stdoutOverflow) {
            throw new PluginFailure(new CniError(CniError.DECODING_FAILURE, "plugin " + executable
                    + " printed more than " + ProcessRunner.MAX_STDOUT_BYTES + " bytes on stdout and was killed"),
                    true, outcome.stderr, null);
        }
        if (outcome.timedOut) {
            throw PluginOutput.failure("signal: killed", outcome.stdout, outcome.stderr,
                    "plugin " + executable + " did not finish within " + timeoutNanos / 1_000_000 + " ms");
        }
        if (outcome.status != 0) {
            throw PluginOutput.failure(GoText.exitText(outcome.status), outcome.stdout, outcome.stderr, "");
        }
        return outcome.stdout;
    }

    /**
     * Runs an in-process plugin with the same inputs and returns its stdout if it returned 0. An exception escaping the
     * plugin (a contract violation) is code 999 naming it.
     */
    public byte[] inProcess(String type, InProcessPlugin plugin, byte[] stdin, Map<String, String> env)
            throws PluginFailure {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        ByteArrayOutputStream err = new ByteArrayOutputStream(0);
        int status;
        try {
            status = plugin.run(Collections.unmodifiableMap(env), stdin, out, err);
        } catch (RuntimeException | StackOverflowError e) {
            byte[] stderr = err.toByteArray();
            forward(stderr);
            throw new PluginFailure(new CniError(CniError.INTERNAL, "in-process plugin " + type + " threw "
                    + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())),
                    true, stderr, e);
        }
        byte[] stderr = err.toByteArray();
        forward(stderr);
        if (status != 0) {
            throw PluginOutput.failure("exit status " + status, out.toByteArray(), stderr, "");
        }
        return out.toByteArray();
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
