package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NetworkConfigListTest {

    static NetworkConfigList decode(String json) throws CniException {
        return CniJson.decodeNetworkConfigList(json.getBytes(UTF_8));
    }

    static CniException failure(String json) {
        CniException e = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class, () -> decode(json));
        assertThat(e).as("expected a CniException for %s", json).isNotNull();
        return e;
    }

    @Test
    void decodesTheSpecExampleShape() throws CniException {
        String json = """
                {"cniVersion":"1.0.0","name":"dbnet","plugins":[{"type":"bridge",\
                "bridge":"cni0"},{"type":"tuning","capabilities":{"mac":true}},{"type":"portmap"}]}""";
        NetworkConfigList list = decode(json);
        assertThat(list.name()).isEqualTo("dbnet");
        assertThat(list.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(list.plugins()).extracting(PluginConfig::type).containsExactly("bridge", "tuning", "portmap");
        assertThat(list.plugins().get(1).enabledCapabilities()).containsExactly("mac");
        assertThat(list.disableCheck()).isFalse();
        assertThat(list.disableGC()).isFalse();
        assertThat(list.loadOnlyInlinedPlugins()).isFalse();
        assertThat(new String(list.bytes(), UTF_8)).isEqualTo(json);
        assertThat(new String(CniJson.encode(list), UTF_8)).isEqualTo(json);
    }

    @Test
    void keepsTheOriginalBytesEvenWhenFormatted() throws CniException {
        String json = "{\n  \"name\": \"n\",\n  \"plugins\": [ {\"type\": \"x\"} ]\n}\n";
        assertThat(decode(json).bytes()).isEqualTo(json.getBytes(UTF_8));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        '"cniVersions":["0.4.0","1.0.0"]'|1.0.0
        '"cniVersion":"0.3.1","cniVersions":["0.4.0","1.0.0"]'|1.0.0
        '"cniVersion":"1.1.0","cniVersions":["0.4.0"]'|1.1.0
        '"cniVersion":"0.4.0","cniVersions":["1.0.0","2.0.0","1.5.0"]'|1.0.0
        '"cniVersion":"0.4.0","cniVersions":[]'|0.4.0
        '"cniVersion":"9.9.9","cniVersions":["8.0.0"]'|9.9.9
        '"cniVersion":"1.0.0"'|1.0.0
        '"cniVersion":""'|0.1.0
        """)
    void cniVersionsPicksTheHighestSupported(String versions, String effective) throws CniException {
        NetworkConfigList list = decode("{\"name\":\"n\"," + versions + ",\"plugins\":[{\"type\":\"x\"}]}");
        assertThat(list.cniVersion()).hasToString(effective);
    }

    @Test
    void cniVersionsSkipsUnsupportedVersionsWhereLibcniWouldTakeThemBelowItsCurrent() throws CniException {
        // libcni keeps "0.5.0" (not above its current 1.1.0) and would fail later; the spec says pick the highest
        // *supported* version, so jcni runs the network at 0.4.0.
        NetworkConfigList list = decode("""
                {"name":"n","cniVersions":["0.4.0","0.5.0"],"plugins":\
                [{"type":"x"}]}""");
        assertThat(list.cniVersion()).isEqualTo(CniVersion.V0_4_0);
        assertThat(list.cniVersions()).containsExactly(CniVersion.V0_4_0, new CniVersion(0, 5, 0));
        assertThat(list.declaredCniVersion()).isEqualTo(CniVersion.V0_1_0);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        true|true
        false|false
        '"true"'|true
        '"FALSE"'|false
        '"True"'|true
        """)
    void flagsAcceptBooleansAndTrueFalseStrings(String value, boolean expected) throws CniException {
        NetworkConfigList list = decode("{\"name\":\"n\",\"disableCheck\":" + value + ",\"disableGC\":" + value
                + ",\"loadOnlyInlinedPlugins\":" + value + ",\"plugins\":[{\"type\":\"x\"}]}");
        assertThat(list.disableCheck()).isEqualTo(expected);
        assertThat(list.disableGC()).isEqualTo(expected);
        assertThat(list.loadOnlyInlinedPlugins()).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
        {"plugins":[{"type":"x"}]}|7|name: missing network name
        {"name":"","plugins":[{"type":"x"}]}|7|name: missing network name
        {"name":1,"plugins":[]}|6|name: expected string, got number
        {"name":"a b","plugins":[{"type":"x"}]}|7|name: invalid characters found in network name; a b
        {"name":"n","cniVersion":2}|6|cniVersion: expected string, got number
        {"name":"n","cniVersions":"1.0.0"}|6|cniVersions: expected array, got string
        {"name":"n","cniVersions":["1.0.0","x"]}|1|cniVersions[1]: invalid CNI version "x": expected MAJOR.MINOR.PATCH
        {"name":"n","disableCheck":"adsfasdfasf"}|7|disableCheck: invalid value "adsfasdfasf"; expected true or false
        {"name":"n","disableGC":1}|6|disableGC: expected boolean, got number
        {"name":"n","plugins":{}}|6|plugins: expected array, got object
        {"name":"n","plugins":[]}|7|plugins: no plugins in list
        {"name":"n","plugins":[{"type":"a"},"b"]}|6|plugins[1]: expected object, got string
        {"name":"n","plugins":[{"type":"a"},{"type":"../b"}]}|7|plugins[1].type: invalid plugin type "../b": must be a file name without path separators
        {"name":"n","plugins":[{"type":"a","ipam":{"type":3}}]}|6|plugins[0].ipam.type: expected string, got number
        {"name":"n","loadOnlyInlinedPlugins":true}|7|plugins: missing, and loadOnlyInlinedPlugins is true
        []|6|network configuration list: expected object, got array
        """)
    void invalidListsAreRejectedWithCodeAndPath(String json, int code, String message) {
        CniException e = failure(json);
        assertThat(e.code()).isEqualTo(code);
        assertThat(e).hasMessage(message);
    }

    @Test
    void missingPluginsIsAnEmptyListForTheRuntimeToFillFromDisk() throws CniException {
        NetworkConfigList list = decode("{\"name\":\"n\",\"cniVersion\":\"1.1.0\"}");
        assertThat(list.plugins()).isEmpty();
        PluginConfig extra = CniJson.decodePluginConfig("{\"type\":\"extra\"}".getBytes(UTF_8));
        NetworkConfigList filled = list.withAdditionalPlugins(List.of(extra));
        assertThat(filled.plugins()).extracting(PluginConfig::type).containsExactly("extra");
        assertThat(filled.json().toString()).isEqualTo("""
                {"name":"n","cniVersion":"1.1.0","plugins":\
                [{"type":"extra"}]}""");
        assertThat(new String(filled.bytes(), UTF_8)).isEqualTo("{\"name\":\"n\",\"cniVersion\":\"1.1.0\"}");
    }

    @Test
    void confToConfListWrapsLikeLibcniConfListFromConf() throws CniException {
        PluginConfig conf = CniJson.decodePluginConfig(("""
                {"cniVersion":"0.4.0","name":"wan","type":\
                "macvlan","ipam":{"type":"dhcp"}}""").getBytes(UTF_8));
        NetworkConfigList list = NetworkConfigList.fromConf(conf);
        assertThat(new String(list.bytes(), UTF_8)).isEqualTo("""
                {"cniVersion":"0.4.0","name":"wan",\
                "plugins":[{"cniVersion":"0.4.0","name":"wan","type":"macvlan","ipam":\
                {"type":"dhcp"}}]}""");
        assertThat(list.cniVersion()).isEqualTo(CniVersion.V0_4_0);
        assertThat(list.plugins()).containsExactly(conf);
        PluginConfig noVersion = CniJson.decodePluginConfig("{\"name\":\"wan\",\"type\":\"macvlan\"}".getBytes(UTF_8));
        assertThat(NetworkConfigList.fromConf(noVersion).json().get("cniVersion")).contains(Json.of(""));
        assertThat(NetworkConfigList.fromConf(noVersion).cniVersion()).isEqualTo(CniVersion.V0_1_0);
        CniException noName = org.assertj.core.api.Assertions.catchThrowableOfType(CniException.class,
                () -> NetworkConfigList.fromConf(CniJson.decodePluginConfig("{\"type\":\"x\"}".getBytes(UTF_8))));
        assertThat(noName).hasMessage("name: missing network name");
    }
}
