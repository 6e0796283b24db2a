package io.jcni.runtime;

import io.jcni.runtime.internal.exec.PluginInvoker;

/**
 * For a host that runs plugin calls in its own JVM on behalf of other processes (jcni's plugin service): marks the
 * current thread as running one such call, so that an interrupt of the thread is the call's cancellation, exactly as
 * it is for an in-process plugin that {@link CniRuntime} runs with a deadline. While the scope is open, a plugin the
 * call execs (a delegated IPAM plugin found in CNI_PATH) is killed with its descendants once the thread is interrupted,
 * instead of being waited for; in-process delegates and lock waits stop at their interruptible points as always.
 *
 * <pre>{@code
 * try (CancellableCall.Scope call = CancellableCall.enter()) {
 *     status = skel.run(env, stdin, stdout, stderr);   // the host's watchdog may interrupt this thread
 * }
 * }</pre>
 *
 * Scopes nest and belong to the thread that opened them; close them on that thread. An exec'd plugin never needs one:
 * nothing interrupts its main thread.
 */
public final class CancellableCall {
    private CancellableCall() {
    }

    /** Opens a scope on the current thread. */
    public static Scope enter() {
        return new Scope(PluginInvoker.enterCancellable());
    }

    /** One call's mark on its thread; {@link #close()} removes it (idempotent). */
    public static final class Scope implements AutoCloseable {
        private int[] depth;

        private Scope(int[] depth) {
            this.depth = depth;
        }

        @Override
        public void close() {
            if (depth != null) {
                PluginInvoker.leaveCancellable(depth);
                depth = null;
            }
        }
    }
}
