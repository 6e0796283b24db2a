package io.jcni.netlink.internal.ns;

import io.jcni.netlink.NetNs.Task;
import io.jcni.netlink.internal.ffm.Syscalls;
import io.jcni.netlink.internal.wire.LibcH;
import java.util.ArrayDeque;

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
 * {@code /proc/sys/net} show it. Threads a task starts inherit the namespace; tasks should not start any. Workers
 * themselves live in the process's namespace (its main thread's): a worker started from inside a task (a nested
 * {@code call}, or a whole plugin call that jcni's plugin service runs in its client's namespace) moves there first,
 * so that no idle worker keeps alive a namespace its creator was only visiting.
 *
 * <p>The pool is written with monitors rather than {@code java.util.concurrent}: an exec'd plugin uses it a few times
 * and exits, and a {@code ThreadPoolExecutor} with a {@code CompletableFuture} cost it about 5 ms of class
 * initialization ({@code ForkJoinPool} among them) and LambdaForms spun at run time. Semantics are the executor's:
 * daemon workers named {@code jcni-netns-<n>}, as many as there are concurrent calls, an idle one reused (the most
 * recently idle first) and ended after {@link #KEEP_ALIVE_MILLIS} without work.
 */
public final class NamespaceThreads {
    private NamespaceThreads() {}

    /** How long an idle worker waits for the next task before it ends. */
    static final long KEEP_ALIVE_MILLIS = 30_000;

    /** Guards {@link #IDLE} and {@link #nextId}. Lock order: a worker's monitor, then this one; never the reverse. */
    private static final Object LOCK = new Object();
    private static final ArrayDeque<Worker> IDLE = new ArrayDeque<>();
    private static int nextId;

    /** Runs {@code task} on a worker switched into the network namespace of {@code nsFd}; returns its result. */
    public static <T, E extends Exception> T call(int nsFd, String what, Task<T, E> task) throws E {
        return submit(new Job<>(nsFd, what, task));
    }

    /**
     * Creates a network namespace ({@code unshare(CLONE_NEWNET)} on a worker) and returns a descriptor holding it;
     * the namespace lives until the last descriptor (or link, socket, process) referring to it is gone.
     */
    public static int createNetns() {
        return submit(new Job<Integer, RuntimeException>(-1, "new namespace", new OpenOwnNetns()));
    }

    /** The worker's namespace descriptor, opened inside the namespace just created by {@code unshare}. */
    private static final class OpenOwnNetns implements Task<Integer, RuntimeException> {
        @Override
        public Integer run() {
            return Syscalls.open("/proc/thread-self/ns/net", LibcH.O_RDONLY, 0);
        }
    }

    private static <T, E extends Exception> T submit(Job<T, E> job) throws E {
        Worker worker;
        int id = -1;
        synchronized (LOCK) {
            worker = IDLE.pollFirst();
            if (worker == null) {
                id = nextId++;
            }
        }
        if (worker == null) {
            worker = new Worker(id, job);
            worker.start();
        } else {
            worker.assign(job);
        }
        return job.await();
    }

    /** One call: where to run, what, and its outcome once done. Monitor: the job itself. */
    private static final class Job<T, E extends Exception> {
        /** The namespace to enter, or -1 to create one with {@code unshare}. */
        private final int nsFd;
        private final String what;
        private final Task<T, E> task;
        private boolean done;
        private T value;
        private Throwable failure;

        Job(int nsFd, String what, Task<T, E> task) {
            this.nsFd = nsFd;
            this.what = what;
            this.task = task;
        }

        void enter() {
            if (nsFd >= 0) {
                Syscalls.setns(nsFd, LibcH.CLONE_NEWNET, what);
            } else {
                Syscalls.unshare(LibcH.CLONE_NEWNET);
            }
        }

        /** Runs the task and keeps its outcome for {@link #publish}. */
        void run() {
            try {
                value = task.run();
            } catch (Throwable t) {
                failure = t;
            }
        }

        void fail(Throwable t) {
            failure = t;
        }

        /** Hands the outcome to the waiting caller. */
        synchronized void publish() {
            done = true;
            notifyAll();
        }

        /** Waits for the outcome. Uninterruptible on purpose: the task may create a resource (a socket) that only
         *  the caller can close; an interrupt is kept for the caller to see afterwards. */
        T await() throws E {
            boolean interrupted = false;
            synchronized (this) {
                while (!done) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (failure != null) {
                throw NamespaceThreads.<E>rethrow(failure);
            }
            return value;
        }
    }

    private static final class Worker extends Thread {
        /** The next job; guarded by this worker's monitor. */
        private Job<?, ?> job;

        Worker(int id, Job<?, ?> first) {
            super("jcni-netns-" + id);
            setDaemon(true);
            this.job = first;
        }

        synchronized void assign(Job<?, ?> next) {
            job = next;
            notifyAll();
        }

        @Override
        public void run() {
            try {
                moveToProcessNamespace();
                for (Job<?, ?> next = take(); next != null; next = take()) {
                    boolean home = false;
                    try {
                        home = runSwitched(next);
                    } finally {
                        if (home) {
                            // Idle again before the caller learns the outcome: its next call finds this worker.
                            synchronized (LOCK) {
                                IDLE.addFirst(this);
                            }
                        }
                        next.publish();
                    }
                    if (!home) {
                        return; // retired: could not return to its own namespace
                    }
                }
            } catch (Throwable t) {
                // A bug in this class or close(2) failing; the job's caller has its outcome (published in finally).
                System.err.println("jcni: namespace worker " + getName() + " failed: " + t);
            }
        }

        /** The next job, or null once idle for the keep-alive time (and then off the idle list). */
        private synchronized Job<?, ?> take() {
            long deadline = System.currentTimeMillis() + KEEP_ALIVE_MILLIS;
            while (job == null) {
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    synchronized (LOCK) {
                        if (IDLE.remove(this)) {
                            return null;
                        }
                    }
                    // A caller took this worker off the idle list and is about to assign its job.
                    deadline = Long.MAX_VALUE;
                    left = 0;
                }
                try {
                    wait(left);
                } catch (InterruptedException ignored) {
                    // Nobody interrupts workers; keep waiting.
                }
            }
            Job<?, ?> next = job;
            job = null;
            return next;
        }
    }

    /**
     * Switches this new worker into the process's namespace ({@code /proc/self/ns/net}, the main thread's), which it
     * may not be in when its creator was a worker running a task elsewhere. If that fails (no /proc, the main thread
     * gone), it stays where it was born: it switches back there after each task, as before.
     */
    private static void moveToProcessNamespace() {
        int own;
        try {
            own = Syscalls.open("/proc/self/ns/net", LibcH.O_RDONLY, 0);
        } catch (RuntimeException e) {
            return;
        }
        try {
            Syscalls.setns(own, LibcH.CLONE_NEWNET, "the process's namespace");
        } catch (RuntimeException e) {
            // Stays in its creator's namespace; correct, only longer-lived.
        } finally {
            Syscalls.close(own);
        }
    }

    /**
     * Runs {@code job} switched into its namespace, keeping its outcome in the job. Returns false if the worker could
     * not switch back to its own namespace and must end.
     */
    private static boolean runSwitched(Job<?, ?> job) {
        int home;
        try {
            home = Syscalls.open("/proc/thread-self/ns/net", LibcH.O_RDONLY, 0);
        } catch (Throwable e) {
            job.fail(e);
            return true;
        }
        try {
            try {
                job.enter();
            } catch (Throwable e) {
                job.fail(e);
                return true; // setns/unshare failed: still home
            }
            job.run();
            try {
                Syscalls.setns(home, LibcH.CLONE_NEWNET, "back to the worker's namespace");
                return true;
            } catch (RuntimeException e) {
                return false;
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
