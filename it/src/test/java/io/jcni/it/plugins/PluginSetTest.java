package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The plugin set against the Go reference that is installed: every type in Debian's containernetworking-plugins
 * directory, and tap, is a jcni plugin in {@code dist/cni/bin}, and answers VERSION with every protocol version from
 * 0.1.0 to 1.1.0, or, where Go's plugin supports fewer, at least Go's versions and 1.1.0.
 */
class PluginSetTest {
    static final List<String> ALL = List.of("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0");
    /** The types whose Go plugin answers with fewer versions (issue 15: at least Go's plus 1.1.0). */
    static final Set<String> AT_LEAST_GOS = Set.of("firewall", "vrf", "bandwidth");

    @Test
    void everyGoReferenceTypeAndTapIsAJcniPluginThatSpeaksEveryVersion() throws IOException {
        Path go = Locations.referencePlugins();
        Prerequisites.assumeReferencePlugins("bridge");
        List<String> types = new ArrayList<>();
        try (Stream<Path> files = Files.list(go)) {
            files.filter(Files::isExecutable).map(p -> p.getFileName().toString()).sorted().forEach(types::add);
        }
        assertThat(types).as("Debian's Go plugins").contains("bridge", "portmap", "firewall", "dhcp", "sbr");
        types.add("tap");
        List<String> problems = new ArrayList<>();
        for (String type : types) {
            Path ours = Locations.distPlugin(type);
            if (!Files.isExecutable(ours)) {
                problems.add(type + ": no " + ours);
                continue;
            }
            Set<String> versions = versions(ours);
            if (AT_LEAST_GOS.contains(type)) {
                Set<String> wanted = new LinkedHashSet<>(versions(go.resolve(type)));
                wanted.add("1.1.0");
                if (!versions.containsAll(wanted)) {
                    problems.add(type + ": " + versions + ", Go's and 1.1.0 are " + wanted);
                }
            } else if (!versions.containsAll(ALL)) {
                problems.add(type + ": " + versions + ", not all of " + ALL);
            }
        }
        assertThat(problems).as("of %s", types).isEmpty();
    }

    private static Set<String> versions(Path plugin) {
        ProcessResult r = Processes.run(List.of(plugin.toString()), Map.of("CNI_COMMAND", "VERSION"), "",
                Duration.ofSeconds(60));
        assertThat(r.exitCode()).as(r.describe()).isZero();
        JsonNode answer = Json.parse(r.stdout());
        Set<String> versions = new LinkedHashSet<>();
        answer.path("supportedVersions").forEach(v -> versions.add(v.asText()));
        assertThat(versions).as(r.describe()).isNotEmpty();
        return versions;
    }
}
