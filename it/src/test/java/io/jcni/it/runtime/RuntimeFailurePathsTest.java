package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.FailureTexts;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every failure of {@code libcni-errors/failure-texts.json} (each failure mode of the Go trivial plugin, a missing
 * plugin, a type with a path, bad cache files) through jcni's runtime, compared with what Go libcni 1.1.2 reported.
 * Where jcni differs, the difference is deliberate and named here:
 * <ol>
 * <li>GO_PARSER: where libcni quotes Go's JSON parser ("invalid character 'i' in literal true"), jcni quotes its own
 * after the same prefix;</li>
 * <li>CHECK_NAMES_PLUGIN: CHECK failures carry {@code plugin type="x" failed (check): } as ADD and DEL failures do;</li>
 * <li>TIMEOUT_DETAILS: a plugin killed for overrunning says so in the error's details;</li>
 * <li>DEL_TOLERATES_BAD_CACHE: DEL with an unreadable cache file runs the plugins without prevResult and succeeds;</li>
 * <li>TYPE_WITH_PATH_REFUSED_AT_DECODE: a plugin type with a path separator is already refused when the configuration
 * is decoded (code 7), before any lookup.</li>
 * </ol>
 */
class RuntimeFailurePathsTest {
    private static final String GO_PARSER = "invalid character ";

    @TempDir
    Path tmp;

    @TestFactory
    Stream<DynamicTest> eachLibcniFailureCaseThroughJcni() {
        Prerequisites.assumeGoTools();
        List<DynamicTest> tests = FailureTexts.eachCase(tmp, RuntimeFailurePathsTest::replay);
        assertThat(tests).hasSizeGreaterThan(40);
        return tests.stream();
    }

    private static void replay(JsonNode recorded, JsonNode c, Path dir) throws Exception {
        Files.createDirectories(dir);
        String command = c.path("command").asText();
        String mode = c.path("mode").asText("");
        String type = c.path("pluginType").asText(Locations.TRIVIAL_PLUGIN_TYPE);
        String network = recorded.path("conflist").path("name").asText();
        String conflist = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + network + "\",\"plugins\":[{\"type\":\""
                + type + "\"}]}";
        Map<String, String> env = new HashMap<>(System.getenv());
        if (!mode.isEmpty()) {
            env.put("JCNI_TRIVIAL_MODE", mode);
        }
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        long timeoutMs = recorded.path("pluginTimeoutMs").asLong();
        CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                .withCacheDir(dir.resolve("cache")).withEnvironment(env).withStderr(stderr)
                .withPluginTimeout(Duration.ofMillis(timeoutMs)));
        RuntimeConf rt = new RuntimeConf(recorded.path("containerId").asText(), recorded.path("netns").asText(),
                recorded.path("ifName").asText());
        if (c.has("cacheFile")) {
            Path file = dir.resolve("cache/results").resolve(network + "-" + rt.containerId() + "-" + rt.ifName());
            Files.createDirectories(file.getParent());
            Files.writeString(file, c.path("cacheFile").asText());
        }
        String libcni = c.path("error").isNull() ? null
                : c.path("error").asText().replace("{cniPath}", Locations.goBin().toString());

        NetworkConfigList list;
        try {
            list = CniJson.decodeNetworkConfigList(conflist.getBytes(StandardCharsets.UTF_8));
        } catch (CniException e) {
            // TYPE_WITH_PATH_REFUSED_AT_DECODE
            assertThat(type).contains("/");
            assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(e.getMessage()).isEqualTo("plugins[0].type: invalid plugin type \"" + type
                    + "\": must be a file name without path separators");
            assertThatThrownBy(() -> runtime.versionInfo(type)).hasMessage("invalid plugin name: " + type);
            return;
        }

        CniRuntimeException failure = catchThrowableOfType(CniRuntimeException.class, () -> {
            switch (command) {
                case "add" -> runtime.addNetworkList(list, rt);
                case "check" -> runtime.checkNetworkList(list, rt);
                case "del" -> runtime.delNetworkList(list, rt);
                case "version" -> runtime.versionInfo(type);
                case "cached-result" -> runtime.cachedResult(list, rt);
                default -> throw new AssertionError("unknown recorded command " + command);
            }
        });

        if (c.has("cacheFile") && command.equals("del")) {
            // DEL_TOLERATES_BAD_CACHE: libcni 1.1.2 failed with `libcni`; jcni deletes and removes the file.
            assertThat(libcni).startsWith("failed to get network");
            assertThat(failure).isNull();
            assertThat(dir.resolve("cache/results")).isEmptyDirectory();
            return;
        }
        if (libcni == null) {
            assertThat(failure).as("libcni succeeded").isNull();
            assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo(c.path("stderr").asText());
            return;
        }
        assertThat(failure).as("libcni failed with: " + libcni).isNotNull();
        String expected = libcni;
        if (command.equals("check") && !mode.isEmpty()) {
            expected = "plugin type=\"" + type + "\" failed (check): " + expected; // CHECK_NAMES_PLUGIN
        }
        String timeoutDetails = "plugin " + Locations.goBin().resolve(type) + " did not finish within " + timeoutMs
                + " ms";
        if (mode.equals("hang")) {
            expected = expected + "; " + timeoutDetails; // TIMEOUT_DETAILS
        }
        int goParser = expected.indexOf(GO_PARSER);
        if (goParser >= 0) {
            // GO_PARSER: the same words up to the parser's message, then jcni's parser.
            assertThat(failure.getMessage()).startsWith(expected.substring(0, goParser)).contains("invalid JSON");
        } else {
            assertThat(failure.getMessage()).isEqualTo(expected);
        }

        JsonNode cniError = c.path("cniError");
        if (!cniError.isMissingNode() && !cniError.isNull()) {
            assertThat(failure.fromPlugin()).isTrue();
            assertThat(failure.error().code()).isEqualTo(cniError.path("code").asInt());
            String details = mode.equals("hang") ? timeoutDetails : cniError.path("details").asText("");
            assertThat(failure.error().details()).isEqualTo(details);
            if (!cniError.path("msg").asText().contains(GO_PARSER)) {
                assertThat(failure.error().msg()).isEqualTo(cniError.path("msg").asText());
            }
        }
    }

    @Test
    void aHungPluginIsKilledAtTheTimeoutAndNoProcessIsLeft() throws Exception {
        Prerequisites.assumeGoTools();
        CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                .withCacheDir(tmp.resolve("cache")).withPluginTimeout(Duration.ofMillis(300)));
        // The first plugin's ADD succeeds and its DEL hangs; the second one's ADD hangs.
        NetworkConfigList list = CniJson.decodeNetworkConfigList(("""
                {"cniVersion":"1.0.0","name":"jcni-rt-hang","plugins":[\
                {"type":"trivial-plugin","mode":"hang","modeOn":"DEL"},\
                {"type":"trivial-plugin","mode":"hang","modeOn":"ADD"}]}""").getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> runtime.addNetworkList(list, new RuntimeConf("rt-hang", "/var/run/netns/none",
                "eth0"))).isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage()).startsWith("""
                            plugin type="trivial-plugin" failed (add): netplugin \
                            failed with no error message: signal: killed""");
                    // The rollback sends DEL to the killed plugin too (it could not undo its own partial ADD; its DEL
                    // succeeds), then to the first plugin, whose DEL hung as well and was killed.
                    assertThat(e.getSuppressed()).singleElement().satisfies(s -> assertThat(s.getMessage())
                            .contains("failed (delete): netplugin failed with no error message: signal: killed"));
                });
        String plugin = Locations.trivialPlugin().toString();
        assertThat(ProcessHandle.allProcesses().filter(p -> p.info().command().orElse("").equals(plugin)))
                .as("trivial-plugin processes still running").isEmpty();
    }
}
