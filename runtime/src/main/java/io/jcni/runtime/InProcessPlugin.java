package io.jcni.runtime;

import java.io.OutputStream;
import java.util.Map;

/**
 * A CNI plugin that runs inside the caller's JVM with exactly the inputs and outputs of an exec.
 *
 * <p>Implementations must be safe to call from several threads at once (a runtime runs different attachments in
 * parallel), must not call {@link System#exit}, and must not throw for plugin-level failures: those are an error JSON
 * on {@code stdout} and a non-zero status, as from an exec'd plugin. A runtime treats an exception escaping anyway as
 * an internal error of the plugin.
 *
 * <p>A thread cannot be killed, so a runtime's time limits and cancellation reach an in-process plugin as an interrupt
 * of the thread that runs it (see {@link CniRuntime}, "Deadlines and cancellation"): a plugin should let its waits end
 * on an interrupt and fail then, undoing what it made (jcni's SDK runs that undo with the interrupt cleared), and
 * leave the interrupt status set when it returns. The runtime clears the interrupts it made itself.
 */
@FunctionalInterface
public interface InProcessPlugin {
    /**
     * Runs one plugin command.
     *
     * @param env    the complete environment the plugin would see if exec'd (CNI_COMMAND, CNI_CONTAINERID, CNI_NETNS,
     *               CNI_IFNAME, CNI_ARGS, CNI_PATH, plus the rest of the caller's environment); unmodifiable
     * @param stdin  the bytes the plugin would read on stdin (the network configuration); do not modify
     * @param stdout receives what the plugin would print on stdout (a result, version info, or an error JSON)
     * @param stderr receives the plugin's log output
     * @return the exit status an exec'd plugin would have (0 success, 1 error, with the error JSON on stdout)
     */
    int run(Map<String, String> env, byte[] stdin, OutputStream stdout, OutputStream stderr);
}
