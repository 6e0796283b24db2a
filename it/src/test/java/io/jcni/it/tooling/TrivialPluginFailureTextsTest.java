package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.FailureTexts;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replays every case of {@code libcni-errors/failure-texts.json} (each failure mode of the trivial plugin, a missing
 * plugin, a type with a path, bad cache files) through Go libcni and checks that libcni's error text is still exactly
 * the recorded one. The recorded texts are what jcni's runtime reproduces where it matches libcni. Needs no root:
 * the trivial plugin touches nothing and the namespace path is never opened. Without the Go tools each case is
 * skipped (the driver's factory assumes them).
 */
class TrivialPluginFailureTextsTest {

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> libcniReportsEachFailureWithTheRecordedText() {
        List<DynamicTest> tests = FailureTexts.eachCase(tmp, TrivialPluginFailureTextsTest::replay);
        assertThat(tests).hasSizeGreaterThan(40);
        return tests.stream();
    }

    private static void replay(JsonNode recorded, JsonNode c, Path dir) throws IOException {
        Files.createDirectories(dir);
        ObjectNode conflist = recorded.path("conflist").deepCopy();
        String type = c.path("pluginType").asText(Locations.TRIVIAL_PLUGIN_TYPE);
        ((ObjectNode) conflist.path("plugins").get(0)).put("type", type);
        Path conf = Files.writeString(dir.resolve("net.conflist"), Json.write(conflist));
        Path cache = dir.resolve("cache");
        var attachment = Attachment.of(recorded.path("containerId").asText(), recorded.path("ifName").asText());
        if (c.has("cacheFile")) {
            Path file = cache.resolve("results").resolve("%s-%s-%s".formatted(conflist.path("name").asText(),
                    attachment.containerId(), attachment.ifName()));
            Files.createDirectories(file.getParent());
            Files.writeString(file, c.path("cacheFile").asText());
        }
        var driver = LibcniDriver.create(List.of(Locations.goBin()), cache);
        if (c.has("mode")) {
            driver = driver.withEnv(Map.of("JCNI_TRIVIAL_MODE", c.path("mode").asText()));
        }
        if (c.path("mode").asText().equals("hang")) {
            // Only here: a deadline on every case could kill a healthy plugin on a loaded machine.
            driver = driver.withPluginTimeout(Duration.ofMillis(recorded.path("pluginTimeoutMs").asLong()));
        }
        Path netns = Path.of(recorded.path("netns").asText());
        DriverOutcome outcome = switch (c.path("command").asText()) {
            case "add" -> driver.add(conf, netns, attachment);
            case "check" -> driver.check(conf, netns, attachment);
            case "del" -> driver.del(conf, netns, attachment);
            case "version" -> driver.version(type);
            case "cached-result" -> driver.cachedResult(conf, attachment);
            default -> throw new AssertionError("unknown command in " + FailureTexts.RESOURCE + ": " + c);
        };
        assertThat(outcome.stderr()).as("stderr passed through").isEqualTo(c.path("stderr").asText());
        if (c.path("error").isNull()) {
            assertThat(outcome.succeeded()).as(outcome.process()::describe).isTrue();
            return;
        }
        String expected = c.path("error").asText().replace("{cniPath}", Locations.goBin().toString());
        assertThat(outcome.error()).isEqualTo(expected);
        if (c.path("cniError").isNull()) {
            assertThat(outcome.cniError().isMissingNode()).as("no plugin CNI error in the chain").isTrue();
        } else {
            assertThat(outcome.cniError()).isEqualTo(c.path("cniError"));
        }
    }
}
