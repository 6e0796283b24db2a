package io.jcni.it.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs external programs for tests: extra environment on top of the inherited one, optional stdin, a timeout after
 * which the process and all its descendants are killed, and both output streams captured completely.
 */
public final class Processes {

    /** The timeout of the short forms; generous, because a hung tool should fail a test, not the whole CI run. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** How long to wait for the output pipes after the process ended (a surviving grandchild may hold them open). */
    private static final Duration DRAIN_GRACE = Duration.ofSeconds(5);

    private Processes() {}

    /** Runs {@code command} with the inherited environment, no stdin and {@link #DEFAULT_TIMEOUT}. */
    public static ProcessResult run(String... command) {
        return run(Arrays.asList(command), Map.of(), null, DEFAULT_TIMEOUT);
    }

    /** Runs {@code command} like {@link #run(String...)} and fails the test unless it exits 0. */
    public static ProcessResult check(String... command) {
        return run(command).requireSuccess();
    }

    /**
     * Runs {@code command} to completion or until {@code timeout}.
     *
     * @param env variables set on top of this JVM's environment (the child inherits everything else)
     * @param stdin written to the process's stdin, which is then closed; null closes stdin at once
     */
    public static ProcessResult run(List<String> command, Map<String, String> env, String stdin, Duration timeout) {
        var builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        long start = System.nanoTime();
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        var stdout = new Drain(process.getInputStream());
        var stderr = new Drain(process.getErrorStream());
        Thread feeder = Thread.ofVirtual().start(() -> feed(process.getOutputStream(), stdin));
        boolean timedOut = false;
        try {
            if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                timedOut = true;
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor();
            }
            Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
            feeder.join(DRAIN_GRACE);
            return new ProcessResult(command, timedOut ? -1 : process.exitValue(), stdout.text(), stderr.text(),
                    elapsed, timedOut);
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        }
    }

    private static void feed(OutputStream in, String stdin) {
        try (in) {
            if (stdin != null) {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // The process exited or closed stdin without reading it all: that is its business, not a test failure.
        }
    }

    /** Copies one output stream on a virtual thread; text() returns what arrived even if the pipe never closes. */
    private static final class Drain {
        private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        private final Thread thread;

        Drain(InputStream stream) {
            thread = Thread.ofVirtual().start(() -> {
                byte[] chunk = new byte[8192];
                try (stream) {
                    for (int n; (n = stream.read(chunk)) >= 0; ) {
                        synchronized (buffer) {
                            buffer.write(chunk, 0, n);
                        }
                    }
                } catch (IOException e) {
                    // The stream was closed under us (process killed): keep what was read.
                }
            });
        }

        String text() throws InterruptedException {
            thread.join(DRAIN_GRACE);
            synchronized (buffer) {
                return buffer.toString(StandardCharsets.UTF_8);
            }
        }
    }
}
