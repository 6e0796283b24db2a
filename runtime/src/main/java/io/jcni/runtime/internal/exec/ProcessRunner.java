package io.jcni.runtime.internal.exec;

import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs one plugin executable: spawn with the given environment, config on stdin, stdout and stderr collected, an
 * optional timeout after which the plugin and its descendants are killed, and libcni's retry when the executable is
 * being written ("text file busy": up to 5 retries, 1 s apart).
 *
 * <p>Threads: stdout is read on the calling thread; stderr is drained on a pooled daemon platform thread (a plugin
 * that fills the stderr pipe must not block); stdin is written inline when it fits into a pipe's minimum capacity
 * (4096 bytes, so the write cannot block on a plugin that has not started reading) and on a pooled thread otherwise.
 * Pipe reads on virtual threads would pin or compensate carriers, so the pool is of platform threads.
 *
 * <p>Interrupts: an interrupt of the calling thread kills the plugin and its descendants and fails the run (see
 * {@link #INTERRUPTIBLE}). The engine reads stdout on the calling thread, where a pipe read does not see interrupts,
 * so a watcher on the shared timer thread looks at the caller's interrupt status every
 * {@value #INTERRUPT_POLL_MILLIS} ms while the plugin runs, and kills the plugin when it is set.
 *
 * <p>Sharp edges: a plugin that leaves a daemon holding its stdout open makes the read wait for that daemon, as libcni
 * waits too; the timeout kills the descendants it can see at that moment (daemons reparented to init are out of
 * reach). Output beyond {@value #MAX_STDOUT_BYTES} bytes on stdout kills the plugin; stderr keeps its first
 * {@value #MAX_STDERR_BYTES} bytes.
 */
public final class ProcessRunner {
    public static final int MAX_STDOUT_BYTES = CniJson.MAX_DOCUMENT_BYTES;
    public static final int MAX_STDERR_BYTES = 1 << 20;
    /** PIPE_BUF: a write of at most this many bytes into an empty pipe never blocks. */
    static final int INLINE_STDIN_BYTES = 4096;
    /** How long to wait for the rest of stderr once the plugin has exited and closed stdout. */
    private static final long STDERR_GRACE_MILLIS = 2000;

    /** How often the caller's interrupt status is looked at while a plugin runs. */
    static final long INTERRUPT_POLL_MILLIS = 20;

    /**
     * libcni's text-file-busy policy. Watches the caller's interrupts only when the call runs inside an in-process
     * plugin of a runtime ({@link PluginInvoker#inRuntimeCall()}): an exec'd plugin delegating to another is never
     * interrupted, and its start-up should not pay for the timer.
     */
    public static final ProcessRunner DEFAULT = new ProcessRunner(5, 1000);

    /** libcni's text-file-busy policy; an interrupt of the calling thread always stops the plugin (the runtime's). */
    public static final ProcessRunner INTERRUPTIBLE = new ProcessRunner(5, 1000, true);

    private final int busyRetries;
    private final long busyDelayMillis;
    private final boolean watchInterrupts;

    /** A runner retrying "text file busy" {@code busyRetries} times, {@code busyDelayMillis} apart (tests: shorter). */
    public ProcessRunner(int busyRetries, long busyDelayMillis) {
        this(busyRetries, busyDelayMillis, false);
    }

    /** As {@link #ProcessRunner(int, long)}; with {@code watchInterrupts}, as {@link #INTERRUPTIBLE}. */
    public ProcessRunner(int busyRetries, long busyDelayMillis, boolean watchInterrupts) {
        this.busyRetries = busyRetries;
        this.busyDelayMillis = busyDelayMillis;
        this.watchInterrupts = watchInterrupts;
    }

    private boolean watchesInterrupts() {
        return watchInterrupts || PluginInvoker.inRuntimeCall();
    }

    /** How one run ended. {@code status} follows {@link Process#exitValue()} (128 + N for signal N). */
    public static final class Outcome {
        public final int status;
        public final byte[] stdout;
        public final byte[] stderr;
        public final boolean timedOut;
        public final boolean stdoutOverflow;

        Outcome(int status, byte[] stdout, byte[] stderr, boolean timedOut, boolean stdoutOverflow) {
            this.status = status;
            this.stdout = stdout;
            this.stderr = stderr;
            this.timedOut = timedOut;
            this.stdoutOverflow = stdoutOverflow;
        }
    }

    /** As {@link #run(Path, byte[], Map, Map, long, WarmSpawner)} without warm helpers. */
    public Outcome run(Path executable, byte[] stdin, Map<String, String> baseEnv, Map<String, String> cniEnv,
            long timeoutNanos) throws PluginFailure {
        return run(executable, stdin, baseEnv, cniEnv, timeoutNanos, null);
    }

    /**
     * Runs {@code executable}.
     *
     * @param baseEnv      the environment to start from: pass {@link System#getenv()} itself to inherit this process's
     *                     (cheaper: no copy), or any complete map
     * @param cniEnv       variables set on top (CNI_COMMAND and friends)
     * @param timeoutNanos 0 for none
     * @param spawner      warm launch helpers started with {@code baseEnv} (see {@link WarmSpawner}), or null to spawn
     *                     directly; a helper that cannot exec the plugin falls back to a direct spawn
     * @throws PluginFailure if the executable could not be started (code 0, libcni's text
     *                       {@code netplugin failed with no error message: fork/exec P: permission denied}), or the
     *                       environment holds a name or value the OS cannot carry (code 4)
     */
    public Outcome run(Path executable, byte[] stdin, Map<String, String> baseEnv, Map<String, String> cniEnv,
            long timeoutNanos, WarmSpawner spawner) throws PluginFailure {
        if (spawner != null && WarmSpawner.carries(executable, cniEnv)) {
            WarmSpawner.Helper helper = spawner.take();
            if (helper != null) {
                byte[] header = spawner.collects() ? spawner.header(helper, executable, cniEnv, stdin.length)
                        : spawner.header(helper, executable, cniEnv);
                byte[] input = Arrays.copyOf(header, header.length + stdin.length);
                System.arraycopy(stdin, 0, input, header.length, stdin.length);
                if (spawner.collects()) {
                    Collected collected = collected(helper.process, input, timeoutNanos, executable,
                            watchesInterrupts());
                    spawner.release(helper, collected.reusable);
                    if (collected.outcome != null) {
                        return collected.outcome;
                    }
                    // "E": the plugin could not be started; a direct spawn reports why with the usual texts.
                } else {
                    Outcome outcome = collect(helper.process, input, timeoutNanos, executable,
                            watchesInterrupts());
                    boolean execFailed = (outcome.status == 126 || outcome.status == 127)
                            && outcome.stdout.length == 0 && WarmSpawner.execFailed(helper, outcome.stderr);
                    if (!execFailed) {
                        return outcome;
                    }
                    // The plugin never ran: a direct spawn reports why with the usual texts (and retries ETXTBSY).
                }
            }
        }
        ProcessBuilder builder = new ProcessBuilder(executable.toString());
        try {
            Map<String, String> env = builder.environment();
            if (baseEnv != System.getenv()) {
                env.clear();
                env.putAll(baseEnv);
            }
            env.putAll(cniEnv);
        } catch (IllegalArgumentException e) {
            throw PluginFailure.engine(CniError.INVALID_ENVIRONMENT_VARIABLES,
                    "invalid environment for plugin " + executable + ": " + e.getMessage());
        }
        return collect(start(builder, executable), stdin, timeoutNanos, executable, watchesInterrupts());
    }

    /**
     * Feeds stdin, collects stdout and stderr, waits for the exit, kills the tree at the timeout and, with
     * {@code watchInterrupts}, when the calling thread is interrupted.
     */
    private static Outcome collect(Process process, byte[] stdin, long timeoutNanos, Path executable,
            boolean watchInterrupts) throws PluginFailure {
        StderrDrain drain = new StderrDrain(process.getErrorStream());
        Pools.IO.execute(drain);
        Killer killer = null;
        ScheduledFuture<?> kill = null;
        if (timeoutNanos > 0) {
            killer = new Killer(process);
            kill = Pools.scheduler().schedule(killer, timeoutNanos, TimeUnit.NANOSECONDS);
        }
        InterruptWatch watch = null;
        ScheduledFuture<?> watching = null;
        if (watchInterrupts) {
            watch = new InterruptWatch(Thread.currentThread(), process);
            // The first look only after a period: most plugins are done by then, so the timer thread never wakes
            // for them (an interrupt before the start was refused by the caller already).
            watching = Pools.scheduler().scheduleWithFixedDelay(watch, INTERRUPT_POLL_MILLIS,
                    INTERRUPT_POLL_MILLIS, TimeUnit.MILLISECONDS);
        }
        try {
            feed(process, stdin);
            byte[] stdout = readBounded(process.getInputStream(), MAX_STDOUT_BYTES);
            boolean overflow = stdout == null;
            if (overflow) {
                killTree(process);
                stdout = new byte[0];
            }
            int status = process.waitFor();
            if (kill != null) {
                kill.cancel(false);
            }
            if (watch != null && watch.fired()) {
                // Killed by the watcher; waitFor does not look at the interrupt status of a process that has exited.
                throw new InterruptedException("the calling thread was interrupted");
            }
            byte[] stderr = drain.await(STDERR_GRACE_MILLIS);
            return new Outcome(status, stdout, stderr, killer != null && killer.fired.get(), overflow);
        } catch (InterruptedException e) {
            killTree(process);
            Thread.currentThread().interrupt();
            throw new PluginFailure(new CniError(CniError.INTERNAL, "interrupted while running plugin " + executable),
                    true, drain.snapshot(), e, true);
        } finally {
            if (kill != null) {
                kill.cancel(false);
            }
            if (watching != null) {
                watching.cancel(false);
            }
        }
    }

    /** What a call through a native helper gave: its outcome (null: start it directly) and the helper's fate. */
    private record Collected(Outcome outcome, boolean reusable) {
    }

    /**
     * A run through jcni's native launch helper, which starts the plugin, feeds and collects it and answers in one
     * message (see launch-helper.c): one write and one read on this thread, no drain thread, no wait for the JDK's
     * reaper. The outcome is null when the helper could not start the plugin ("E"): the caller spawns it directly. At
     * the timeout the helper and the plugin are killed, as a direct spawn's tree is.
     */
    private static Collected collected(Process helper, byte[] input, long timeoutNanos, Path executable,
            boolean watchInterrupts) throws PluginFailure {
        Killer killer = null;
        ScheduledFuture<?> kill = null;
        if (timeoutNanos > 0) {
            killer = new Killer(helper);
            kill = Pools.scheduler().schedule(killer, timeoutNanos, TimeUnit.NANOSECONDS);
        }
        InterruptWatch watch = null;
        ScheduledFuture<?> watching = null;
        if (watchInterrupts) {
            watch = new InterruptWatch(Thread.currentThread(), helper);
            watching = Pools.scheduler().scheduleWithFixedDelay(watch, INTERRUPT_POLL_MILLIS,
                    INTERRUPT_POLL_MILLIS, TimeUnit.MILLISECONDS);
        }
        try {
            InputStream answer = helper.getInputStream();
            try {
                OutputStream request = helper.getOutputStream();
                request.write(input);
                request.flush();
            } catch (IOException e) {
                return new Collected(null, false); // the helper is gone: start the plugin directly
            }
            String head = line(answer);
            if (watch != null && watch.fired()) {
                // Killed by the watcher with the plugin (its tree): the call ends as a direct spawn's does.
                killTree(helper);
                Thread.currentThread().interrupt();
                throw new PluginFailure(new CniError(CniError.INTERNAL, "interrupted while running plugin "
                        + executable), true, new byte[0], new InterruptedException("the calling thread was interrupted"),
                        true);
            }
            boolean timedOut = killer != null && killer.fired.get();
            String[] fields = head == null ? new String[0] : head.split(" ");
            if (fields.length == 2 && fields[0].equals("E")) {
                return new Collected(null, true);
            }
            if (fields.length != 5 || !fields[0].equals("R")) {
                // The helper died (killed at the timeout, or from outside) before its answer; the plugin may have
                // run: never start it again.
                killTree(helper);
                return new Collected(deadHelper(timedOut), false);
            }
            int out = Integer.parseInt(fields[2]);
            int err = Integer.parseInt(fields[3]);
            if (out < 0 || out > MAX_STDOUT_BYTES + 1 || err < 0 || err > MAX_STDERR_BYTES) {
                killTree(helper);
                throw PluginFailure.engine(CniError.INTERNAL, "the launch helper for " + executable
                        + " answered garbage: " + head);
            }
            byte[] stdout = answer.readNBytes(out);
            byte[] stderr = answer.readNBytes(err);
            if (stdout.length != out || stderr.length != err) {
                killTree(helper);
                return new Collected(deadHelper(killer != null && killer.fired.get()), false);
            }
            return new Collected(new Outcome(Integer.parseInt(fields[1]), stdout, stderr,
                    killer != null && killer.fired.get(), fields[4].equals("1")), true);
        } catch (IOException | NumberFormatException e) {
            killTree(helper);
            return new Collected(deadHelper(killer != null && killer.fired.get()), false);
        } finally {
            if (kill != null) {
                kill.cancel(false);
            }
            if (watching != null) {
                watching.cancel(false);
            }
        }
    }

    /** A helper killed mid-call: as a direct spawn killed at its timeout (or from outside) reads. */
    private static Outcome deadHelper(boolean timedOut) {
        return new Outcome(128 + 9, new byte[0], new byte[0], timedOut, false);
    }

    /** One line (without its newline) of at most 128 bytes, or null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder(32);
        for (int b; (b = in.read()) >= 0; ) {
            if (b == '\n') {
                return line.toString();
            }
            if (line.length() > 128) {
                throw new IOException("answer line too long");
            }
            line.append((char) b);
        }
        return null;
    }

    /** Runs a task on the shared I/O threads (used by {@link WarmSpawner} to start helpers in the background). */
    static void submit(Runnable task) {
        Pools.IO.execute(task);
    }

    /** Runs {@code task} once after {@code delayNanos} on the shared timer thread (the in-process deadline). */
    static ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        return Pools.scheduler().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    private Process start(ProcessBuilder builder, Path executable) throws PluginFailure {
        for (int attempt = 0; ; attempt++) {
            try {
                return builder.start();
            } catch (IOException e) {
                String reason = errnoText(e);
                if (reason.equals("text file busy") && attempt < busyRetries) {
                    try {
                        Thread.sleep(busyDelayMillis);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                        throw new PluginFailure(new CniError(CniError.INTERNAL,
                                "interrupted while waiting to retry plugin " + executable), false, null, interrupted);
                    }
                    continue;
                }
                // libcni sends a failed start through pluginErr as well: a code-0 error with no output to quote.
                throw new PluginFailure(new CniError(CniError.UNKNOWN, "netplugin failed with no error message: "
                        + "fork/exec " + executable + ": " + reason), false, null, e);
            }
        }
    }

    /**
     * The OS reason in Go's words from the JDK's message: JDK 25 says {@code Cannot run program "x": Exec failed,
     * error: 26 (Text file busy)}, older JDKs {@code Cannot run program "x": error=26, Text file busy}; both become
     * {@code text file busy}, as Go's {@code syscall.Errno} prints it. Unknown shapes are returned whole.
     */
    static String errnoText(IOException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        String text = null;
        int at = message.indexOf("error: ");
        if (at >= 0) {
            int open = message.indexOf('(', at);
            int close = message.indexOf(')', open + 1);
            if (open >= 0 && close > open) {
                text = message.substring(open + 1, close);
            }
        } else if ((at = message.indexOf("error=")) >= 0) {
            int comma = message.indexOf(", ", at);
            if (comma >= 0) {
                text = message.substring(comma + 2);
            }
        }
        if (text == null || text.isBlank()) {
            return message;
        }
        text = text.strip();
        return Character.toLowerCase(text.charAt(0)) + text.substring(1);
    }

    private static void feed(Process process, byte[] stdin) {
        if (stdin.length <= INLINE_STDIN_BYTES) {
            new Feeder(process.getOutputStream(), stdin).run();
        } else {
            Pools.IO.execute(new Feeder(process.getOutputStream(), stdin));
        }
    }

    /** All of {@code in} up to {@code limit} bytes, or null if there is more. */
    static byte[] readBounded(InputStream in, int limit) {
        byte[] buffer = new byte[8192];
        int length = 0;
        try {
            while (true) {
                if (length == buffer.length) {
                    if (length > limit) {
                        return null;
                    }
                    buffer = Arrays.copyOf(buffer, Math.min(buffer.length * 2, limit + 1));
                }
                int n = in.read(buffer, length, buffer.length - length);
                if (n < 0) {
                    break;
                }
                length += n;
                if (length > limit) {
                    return null;
                }
            }
        } catch (IOException e) {
            // The stream was closed under us (plugin killed): what arrived is the output.
        }
        return Arrays.copyOf(buffer, length);
    }

    /**
     * Kills the plugin and the descendants visible now, children first: killing the parent first would hand them to
     * init, out of reach.
     */
    static void killTree(Process process) {
        try {
            for (Iterator<ProcessHandle> it = process.descendants().iterator(); it.hasNext(); ) {
                it.next().destroyForcibly();
            }
        } catch (RuntimeException e) {
            // Descendants cannot be listed (no /proc): the plugin itself is still killed.
        }
        process.destroyForcibly();
    }

    private static final class Feeder implements Runnable {
        private final OutputStream stdin;
        private final byte[] bytes;

        Feeder(OutputStream stdin, byte[] bytes) {
            this.stdin = stdin;
            this.bytes = bytes;
        }

        @Override
        public void run() {
            try {
                stdin.write(bytes);
            } catch (IOException e) {
                // The plugin exited or closed stdin without reading everything: its exit status tells the story.
            }
            try {
                stdin.close();
            } catch (IOException e) {
                // Same as above: a broken pipe on the final flush.
            }
        }
    }

    private static final class Killer implements Runnable {
        private final Process process;
        final AtomicBoolean fired = new AtomicBoolean();

        Killer(Process process) {
            this.process = process;
        }

        @Override
        public void run() {
            if (process.isAlive()) {
                fired.set(true);
                killTree(process);
            }
        }
    }

    /** Kills the plugin's tree once the calling thread is interrupted (the caller itself is blocked in a pipe read). */
    private static final class InterruptWatch implements Runnable {
        private final Thread caller;
        private final Process process;
        private final AtomicBoolean fired = new AtomicBoolean();

        InterruptWatch(Thread caller, Process process) {
            this.caller = caller;
            this.process = process;
        }

        @Override
        public void run() {
            if (caller.isInterrupted() && process.isAlive() && fired.compareAndSet(false, true)) {
                killTree(process);
            }
        }

        boolean fired() {
            return fired.get();
        }
    }

    /** Reads stderr to its end, keeping the first {@link #MAX_STDERR_BYTES}. */
    private static final class StderrDrain implements Runnable {
        private final InputStream in;
        private final CountDownLatch done = new CountDownLatch(1);
        private byte[] buffer = new byte[0];
        private int length;

        StderrDrain(InputStream in) {
            this.in = in;
        }

        @Override
        public void run() {
            byte[] chunk = new byte[4096];
            try (in) {
                for (int n; (n = in.read(chunk)) >= 0; ) {
                    append(chunk, n);
                }
            } catch (IOException e) {
                // Closed under us (plugin killed): keep what arrived.
            } finally {
                done.countDown();
            }
        }

        private synchronized void append(byte[] chunk, int n) {
            int keep = Math.min(n, MAX_STDERR_BYTES - length);
            if (keep <= 0) {
                return;
            }
            if (length + keep > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.min(MAX_STDERR_BYTES, Math.max(length + keep, buffer.length * 2)));
            }
            System.arraycopy(chunk, 0, buffer, length, keep);
            length += keep;
        }

        /** What arrived so far (the plugin may still be writing). */
        synchronized byte[] snapshot() {
            return Arrays.copyOf(buffer, length);
        }

        byte[] await(long graceMillis) throws InterruptedException {
            done.await(graceMillis, TimeUnit.MILLISECONDS);
            synchronized (this) {
                return Arrays.copyOf(buffer, length);
            }
        }
    }

    /** Shared daemon threads: created on first use, never shut down (they die with the JVM). */
    private static final class Pools {
        static final ExecutorService IO = Executors.newCachedThreadPool(
                Thread.ofPlatform().daemon().name("jcni-plugin-io-", 0).factory());

        private static volatile ScheduledThreadPoolExecutor scheduler;

        static ScheduledThreadPoolExecutor scheduler() {
            ScheduledThreadPoolExecutor s = scheduler;
            if (s == null) {
                synchronized (Pools.class) {
                    s = scheduler;
                    if (s == null) {
                        s = new ScheduledThreadPoolExecutor(1,
                                Thread.ofPlatform().daemon().name("jcni-plugin-timeout").factory());
                        s.setRemoveOnCancelPolicy(true);
                        scheduler = s;
                    }
                }
            }
            return s;
        }
    }
}
