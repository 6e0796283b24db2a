package io.jcni.netlink.internal.ns;

import io.jcni.netlink.NetNs.Task;
import io.jcni.netlink.internal.ffm.Syscalls;
import io.jcni.netlink.internal.wire.LibcH;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs code inside a network namespace on dedicated platform threads, never on the caller's thread.
 *
 * <p>Why: {@code setns(2)} and {@code unshare(2)} switch the calling OS thread only. A virtual thread may continue on
 * another carrier after any blocking point, so it must never switch; and switching a caller's platform thread would
 * leak the namespace into whatever that thread runs next if anything went wrong. Workers here switch in, run the
 * task, and switch back to the namespace they started the task in. A worker that cannot switch back is retired: the
 * task's result is still delivered, then the thread ends instead of serving anyone else.
 *
 * <p>What a task creates inside keeps the namespace: sockets (netlink, packet, inet) stay bound to it and files under
 * {@code /proc/sys/net} show it. Threads a task starts inherit the namespace; tasks should not start any.
 */
public final class NamespaceThreads {
    private NamespaceThreads() {}

    /** Thrown on a worker to end it when it could not return to its namespace; never seen by callers. */
    private static final class Retired extends Error {
        private static final long serialVersionUID = 1L;

        Retired(Throwable cause) {
            super("namespace worker could not switch back and was retired", cause, false, false);
        }
    }

    private static final ThreadPoolExecutor WORKERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30,
            TimeUnit.SECONDS, new SynchronousQueue<>(),
            Thread.ofPlatform().daemon().name("jcni-netns-", 0).uncaughtExceptionHandler((thread, e) -> {
                if (!(e instanceof Retired)) {
                    System.err.println("jcni: namespace worker " + thread.getName() + " failed: " + e);
                }
            }).factory());

    /** Runs {@code task} on a worker switched into the network namespace of {@code nsFd}; returns its result. */
    public static <T, E extends Exception> T call(int nsFd, String what, Task<T, E> task) throws E {
        return submit(() -> Syscalls.setns(nsFd, LibcH.CLONE_NEWNET, what), task);
    }

    /**
     * Creates a network namespace ({@code unshare(CLONE_NEWNET)} on a worker) and returns a descriptor holding it;
     * the namespace lives until the last descriptor (or link, socket, process) referring to it is gone.
     */
    public static int createNetns() {
        return submit(() -> Syscalls.unshare(LibcH.CLONE_NEWNET),
                () -> Syscalls.open("/proc/thread-self/ns/net", LibcH.O_RDONLY, 0));
    }

    private static <T, E extends Exception> T submit(Runnable enter, Task<T, E> task) throws E {
        CompletableFuture<T> result = new CompletableFuture<>();
        WORKERS.execute(() -> runSwitched(enter, task, result));
        try {
            // Uninterruptible on purpose: the task may create a resource (a socket) that only the caller can close.
            return result.join();
        } catch (CompletionException e) {
            throw NamespaceThreads.<E>rethrow(e.getCause());
        }
    }

    private static <T, E extends Exception> void runSwitched(Runnable enter, Task<T, E> task,
            CompletableFuture<T> result) {
        int home;
        try {
            home = Syscalls.open("/proc/thread-self/ns/net", LibcH.O_RDONLY, 0);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        try {
            try {
                enter.run();
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
                return; // setns/unshare failed: still home
            }
            try {
                result.complete(task.run());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
            try {
                Syscalls.setns(home, LibcH.CLONE_NEWNET, "back to the worker's namespace");
            } catch (RuntimeException e) {
                throw new Retired(e);
            }
        } finally {
            Syscalls.close(home);
        }
    }

    @SuppressWarnings("unchecked")
    private static <E extends Exception> RuntimeException rethrow(Throwable t) throws E {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        throw (E) t;
    }
}
