package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Json;
import io.jcni.it.support.Maven;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two builds of the same commit give the same library jars, byte for byte: the main, sources and javadoc jars of the
 * four library modules, as {@code ./mvnw -B package -Djcni.library} makes them for publication
 * ({@code project.build.outputTimestamp} is set in the parent POM), and the same SBOMs.
 *
 * <p>The commit is exported twice ({@code git archive HEAD}, the committed tree; uncommitted changes are not in it)
 * into two fresh directories of different paths, and built in both at once (test sources not compiled:
 * {@code -Dmaven.test.skip}), the second with another time zone and locale, so that nothing of the clock, the
 * locale or the checkout's location may leak into a jar. Both with umask 022: the sources and javadoc jars record
 * each file's Unix mode, which comes from the umask (maven-source-plugin 3.3.1 and maven-javadoc-plugin 3.11.2 do not
 * normalize it; the main jars carry no modes), so a release is built with umask 022, as CHANGELOG.md says.
 *
 * <p>CI cost: two library builds in parallel, about 95 s of CPU each with javadoc (measured here); 2-4 minutes of wall
 * time on two busy cores.
 */
class ReproducibleBuildTest {
    static final List<String> MODULES = List.of("spec-model", "netlink-ffm", "runtime", "plugins-core");

    @TempDir
    static Path tmp;

    static String commit;
    static Path first;
    static Path second;

    /** The commit exported twice and built in both copies at once. */
    @BeforeAll
    static void buildTwice() throws Exception {
        Prerequisites.assumeCommand("git");
        Prerequisites.assumeCommand("tar");
        commit = Processes.run(List.of("git", "-C", Maven.checkout().toString(), "rev-parse", "HEAD"),
                Map.of(), null, Processes.DEFAULT_TIMEOUT).requireSuccess().stdout().strip();
        first = export(commit, tmp.resolve("a"));
        second = export(commit, tmp.resolve("second-copy/of/the/same/commit"));
        List<ProcessResult> builds;
        try (ExecutorService both = Executors.newFixedThreadPool(2)) {
            Future<ProcessResult> one = both.submit(() -> build(first, Map.of()));
            Future<ProcessResult> two = both.submit(() -> build(second,
                    Map.of("TZ", "Pacific/Chatham", "LC_ALL", "C.UTF-8", "LANG", "C.UTF-8")));
            builds = List.of(one.get(), two.get());
        }
        for (ProcessResult build : builds) {
            assertThat(build.succeeded()).as(build.describe()).isTrue();
        }
    }

    @Test
    void twoBuildsOfTheSameCommitGiveIdenticalLibraryJars() throws Exception {
        Map<String, Path> jars = files(first, ".jar");
        assertThat(jars.keySet()).as("main, sources and javadoc jar of each library module").hasSize(12);
        List<String> differences = new ArrayList<>();
        for (Map.Entry<String, Path> jar : jars.entrySet()) {
            Path other = second.resolve(jar.getKey());
            if (!Files.exists(other)) {
                differences.add(jar.getKey() + ": missing from the second build");
            } else if (!Arrays.equals(Files.readAllBytes(jar.getValue()), Files.readAllBytes(other))) {
                differences.add(jar.getKey() + ": " + entriesThatDiffer(jar.getValue(), other));
            }
        }
        assertThat(differences).as("jars of commit " + commit + " that differ between the two builds").isEmpty();
    }

    /**
     * Each library module has its CycloneDX SBOM ({@code target/bom.json}, the library profile's
     * cyclonedx-maven-plugin): the module itself under Apache-2.0 and what a consumer gets with it; the same in both builds.
     */
    @Test
    void eachLibraryModuleHasItsSbomListingWhatComesWithIt() throws Exception {
        Map<String, Path> boms = files(first, "bom.json");
        assertThat(boms).hasSize(MODULES.size());
        for (Map.Entry<String, Path> bom : boms.entrySet()) {
            assertThat(Files.readString(bom.getValue())).as(bom.getKey() + " in both builds")
                    .isEqualTo(Files.readString(second.resolve(bom.getKey())));
        }
        JsonNode runtime = Json.read(first.resolve("runtime/target/bom.json"));
        assertThat(runtime.path("bomFormat").asText()).isEqualTo("CycloneDX");
        assertThat(runtime.path("metadata").path("component").path("purl").asText())
                .startsWith("pkg:maven/io.jcni/jcni-runtime@");
        assertThat(runtime.path("metadata").path("component").path("licenses").get(0).path("license").path("id")
                .asText()).isEqualTo("Apache-2.0");
        List<String> components = new ArrayList<>();
        for (JsonNode component : runtime.path("components")) {
            components.add(component.path("group").asText() + ":" + component.path("name").asText() + " "
                    + component.path("scope").asText());
        }
        assertThat(components).containsExactly("io.jcni:jcni-spec-model required");
        List<String> pluginsCore = new ArrayList<>();
        for (JsonNode component : Json.read(first.resolve("plugins-core/target/bom.json")).path("components")) {
            pluginsCore.add(component.path("name").asText());
        }
        assertThat(pluginsCore).contains("jcni-runtime", "jcni-netlink-ffm", "jcni-spec-model");
    }

    /** The committed tree of {@code commit} in {@code dir}, as a fresh checkout has it. */
    private static Path export(String commit, Path dir) throws IOException {
        Files.createDirectories(dir);
        ProcessResult export = Processes.run(List.of("sh", "-c", "umask 022; git -C \"$1\" archive \"$2\" | tar -x -C "
                + "\"$3\"", "sh", Maven.checkout().toString(), commit, dir.toString()), Map.of(), null,
                Duration.ofMinutes(2));
        assertThat(export.succeeded()).as(export.describe()).isTrue();
        return dir;
    }

    private static ProcessResult build(Path dir, Map<String, String> env) {
        List<String> mvn = Maven.command(dir, null, List.of("-q", "package", "-Djcni.library",
                "-Dmaven.test.skip=true"));
        List<String> command = new ArrayList<>(List.of("sh", "-c", "umask 022; cd \"$1\" && shift && exec \"$@\"",
                "sh", dir.toString()));
        command.addAll(mvn);
        Map<String, String> environment = new HashMap<>(env);
        environment.put("MAVEN_OPTS", "");
        environment.put("MAVEN_ARGS", "");
        return Processes.run(command, environment, null, Duration.ofMinutes(15));
    }

    /** The files of the library modules' target directories whose names end so, by path relative to the build. */
    private static Map<String, Path> files(Path build, String suffix) throws IOException {
        Map<String, Path> found = new TreeMap<>();
        for (String module : MODULES) {
            try (Stream<Path> files = Files.list(build.resolve(module).resolve("target"))) {
                files.filter(f -> f.getFileName().toString().endsWith(suffix))
                        .forEach(f -> found.put(build.relativize(f).toString(), f));
            }
        }
        return found;
    }

    /** What differs between two jars: entries present in one only, or with other content or time. */
    private static String entriesThatDiffer(Path a, Path b) throws IOException {
        Map<String, String> left = entries(a);
        Map<String, String> right = entries(b);
        List<String> differ = new ArrayList<>();
        for (String name : left.keySet()) {
            if (!left.get(name).equals(right.get(name))) {
                differ.add(name);
            }
        }
        for (String name : right.keySet()) {
            if (!left.containsKey(name)) {
                differ.add(name);
            }
        }
        return differ.isEmpty() ? "the same entries with the same contents and times: other metadata (Unix modes: "
                + "was the umask 022?) or order" : "entries " + differ;
    }

    private static Map<String, String> entries(Path jar) throws IOException {
        Map<String, String> entries = new TreeMap<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                entries.put(entry.getName(), entry.getCrc() + "/" + entry.getSize() + "/" + entry.getTime());
            }
        }
        return entries;
    }
}
