package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PluginConfigTest {

    private static final String BRIDGE = """
            {"cniVersion":"1.0.0","name":"dbnet","type":"bridge","bridge":"cni0","keyA":["some more",1.50],\
            "capabilities":{"portMappings":true,"mac":false,"ips":null},\
            "ipam":{"type":"host-local","subnet":"10.1.0.0/16","gateway":"10.1.0.1"},\
            "dns":{"nameservers":["10.1.0.1"],"domain":"example.com","search":["a.example.com"],"options":["ndots:2"]},\
            "args":{"cni":{"ips":["10.1.0.9"]}},"runtimeConfig":{"mac":"00:11:22:33:44:66"}}""";

    static PluginConfig decode(String json) throws CniException {
        return CniJson.decodePluginConfig(json.getBytes(UTF_8));
    }

    static CniException failure(String json) {
        try {
            decode(json);
        } catch (CniException e) {
            return e;
        }
        throw new AssertionError("decoded " + json);
    }

    @Test
    void typedAccessorsReadTheWellKnownFields() throws CniException {
        PluginConfig config = decode(BRIDGE);
        assertThat(config.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(config.hasCniVersion()).isTrue();
        assertThat(config.name()).isEqualTo("dbnet");
        assertThat(config.type()).isEqualTo("bridge");
        assertThat(config.capabilities()).containsExactly(Map.entry("portMappings", true), Map.entry("mac", false),
                Map.entry("ips", false));
        assertThat(config.enabledCapabilities()).containsExactly("portMappings");
        assertThat(config.ipamType()).isEqualTo("host-local");
        assertThat(config.ipam().orElseThrow().get("subnet")).contains(Json.of("10.1.0.0/16"));
        assertThat(config.dns()).isEqualTo(new Dns(List.of("10.1.0.1"), "example.com", List.of("a.example.com"),
                List.of("ndots:2")));
        assertThat(config.args().orElseThrow().toString()).isEqualTo("{\"cni\":{\"ips\":[\"10.1.0.9\"]}}");
        assertThat(config.runtimeConfig().orElseThrow().get("mac")).contains(Json.of("00:11:22:33:44:66"));
        assertThat(config.rawPrevResult()).isEmpty();
        assertThat(config.validAttachments()).isEmpty();
        assertThat(config.get("keyA").map(Json::toString)).contains("[\"some more\",1.50]");
    }

    @Test
    void passesThroughUnchangedByteForByteWhenCompact() throws CniException {
        assertThat(new String(CniJson.encode(decode(BRIDGE)), UTF_8)).isEqualTo(BRIDGE);
    }

    @Test
    void absentFieldsHaveLibcniDefaults() throws CniException {
        PluginConfig config = decode("{\"type\":\"tuning\"}");
        assertThat(config.cniVersion()).isEqualTo(CniVersion.V0_1_0);
        assertThat(config.hasCniVersion()).isFalse();
        assertThat(config.name()).isEmpty();
        assertThat(config.capabilities()).isEmpty();
        assertThat(config.ipam()).isEmpty();
        assertThat(config.ipamType()).isEmpty();
        assertThat(config.dns()).isSameAs(Dns.EMPTY);
        assertThat(config.runtimeConfig()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        {}|7|type: missing plugin type
        {"type":""}|7|type: missing plugin type
        {"type":"../../bin/sh"}|7|type: invalid plugin type "../../bin/sh": must be a file name without path separators
        {"type":7}|6|type: expected string, got number
        {"type":"b","ipam":{"type":"/x/host-local"}}|7|ipam.type: invalid plugin type "/x/host-local": must be a file name without path separators
        {"type":"b","ipam":[]}|6|ipam: expected object, got array
        {"type":"b","cniVersion":"1.0"}|1|cniVersion: invalid CNI version "1.0": expected MAJOR.MINOR.PATCH
        {"type":"b","cniVersion":1}|6|cniVersion: expected string, got number
        {"type":"b","name":"../net"}|7|name: invalid characters found in network name; ../net
        {"type":"b","capabilities":{"mac":"yes"}}|6|capabilities.mac: expected boolean, got string
        {"type":"b","dns":{"nameservers":"10.0.0.1"}}|6|dns.nameservers: expected array, got string
        {"type":"b","runtimeConfig":"x"}|6|runtimeConfig: expected object, got string
        {"type":"b","prevResult":[]}|6|prevResult: expected object, got array
        {"type":"b","cni.dev/valid-attachments":[1]}|6|cni.dev/valid-attachments[0]: expected object, got number
        []|6|plugin configuration: expected object, got array
        """)
    void badFieldsAreRejectedWithCodeAndPath(String json, int code, String message) {
        CniException e = failure(json);
        assertThat(e.code()).isEqualTo(code);
        assertThat(e).hasMessage(message);
    }

    @Test
    void nullFieldsCountAsAbsentLikeGo() throws CniException {
        PluginConfig config = decode("{\"type\":\"b\",\"name\":null,\"ipam\":null,\"dns\":null,\"cniVersion\":null}");
        assertThat(config.name()).isEmpty();
        assertThat(config.ipam()).isEmpty();
        assertThat(config.cniVersion()).isEqualTo(CniVersion.V0_1_0);
        assertThat(config.hasCniVersion()).isFalse();
    }

    @Test
    void runtimeWithersKeepKeyOrderAndAppendNewKeys() throws CniException {
        PluginConfig config = decode("{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true},\"snat\":true}");
        PluginConfig derived = config.withCniVersion(CniVersion.V1_1_0).withName("dbnet")
                .withRuntimeConfig(JsonObject.of("portMappings", Json.array())).withoutCapabilities();
        assertThat(derived.toString()).isEqualTo("""
                {"type":"portmap","snat":true,"cniVersion":"1.1.0",\
                "name":"dbnet","runtimeConfig":{"portMappings":[]}}""");
        assertThat(derived.capabilities()).isEmpty();
        assertThat(derived.withName("other").toString()).contains("\"name\":\"other\",\"runtimeConfig\"");
        assertThat(config.toString()).isEqualTo("""
                {"type":"portmap","capabilities":{"portMappings":true},\
                "snat":true}""");
    }

    @Test
    void genericSetAndRemoveAreValidated() throws CniException {
        PluginConfig config = decode("{\"type\":\"bridge\",\"mtu\":1500}");
        assertThat(config.with("mtu", Json.of(9000)).toString()).isEqualTo("{\"type\":\"bridge\",\"mtu\":9000}");
        assertThat(config.without("mtu").toString()).isEqualTo("{\"type\":\"bridge\"}");
        CniException noType = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> config.without("type"));
        assertThat(noType).hasMessage("type: missing plugin type");
        CniException badType = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> config.with("type", Json.of("../x")));
        assertThat(badType.code()).isEqualTo(7);
        CniException badName = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> config.withName(""));
        assertThat(badName).hasMessage("missing network name");
    }

    @Test
    void gcAttachmentsAreReadFromEitherKeyAndWrittenToBothLikeLibcni() throws CniException {
        PluginConfig legacy = decode("""
                {"type":"b","cni.dev/attachments":[{"containerID":"c1",\
                "ifname":"eth0"}]}""");
        assertThat(legacy.validAttachments()).containsExactly(new GcAttachment("c1", "eth0"));
        PluginConfig both = decode("""
                {"type":"b","cni.dev/attachments":[],"cni.dev/valid-attachments":\
                [{"containerID":"c2","ifname":"net1"}]}""");
        assertThat(both.validAttachments()).containsExactly(new GcAttachment("c2", "net1"));
        PluginConfig written = decode("{\"type\":\"b\"}").withValidAttachments(List.of(new GcAttachment("c3", "e")));
        assertThat(written.toString()).isEqualTo("""
                {"type":"b","cni.dev/valid-attachments":[{"containerID":\
                "c3","ifname":"e"}],"cni.dev/attachments":[{"containerID":"c3","ifname":"e"}]}""");
        assertThat(written.validAttachments()).containsExactly(new GcAttachment("c3", "e"));
    }

    @Test
    void pluginSpecificFieldsAreReadThroughNodesNamingPaths() throws CniException {
        PluginConfig config = decode("{\"type\":\"b\",\"ipam\":{\"ranges\":[[{\"subnet\":\"10.0.0.0/33\"}]]}}");
        CniException e = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> config.node().requireField("ipam").array("ranges").get(0).elements().get(0).prefix("subnet"));
        assertThat(e).hasMessage("ipam.ranges[0][0].subnet: invalid CIDR \"10.0.0.0/33\"");
        assertThat(e.code()).isEqualTo(7);
    }

    @Test
    void peekCniVersionReadsOnlyTheVersionLikeDecodeVersion() throws CniException {
        assertThat(CniJson.peekCniVersion("{\"cniVersion\":\"0.4.0\",\"x\":[]}".getBytes(UTF_8)))
                .isEqualTo(CniVersion.V0_4_0);
        assertThat(CniJson.peekCniVersion("{\"not-a-version-field\":\"foo\"}".getBytes(UTF_8)))
                .isEqualTo(CniVersion.V0_1_0);
        assertThat(CniJson.peekCniVersion("{\"cniVersion\":\"4.3.2\"}".getBytes(UTF_8)))
                .isEqualTo(new CniVersion(4, 3, 2));
        CniException e = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> CniJson.peekCniVersion("{{{".getBytes(UTF_8)));
        assertThat(e.code()).isEqualTo(6);
    }
}
