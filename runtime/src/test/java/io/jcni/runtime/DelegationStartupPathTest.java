package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.runtime.internal.DelegationImpl;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Delegation runs inside the start-up of every delegating plugin (bridge calling host-local), where each first use of
 * a lambda, an indy string concatenation or a type switch costs a bootstrap (spec-model's StartupPathTest measured
 * ~60 ms for its codec). The contract types, {@link DelegationImpl} and the exec engine must not use them.
 */
class DelegationStartupPathTest {
    private static final List<String> FORBIDDEN = List.of("java/lang/invoke/LambdaMetafactory",
            "java/lang/invoke/StringConcatFactory", "java/lang/runtime/SwitchBootstraps");

    @Test
    void theDelegationPathHasNoLambdaStringConcatOrTypeSwitchBootstraps() throws Exception {
        Path classes = Path.of(DelegationImpl.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<Path> scanned = new ArrayList<>();
        for (String name : List.of("Delegation", "InProcessPlugin", "InProcessPlugins", "JcniLaunchers")) {
            scanned.add(classes.resolve("io/jcni/runtime/" + name + ".class"));
        }
        scanned.add(classes.resolve("io/jcni/runtime/internal/DelegationImpl.class"));
        try (Stream<Path> exec = Files.list(classes.resolve("io/jcni/runtime/internal/exec"))) {
            exec.filter(f -> f.toString().endsWith(".class")).forEach(scanned::add);
        }
        List<String> offenders = new ArrayList<>();
        for (Path file : scanned) {
            String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            for (String bootstrap : FORBIDDEN) {
                if (bytes.contains(bootstrap)) {
                    offenders.add(classes.relativize(file) + " uses " + bootstrap);
                }
            }
        }
        assertThat(scanned).as("the scan must see the engine")
                .contains(classes.resolve("io/jcni/runtime/internal/exec/ProcessRunner.class"),
                        classes.resolve("io/jcni/runtime/internal/exec/PluginInvoker.class"))
                .hasSizeGreaterThan(10);
        assertThat(offenders).isEmpty();
    }
}
