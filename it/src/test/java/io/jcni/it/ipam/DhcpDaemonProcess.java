package io.jcni.it.ipam;

import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A dhcp daemon run by a test: jcni's ({@code dist/cni/bin/dhcp daemon}) or Go's ({@code /usr/lib/cni/dhcp daemon}),
 * in a test host ({@code ip netns exec}, which execs it: the process is the daemon), with its socket (and for jcni's,
 * its state directory) in the test's directory, never the default {@code /run/cni}. Its stderr is its log.
 * {@link #close()} stops it with SIGTERM; {@link #kill()} with SIGKILL, as a crash would.
 */
final class DhcpDaemonProcess implements AutoCloseable {
    private final Process process;
    private final Path socket;
    private final Path log;

    private DhcpDaemonProcess(Process process, Path socket, Path log) {
        this.process = process;
        this.socket = socket;
        this.log = log;
    }

    /**
     * Starts {@code executable daemon -socketpath SOCKET flags...} in {@code host} and waits until it listens: for
     * jcni's, its log says so (a socket file may be left by a daemon killed before); for Go's, which logs nothing
     * then, its socket file exists (it must not exist before). Its log goes to {@code log}, appended to, so that a
     * restarted daemon's log follows the first's.
     */
    static DhcpDaemonProcess start(TestNetns host, Path executable, Path socket, Path log, List<String> flags,
            boolean jcni) {
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", host.name(), executable.toString(),
                "daemon", "-socketpath", socket.toString()));
        command.addAll(flags);
        try {
            int before = count(log, LISTENING);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            DhcpDaemonProcess daemon = new DhcpDaemonProcess(process, socket, log);
            // The socket file is no sign: one killed before left it. The log line is written once it listens.
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while ((jcni && count(log, LISTENING) == before) || !Files.exists(socket)) {
                if (!process.isAlive() || System.nanoTime() > end) {
                    daemon.kill();
                    throw new AssertionError("the dhcp daemon did not start: " + daemon.log());
                }
                Thread.sleep(20);
            }
            return daemon;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** What jcni's daemon logs once it listens. */
    private static final String LISTENING = "dhcp daemon listening on ";

    private static int count(Path log, String text) throws IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        String content = Files.readString(log);
        int n = 0;
        for (int at = content.indexOf(text); at >= 0; at = content.indexOf(text, at + 1)) {
            n++;
        }
        return n;
    }

    /** Waits up to {@code timeout} for {@code text} to appear in the log; the log then. */
    String awaitLog(String text, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        String now = log();
        while (!now.contains(text) && System.nanoTime() < end) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            now = log();
        }
        return now;
    }

    Path socket() {
        return socket;
    }

    long pid() {
        return process.pid();
    }

    boolean isRunning() {
        return process.isAlive();
    }

    String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGKILL, and waits for the process to be gone: nothing of the daemon runs afterwards. */
    void kill() {
        process.destroyForcibly();
        await();
    }

    /** SIGTERM and waits (SIGKILL after 10 s); idempotent. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        await();
    }

    private void await() {
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
