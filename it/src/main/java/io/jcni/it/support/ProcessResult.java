package io.jcni.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    /**
     * A multi-line account for assertion messages: the command, how it ended, and both streams; for a JVM that
     * crashed, also the head of its error report (summary, the crashing thread's native and Java frames, the VM's
     * flags), which the report's file alone would keep, in a work tree a CI run throws away.
     */
    public String describe() {
        String ending = timedOut ? "timed out and was killed" : "exited " + exitCode;
        return "%s %s after %d ms%n--- stdout ---%n%s%n--- stderr ---%n%s%s"
                .formatted(command, ending, elapsed.toMillis(), stdout.strip(), stderr.strip(), crashReport());
    }

    /** How HotSpot names its error report on the console (hs_err_pid&lt;pid&gt;.log, wherever it could write it). */
    private static final Pattern ERROR_REPORT =
            Pattern.compile("An error report file with more information is saved as:\\R#\\s*(\\S+)");

    /** Lines of the report kept: its summary and the crashing thread come first, the process section after. */
    private static final int REPORT_LINES = 150;

    private String crashReport() {
        Matcher m = ERROR_REPORT.matcher(stdout + "\n" + stderr);
        if (!m.find()) {
            return "";
        }
        Path report = Path.of(m.group(1));
        try (var lines = Files.lines(report)) {
            return "%n--- %s (first %d lines) ---%n%s".formatted(report, REPORT_LINES,
                    String.join("\n", lines.limit(REPORT_LINES).toList()));
        } catch (IOException | RuntimeException e) {
            return "%n--- %s: not readable (%s) ---".formatted(report, e);
        }
    }
}
