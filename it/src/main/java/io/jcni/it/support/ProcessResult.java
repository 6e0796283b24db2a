package io.jcni.it.support;

import java.time.Duration;
import java.util.List;

/**
 * What a finished (or killed) process left: its exit code, everything it wrote, and how long it ran.
 *
 * @param exitCode the exit status; 128 + signal number when a signal ended it (Java's convention), -1 if it was
 *     killed by {@link Processes} after the timeout
 * @param timedOut true when the timeout expired and the process (with its descendants) was killed
 */
public record ProcessResult(
        List<String> command, int exitCode, String stdout, String stderr, Duration elapsed, boolean timedOut) {

    public ProcessResult {
        command = List.copyOf(command);
    }

    public boolean succeeded() {
        return exitCode == 0 && !timedOut;
    }

    /** Returns this result if the process exited 0, otherwise fails the test with {@link #describe()}. */
    public ProcessResult requireSuccess() {
        if (!succeeded()) {
            throw new AssertionError(describe());
        }
        return this;
    }

    /** A multi-line account for assertion messages: the command, how it ended, and both streams. */
    public String describe() {
        String ending = timedOut ? "timed out and was killed" : "exited " + exitCode;
        return "%s %s after %d ms%n--- stdout ---%n%s%n--- stderr ---%n%s"
                .formatted(command, ending, elapsed.toMillis(), stdout.strip(), stderr.strip());
    }
}
