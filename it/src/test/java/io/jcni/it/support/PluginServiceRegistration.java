package io.jcni.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * In the run of the suite that sends plugin calls through the plugin service ({@link Locations#viaService()}): starts
 * {@code dist/bin/jcni serve} once for the JVM, before the first test class, on the socket the run's environment
 * names in {@code JCNI_SERVICE_SOCKET} (a path under the it module's target directory, set by its pom), and stops it
 * when the JVM exits. A service left over by a crashed earlier run on that socket is killed first (its pid is kept
 * beside the socket). Without the property: nothing.
 */
public final class PluginServiceRegistration {
    private static PluginServiceProcess service;

    private PluginServiceRegistration() {}

    /**
     * Called before every test class; starts the service the first time, and fails the class if the service has died
     * since: the clients would then run their JVM launchers, and the run would pass without testing the service.
     */
    public static synchronized void ensureStarted() {
        if (!Locations.viaService()) {
            return;
        }
        if (service != null) {
            requireAlive();
            return;
        }
        String value = System.getenv("JCNI_SERVICE_SOCKET");
        if (value == null || !value.startsWith("/") || value.equals("/run/jcni/plugins.sock")) {
            throw new IllegalStateException("the service run of the suite needs JCNI_SERVICE_SOCKET set to a private "
                    + "socket path (the it module's pom sets it), not " + value);
        }
        Path socket = Path.of(value);
        Path pidFile = socket.resolveSibling("service.pid");
        try {
            Files.createDirectories(socket.getParent());
            Files.setPosixFilePermissions(socket.getParent(), PosixFilePermissions.fromString("rwx------"));
            if (Files.exists(pidFile)) {
                long stale = Long.parseLong(Files.readString(pidFile).strip());
                ProcessHandle.of(stale).filter(PluginServiceRegistration::isService)
                        .ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        service = PluginServiceProcess.start(socket, List.of(), Map.of());
        try {
            Files.writeString(pidFile, Long.toString(service.pid()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(PluginServiceRegistration::stop, "jcni-it-service-stop"));
    }

    /**
     * In the service run: the service still runs (called after every class too, so that the class during which it
     * died fails). No silent fallback to the JVM launchers.
     */
    public static synchronized void requireAlive() {
        if (Locations.viaService() && service != null && !service.isAlive()) {
            throw new AssertionError("the plugin service of this run (pid " + service.pid() + ") is gone: the plugin "
                    + "clients fell back to their JVM launchers, so this run no longer tests the service; its log: "
                    + service.socket() + ".log");
        }
    }

    private static boolean isService(ProcessHandle p) {
        return p.info().arguments().map(args -> List.of(args).toString().contains("ServiceMain")).orElse(false);
    }

    private static synchronized void stop() {
        if (service != null) {
            service.close();
            System.err.println("jcni it: plugin service stopped; its log: " + service.socket() + ".log");
        }
    }
}
