package io.jcni.it.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.jcni.it.support.Prerequisites;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * No silent pass: in the it module, only {@link Prerequisites} skips a test (for want of root, or for a kernel
 * feature, each with its fixed prefix, which {@code SkipReport} lists at the end of the run); everything else a test
 * needs is a failure when missing. So no test class may use JUnit's assumptions, abort a test itself, or disable
 * itself on a condition.
 */
class NoSilentSkipTest {

    @Test
    void onlyPrerequisitesSkipsATest() throws URISyntaxException {
        Path testClasses = Path.of(Prerequisites.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        JavaClasses classes = new ClassFileImporter().importPath(testClasses);
        assertThat(classes.size()).as("test classes imported from %s", testClasses).isGreaterThan(100);
        // control: the importer sees the one sanctioned use
        assertThat(classes.get(Prerequisites.class).getDirectDependenciesFromSelf())
                .anyMatch(d -> d.getTargetClass().getName().equals("org.junit.jupiter.api.Assumptions"));
        noClasses().that().doNotHaveFullyQualifiedName(Prerequisites.class.getName())
                .should().dependOnClassesThat().haveFullyQualifiedName("org.junit.jupiter.api.Assumptions")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.opentest4j.TestAbortedException")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.junit.jupiter.api.extension.ConditionEvaluationResult")
                .orShould().dependOnClassesThat().resideInAPackage("org.junit.jupiter.api.condition")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("org.junit.jupiter.api.Disabled")
                .check(classes);
    }
}
