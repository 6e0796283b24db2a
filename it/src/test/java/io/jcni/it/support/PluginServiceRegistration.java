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

    /** Called before every test class; starts the service the first time. */
    public static synchronized void ensureStarted() {
        if (!Locations.viaService() || service != null) {
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
