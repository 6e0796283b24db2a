package io.jcni.it.library;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Conflists;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Maven;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.plugins.Plugins;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.NetworkConfigs;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.NetworkConfigList;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Use as a library" as a user meets it: its code blocks (each after a {@code <!-- readme-example: NAME
 * -->} marker) are taken from README.md as they are, compiled with {@code javac} against the library's four artifacts
 * only (no test class path), and run in a fresh JVM with the flags the README gives. So the example, its network, the
 * output it shows, the {@code requires} lines and the native-access advice cannot drift from the code.
 */
class ReadmeExampleTest {
    private static final Pattern LIBRARY = Pattern.compile(
            ".*(/jcni-(spec-model|netlink-ffm|runtime|plugins-core)-[^/]*\\.jar"
                    + "|/(spec-model|netlink-ffm|runtime|plugins-core)/target/classes/?)$");

    @TempDir
    Path tmp;

    private Path classes;

    /** The library's artifacts as this JVM got them from the build: jars after package, class directories before. */
    static List<String> libraryPath() {
        Set<String> found = new LinkedHashSet<>();
        for (String property : List.of("jdk.module.path", "java.class.path")) {
            for (String entry : System.getProperty(property, "").split(File.pathSeparator)) {
                if (LIBRARY.matcher(entry).matches()) {
                    found.add(entry);
                }
            }
        }
        assertThat(found).as("the four library artifacts on this JVM's paths").hasSize(4);
        return List.copyOf(found);
    }

    static Path readme() {
        return Locations.dist().getParent().resolve("README.md");
    }

    /** The fenced block after {@code <!-- readme-example: name -->}, verbatim. */
    static String block(String name) throws IOException {
        String text = Files.readString(readme());
        Matcher m = Pattern.compile("<!-- readme-example: " + Pattern.quote(name) + " -->\\n```[a-z]*\\n(.*?)```\\n",
                Pattern.DOTALL).matcher(text);
        assertThat(m.find()).as("README block %s", name).isTrue();
        String block = m.group(1);
        assertThat(m.find()).as("README block %s appears once", name).isFalse();
        return block;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static ProcessResult javac(List<String> arguments) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "javac")
                .toString(), "-Xlint:all", "-Werror"));
        command.addAll(arguments);
        return Processes.run(command, Map.of(), null, Processes.DEFAULT_TIMEOUT);
    }

    private static String classPath(Path classes) {
        List<String> entries = new ArrayList<>(List.of(classes.toString()));
        entries.addAll(libraryPath());
        return String.join(File.pathSeparator, entries);
    }

    @BeforeEach
    void compileTheExample() throws IOException {
        classes = compile("AttachExample.java", tmp.resolve("classes"));
    }

    /** The README's block {@code name}, compiled against the library alone into {@code out}, without a warning. */
    private Path compile(String name, Path out) throws IOException {
        Path source = Files.writeString(Files.createDirectories(tmp.resolve("src-" + name)).resolve(name),
                block(name));
        ProcessResult compiled = javac(List.of("-d", out.toString(), "-cp",
                String.join(File.pathSeparator, libraryPath()), source.toString()));
        assertThat(compiled.succeeded()).as(compiled.describe()).isTrue();
        assertThat(compiled.stderr()).as("no warning").isEmpty();
        return out;
    }

    private Path staticNetwork() throws IOException {
        Path confDir = Files.createDirectories(tmp.resolve("net.d"));
        Files.writeString(confDir.resolve("10-example.conflist"), block("net.d/10-example.conflist"));
        return confDir;
    }

    @Test
    void theExampleRunsAsTheReadmeSaysAndPrintsWhatItShows() throws Exception {
        Path confDir = staticNetwork();
        Path cache = tmp.resolve("cache");

        ProcessResult run = Processes.run(List.of(java(), "--enable-native-access=ALL-UNNAMED", "-cp",
                classPath(classes), "AttachExample", confDir.toString(), "example", "/var/run/netns/none",
                cache.toString()), Map.of(), null, Processes.DEFAULT_TIMEOUT);

        assertThat(run.succeeded()).as(run.describe()).isTrue();
        assertThat(run.stdout()).isEqualTo(block("output"));
        assertThat(run.stderr()).isEmpty();
        try (Stream<Path> left = Files.list(cache.resolve("results"))) {
            assertThat(left).as("DEL removed the cache entry").isEmpty();
        }
    }

    /** The advice the README gives when the flag is missing is what the library says, naming the exact flag. */
    @Test
    void withoutNativeAccessTheExampleFailsAtOnceNamingTheClassPathFlag() throws Exception {
        Path confDir = staticNetwork();

        ProcessResult run = Processes.run(List.of(java(), "-cp", classPath(classes), "AttachExample",
                confDir.toString(), "example", "/var/run/netns/none", tmp.resolve("cache").toString()), Map.of(),
                null, Processes.DEFAULT_TIMEOUT);

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).isEmpty();
        assertThat(run.stderr()).contains("java.lang.IllegalStateException: jcni's plugins cannot run in this JVM: "
                + "native access is not enabled for the class path: start java with "
                + "--enable-native-access=ALL-UNNAMED");
        assertThat(tmp.resolve("cache")).as("nothing ran").doesNotExist();
    }

    /**
     * The README's {@code requires} lines compile a module that uses the runtime and the in-process plugins, which runs
     * on the module path with the named-module flag and fails at once, naming it, without. Jackson is not on the module
     * path: spec-model needs it only {@code static}.
     */
    @Test
    void theRequiresLinesMakeAWorkingModuleAndItsFlagIsTheNamedOne() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("module-src/com/example/runtime"));
        Files.writeString(tmp.resolve("module-src/module-info.java"), block("module-info.java"));
        Files.writeString(src.resolve("Probe.java"), """
                package com.example.runtime;

                import io.jcni.plugins.Plugins;
                import io.jcni.runtime.CniRuntime;
                import io.jcni.spec.CniVersion;
                import java.nio.file.Path;
                import java.util.List;

                public class Probe {
                    public static void main(String[] args) {
                        try (CniRuntime cni = CniRuntime.create(CniRuntime.Options.of(List.of(Path.of(args[0])))
                                .withCacheDir(Path.of(args[1])).withInProcess(Plugins.inProcess()))) {
                            System.out.println(cni.versionInfo("static").supports(CniVersion.LATEST));
                        }
                    }
                }
                """);
        Path out = tmp.resolve("module-classes");
        String modulePath = String.join(File.pathSeparator, libraryPath());
        ProcessResult compiled = javac(List.of("-d", out.toString(), "-p", modulePath,
                tmp.resolve("module-src/module-info.java").toString(), src.resolve("Probe.java").toString()));
        assertThat(compiled.succeeded()).as(compiled.describe()).isTrue();
        List<String> run = List.of("-p", out + File.pathSeparator + modulePath, "-m",
                "com.example.runtime/com.example.runtime.Probe", tmp.resolve("no-plugins").toString(),
                tmp.resolve("cache").toString());

        List<String> withFlag = new ArrayList<>(List.of(java(), "--enable-native-access=io.jcni.netlink"));
        withFlag.addAll(run);
        ProcessResult works = Processes.run(withFlag, Map.of(), null, Processes.DEFAULT_TIMEOUT);
        assertThat(works.succeeded()).as(works.describe()).isTrue();
        assertThat(works.stdout()).isEqualTo("true\n");
        assertThat(works.stderr()).isEmpty();

        List<String> withoutFlag = new ArrayList<>(List.of(java()));
        withoutFlag.addAll(run);
        ProcessResult fails = Processes.run(withoutFlag, Map.of(), null, Processes.DEFAULT_TIMEOUT);
        assertThat(fails.exitCode()).isEqualTo(1);
        assertThat(fails.stderr()).contains("jcni's plugins cannot run in this JVM: native access is not enabled for "
                + "module io.jcni.netlink: start java with --enable-native-access=io.jcni.netlink");
    }

    /**
     * The same example with a bridge network and a real container namespace, as root: it runs in a test host (a
     * namespace standing for the node, so the bridge and the host end of the veth are made there, never on this
     * machine), jcni's bridge in-process delegating to jcni's host-local found in CNI_PATH ({@code dist/cni/bin}, so
     * in-process too). What it printed was real, and after its DEL nothing of the attachment is left.
     */
    @Test
    void withABridgeNetworkItAttachesARealInterfaceAndRemovesIt() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("bridge", "host-local");
        String bridge = Names.link("rdm");
        try (TestHost host = TestHost.create("rdm")) {
            TestNetns container = host.container();
            Path confDir = Files.createDirectories(tmp.resolve("bridge.d"));
            Files.writeString(confDir.resolve("10-bridge.conflist"), Conflists.list("1.1.0", "readme-bridge",
                    Conflists.bridge(bridge, ",\"isGateway\":true", Conflists.hostLocal(tmp.resolve("ipam"),
                            List.of("10.216.7.0/24")))));

            ProcessResult run = host.run(List.of(java(), "--enable-native-access=ALL-UNNAMED", "-cp",
                    classPath(classes), "AttachExample", confDir.toString(), "readme-bridge",
                    container.path().toString(), tmp.resolve("cache").toString()),
                    Map.of("CNI_PATH", Locations.distCniBin().toString()), null, Processes.DEFAULT_TIMEOUT);

            assertThat(run.succeeded()).as(run.describe()).isTrue();
            List<String> lines = run.stdout().lines().toList();
            assertThat(lines).anyMatch(l -> l.matches("interface " + bridge + " ([0-9a-f]{2}:){5}[0-9a-f]{2}"));
            assertThat(lines).anyMatch(l -> l.matches("interface eth0 ([0-9a-f]{2}:){5}[0-9a-f]{2}"));
            assertThat(lines).contains("address 10.216.7.2/24 via 10.216.7.1",
                    "checked, deleted, collected, ready");
            assertThat(container.kernel().links()).extracting(IpLink::name).containsExactly("lo");
            assertThat(host.kernel().links()).noneMatch(l -> bridge.equals(l.master()));
            assertThat(tmp.resolve("ipam/readme-bridge/10.216.7.2")).doesNotExist();
            try (Stream<Path> left = Files.list(tmp.resolve("cache/results"))) {
                assertThat(left).isEmpty();
            }
        }
    }

    /**
     * The README's GC example: of two attachments of the static network, the one whose container still runs is kept
     * and the other is collected (its DEL run, its cache entry gone), as the README's output says.
     */
    @Test
    void theGcExampleKeepsTheRunningContainersAttachmentAndCollectsTheOther() throws Exception {
        Path gcClasses = compile("GcExample.java", tmp.resolve("gc-classes"));
        Path confDir = staticNetwork();
        Path cache = tmp.resolve("gc-cache");
        NetworkConfigList network = NetworkConfigs.load(confDir).require("example");
        try (CniRuntime cni = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.distCniBin()))
                .withCacheDir(cache).withInProcess(Plugins.inProcess()))) {
            for (String id : List.of("web-1", "web-2")) {
                cni.addNetworkList(network, new RuntimeConf(id, "/var/run/netns/none", "eth0"));
            }
        }

        ProcessResult run = Processes.run(List.of(java(), "-cp", classPath(gcClasses), "GcExample",
                confDir.toString(), "example", "web-1"), Map.of("CNI_PATH", Locations.distCniBin().toString(),
                "JCNI_CACHE_DIR", cache.toString()), null, Processes.DEFAULT_TIMEOUT);

        assertThat(run.succeeded()).as(run.describe()).isTrue();
        assertThat(run.stdout()).isEqualTo(block("gc-output"));
        try (Stream<Path> left = Files.list(cache.resolve("results"))) {
            assertThat(left).extracting(f -> f.getFileName().toString()).containsExactly("example-web-1-eth0");
        }
    }

    /**
     * The bar: a fresh Maven project written from the README (its {@code pom.xml} and
     * {@code SandboxExample.java}, under 30 lines) sets up two networks for one sandbox with port mappings and
     * bandwidth through {@code SandboxNetworks}. The library is installed into a Maven repository of the test's own,
     * as {@code ./mvnw install -Djcni.library} leaves it (the build's repository serves Maven's plugins); the project
     * is built with Maven and run as the README says, in a test host standing for the node, with the README's two
     * networks (their {@code /tmp/jcni-example} replaced by the test's directory) and jcni's plugins. What {@code add}
     * made is read back from the kernel: the sandbox's eth0 and eth1, port 8080 forwarded to eth0's address, both
     * host ends shaped; after {@code del} none of it is left.
     */
    @Test
    void aFreshMavenProjectFromTheReadmeSetsUpTwoNetworksWithPortMappingsAndBandwidth() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap", "bandwidth");
        String source = block("SandboxExample.java");
        assertThat(source.lines().count()).as("the example's lines").isLessThan(30);
        Path project = Files.createDirectories(tmp.resolve("sandbox-example/src/main/java")).getParent().getParent()
                .getParent();
        Files.writeString(project.resolve("pom.xml"), block("pom.xml"));
        Files.writeString(project.resolve("src/main/java/SandboxExample.java"), source);
        Path repository = installLibrary(tmp.resolve("repository"));

        ProcessResult build = Maven.run(project, repository, List.of("-q", "compile", "dependency:build-classpath",
                "-Dmdep.outputFile=cp.txt"), Duration.ofMinutes(10));
        assertThat(build.succeeded()).as(build.describe()).isTrue();
        String classPath = project.resolve("target/classes") + File.pathSeparator
                + Files.readString(project.resolve("cp.txt")).strip();
        assertThat(classPath).as("the library came from the test's repository").contains(repository.toString());

        Path example = tmp.resolve("example");
        Path confDir = Files.createDirectories(tmp.resolve("sandbox-net.d"));
        for (String conf : List.of("net.d/10-red.conflist", "net.d/20-blue.conflist")) {
            assertThat(block(conf)).contains("\"dataDir\": \"/tmp/jcni-example/ipam\"");
            Files.writeString(confDir.resolve(Path.of(conf).getFileName()),
                    block(conf).replace("/tmp/jcni-example", example.toString()));
        }
        Map<String, String> env = Map.of("CNI_PATH", Locations.distCniBin().toString(), "NETCONFPATH",
                confDir.toString(), "JCNI_CACHE_DIR", example.resolve("cache").toString());
        try (TestHost host = TestHost.create("rmg")) {
            TestNetns sandbox = host.container();
            List<String> run = List.of(java(), "-cp", classPath, "SandboxExample");

            ProcessResult add = host.run(concat(run, "add", "sandbox-1", sandbox.path().toString()), env, null,
                    Duration.ofMinutes(3));

            assertThat(add.succeeded()).as(add.describe()).isTrue();
            assertThat(add.stdout()).isEqualTo(block("sandbox-output"));
            assertThat(sandbox.kernel().addresses()).extracting(IpAddress::cidr)
                    .contains("10.22.0.2/24", "10.23.0.2/24");
            assertThat(sandbox.kernel().links()).extracting(IpLink::name).contains("eth0", "eth1");
            String rules = host.exec("nft", "list", "ruleset").requireSuccess().stdout();
            assertThat(rules).as("portmap: hostPort 8080 to eth0's address").contains("tcp dport 8080")
                    .contains("10.22.0.2");
            List<String> veths = host.kernel().links().stream().filter(l -> "veth".equals(l.kind()))
                    .map(IpLink::name).toList();
            assertThat(veths).hasSize(2);
            for (String veth : veths) {
                assertThat(host.exec("tc", "qdisc", "show", "dev", veth).requireSuccess().stdout())
                        .as("bandwidth: " + veth + " shaped").contains("tbf");
            }
            assertThat(host.kernel().links()).filteredOn(l -> "ifb".equals(l.kind())).as("bandwidth: egress ifbs")
                    .hasSize(2);

            ProcessResult del = host.run(concat(run, "del", "sandbox-1", sandbox.path().toString()), env, null,
                    Duration.ofMinutes(3));

            assertThat(del.succeeded()).as(del.describe()).isTrue();
            assertThat(del.stdout()).isEmpty();
            assertThat(sandbox.kernel().links()).extracting(IpLink::name).containsExactly("lo");
            assertThat(host.kernel().links()).noneMatch(l -> "veth".equals(l.kind()) || "ifb".equals(l.kind()));
            assertThat(host.exec("nft", "list", "ruleset").requireSuccess().stdout()).doesNotContain("10.22.0.2");
            assertThat(example.resolve("ipam/red/10.22.0.2")).doesNotExist();
            assertThat(example.resolve("ipam/blue/10.23.0.2")).doesNotExist();
            try (Stream<Path> left = Files.list(example.resolve("cache/results"))) {
                assertThat(left).isEmpty();
            }
        }
    }

    private static List<String> concat(List<String> head, String... tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(List.of(tail));
        return all;
    }

    /**
     * The library's four jars (from this JVM's paths, the build's) with their POMs and the parent POM (from the
     * checkout) in a Maven repository's layout under {@code repository}, as an install leaves them.
     */
    static Path installLibrary(Path repository) throws IOException {
        String version = System.getProperty("jcni.it.projectVersion", "");
        Prerequisites.require(!version.isEmpty(), () -> "the project version (system property jcni.it.projectVersion,"
                + " set by it/pom.xml)");
        Map<String, String> modules = new TreeMap<>(Map.of("jcni-spec-model", "spec-model", "jcni-netlink-ffm",
                "netlink-ffm", "jcni-runtime", "runtime", "jcni-plugins-core", "plugins-core"));
        Path checkout = Maven.checkout();
        for (String entry : libraryPath()) {
            Path jar = Path.of(entry);
            Prerequisites.require(Files.isRegularFile(jar) && entry.endsWith(".jar"),
                    () -> "the library's jars (the it tests run after the library is packaged): " + entry);
            String artifact = modules.keySet().stream().filter(a -> jar.getFileName().toString().startsWith(a + "-"))
                    .findFirst().orElseThrow();
            Path dir = Files.createDirectories(repository.resolve("io/jcni").resolve(artifact).resolve(version));
            Files.copy(jar, dir.resolve(artifact + "-" + version + ".jar"));
            Files.copy(checkout.resolve(modules.get(artifact)).resolve("pom.xml"),
                    dir.resolve(artifact + "-" + version + ".pom"));
        }
        Path parent = Files.createDirectories(repository.resolve("io/jcni/jcni-parent").resolve(version));
        Files.copy(checkout.resolve("pom.xml"), parent.resolve("jcni-parent-" + version + ".pom"));
        return repository;
    }
}
