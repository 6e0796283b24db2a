package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Go's encoding/json key matching for struct fields. Every expected value here is what Go 1.19 (the Go of Debian's
 * reference plugins) decoded from the same document into a struct with the same JSON names; the it module's
 * {@code GoFieldMatchDifferentialTest} runs Go itself on generated documents.
 */
class GoFieldMatchTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        hostPort      | hostPort      | true
        HostPort      | hostPort      | true
        HOSTPORT      | hostPort      | true
        hostport      | hostPort      | true
        host_port     | hostPort      | false
        hostPort      | hostPorts     | false
        ingressRate   | IngressRate   | true
        \u017Fnat     | snat          | true
        \u017FNAT     | snat          | true
        \u212Aind     | kind          | true
        \u212Aind     | Kind          | true
        \u017Find     | kind          | false
        \u0130d       | id            | false
        \u0131d       | id            | false
        cni.dev/valid-attachments | cni.dev/valid-attachments | true
        CNI.DEV/VALID-ATTACHMENTS | cni.dev/valid-attachments | true
        cni_dev/valid-attachments | cni.dev/valid-attachments | false
        ipv4          | IPV4          | true
        ipv5          | IPV4          | false
        """)
    void keysMatchAFieldExactlyOrIgnoringCaseAsGoDoes(String key, String name, boolean matches) {
        assertThat(GoFieldMatch.matches(key, name)).isEqualTo(matches);
    }

    private static Optional<Json> field(String document, String name) throws CniException {
        return ((JsonObject) Json.parse(document)).field(name);
    }

    @Test
    void theLastMatchingKeyWinsInDocumentOrder() throws CniException {
        assertThat(field("{\"hostPort\":1,\"HostPort\":2,\"hostPort\":3}", "hostPort")).contains(Json.of(3));
        assertThat(field("{\"HostPort\":2,\"hostPort\":1}", "hostPort")).contains(Json.of(1));
        assertThat(field("{\"hostPort\":1,\"HOSTPORT\":2}", "hostPort")).contains(Json.of(2));
        assertThat(field("{\"host_port\":5,\"hostport\":6}", "hostPort")).contains(Json.of(6));
    }

    @Test
    void nullLeavesTheFieldAsItWas() throws CniException {
        assertThat(field("{\"mtu\":1400,\"MTU\":null}", "mtu")).contains(Json.of(1400));
        assertThat(field("{\"in\":{\"a\":1},\"In\":null}", "in")).contains(JsonObject.of("a", 1));
        assertThat(field("{\"mtu\":null}", "mtu")).isEmpty();
        // Go: a slice (an array, a net.IP) is reset by null; a later key sets it again
        ConfigNode root = ConfigNode.root(Json.parse("{\"ips\":[\"a\"],\"IPS\":null,\"gateway\":\"10.0.0.1\","
                + "\"Gateway\":null,\"routes\":[{}],\"Routes\":null,\"Routes\":[{},{}],\"name\":\"x\",\"NAME\":null}"));
        assertThat(root.stringList("ips")).isEmpty();
        assertThat(root.ip("gateway")).isEmpty();
        assertThat(root.array("routes")).hasSize(2);
        assertThat(root.string("name")).contains("x");
        assertThat(field("{}", "mtu")).isEmpty();
    }

    @Test
    void objectsUnderKeysOfOneFieldAreMergedArraysReplaced() throws CniException {
        // Go: {"in":{"a":1,"s":[1,2],"m":{"x":1}},"IN":{"b":2,"s":[3],"m":{"y":2}}} -> in {a:1, b:2, s:[3], m:{x:1,y:2}}
        ConfigNode in = ConfigNode.root(Json.parse(
                "{\"in\":{\"a\":1,\"s\":[1,2],\"m\":{\"x\":1}},\"IN\":{\"b\":2,\"s\":[3],\"m\":{\"y\":2}}}"))
                .requireField("in");
        assertThat(in.integer("a", 0, 9)).contains(1L);
        assertThat(in.integer("b", 0, 9)).contains(2L);
        assertThat(in.array("s")).hasSize(1);
        assertThat(in.requireField("m").member("x")).isPresent();
        assertThat(in.requireField("m").member("y")).isPresent();
        // Go: {"p":{"a":1},"P":{"b":2}} -> p {a:1, b:2}; a key inside folded again: the later spelling wins
        ConfigNode p = ConfigNode.root(Json.parse("{\"p\":{\"a\":1,\"sub\":\"x\"},\"P\":{\"b\":2,\"SUB\":\"y\"}}"))
                .requireField("p");
        assertThat(p.integer("a", 0, 9)).contains(1L);
        assertThat(p.integer("b", 0, 9)).contains(2L);
        assertThat(p.string("sub")).contains("y");
    }

    @Test
    void theErrorPathNamesTheKeyAsWritten() throws CniException {
        ConfigNode root = ConfigNode.root(Json.parse("{\"RuntimeConfig\":{\"PortMappings\":[{\"HostPort\":\"x\"}]}}"));
        ConfigNode mapping = root.requireField("runtimeConfig").array("portMappings").get(0);
        assertThat(mapping.path()).isEqualTo("RuntimeConfig.PortMappings[0]");
        CniException e = org.junit.jupiter.api.Assertions.assertThrows(CniException.class,
                () -> mapping.integer("hostPort", 0, 65535));
        assertThat(e).hasMessage("RuntimeConfig.PortMappings[0].HostPort: expected integer, got string");
    }

    @Test
    void aMapLookupStaysExact() throws CniException {
        ConfigNode sysctl = ConfigNode.root(Json.parse("{\"SysCtl\":{\"net.ipv4.conf.eth0.Forwarding\":\"1\"}}"))
                .requireField("sysctl");
        assertThat(sysctl.member("net.ipv4.conf.eth0.Forwarding")).isPresent();
        assertThat(sysctl.member("net.ipv4.conf.eth0.forwarding")).isEmpty();
        assertThat(((JsonObject) Json.parse("{\"Name\":\"x\"}")).get("name")).isEmpty();
        assertThat(((JsonObject) Json.parse("{\"Name\":\"x\"}")).field("name")).contains(Json.of("x"));
    }

    @Test
    void aWrongTypeUnderAnOverriddenKeyIsStillRefused() throws CniException {
        // Go: json: cannot unmarshal string into Go struct field .mtu of type int, though "mtu" comes last
        ConfigNode root = ConfigNode.root(Json.parse("{\"MTU\":\"big\",\"mtu\":1400,\"Flag\":1,\"flag\":true,"
                + "\"Ipam\":[],\"ipam\":{},\"name\":\"a\",\"NAME\":\"b\"}"));
        CniException mtu = org.junit.jupiter.api.Assertions.assertThrows(CniException.class,
                () -> root.integer("mtu", 0, 65535));
        assertThat(mtu.code()).isEqualTo(CniError.DECODING_FAILURE);
        assertThat(mtu).hasMessage("mtu: expected integer, got string");
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(CniException.class, () -> root.bool("flag")).code())
                .isEqualTo(CniError.DECODING_FAILURE);
        assertThat(org.junit.jupiter.api.Assertions.assertThrows(CniException.class, () -> root.object("ipam"))
                .code()).isEqualTo(CniError.DECODING_FAILURE);
        assertThat(root.string("name")).contains("b");
    }

    @Test
    void theRuntimeRemovesCapabilitiesInEverySpelling() throws CniException {
        PluginConfig config = CniJson.decodePluginConfig(("{\"Type\":\"portmap\",\"CAPABILITIES\":"
                + "{\"portMappings\":true},\"capabilities\":null,\"x\":1}").getBytes());
        assertThat(config.type()).isEqualTo("portmap");
        assertThat(config.enabledCapabilities()).containsExactly("portMappings");
        assertThat(config.withoutCapabilities().json().keys()).containsExactly("Type", "x");
    }
}
