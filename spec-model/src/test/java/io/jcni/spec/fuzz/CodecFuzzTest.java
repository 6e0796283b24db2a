package io.jcni.spec.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniNames;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Json;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.VersionInfo;
import java.util.Set;

/**
 * Fuzzing of everything that reads untrusted text: the decoders (stdin configurations, conflist files, plugin
 * output) and the text parsers (CNI_ARGS, CIDRs, versions, names).
 *
 * <p>Properties checked on every input: nothing but {@link CniException} escapes, and only with the codes the codec
 * documents (1, 4, 6, 7); whatever decodes re-encodes to something that decodes to an equal value; results convert to
 * every version or fail with code 1, and the conversion encodes and decodes back unchanged.
 *
 * <p>In the normal test phase the committed corpus under {@code src/test/resources/io/jcni/spec/fuzz/
 * CodecFuzzTestInputs/<method>/} runs as regression tests. To fuzz one target (findings are written to that
 * directory and become regression inputs):
 * <pre>JAZZER_FUZZ=1 ./mvnw -B -pl spec-model test -Dtest='CodecFuzzTest#decodeAnyDocument' -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
class CodecFuzzTest {
    private static final Set<Integer> DOCUMENTED_CODES = Set.of(CniError.INCOMPATIBLE_CNI_VERSION,
            CniError.INVALID_ENVIRONMENT_VARIABLES, CniError.DECODING_FAILURE, CniError.INVALID_NETWORK_CONFIG);

    private static void expectedFailure(CniException e) {
        assertThat(DOCUMENTED_CODES).as("code of %s", e.getMessage()).contains(e.code());
        assertThat(e.getMessage()).isNotBlank();
    }

    @FuzzTest(maxDuration = "10m")
    void decodeAnyDocument(byte[] data) {
        try {
            Json json = CniJson.parse(data);
            byte[] encoded = CniJson.encode(json);
            assertThat(CniJson.parse(encoded)).isEqualTo(json);
            assertThat(CniJson.encode(CniJson.parse(encoded))).isEqualTo(encoded);
            assertThat(CniJson.parse(CniJson.encodeIndented(json))).isEqualTo(json);
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            PluginConfig config = CniJson.decodePluginConfig(data);
            assertThat(CniJson.decodePluginConfig(CniJson.encode(config))).isEqualTo(config);
            config.prevResult().ifPresent(CodecFuzzTest::checkResult);
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            NetworkConfigList list = CniJson.decodeNetworkConfigList(data);
            NetworkConfigList again = CniJson.decodeNetworkConfigList(CniJson.encode(list));
            assertThat(again).isEqualTo(list);
            assertThat(again.cniVersion()).isEqualTo(list.cniVersion());
            assertThat(again.plugins()).isEqualTo(list.plugins());
        } catch (CniException e) {
            expectedFailure(e);
        }
        for (CniVersion expected : new CniVersion[] {null, CniVersion.V0_2_0, CniVersion.V0_4_0, CniVersion.V1_1_0}) {
            try {
                checkResult(expected == null ? CniJson.decodeResult(data) : CniJson.decodeResult(data, expected));
            } catch (CniException e) {
                expectedFailure(e);
            }
        }
        try {
            CniError error = CniJson.decodeError(data);
            assertThat(CniJson.decodeError(CniJson.encode(error))).isEqualTo(error);
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            VersionInfo info = CniJson.decodeVersionInfo(data);
            assertThat(CniJson.decodeVersionInfo(CniJson.encode(info))).isEqualTo(info);
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            CniJson.peekCniVersion(data);
        } catch (CniException e) {
            expectedFailure(e);
        }
    }

    private static void checkResult(CniResult result) {
        try {
            assertThat(CniJson.decodeResult(CniJson.encode(result), result.cniVersion())).isEqualTo(result);
        } catch (CniException e) {
            throw new AssertionError("re-decoding an encoded result failed: " + e.getMessage(), e);
        }
        for (CniVersion target : CniVersion.SUPPORTED) {
            CniResult converted;
            try {
                converted = result.convertTo(target);
            } catch (CniException e) {
                assertThat(e.code()).isEqualTo(CniError.INCOMPATIBLE_CNI_VERSION);
                continue;
            }
            assertThat(converted.cniVersion()).isEqualTo(target);
            try {
                assertThat(CniJson.decodeResult(CniJson.encode(converted), target)).isEqualTo(converted);
            } catch (CniException e) {
                throw new AssertionError("re-decoding a converted result failed: " + e.getMessage(), e);
            }
        }
    }

    @FuzzTest(maxDuration = "10m")
    void parseText(FuzzedDataProvider data) {
        String text = data.consumeRemainingAsString();
        try {
            CniArgs args = CniArgs.parse(text);
            assertThat(CniArgs.parse(args.toString())).isEqualTo(args);
            args.requireKnown(Set.of("IP", "K8S_POD_NAME"));
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            IpPrefix prefix = IpPrefix.parse(text, "fuzz");
            assertThat(IpPrefix.parse(prefix.toString(), "fuzz")).isEqualTo(prefix);
            assertThat(prefix.masked().toString()).isEqualTo(IpPrefix.parse(prefix.masked().toString(), "f").toString());
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            var address = IpText.parseAddress(text, "fuzz");
            assertThat(IpText.parseAddress(IpText.format(address), "fuzz")).isEqualTo(address);
        } catch (CniException e) {
            expectedFailure(e);
        }
        try {
            CniVersion version = CniVersion.parse(text);
            assertThat(CniVersion.parse(version.toString())).isEqualTo(version);
        } catch (CniException e) {
            expectedFailure(e);
        }
        for (ThrowingCheck check : new ThrowingCheck[] {() -> CniNames.requireNetworkName(text),
                () -> CniNames.requireContainerId(text), () -> CniNames.requireInterfaceName(text),
                () -> CniNames.requirePluginType(text, "type")}) {
            try {
                check.run();
            } catch (CniException e) {
                assertThat(e.code()).isIn(3, 4, 7);
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingCheck {
        Object run() throws CniException;
    }
}
