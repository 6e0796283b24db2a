package io.jcni.it.ipam;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.CniExec;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.Processes;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon under socket activation, as the dist's systemd units run it ({@code StandardInput=socket}): a
 * listening Unix socket made by someone else arrives as stdin, and the daemon serves it instead of binding its own.
 * A ten-line C program ({@code listen-exec.c}, compiled here with gcc) plays systemd: it binds and listens, puts the
 * socket on fd 0 and execs the command line of {@code dist/systemd/jcni-dhcp.service}'s {@code ExecStart} (with a state
 * directory of the test's). The plugin's STATUS through that socket succeeds; when the daemon stops, the socket file
 * stays, as it belongs to the service manager.
 */
class DhcpSocketActivationTest {
    @TempDir
    Path tmp;

    @Test
    void theDaemonServesAListeningSocketGivenAsStdin() throws Exception {
        Prerequisites.assumeDistPlugins("dhcp");
        Prerequisites.assumeCommand("gcc");
        Path source = tmp.resolve("listen-exec.c");
        try (InputStream in = DhcpSocketActivationTest.class.getResourceAsStream("listen-exec.c")) {
            Files.write(source, in.readAllBytes());
        }
        Path listenExec = tmp.resolve("listen-exec");
        Processes.check("gcc", "-std=c11", "-Wall", "-Werror", "-o", listenExec.toString(), source.toString());
        Path socket = tmp.resolve("activated.sock");
        Path log = tmp.resolve("daemon.log");
        Path unit = Locations.dist().resolve("systemd/jcni-dhcp.service");
        List<String> units = Files.readAllLines(unit);
        assertThat(units).as(unit.toString()).contains("StandardInput=socket");
        String execStart = units.stream().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow()
                .substring("ExecStart=".length());
        List<String> command = new ArrayList<>(List.of(listenExec.toString(), socket.toString()));
        command.addAll(List.of(execStart.split(" ")));
        assertThat(Path.of(command.get(2)).toRealPath()).as("the unit's program")
                .isEqualTo(Locations.distPlugin("dhcp").toRealPath());
        command.addAll(List.of("-statedir", tmp.resolve("state").toString(), "-socketpath",
                tmp.resolve("not-this.sock").toString()));
        Process daemon = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!Files.readString(log).contains("dhcp daemon listening on " + socket) && daemon.isAlive()
                    && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertThat(Files.readString(log)).contains("dhcp daemon listening on " + socket);
            String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"act\",\"type\":\"dhcp\",\"ipam\":{\"type\":\"dhcp\","
                    + "\"daemonSocketPath\":\"" + socket + "\"}}";
            CniExec.Outcome status = CniExec.of(Locations.distPlugin("dhcp"), List.of(Locations.distCniBin()))
                    .call("STATUS", conf, null, "", "");
            assertThat(status.succeeded()).as(status.process().describe()).isTrue();
            assertThat(tmp.resolve("not-this.sock")).as("-socketpath is not bound").doesNotExist();
        } finally {
            daemon.destroy();
            assertThat(daemon.waitFor(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(socket).as("the service manager's socket is left to it").exists();
    }
}
