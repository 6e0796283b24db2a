package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DynamicTest;

/**
 * What Go libcni 1.1.2 reported for each failure of the trivial plugin (each mode, a missing plugin, a type with a
 * path, bad cache files), recorded in {@value #RESOURCE}: {@code {"conflist", "containerId", "ifName", "netns",
 * "pluginTimeoutMs", "cases": [{"command", "mode"|"pluginType"|"cacheFile", "error", "cniError", "stderr"}]}}.
 * Replayed through libcni to see the texts still hold, and through jcni's runtime and delegation to compare.
 */
public final class FailureTexts {
    public static final String RESOURCE = "/libcni-errors/failure-texts.json";

    private FailureTexts() {}

    /** How one test replays one recorded case, in a directory of its own. */
    @FunctionalInterface
    public interface Replay {
        void replay(JsonNode recorded, JsonNode recordedCase, Path dir) throws Exception;
    }

    /** The whole recording. */
    public static JsonNode recorded() {
        try (InputStream in = FailureTexts.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new AssertionError(RESOURCE + " is not on the test class path");
            }
            return Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /** The recorded case of {@code command} ({@code add}, {@code del}, ...) with the trivial plugin in {@code mode}. */
    public static JsonNode recordedCase(String command, String mode) {
        for (JsonNode c : recorded().path("cases")) {
            if (c.path("command").asText().equals(command) && c.path("mode").asText().equals(mode)) {
                return c;
            }
        }
        throw new AssertionError("no recorded case " + command + " " + mode + " in " + RESOURCE);
    }

    /**
     * One dynamic test per recorded case, named {@code NN command what} ({@code 07 add mode=crash}), each replayed in
     * its own directory under {@code dir}.
     */
    public static List<DynamicTest> eachCase(Path dir, Replay replay) {
        JsonNode recorded = recorded();
        var tests = new ArrayList<DynamicTest>();
        int index = 0;
        for (JsonNode c : recorded.path("cases")) {
            String name = "%02d %s %s".formatted(index++, c.path("command").asText(), label(c));
            tests.add(DynamicTest.dynamicTest(name, () -> replay.replay(recorded, c,
                    dir.resolve(name.replace(' ', '_')))));
        }
        return tests;
    }

    private static String label(JsonNode c) {
        if (c.has("mode")) {
            return "mode=" + c.path("mode").asText();
        }
        if (c.has("pluginType")) {
            return "type=" + c.path("pluginType").asText();
        }
        return "cache-file=" + Json.write(c.path("cacheFile"));
    }
}
