package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's command line and what Go libcni sends to a plugin, as the trivial plugin records it. None of this
 * needs root: the trivial plugin touches nothing, and the reference plugins are only asked for VERSION.
 */
class LibcniDriverCliTest {

    private static final Path ABSENT_NETNS = Path.of("/var/run/netns/jcni-iop-absent");

    @TempDir
    Path tmp;

    @Test
    void withoutAContainerIdTheDriverUsesCnitoolsDerivation() throws IOException {
        Prerequisites.assumeGoTools();
        var driver = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("cache"));
        Path conf = trivialList("iop-cnitool-id", "{\"type\":\"trivial-plugin\"}");

        driver.add(conf, ABSENT_NETNS, Attachment.of(null, "eth0")).answer();

        String expectedId = Attachment.cnitoolContainerId(ABSENT_NETNS);
        assertThat(expectedId).matches("cnitool-[0-9a-f]{20}");
        assertThat(tmp.resolve("cache/results/iop-cnitool-id-" + expectedId + "-eth0")).isRegularFile();
    }

    @Test
    void goLibcniInjectsNameVersionAndCapabilityArgsButKeepsCapabilities() throws IOException {
        Prerequisites.assumeGoTools();
        Path record = tmp.resolve("calls.jsonl");
        var driver = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("cache"))
                .withEnv(Map.of("JCNI_TRIVIAL_RECORD", record.toString()));
        Path conf = trivialList("iop-inject", """
                {"type":"trivial-plugin","capabilities":{"portMappings":true,"bandwidth":false},"extra":{"k":1}}""");
        var attachment = Attachment.of("iop-inject-ctr", "net1").withCniArgs("IgnoreUnknown=1;A=b")
                .withCapabilityArgs("{\"portMappings\":[{\"hostPort\":1,\"containerPort\":2}],\"bandwidth\":{}}");

        JsonNode result = driver.add(conf, ABSENT_NETNS, attachment).answer();
        driver.del(conf, ABSENT_NETNS, attachment).answer();

        List<String> lines = Files.readAllLines(record);
        assertThat(lines).hasSize(2);
        JsonNode add = Json.parse(lines.get(0));
        assertThat(add.path("command").asText()).isEqualTo("ADD");
        assertThat(add.path("env")).isEqualTo(Json.parse("""
                {"CNI_COMMAND":"ADD","CNI_CONTAINERID":"iop-inject-ctr","CNI_NETNS":"%s","CNI_IFNAME":"net1",
                 "CNI_ARGS":"IgnoreUnknown=1;A=b","CNI_PATH":"%s"}""".formatted(ABSENT_NETNS, Locations.goBin())));
        JsonNode stdin = Json.parse(add.path("stdin").asText());
        assertThat(stdin.path("name").asText()).isEqualTo("iop-inject");
        assertThat(stdin.path("cniVersion").asText()).isEqualTo("1.0.0");
        assertThat(stdin.path("runtimeConfig")).as("only capabilities the plugin enables")
                .isEqualTo(Json.parse("{\"portMappings\":[{\"hostPort\":1,\"containerPort\":2}]}"));
        assertThat(stdin.has("capabilities")).as("libcni 1.1.2 passes 'capabilities' on (the spec says remove)")
                .isTrue();
        assertThat(stdin.path("extra")).isEqualTo(Json.parse("{\"k\":1}"));
        assertThat(stdin.has("prevResult")).isFalse();
        JsonNode del = Json.parse(Json.parse(lines.get(1)).path("stdin").asText());
        assertThat(del.path("prevResult")).as("DEL gets the cached result as prevResult").isEqualTo(result);
    }

    @Test
    void versionAndValidateAgainstTheGoReferencePlugins() throws IOException {
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("bridge", "portmap", "host-local");
        var driver = LibcniDriver.create(List.of(Locations.referencePlugins()), tmp.resolve("cache"));

        assertThat(driver.version("bridge").answer().path("supportedVersions"))
                .isEqualTo(Json.parse("[\"0.1.0\",\"0.2.0\",\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\"]"));
        Path chain = Files.writeString(tmp.resolve("chain.conflist"), """
                {"cniVersion":"1.0.0","name":"iop-validate","plugins":[
                 {"type":"bridge","ipam":{"type":"host-local","subnet":"10.213.8.0/24"}},
                 {"type":"portmap","capabilities":{"portMappings":true}}]}""");
        assertThat(driver.validate(chain).answer()).isEqualTo(Json.parse("{\"capabilities\":[\"portMappings\"]}"));
        Path future = Files.writeString(tmp.resolve("future.conflist"), """
                {"cniVersion":"1.1.0","name":"iop-validate","plugins":[{"type":"bridge"},{"type":"no-such"}]}""");
        assertThat(driver.validate(future).error()).isEqualTo("[plugin bridge does not support config version "
                + "\"1.1.0\" failed to find plugin \"no-such\" in path [" + Locations.referencePlugins() + "]]");
    }

    @Test
    void aBadCommandLineExitsTwoWithUsage() {
        Prerequisites.assumeGoTools();
        var driver = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("cache"));

        DriverOutcome outcome = driver.run(List.of("add", "only-one-argument"));

        assertThat(outcome.process().exitCode()).isEqualTo(2);
        assertThat(outcome.error()).isEqualTo("add needs <conf-or-conflist-file> <netns-path>, got 1 arguments");
        assertThat(outcome.json().path("usage").asText()).startsWith("usage:");
    }

    private Path trivialList(String name, String plugin) throws IOException {
        return Files.writeString(tmp.resolve(name + ".conflist"),
                "{\"cniVersion\":\"1.0.0\",\"name\":\"%s\",\"plugins\":[%s]}".formatted(name, plugin));
    }
}
