package io.jcni.it.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dist/bin/jcni serve} as a process: its command line, systemd socket activation (no systemd runs here: the
 * listening socket is bound beforehand and passed as descriptor 3 with LISTEN_FDS/LISTEN_PID, by a small Python
 * wrapper and by systemd's own {@code systemd-socket-activate}), a second service refused on a live socket, and a
 * client of another user refused by the peer check.
 */
class ServiceProcessTest {
    static final String VERSION_PREFIX = "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[";

    @TempDir
    Path tmp;

    static ProcessResult versionVia(Path socket, List<String> prefix) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", "VERSION");
        env.put("JCNI_SERVICE_SOCKET", socket.toString());
        env.put("JCNI_DEBUG", "1");
        List<String> command = new java.util.ArrayList<>(prefix);
        command.add(Locations.distPlugin("static").toString());
        return Processes.run(command, env, null, Duration.ofSeconds(60));
    }

    @Test
    void helpDocumentsTheOptionsAndExitsZero() {
        Prerequisites.assumeJcniCli();
        ProcessResult help = Processes.run(List.of(Locations.distJcni().toString(), "serve", "--help"), Map.of(),
                null, Duration.ofSeconds(60));
        assertThat(help.exitCode()).as(help.describe()).isZero();
        assertThat(help.stdout()).contains("Usage: jcni serve", "--socket PATH", "--allow-uid UID", "--max-calls N",
                "--queue N", "--call-timeout S", "LISTEN_FDS", "JCNI_SERVICE_SOCKET");
        ProcessResult bad = Processes.run(List.of(Locations.distJcni().toString(), "serve", "--bogus"), Map.of(),
                null, Duration.ofSeconds(60));
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.stderr()).contains("unknown argument --bogus");
    }

    @Test
    void aSecondServiceOnALiveSocketIsRefusedAndTheFirstGoesOn() {
        Path socket = tmp.resolve("svc/plugins.sock");
        try (PluginServiceProcess first = PluginServiceProcess.start(socket, List.of(), Map.of())) {
            ProcessResult second = Processes.run(List.of(Locations.distJcni().toString(), "serve", "--socket",
                    socket.toString()), Map.of(), null, Duration.ofSeconds(60));
            assertThat(second.exitCode()).isEqualTo(1);
            assertThat(second.stderr()).contains("a service already listens on " + socket);
            ProcessResult answered = versionVia(socket, List.of());
            assertThat(answered.stderr()).contains("VERSION via service, pid " + first.pid());
        }
        assertThat(socket).as("removed at SIGTERM").doesNotExist();
    }

    /** The socket bound beforehand and passed as descriptor 3, as systemd does: LISTEN_FDS=1, LISTEN_PID its pid. */
    @Test
    void withListenFdsItServesTheInheritedSocketAndLeavesItsFileToItsOwner() throws Exception {
        Prerequisites.assumeCommand("python3");
        Path dir = Files.createDirectory(tmp.resolve("run"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        Path socket = dir.resolve("activated.sock");
        String wrapper = """
                import os, socket, sys
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o600); s.listen(16)
                os.dup2(s.fileno(), 3); os.set_inheritable(3, True)
                os.environ["LISTEN_FDS"] = "1"; os.environ["LISTEN_PID"] = str(os.getpid())
                os.execv(sys.argv[2], sys.argv[2:])
                """;
        Path script = Files.writeString(tmp.resolve("activate.py"), wrapper);
        // --socket names another path: under activation the inherited socket is served and nothing is created.
        Path unused = dir.resolve("not-created.sock");
        try (PluginServiceProcess service = PluginServiceProcess.start(List.of("python3", script.toString(),
                socket.toString(), Locations.distJcni().toString(), "serve", "--socket", unused.toString()), socket,
                Map.of())) {
            ProcessResult answered = versionVia(socket, List.of());
            assertThat(answered.stdout()).startsWith(VERSION_PREFIX);
            assertThat(answered.stderr()).contains("VERSION via service, pid " + service.pid());
            assertThat(service.log()).contains("serving the socket systemd passed (descriptor 3)");
            assertThat(unused).doesNotExist();
        }
        assertThat(socket).as("the socket belongs to whoever passed it (systemd): not removed").exists();
    }

    /** systemd's own tool: it listens, and starts the service when the first client connects. */
    @Test
    void systemdSocketActivateStartsTheServiceOnTheFirstCall() throws Exception {
        Prerequisites.assumeCommand("systemd-socket-activate");
        Path socket = tmp.resolve("run/first-call.sock");
        Files.createDirectories(socket.getParent());
        Process activator = new ProcessBuilder("systemd-socket-activate", "-l", socket.toString(),
                Locations.distJcni().toString(), "serve").redirectErrorStream(true)
                .redirectOutput(tmp.resolve("activate.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!Files.exists(socket) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(activator.descendants().count()).as("no service before the first call").isZero();
            ProcessResult first = versionVia(socket, List.of());
            assertThat(first.exitCode()).as(first.describe()).isZero();
            assertThat(first.stdout()).startsWith(VERSION_PREFIX);
            assertThat(first.stderr()).as("answered by the service it started")
                    .contains("VERSION via service, pid " + activator.pid());
            assertThat(Files.readString(tmp.resolve("activate.log")))
                    .contains("serving the socket systemd passed (descriptor 3)");
        } finally {
            activator.destroy();
            activator.waitFor();
        }
    }

    /**
     * Only root (and uids given with --allow-uid) are served: the socket is opened to everyone here so that the
     * peer check, not the file mode, is what refuses a client running as nobody.
     */
    @Test
    void aClientOfAnotherUserIsRefusedByThePeerCheckUnlessAllowed() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("setpriv");
        List<String> asNobody = List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups");
        Path socket = tmp.resolve("open/plugins.sock");
        try (PluginServiceProcess service = PluginServiceProcess.start(socket, List.of(), Map.of())) {
            openToEveryone(socket);
            ProcessResult refused = versionVia(socket, asNobody);
            assertThat(refused.exitCode()).as(refused.describe()).isEqualTo(1);
            assertThat(refused.stdout()).contains("\"code\": 5")
                    .contains("the jcni plugin service does not serve uid 65534");
            assertThat(service.log()).contains("uid 65534 is not allowed");
        }
        try (PluginServiceProcess service = PluginServiceProcess.start(socket, List.of("--allow-uid", "65534"),
                Map.of())) {
            openToEveryone(socket);
            ProcessResult allowed = versionVia(socket, asNobody);
            assertThat(allowed.exitCode()).as(allowed.describe()).isZero();
            assertThat(allowed.stderr()).contains("VERSION via service, pid " + service.pid());
        }
    }

    /**
     * The service sets its socket's mode (0600) just after it listens, and a client may connect in between: the mode
     * given here must come after the service's own, or the service's undoes it.
     */
    private void openToEveryone(Path socket) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)).equals("rw-------")) {
            assertThat(System.nanoTime() - deadline).as("the service's socket never got mode 0600").isNegative();
            Thread.sleep(5);
        }
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(socket.getParent(), PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    }
}
