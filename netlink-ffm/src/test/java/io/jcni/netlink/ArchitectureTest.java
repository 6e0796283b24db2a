package io.jcni.netlink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.jcni.netlink.internal.ffm.NativeAccess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The module's shape: java.lang.foreign only in the native package; the API does not leak internal types. */
class ArchitectureTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() throws Exception {
        Path main = Path.of(NativeAccess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        classes = new ClassFileImporter().importPath(main);
        // The importer really sees the module, so the rules below cannot pass vacuously.
        assertThat(classes.size()).isGreaterThan(40);
        assertThat(classes.contain(NativeAccess.class)).isTrue();
        assertThat(classes.get(NativeAccess.class).getDirectDependenciesFromSelf())
                .anyMatch(d -> d.getTargetClass().getPackageName().equals("java.lang.foreign"));
    }

    @Test
    void onlyTheNativePackageUsesJavaLangForeign() {
        noClasses().that().resideOutsideOfPackage("io.jcni.netlink.internal.ffm..")
                .should().dependOnClassesThat().resideInAPackage("java.lang.foreign..")
                .check(classes);
    }

    @Test
    void nothingDependsOnOtherJcniModules() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("io.jcni.spec..", "io.jcni.runtime..",
                "io.jcni.plugins..").check(classes);
    }

    @Test
    void publicApiTypesAreFinalInterfacesRecordsOrEnums() {
        // KernelException is the one sealed class: NetlinkException is its only subclass.
        classes().that().resideInAnyPackage("io.jcni.netlink", "io.jcni.netlink.nft", "io.jcni.netlink.sys")
                .and().arePublic().and().areTopLevelClasses()
                .should().haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL)
                .orShould().beInterfaces().orShould().beRecords().orShould().beEnums()
                .orShould(com.tngtech.archunit.lang.conditions.ArchConditions.be(
                        com.tngtech.archunit.base.DescribedPredicate.describe("sealed",
                                (JavaClass c) -> c.reflect().isSealed())))
                .check(classes);
    }

    @Test
    void internalPackagesDoNotLeakIntoPublicSignatures() {
        com.tngtech.archunit.lang.ArchRule rule = com.tngtech.archunit.library.GeneralCodingRules
                .NO_CLASSES_SHOULD_THROW_GENERIC_EXCEPTIONS;
        rule.check(classes.that(com.tngtech.archunit.base.DescribedPredicate.describe("in the API package",
                c -> c.getPackageName().startsWith("io.jcni.netlink") && !c.getPackageName().contains("internal"))));
        classes.stream().filter(c -> !c.getPackageName().contains(".internal") && c.getModifiers()
                .contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
                .flatMap(c -> c.getMethods().stream())
                .filter(m -> m.getModifiers().contains(com.tngtech.archunit.core.domain.JavaModifier.PUBLIC))
                .forEach(m -> {
                    assertThat(m.getRawReturnType().getPackageName()).as("return type of %s", m.getFullName())
                            .doesNotStartWith("io.jcni.netlink.internal");
                    m.getRawParameterTypes().forEach(p -> assertThat(p.getPackageName())
                            .as("parameter of %s", m.getFullName()).doesNotStartWith("io.jcni.netlink.internal"));
                });
    }

    /**
     * The wire layer, the typed rtnetlink ops and nf_tables run on every plugin's start-up path: none of their classes
     * may bootstrap an invokedynamic call site (a lambda or method reference, an indy string concatenation, a type
     * switch), each of which costs milliseconds on its first use in a fresh JVM. nf_tables' expression, verdict and
     * element records write {@code equals}/{@code hashCode}/{@code toString} out, so a plugin comparing rules on its
     * start-up path bootstraps nothing either.
     */
    @Test
    void theWireLayerTypedOpsAndNftablesBootstrapNoCallSites() throws Exception {
        Path main = Path.of(NativeAccess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> checked = new ArrayList<>();
        List<String> offenders = new ArrayList<>();
        for (String dir : List.of("io/jcni/netlink/internal/wire", "io/jcni/netlink/internal/rtnl",
                "io/jcni/netlink/internal/nft", "io/jcni/netlink/nft")) {
            try (Stream<Path> files = Files.list(main.resolve(dir))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                    String name = main.relativize(f).toString();
                    String bytes = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
                    checked.add(name);
                    for (String bootstrap : List.of("java/lang/invoke/LambdaMetafactory",
                            "java/lang/invoke/StringConcatFactory", "java/lang/runtime/SwitchBootstraps")) {
                        if (bytes.contains(bootstrap)) {
                            offenders.add(name + " uses " + bootstrap);
                        }
                    }
                    boolean writtenOut = name.contains("nft/Expr$") || name.endsWith("nft/Verdict.class")
                            || name.endsWith("nft/SetElement.class");
                    if (writtenOut && bytes.contains("java/lang/runtime/ObjectMethods")) {
                        offenders.add(name + " bootstraps record methods");
                    }
                }
            }
        }
        assertThat(checked).as("the scan sees the classes").contains("io/jcni/netlink/internal/wire/Channel.class",
                "io/jcni/netlink/internal/rtnl/Ops.class", "io/jcni/netlink/internal/nft/ExprCodec.class",
                "io/jcni/netlink/nft/Exprs.class", "io/jcni/netlink/nft/Expr$Cmp.class");
        assertThat(offenders).isEmpty();
    }
}
