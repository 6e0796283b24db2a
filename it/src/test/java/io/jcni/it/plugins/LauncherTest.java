package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.runtime.JcniLaunchers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped launchers: the plugin clients of {@code dist/cni/bin} and the JVM launchers of {@code dist/cni/jvm} they
 * fall back to. How runtimes reach them (directly, through a symlink, a symlinked directory, a copy in another
 * directory, a copy of the whole dist tree): each way finds the JVM launcher and its image with the AOT cache accepted
 * (with the service off), and finds the plugin service (with one running); a stdout that carries nothing but the CNI
 * answer even when the JVM complains.
 */
class LauncherTest {
    static final String VERSION_PREFIX = "{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[";
    static final List<String> SHIPPED = List.of("host-local", "loopback", "static");

    @TempDir
    Path tmp;

    /** The symlinks point outside the temp dir; removing them first keeps JUnit's cleanup quiet. */
    @AfterEach
    void removeSymlinks() throws IOException {
        try (Stream<Path> files = Files.list(tmp)) {
            for (Path file : files.toList()) {
                if (Files.isSymbolicLink(file)) {
                    Files.delete(file);
                }
            }
        }
    }

    @BeforeAll
    static void distIsBuilt() {
        Prerequisites.assumeDistPlugins(SHIPPED.toArray(String[]::new));
    }

    static List<Path> launchers() throws IOException {
        try (Stream<Path> files = Files.list(Locations.distCniBin())) {
            return files.sorted().toList();
        }
    }

    static List<Path> jvmLaunchers() throws IOException {
        try (Stream<Path> files = Files.list(Locations.distJvmPlugin("x").getParent())) {
            return files.sorted().toList();
        }
    }

    /** VERSION of {@code executable}; the plugin client asks no service unless {@code extra} names one. */
    static ProcessResult version(Path executable, Map<String, String> extra) {
        Map<String, String> env = new java.util.HashMap<>(extra);
        env.put("CNI_COMMAND", "VERSION");
        env.putIfAbsent("JCNI_SERVICE_SOCKET", "off");
        return Processes.run(List.of(executable.toString()), env, null, Duration.ofSeconds(30));
    }

    /**
     * VERSION with the cache required: -XX:AOTMode=on refuses to start if the JVM rejects the cache. Through a
     * client, with the service off: the client finds its JVM launcher, which finds its image.
     */
    static void assertStartsWithTheCache(Path executable) {
        ProcessResult result = version(executable, Map.of("JCNI_JAVA_OPTS", "-XX:AOTMode=on"));
        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertThat(result.stdout()).startsWith(VERSION_PREFIX).endsWith("]}\n");
        assertThat(result.stderr()).as("a stale or rejected cache warns on stderr").isEmpty();
    }

    /** VERSION through a client with {@code service} running: answered by the service, not by a JVM of its own. */
    static void assertAnsweredByTheService(Path executable, PluginServiceProcess service) {
        Map<String, String> env = new java.util.HashMap<>(service.clientEnv());
        env.put("JCNI_DEBUG", "1");
        ProcessResult result = version(executable, env);
        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertThat(result.stdout()).startsWith(VERSION_PREFIX).endsWith("]}\n");
        assertThat(result.stderr()).as(result.describe()).contains("VERSION via service, pid " + service.pid());
    }

    @Test
    void everyShippedTypeHasAClientAndAJvmLauncherAndNothingElseIsThere() throws IOException {
        List<String> names = new ArrayList<>();
        for (Path launcher : launchers()) {
            names.add(launcher.getFileName().toString());
            assertThat(Files.isExecutable(launcher)).as(launcher.toString()).isTrue();
            byte[] head = Files.readAllBytes(launcher);
            assertThat(new String(head, 0, 4, StandardCharsets.ISO_8859_1)).as("an ELF binary").isEqualTo("\u007fELF");
        }
        assertThat(names).containsAll(SHIPPED);
        List<String> jvm = new ArrayList<>();
        for (Path launcher : jvmLaunchers()) {
            jvm.add(launcher.getFileName().toString());
            assertThat(Files.isExecutable(launcher)).as(launcher.toString()).isTrue();
            assertThat(Files.readString(launcher)).startsWith("#!/bin/sh\n");
        }
        assertThat(jvm).isEqualTo(names);
    }

    @Test
    void eachLauncherCarriesTheRuntimesMarkerLineSoDelegationRecognizesIt() throws IOException {
        List<Path> all = new ArrayList<>(launchers());
        all.addAll(jvmLaunchers());
        for (Path launcher : all) {
            String type = launcher.getFileName().toString();
            byte[] head = Files.readAllBytes(launcher);
            String window = new String(head, 0, Math.min(JcniLaunchers.MARKER_WINDOW, head.length),
                    StandardCharsets.ISO_8859_1);
            assertThat(window.lines()).as(launcher.toString()).contains(JcniLaunchers.markerLine(type));
            assertThat(JcniLaunchers.pluginType(launcher)).contains(type);
        }
    }

    @Test
    void theJvmLaunchersStartWithTheirCachesDirectlyAndThroughASymlink() throws IOException {
        for (Path launcher : jvmLaunchers()) {
            assertStartsWithTheCache(launcher);
        }
        Path link = Files.createSymbolicLink(tmp.resolve("jvm-static"), Locations.distJvmPlugin("static"));
        assertStartsWithTheCache(link);
    }

    @Test
    void aSymlinkOrACopyOfALauncherIsStillRecognized() throws IOException {
        Path launcher = Locations.distPlugin("static");
        Path link = Files.createSymbolicLink(tmp.resolve("link"), launcher);
        Path copy = Files.copy(launcher, tmp.resolve("copy"));
        assertThat(JcniLaunchers.pluginType(link)).contains("static");
        assertThat(JcniLaunchers.pluginType(copy)).contains("static");
    }

    @Test
    void everyLauncherStartsWithTheAotCacheAccepted() throws IOException {
        for (Path launcher : launchers()) {
            assertStartsWithTheCache(launcher);
        }
    }

    @Test
    void throughASymlinkInAnotherDirectory() throws IOException {
        for (Path launcher : launchers()) {
            Path link = Files.createSymbolicLink(tmp.resolve(launcher.getFileName()), launcher);
            assertStartsWithTheCache(link);
        }
    }

    @Test
    void throughARelativeSymlinkAndAChainOfSymlinks() throws IOException {
        Path launcher = Locations.distPlugin("static");
        Path relative = Files.createSymbolicLink(tmp.resolve("static"), tmp.relativize(launcher));
        assertStartsWithTheCache(relative);
        Path chained = Files.createSymbolicLink(tmp.resolve("chained"), relative);
        assertStartsWithTheCache(chained);
    }

    @Test
    void throughASymlinkedCniPathDirectory() throws IOException {
        Path bin = Files.createSymbolicLink(tmp.resolve("bin"), Locations.distCniBin());
        assertStartsWithTheCache(bin.resolve("static"));
    }

    @Test
    void asACopyInAnotherDirectoryItFindsTheImageItWasBuiltWith() throws IOException {
        for (Path launcher : launchers()) {
            Path copy = Files.copy(launcher, tmp.resolve(launcher.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            assertStartsWithTheCache(copy);
        }
    }

    @Test
    void aCopyOfTheWholeDistTreeUsesItsOwnImage() throws IOException {
        Path copy = tmp.resolve("dist");
        Processes.check("cp", "-a", Locations.dist().toString(), copy.toString());
        assertStartsWithTheCache(copy.resolve("cni/bin/static"));
        // Prove it is the copy that runs: without its image the copied launcher falls back to the built one, so make
        // the copy's java report itself instead.
        ProcessResult which = version(copy.resolve("cni/bin/static"),
                Map.of("JCNI_JAVA_OPTS", "-XshowSettings:properties"));
        assertThat(which.stderr()).contains("java.home = " + copy.resolve("image").toRealPath());
    }

    /** Every way a runtime reaches a client finds the service (its socket is the same for all of them). */
    @Test
    void directlyThroughSymlinksAndAsCopiesTheClientsReachTheService() throws IOException {
        Path copyOfTree = tmp.resolve("dist");
        Processes.check("cp", "-a", Locations.dist().toString(), copyOfTree.toString());
        try (PluginServiceProcess service = PluginServiceProcess.start(tmp.resolve("svc/plugins.sock"), List.of(),
                Map.of())) {
            for (Path launcher : launchers()) {
                assertAnsweredByTheService(launcher, service);
            }
            Path launcher = Locations.distPlugin("static");
            assertAnsweredByTheService(Files.createSymbolicLink(tmp.resolve("static"), launcher), service);
            assertAnsweredByTheService(Files.createSymbolicLink(tmp.resolve("chained"), tmp.resolve("static")),
                    service);
            assertAnsweredByTheService(Files.createSymbolicLink(tmp.resolve("bin"), Locations.distCniBin())
                    .resolve("static"), service);
            assertAnsweredByTheService(Files.copy(launcher, tmp.resolve("copy"), StandardCopyOption.COPY_ATTRIBUTES),
                    service);
            assertAnsweredByTheService(copyOfTree.resolve("cni/bin/static"), service);
        }
    }

    /**
     * A service of another build (here: a copy of dist whose build id was changed) is never asked to run a call: the
     * client hears "another build" and runs its own JVM launcher.
     */
    @Test
    void aServiceOfAnotherBuildIsNotUsedAndTheClientRunsItsJvm() throws IOException {
        Path other = tmp.resolve("other-dist");
        Processes.check("cp", "-a", Locations.dist().toString(), other.toString());
        Files.writeString(other.resolve("image/lib/jcni-build-id"), "another-build\n");
        Path socket = tmp.resolve("svc/plugins.sock");
        try (PluginServiceProcess service = PluginServiceProcess.start(List.of(other.resolve("bin/jcni").toString(),
                "serve", "--socket", socket.toString()), socket, Map.of())) {
            ProcessResult result = version(Locations.distPlugin("static"),
                    Map.of("JCNI_SERVICE_SOCKET", socket.toString(), "JCNI_DEBUG", "1"));
            assertThat(result.exitCode()).as(result.describe()).isZero();
            assertThat(result.stdout()).startsWith(VERSION_PREFIX);
            assertThat(result.stderr()).contains("a service of another jcni build; running the JVM launcher")
                    .contains("static: VERSION exec, pid").doesNotContain("via service");
            assertThat(service.log()).contains("listening on " + socket, "build another-build");
        }
    }

    static void assertCliStartsWithTheCache(Path jcni) {
        ProcessResult result = Processes.run(List.of(jcni.toString(), "--version"),
                Map.of("JCNI_JAVA_OPTS", "-XX:AOTMode=on"), null, Duration.ofSeconds(30));
        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertThat(result.stdout()).startsWith("jcni ");
        assertThat(result.stderr()).isEmpty();
    }

    @Test
    void theCliStartsWithItsCacheDirectlyThroughASymlinkAndAsACopy() throws IOException {
        Prerequisites.assumeJcniCli();
        assertCliStartsWithTheCache(Locations.distJcni());
        Path link = Files.createSymbolicLink(tmp.resolve("jcni-link"), Locations.distJcni());
        assertCliStartsWithTheCache(link);
        Path copy = Files.copy(Locations.distJcni(), tmp.resolve("jcni-copy"), StandardCopyOption.COPY_ATTRIBUTES);
        assertCliStartsWithTheCache(copy);
    }

    @Test
    void theCliRunsANetworkOfJcniPluginsAndTheVersionOfEach() throws IOException {
        Prerequisites.assumeJcniCli();
        Path confDir = Files.createDirectory(tmp.resolve("net.d"));
        Files.writeString(confDir.resolve("10-cli.conflist"), """
                {"cniVersion":"1.0.0","name":"cli-net",\
                "plugins":[{"type":"static","ipam":{"type":"static","addresses":\
                [{"address":"10.79.0.5/24"}]}}]}""");
        List<String> common = List.of(Locations.distJcni().toString(), "--conf-dir", confDir.toString(),
                "--cni-path", Locations.distCniBin().toString(), "--cache-dir", tmp.resolve("cache").toString());
        List<String> add = new ArrayList<>(common);
        add.addAll(List.of("add", "cli-net", tmp.resolve("no-netns").toString()));
        ProcessResult added = Processes.run(add, Map.of(), null, Duration.ofSeconds(60));
        assertThat(added.exitCode()).as(added.describe()).isZero();
        assertThat(added.stdout()).contains("\"address\": \"10.79.0.5/24\"");
        for (String type : SHIPPED) {
            List<String> version = List.of(Locations.distJcni().toString(), "--cni-path",
                    Locations.distCniBin().toString(), "version", type);
            ProcessResult result = Processes.run(version, Map.of(), null, Duration.ofSeconds(60));
            assertThat(result.exitCode()).as(result.describe()).isZero();
            assertThat(result.stdout()).contains("1.1.0");
        }
        List<String> del = new ArrayList<>(common);
        del.addAll(List.of("del", "cli-net", tmp.resolve("no-netns").toString()));
        assertThat(Processes.run(del, Map.of(), null, Duration.ofSeconds(60)).exitCode()).isZero();
    }

    @Test
    void jvmWarningsNeverReachStdout() {
        ProcessResult result = version(Locations.distPlugin("static"),
                Map.of("JCNI_JAVA_OPTS", "-XX:AOTCache=/nonexistent/jcni.aot"));
        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertThat(result.stdout()).startsWith(VERSION_PREFIX).endsWith("]}\n");
        assertThat(result.stderr()).contains("aot");
    }

    @Test
    void noCommandPrintsTheAboutTextAndExitsZero() {
        ProcessResult result = Processes.run(List.of(Locations.distPlugin("static").toString()),
                Map.of("CNI_COMMAND", ""), null, Duration.ofSeconds(30));
        assertThat(result.exitCode()).isZero();
        assertThat(result.stdout()).isEmpty();
        assertThat(result.stderr()).contains("CNI plugin static (jcni)");
    }

    @Test
    void anErrorIsJsonOnStdoutWithStatus1() {
        Map<String, String> env = Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1", "CNI_IFNAME", "eth0",
                "CNI_PATH", "/x");
        ProcessResult result = Processes.run(List.of(Locations.distPlugin("static").toString()), env, "{}",
                Duration.ofSeconds(30));
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.stdout()).isEqualTo("""
                {
                    "code": 4,
                    "msg": "required env variables [CNI_NETNS] missing"
                }""");
    }
}
