package io.jcni.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.sdk.Skel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Guards the plugin start-up budget (docs/ARCHITECTURE.md): every class of this module may run in a plugin exec,
 * where the first use of a lambda, an indy string concatenation or a pattern switch costs an invokedynamic bootstrap
 * (milliseconds each without an AOT cache, and a stale cache is possible). Anonymous or named classes instead.
 * Record {@code equals}/{@code hashCode}/{@code toString} (ObjectMethods) stay allowed here: they bootstrap only
 * when called; {@link ExecPathLinkageTest} checks that exec'd plugins call none (the host-local engine's value records
 * write theirs out).
 */
class StartupPathTest {
    private static final List<String> FORBIDDEN = List.of("java/lang/invoke/LambdaMetafactory",
            "java/lang/invoke/StringConcatFactory", "java/lang/runtime/SwitchBootstraps");

    @Test
    void noInvokedynamicBootstrapsInTheMainClasses() throws Exception {
        Path classes = Path.of(Skel.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(classes).isDirectory();
        List<String> checked = new ArrayList<>();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String entry = classes.relativize(file).toString().replace('\\', '/');
                if (entry.equals("module-info.class")) {
                    continue;
                }
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                checked.add(entry);
                for (String bootstrap : FORBIDDEN) {
                    if (bytes.contains(bootstrap)) {
                        offenders.add(entry + " uses " + bootstrap);
                    }
                }
            }
        }
        assertThat(checked).noneMatch(entry -> entry.endsWith("Test.class"));
        assertThat(checked).as("the scan must see the SDK").contains("io/jcni/plugins/sdk/Skel.class",
                "io/jcni/plugins/sdk/Rollback.class", "io/jcni/plugins/sdk/NetnsIdentity.class",
                "io/jcni/plugins/internal/ipam/hostlocal/HostLocalPlugin.class",
                "io/jcni/plugins/internal/pkg/ns/Namespace.class",
                "io/jcni/plugins/internal/ipam/hostlocal/HostLocalStore.class",
                "io/jcni/plugins/internal/main/bridge/BridgePlugin.class");
        assertThat(offenders).isEmpty();
    }
}
