package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Guards the plugin start-up budget (docs/ARCHITECTURE.md): the codec runs in every plugin exec, where each first use
 * of a lambda, a string-concatenation indy or a type switch costs an invokedynamic bootstrap. Measured on this machine
 * (JDK 25, no AOT cache, decode a chained-plugin stdin and print its prevResult): 212 ms with those constructs, 150 ms
 * without. Nor may the codec touch jackson-core outside the databind adapters: its class initialization cost 10-15 ms
 * per exec (see the package documentation). Record {@code equals}/{@code hashCode}/{@code toString} (ObjectMethods)
 * stay allowed: nothing on the exec path calls them except {@link CniVersion}'s, which are written out.
 */
class StartupPathTest {
    private static final List<String> FORBIDDEN = List.of("java/lang/invoke/LambdaMetafactory",
            "java/lang/invoke/StringConcatFactory", "java/lang/runtime/SwitchBootstraps");

    @Test
    void noLambdaStringConcatTypeSwitchOrJacksonOutsideTheDatabindPackage() throws Exception {
        // The main classes only: the module also holds the patched-in test classes, which may use anything.
        Path classes = Path.of(CniJson.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(classes).isDirectory();
        List<String> checked = new ArrayList<>();
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String entry = classes.relativize(file).toString().replace('\\', '/');
                if (entry.equals("module-info.class") || entry.startsWith("io/jcni/spec/databind/")) {
                    continue;
                }
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                checked.add(entry);
                for (String bootstrap : FORBIDDEN) {
                    if (bytes.contains(bootstrap)) {
                        offenders.add(entry + " uses " + bootstrap);
                    }
                }
                if (bytes.contains("com/fasterxml/jackson")) {
                    offenders.add(entry + " uses Jackson");
                }
            }
        }
        assertThat(checked).noneMatch(entry -> entry.endsWith("Test.class"));
        assertThat(checked).as("the scan must see the codec").contains("io/jcni/spec/CniJson.class",
                "io/jcni/spec/internal/JsonCodec.class", "io/jcni/spec/internal/ResultCodec.class",
                "io/jcni/spec/internal/JsonReader.class", "io/jcni/spec/internal/JsonWriter.class");
        assertThat(checked).hasSizeGreaterThan(30);
        assertThat(offenders).isEmpty();
    }

    @Test
    void cniVersionEqualityIsWrittenOutNotBootstrapped() throws IOException {
        try (InputStream in = CniVersion.class.getResourceAsStream("CniVersion.class")) {
            String bytes = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(bytes).doesNotContain("java/lang/runtime/ObjectMethods");
        }
    }
}
