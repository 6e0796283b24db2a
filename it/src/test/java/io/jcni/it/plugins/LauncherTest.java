package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
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
 * The shipped launchers of {@code dist/cni/bin}: how runtimes reach them (directly, through a symlink, a symlinked
 * directory, a copy in another directory, a copy of the whole dist tree), with the AOT cache accepted every time,
 * and a stdout that carries nothing but the CNI answer even when the JVM complains.
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

    static ProcessResult version(Path executable, Map<String, String> extra) {
        Map<String, String> env = new java.util.HashMap<>(extra);
        env.put("CNI_COMMAND", "VERSION");
        return Processes.run(List.of(executable.toString()), env, null, Duration.ofSeconds(30));
    }

    /** VERSION with the cache required: -XX:AOTMode=on refuses to start if the JVM rejects the cache. */
    static void assertStartsWithTheCache(Path executable) {
        ProcessResult result = version(executable, Map.of("JCNI_JAVA_OPTS", "-XX:AOTMode=on"));
        assertThat(result.exitCode()).as(result.describe()).isZero();
        assertThat(result.stdout()).startsWith(VERSION_PREFIX).endsWith("]}\n");
        assertThat(result.stderr()).as("a stale or rejected cache warns on stderr").isEmpty();
    }

    @Test
    void everyShippedTypeHasALauncherAndNothingElseIsThere() throws IOException {
        List<String> names = new ArrayList<>();
        for (Path launcher : launchers()) {
            names.add(launcher.getFileName().toString());
            assertThat(Files.isExecutable(launcher)).as(launcher.toString()).isTrue();
        }
        assertThat(names).containsAll(SHIPPED);
    }

    @Test
    void eachLauncherCarriesTheRuntimesMarkerLineSoDelegationRecognizesIt() throws IOException {
        for (Path launcher : launchers()) {
            String type = launcher.getFileName().toString();
            byte[] head = Files.readAllBytes(launcher);
            String window = new String(head, 0, Math.min(JcniLaunchers.MARKER_WINDOW, head.length),
                    StandardCharsets.UTF_8);
            assertThat(window.lines()).contains(JcniLaunchers.markerLine(type));
            assertThat(JcniLaunchers.pluginType(launcher)).contains(type);
        }
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
