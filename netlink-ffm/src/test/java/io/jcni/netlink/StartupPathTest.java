package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plugin start-up rule, as in spec-model and plugins-core (this module runs in the same plugin process): no
 * lambda, method reference, indy string concatenation or pattern switch in the main classes. Each is an invokedynamic
 * bootstrap a plugin exec pays at first use unless the image's AOT cache holds it, which it does only for code its
 * training ran. Measured (22 lambda call sites vs 22 named classes, in the image's JVM with the launcher's flags, CPU
 * time per exec, n = 100, interleaved): +1.6 ms with an AOT cache that ran them, +24 ms with an AOT cache that did not
 * (an error path, a new op), +32 to +37 ms without a cache.
 */
class StartupPathTest {
    private static final List<String> FORBIDDEN = List.of("java/lang/invoke/LambdaMetafactory",
            "java/lang/invoke/StringConcatFactory", "java/lang/runtime/SwitchBootstraps");

    @Test
    void noInvokedynamicBootstrapsInTheMainClasses() throws Exception {
        Path classes = Path.of(Netlink.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(classes).isDirectory();
        List<String> checked = new ArrayList<>();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String entry = classes.relativize(file).toString().replace('\\', '/');
                if (entry.equals("module-info.class")) {
                    continue;
                }
                checked.add(entry);
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                for (String bootstrap : FORBIDDEN) {
                    if (bytes.contains(bootstrap)) {
                        offenders.add(entry + " uses " + bootstrap);
                    }
                }
            }
        }
        assertThat(checked).noneMatch(entry -> entry.endsWith("Test.class"));
        assertThat(checked).as("the scan must see the module").contains("io/jcni/netlink/sys/Sysctl.class",
                "io/jcni/netlink/sys/FileLocks.class", "io/jcni/netlink/internal/ffm/NativeAccess.class",
                "io/jcni/netlink/internal/rtnl/LinkCodec.class");
        assertThat(offenders).isEmpty();
    }
}
