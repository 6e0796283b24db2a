package io.jcni.it.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code sh} that runs a test's command lines one after the other, for state that lives only as long as a process:
 * a mount namespace made by {@code unshare --mount} (what its commands mount is seen by the later ones and by nothing
 * outside), entered namespaces, exported variables. The shell runs {@code setup} first (whose failure fails
 * {@link #start}), then each line given to {@link #run}, with stdout and stderr together and stdin closed.
 *
 * <p>Close it to end the shell, and with it the namespaces nothing else holds.
 */
public final class ShellSession implements AutoCloseable {
    private static final String MARK = "@@jcni-shell-exit ";

    private final Process shell;
    private final Writer in;
    private final BufferedReader out;

    private ShellSession(Process shell) {
        this.shell = shell;
        this.in = new OutputStreamWriter(shell.getOutputStream(), StandardCharsets.UTF_8);
        this.out = new BufferedReader(new InputStreamReader(shell.getInputStream(), StandardCharsets.UTF_8));
    }

    /** What one command line printed (stdout and stderr, in order) and its exit status. */
    public record Result(String command, int exit, String output) {
        public Result requireSuccess() {
            if (exit != 0) {
                throw new AssertionError(command + " exited " + exit + ":\n" + output);
            }
            return this;
        }
    }

    /**
     * Starts {@code sh -c SCRIPT} under {@code prefix} (e.g. {@code nsenter --net=... unshare --mount}); the script
     * runs {@code setup}, then reads and runs command lines.
     *
     * @throws AssertionError if {@code setup} fails, with what it printed
     */
    public static ShellSession start(List<String> prefix, String setup) {
        String script = "set -u\n" + setup + "\n"
                + "echo '" + MARK + "0'\n"
                + "while IFS= read -r line; do eval \"$line\" </dev/null 2>&1; echo \"" + MARK + "$?\"; done\n";
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of("sh", "-c", script));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        try {
            ShellSession session = new ShellSession(pb.start());
            Result ready = session.await("setup");
            if (ready.exit() != 0) {
                session.close();
                throw new AssertionError("the shell's setup exited " + ready.exit() + ":\n" + ready.output());
            }
            return session;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /** Runs one command line (one line of sh: quote its words with {@link #quote}). */
    public Result run(String line) {
        if (line.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("one line only: " + line);
        }
        try {
            in.write(line + "\n");
            in.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the shell is gone", e);
        }
        return await(line);
    }

    /** {@code word} quoted for sh. */
    public static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** The words quoted for sh and joined with spaces. */
    public static String quote(List<String> words) {
        StringBuilder line = new StringBuilder();
        for (String word : words) {
            line.append(line.isEmpty() ? "" : " ").append(quote(word));
        }
        return line.toString();
    }

    private Result await(String command) {
        StringBuilder text = new StringBuilder();
        try {
            String l;
            while ((l = out.readLine()) != null) {
                // The mark ends the line it is on: a command whose output does not end with a newline (apt's
                // progress) leaves its last text in front of it.
                int mark = l.lastIndexOf(MARK);
                if (mark >= 0 && l.substring(mark + MARK.length()).strip().matches("[0-9]+")) {
                    text.append(l, 0, mark);
                    return new Result(command, Integer.parseInt(l.substring(mark + MARK.length()).strip()),
                            text.toString());
                }
                text.append(l).append('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("the shell ended:\n" + text);
    }

    /** The shell's process id. */
    public long pid() {
        return shell.pid();
    }

    /** The shell's mount namespace, to enter with {@code nsenter --mount=...}. */
    public Path mountNamespace() {
        return Path.of("/proc", Long.toString(shell.pid()), "ns", "mnt");
    }

    /** The file system as the shell sees it, readable from the test ({@code /proc/PID/root}). */
    public Path root() {
        return Path.of("/proc", Long.toString(shell.pid()), "root");
    }

    /** Ends the shell (and with its mount namespace everything mounted there). */
    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException ignored) {
            // the shell is gone already
        }
        try {
            if (!shell.waitFor(30, TimeUnit.SECONDS)) {
                shell.descendants().forEach(ProcessHandle::destroyForcibly);
                shell.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            shell.destroyForcibly();
        }
    }
}
