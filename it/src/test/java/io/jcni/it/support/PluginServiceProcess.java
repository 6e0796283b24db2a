package io.jcni.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@code dist/bin/jcni serve} process for tests, on a socket of the test's own (never the default
 * {@code /run/jcni/plugins.sock}: other runs on this machine use plugins at the same time). Its output goes to a log
 * file beside the socket. {@link #close()} stops it with SIGTERM (the calls in flight finish), {@link #kill()} with
 * SIGKILL.
 */
public final class PluginServiceProcess implements AutoCloseable {
    private final Process process;
    private final Path socket;
    private final Path log;

    private PluginServiceProcess(Process process, Path socket, Path log) {
        this.process = process;
        this.socket = socket;
        this.log = log;
    }

    /**
     * Starts {@code jcni serve --socket SOCKET} with {@code extraArgs} and waits until it answers on the socket (at
     * most a minute). The socket's directory must not exist yet or be private (mode 0700).
     */
    public static PluginServiceProcess start(Path socket, List<String> extraArgs, Map<String, String> env) {
        Prerequisites.assumeJcniCli();
        List<String> command = new ArrayList<>(List.of(Locations.distJcni().toString(), "serve", "--socket",
                socket.toString()));
        command.addAll(extraArgs);
        return start(command, socket, env);
    }

    /** Starts {@code command} (a service, possibly under a wrapper) and waits until {@code socket} answers. */
    public static PluginServiceProcess start(List<String> command, Path socket, Map<String, String> env) {
        Path log = socket.resolveSibling(socket.getFileName() + ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().putAll(env);
        Process process;
        try {
            Files.createDirectories(log.getParent());
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
        PluginServiceProcess service = new PluginServiceProcess(process, socket, log);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!answers(socket)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                service.kill();
                throw new IllegalStateException("jcni serve did not start on " + socket + ": " + service.log());
            }
            sleep(20);
        }
        return service;
    }

    /** Whether something accepts connections on {@code socket}. */
    public static boolean answers(Path socket) {
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return probe.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            return false;
        }
    }

    public Path socket() {
        return socket;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** What the service wrote so far (its log). */
    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    /** The environment a plugin client needs to use this service. */
    public Map<String, String> clientEnv() {
        return Map.of("JCNI_SERVICE_SOCKET", socket.toString());
    }

    /** SIGKILL, and waits for the process to be gone. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /** SIGTERM: the service stops accepting, lets the calls in flight finish, removes its socket. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            if (!waitFor(Duration.ofSeconds(60))) {
                kill();
            }
        }
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
