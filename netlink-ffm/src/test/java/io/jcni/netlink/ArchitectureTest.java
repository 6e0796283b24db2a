package io.jcni.netlink;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.jcni.netlink.internal.ffm.NativeAccess;
import java.nio.file.Path;
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
        classes().that().resideInAPackage("io.jcni.netlink").and().arePublic().and().areTopLevelClasses()
                .should().haveModifier(com.tngtech.archunit.core.domain.JavaModifier.FINAL)
                .orShould().beInterfaces().orShould().beRecords().orShould().beEnums()
                .check(classes);
    }

    @Test
    void internalPackagesDoNotLeakIntoPublicSignatures() {
        com.tngtech.archunit.lang.ArchRule rule = com.tngtech.archunit.library.GeneralCodingRules
                .NO_CLASSES_SHOULD_THROW_GENERIC_EXCEPTIONS;
        rule.check(classes.that(com.tngtech.archunit.base.DescribedPredicate.describe("in the API package",
                c -> c.getPackageName().equals("io.jcni.netlink"))));
        classes.stream().filter(c -> c.getPackageName().equals("io.jcni.netlink") && c.getModifiers()
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
}
