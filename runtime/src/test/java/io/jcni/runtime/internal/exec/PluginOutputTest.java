package io.jcni.runtime.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Result;
import io.jcni.spec.VersionInfo;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PluginOutputTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aResultWithoutVersionTakesTheConfigurationsVersion() throws Exception {
        CniResult result = PluginOutput.result(b("{\"ips\":[{\"address\":\"10.0.0.2/24\"}]}"), CniVersion.V1_0_0);
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(((Result) result).ips()).hasSize(1);
    }

    /**
     * libcni decodes a result into its struct: keys in any case. Its version comes from a map lookup of the exact
     * "cniVersion", set to the configuration's when missing, so a "CNIVersion" alone is overridden by that.
     */
    @Test
    void aResultsKeysMatchInAnyCaseAndOnlyTheExactCniVersionIsItsVersion() throws Exception {
        CniResult result = PluginOutput.result(b("{\"CNIVersion\":\"0.4.0\",\"IPs\":[{\"Address\":\"10.0.0.2/24\","
                + "\"GATEWAY\":\"10.0.0.1\"}],\"Routes\":[{\"Dst\":\"0.0.0.0/0\"}]}"), CniVersion.V1_0_0);
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(((Result) result).ips()).singleElement()
                .satisfies(ip -> assertThat(ip.gateway()).isNotNull());
        assertThat(((Result) result).routes()).hasSize(1);
    }

    @Test
    void aDeclaredResultVersionIsKeptAsPrinted() throws Exception {
        CniResult result = PluginOutput.result(b("{\"cniVersion\":\"0.4.0\"}"), CniVersion.V1_0_0);
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V0_4_0);
    }

    @Test
    void undecodableResultsUseLibcnisPrefixAndGosEmptyInputText() {
        assertThatThrownBy(() -> PluginOutput.result(new byte[0], CniVersion.V1_0_0))
                .hasMessage("failed to unmarshal raw result: unexpected end of JSON input");
        assertThatThrownBy(() -> PluginOutput.result(b("garbage{"), CniVersion.V1_0_0))
                .isInstanceOfSatisfying(PluginFailure.class, f -> {
                    assertThat(f.error().code()).isEqualTo(6);
                    assertThat(f.getMessage()).startsWith("failed to unmarshal raw result: invalid JSON");
                });
        assertThatThrownBy(() -> PluginOutput.result(b("[1]"), CniVersion.V1_0_0))
                .hasMessage("failed to unmarshal raw result: expected a JSON object, got array");
    }

    @Test
    void versionInfoDecodesAndFailsWithLibcnisPrefix() throws Exception {
        assertThat(PluginOutput.versionInfo(b("{\"cniVersion\":\"1.0.0\",\"supportedVersions\":[\"0.4.0\",\"1.0.0\"]}\n")))
                .isEqualTo(new VersionInfo("1.0.0", List.of("0.4.0", "1.0.0")));
        assertThatThrownBy(() -> PluginOutput.versionInfo(new byte[0]))
                .hasMessage("decoding version info: unexpected end of JSON input");
        assertThatThrownBy(() -> PluginOutput.versionInfo(b("{\"supportedVersions\":[\"1.0.0\"]}")))
                .hasMessage("decoding version info: missing field cniVersion");
    }

    @Test
    void configVersionIsPeekedLikeLibcnisConfigDecoder() throws Exception {
        assertThat(PluginOutput.configVersion(b("{\"cniVersion\":\"0.3.1\",\"type\":\"x\"}")))
                .isEqualTo(CniVersion.V0_3_1);
        assertThat(PluginOutput.configVersion(b("{}"))).isEqualTo(CniVersion.V0_1_0);
        assertThatThrownBy(() -> PluginOutput.configVersion(b("")))
                .hasMessage("decoding version from network config: unexpected end of JSON input");
    }
}
