package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.plugins.Plugins;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dist as {@code ./mvnw -B package} leaves it, started as a node starts it: every plugin client, with no service
 * (so it runs its JVM launcher) and {@code JCNI_JAVA_OPTS=-XX:AOTMode=on}, which makes the JVM refuse to start on a
 * rejected AOT cache, answers VERSION (the launcher picks the version cache) and an ADD without its variables (the
 * skel's code 4, after the JVM started on the plugin's group cache), and writes nothing on stderr: a stale cache only
 * warns there, and start-up silently doubles. {@code jcni --version} names this build's version, and a service of
 * this build answers every client of it, started with its cache required and logging nothing but its own lines.
 *
 * <p>This was the last step of build-dist.sh; the build keeps one start per cache (its comment says which) and this
 * test covers every launcher. It starts nothing outside its temporary directory and touches no namespace.
 */
class DistVerificationTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String VERSION_ANSWER = "{\"cniVersion\":";
    private static final Map<String, String> AOT_REQUIRED = Map.of("JCNI_JAVA_OPTS", "-XX:AOTMode=on");

    @Test
    void theDistHasAClientAndAJvmLauncherForEveryPluginType() {
        Prerequisites.assumeJcniCli();
        assertThat(names(Locations.distCniBin())).as("dist/cni/bin").containsExactlyElementsOf(Plugins.types());
        assertThat(names(Locations.dist().resolve("cni/jvm"))).as("dist/cni/jvm")
                .containsExactlyElementsOf(Plugins.types());
    }

    @Test
    void everyClientStartsItsLauncherWithTheAotCachesAcceptedAndNothingOnStderr() {
        Prerequisites.assumeDistPlugins(Plugins.types().toArray(String[]::new));
        List<String> problems = new ArrayList<>();
        for (String type : Plugins.types()) {
            ProcessResult version = exec(type, "VERSION");
            if (!version.succeeded() || !version.stdout().startsWith(VERSION_ANSWER)
                    || !version.stdout().contains("\"supportedVersions\":") || !version.stderr().isEmpty()) {
                problems.add("VERSION (version cache): " + version.describe());
            }
            // No CNI_CONTAINERID, CNI_NETNS, ...: the skel answers code 4 before the plugin does anything.
            ProcessResult add = exec(type, "ADD");
            if (add.succeeded() || !add.stdout().contains("\"code\": 4") || !add.stderr().isEmpty()) {
                problems.add("ADD without variables (group cache): " + add.describe());
            }
        }
        assertThat(problems).as("a rejected or stale AOT cache fails or warns on stderr").isEmpty();
    }

    @Test
    void jcniVersionStartsWithTheCliCacheAcceptedAndNamesThisBuild() {
        Prerequisites.assumeJcniCli();
        String version = System.getProperty("jcni.it.projectVersion", "");
        Prerequisites.require(!version.isEmpty(), () -> "the project version (system property "
                + "jcni.it.projectVersion, set by the it module's surefire configuration)");
        ProcessResult run = Processes.run(List.of(Locations.distJcni().toString(), "--version"), AOT_REQUIRED, null,
                TIMEOUT);
        assertThat(run.exitCode()).as(run.describe()).isZero();
        assertThat(run.stderr()).as(run.describe()).isEmpty();
        assertThat(run.stdout().strip()).as(run.describe()).isEqualTo("jcni " + version);
    }

    /** One VERSION per type through a service on a private socket, which starts with its AOT cache required. */
    @Test
    void theServiceWithItsCacheAcceptedAnswersEveryClientOfThisBuild(@TempDir Path tmp) {
        Prerequisites.assumeDistPlugins(Plugins.types().toArray(String[]::new));
        Path socket = tmp.resolve("svc/plugins.sock");
        List<String> problems = new ArrayList<>();
        String log;
        try (PluginServiceProcess service = PluginServiceProcess.start(socket, List.of(), AOT_REQUIRED)) {
            for (String type : Plugins.types()) {
                ProcessResult run = Processes.run(List.of(Locations.distPlugin(type).toString()), Map.of(
                        "CNI_COMMAND", "VERSION", "JCNI_DEBUG", "1", "JCNI_SERVICE_SOCKET", socket.toString()),
                        null, TIMEOUT);
                // The client answers from its JVM launcher when the service is of another build: only the
                // client's debug line tells them apart.
                if (!run.stdout().startsWith(VERSION_ANSWER)
                        || !run.stderr().contains("VERSION via service, pid " + service.pid())) {
                    problems.add(run.describe());
                }
            }
            assertThat(problems).as("answered by the service of this build:%n%s", service.log()).isEmpty();
            service.close();
            log = service.log();
        }
        // The service's stderr is its log: a rejected or stale cache, or any other JVM warning, would be in it.
        assertThat(log.lines().filter(line -> !line.startsWith("jcni serve: ")).toList())
                .as("what the service wrote besides its log lines:%n%s", log).isEmpty();
    }

    /** A client with no service (it runs its JVM launcher), the AOT caches required. */
    private static ProcessResult exec(String type, String command) {
        return Processes.run(List.of(Locations.distPlugin(type).toString()), Map.of("CNI_COMMAND", command,
                "JCNI_SERVICE_SOCKET", "off", "JCNI_JAVA_OPTS", "-XX:AOTMode=on"), null, TIMEOUT);
    }

    private static List<String> names(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
