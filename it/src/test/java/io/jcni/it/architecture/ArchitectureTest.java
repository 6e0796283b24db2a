package io.jcni.it.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.properties.HasName;
import com.tngtech.archunit.core.domain.properties.HasOwner;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ResolvedModule;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency table of docs/ARCHITECTURE.md, checked on the compiled classes of every jcni module.
 *
 * <p>Each module's classes are imported from where the module system resolved it (jar or classes directory), so the
 * rules see exactly what ships. Every rule comes with a positive control proving the importer would see a violation
 * of that kind: a rule that forbids a dependency is paired with evidence that the same kind of dependency is detected
 * somewhere it is allowed. Without that, a broken import (zero classes, or dependencies not resolved) would make every
 * "no classes should" rule pass vacuously.
 */
class ArchitectureTest {
    private static final String SPEC = "io.jcni.spec";
    private static final String RUNTIME = "io.jcni.runtime";
    private static final String NETLINK = "io.jcni.netlink";
    private static final String PLUGINS = "io.jcni.plugins";
    private static final List<String> MODULES = List.of(SPEC, RUNTIME, NETLINK, PLUGINS);

    /** The only package allowed to touch java.lang.foreign (netlink-ffm's native layer). */
    private static final String NATIVE_PACKAGE = "io.jcni.netlink.internal.ffm..";

    private static final Map<String, JavaClasses> byModule = new TreeMap<>();
    private static JavaClasses all;

    @BeforeAll
    static void importEveryModule() {
        Path[] locations = new Path[MODULES.size()];
        for (int i = 0; i < MODULES.size(); i++) {
            String module = MODULES.get(i);
            ResolvedModule resolved = ModuleLayer.boot().configuration().findModule(module)
                    .orElseThrow(() -> new AssertionError(module + " is not in the boot layer; is the test on the module path?"));
            URI location = resolved.reference().location()
                    .orElseThrow(() -> new AssertionError(module + " has no location"));
            locations[i] = Path.of(location);
            byModule.put(module, importLocation(locations[i]));
        }
        all = new ClassFileImporter().importLocations(locationsOf(locations));
    }

    @Test
    void theImporterSeesEveryModule() {
        // Thresholds well below the real sizes; what matters is that no module is imported empty or partially.
        Map<String, Integer> atLeast = Map.of(SPEC, 20, RUNTIME, 5, NETLINK, 40, PLUGINS, 5);
        for (String module : MODULES) {
            JavaClasses classes = byModule.get(module);
            assertThat(classes.size()).as("classes imported from %s", module).isGreaterThanOrEqualTo(atLeast.get(module));
            assertThat(classes).as("every class imported for %s lives in its packages", module)
                    .allMatch(c -> c.getPackageName().startsWith(module));
        }
    }

    @Test
    void specModelDependsOnNoOtherJcniModule() {
        assertDependencyDetected(RUNTIME, SPEC);   // control: runtime does use spec-model, and the importer sees it
        rule(SPEC + "..", RUNTIME + "..", NETLINK + "..", PLUGINS + "..").check(all);
    }

    @Test
    void specModelNeitherTouchesTheOsNorExecs() {
        assertDependencyDetected(RUNTIME, "java.lang.ProcessBuilder");   // control: the runtime execs plugins
        noClasses().that().resideInAPackage(SPEC + "..")
                .should().dependOnClassesThat().resideInAnyPackage("java.nio.file..", "java.lang.foreign..",
                        "java.net.http..")
                .orShould().dependOnClassesThat().belongToAnyOf(ProcessBuilder.class, Process.class,
                        ProcessHandle.class, Runtime.class, java.io.File.class, java.io.FileInputStream.class,
                        java.io.FileOutputStream.class, java.io.RandomAccessFile.class)
                .check(all);
    }

    @Test
    void runtimeKnowsNoPluginAndNoNetlink() {
        assertDependencyDetected(PLUGINS, RUNTIME);   // control: plugins-core uses the runtime (delegation)
        assertDependencyDetected(PLUGINS, NETLINK);   // control: and netlink-ffm
        rule(RUNTIME + "..", PLUGINS + "..", NETLINK + "..").check(all);
    }

    @Test
    void netlinkDependsOnNoOtherJcniModule() {
        rule(NETLINK + "..", SPEC + "..", RUNTIME + "..", PLUGINS + "..").check(all);
    }

    @Test
    void onlyNetlinkNativePackageUsesJavaLangForeign() {
        assertDependencyDetected(NETLINK, "java.lang.foreign");   // control: the native layer does use it
        noClasses().that().resideOutsideOfPackage(NATIVE_PACKAGE)
                .should().dependOnClassesThat().resideInAPackage("java.lang.foreign..")
                .check(all);
    }

    @Test
    void pluginsNeverExecAnything() {
        // Plugins never exec ip, iptables or nft; delegating to another plugin goes through the runtime's Delegation.
        assertDependencyDetected(RUNTIME, "java.lang.ProcessBuilder");   // control
        // Runtime.halt (the skel exits that way after flushing) is fine; Runtime.exec is not.
        noClasses().that().resideInAPackage(PLUGINS + "..")
                .should().dependOnClassesThat().belongToAnyOf(ProcessBuilder.class)
                .orShould().callMethodWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                        JavaClass.Predicates.equivalentTo(Runtime.class))).and(
                        JavaCall.Predicates.target(HasName.Predicates.name("exec"))))
                .check(all);
    }

    /** The JDK's text-to-address entry points (each reads literals; getByName/getAllByName also resolve names). */
    private static final List<String> TEXT_TO_ADDRESS = List.of("getByName", "getAllByName", "ofLiteral",
            "ofPosixLiteral");

    @Test
    void onlySpecModelsIpTextReadsIpAddressText() {
        // Control: the importer sees calls to InetAddress's static factories (IpText builds addresses from bytes).
        assertThat(all.get("io.jcni.spec.IpText").getMethodCallsFromSelf())
                .anyMatch(call -> call.getTargetOwner().isAssignableTo(InetAddress.class)
                        && call.getName().equals("getByAddress"));
        noClasses().should().callMethodWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                JavaClass.Predicates.assignableTo(InetAddress.class))).and(JavaCall.Predicates.target(
                HasName.Predicates.nameMatching(String.join("|", TEXT_TO_ADDRESS)))))
                .because("IP text is read in one place, io.jcni.spec.IpText (Go's net.ParseIP rules, no resolver)")
                .check(all);
    }

    @Test
    void addressesArePrintedByIpTextOutsideNetlinkMessages() {
        // Control: netlink-ffm prints addresses in its request texts (InetAddress#getHostAddress), and is allowed to.
        assertThat(byModule.get(NETLINK).get("io.jcni.netlink.Route").getMethodCallsFromSelf())
                .anyMatch(call -> call.getName().equals("getHostAddress"));
        noClasses().that().resideOutsideOfPackage(NETLINK + "..")
                .should().callMethodWhere(JavaCall.Predicates.target(HasOwner.Predicates.With.owner(
                        JavaClass.Predicates.assignableTo(InetAddress.class))).and(JavaCall.Predicates.target(
                        HasName.Predicates.name("getHostAddress"))))
                .because("results, files and messages print addresses as Go does, through io.jcni.spec.IpText")
                .check(all);
    }

    @Test
    void oneIpPrefixClassAcrossTheModules() {
        assertThat(all.contain("io.jcni.spec.IpPrefix")).as("control: the importer sees the prefix class").isTrue();
        classes().that().haveSimpleNameEndingWith("Prefix").should().haveFullyQualifiedName("io.jcni.spec.IpPrefix")
                .because("an address with a prefix length is io.jcni.spec.IpPrefix everywhere; netlink-ffm, which"
                        + " knows no jcni type, takes an InetAddress and an int")
                .check(all);
    }

    @Test
    void modulesExportNoInternalPackageToEveryone() {
        for (String module : MODULES) {
            ModuleDescriptor descriptor = ModuleLayer.boot().findModule(module).orElseThrow().getDescriptor();
            assertThat(descriptor.exports()).as("exports of %s", module).isNotEmpty();
            for (ModuleDescriptor.Exports export : descriptor.exports()) {
                if (export.source().contains(".internal")) {
                    assertThat(export.isQualified())
                            .as("%s exports its implementation package %s to everyone", module, export.source())
                            .isTrue();
                    assertThat(export.targets()).as("%s exports %s to", module, export.source())
                            .allMatch(t -> t.startsWith("io.jcni."));
                }
            }
        }
    }

    /** A module is a jar in a full build and a classes directory when run from an IDE; ArchUnit needs a Location
     *  that knows which (importPath alone silently imports nothing from a jar). */
    private static JavaClasses importLocation(Path path) {
        return new ClassFileImporter().importLocations(locationsOf(path));
    }

    private static List<Location> locationsOf(Path... paths) {
        List<Location> result = new ArrayList<>();
        for (Path path : paths) {
            result.add(Files.isDirectory(path) ? Location.of(path) : Location.of(jarUri(path)));
        }
        return result;
    }

    private static URI jarUri(Path jar) {
        return URI.create("jar:" + jar.toUri() + "!/");
    }

    private static ArchRule rule(String owner, String... forbidden) {
        return noClasses().that().resideInAPackage(owner).should().dependOnClassesThat().resideInAnyPackage(forbidden);
    }

    /** Proves that a dependency from {@code fromModule}'s classes onto {@code targetPrefix} is visible to the importer. */
    private static void assertDependencyDetected(String fromModule, String targetPrefix) {
        boolean seen = false;
        for (JavaClass c : byModule.get(fromModule)) {
            if (c.getDirectDependenciesFromSelf().stream()
                    .anyMatch(d -> d.getTargetClass().getName().startsWith(targetPrefix))) {
                seen = true;
                break;
            }
        }
        assertThat(seen).as("control: some class of %s depends on %s", fromModule, targetPrefix).isTrue();
    }
}
