package io.jcni.spec;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A deterministic sweep that complements the fuzzer: every single-byte deletion, and replacement by a handful of
 * structural characters, of realistic documents, through every decoder. Only {@link CniException} may come out, with
 * a code the codec documents.
 */
class BadInputTest {

    private static final List<String> DOCUMENTS = List.of(
            """
                    {"cniVersion":"1.1.0","name":"dbnet","cniVersions":["1.0.0"],"disableCheck":"true",\
                    "plugins":[{"type":"bridge","ipam":{"type":"host-local"},"dns":{"nameservers":\
                    ["10.1.0.1"]},"capabilities":{"mac":true}}]}""",
            """
                    {"cniVersion":"0.4.0","name":"n","type":"tuning","prevResult":{"ips":[{"version":"4",\
                    "address":"10.0.0.5/32","interface":2,"gateway":"10.0.0.1"}],"routes":[{"dst":\
                    "0.0.0.0/0"}]}}""",
            """
                    {"cniVersion":"1.1.0","interfaces":[{"name":"e","mtu":1500}],"ips":[{"address":\
                    "fd00::5/64","gateway":"fd00::1"}],"routes":[{"dst":"::/0","table":1,"scope":0}]}""",
            "{\"cniVersion\":\"0.2.0\",\"ip4\":{\"ip\":\"10.0.0.2/8\",\"routes\":[{\"dst\":\"10.0.0.0/8\"}]}}",
            "{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"m\",\"details\":\"d\"}",
            "{\"cniVersion\":\"0.2.0\",\"supportedVersions\":[\"0.1.0\"]}");

    private static final Set<Integer> CODES = Set.of(1, 6, 7);

    interface Decoder {
        Object decode(byte[] input) throws CniException;
    }

    private static final List<Decoder> DECODERS = List.of(CniJson::parse, CniJson::decodePluginConfig,
            CniJson::decodeNetworkConfigList, CniJson::decodeResult, in -> CniJson.decodeResult(in, CniVersion.V1_0_0),
            in -> CniJson.decodeResult(in, CniVersion.V0_4_0), CniJson::decodeError, CniJson::decodeVersionInfo,
            CniJson::peekCniVersion, in -> CniJson.decodeResult(in, CniVersion.V0_1_0).convertTo(CniVersion.V1_1_0),
            in -> CniJson.decodeResult(in, CniVersion.V1_1_0).convertTo(CniVersion.V0_1_0));

    @Test
    void everySingleByteCorruptionFailsOnlyWithDocumentedCniExceptions() {
        int inputs = 0;
        int failures = 0;
        for (String document : DOCUMENTS) {
            byte[] original = document.getBytes(UTF_8);
            List<byte[]> variants = new ArrayList<>();
            for (int i = 0; i < original.length; i++) {
                byte[] deleted = new byte[original.length - 1];
                System.arraycopy(original, 0, deleted, 0, i);
                System.arraycopy(original, i + 1, deleted, i, original.length - i - 1);
                variants.add(deleted);
                for (byte b : new byte[] {'"', '{', '[', ']', '}', ',', ':', '0', '-', 'x', '/', '.', (byte) 0xff}) {
                    byte[] replaced = original.clone();
                    replaced[i] = b;
                    variants.add(replaced);
                }
            }
            for (byte[] variant : variants) {
                for (Decoder decoder : DECODERS) {
                    inputs++;
                    try {
                        decoder.decode(variant);
                    } catch (CniException e) {
                        failures++;
                        assertThat(CODES).as("%s for %s", e.getMessage(), new String(variant, UTF_8))
                                .contains(e.code());
                    }
                }
            }
        }
        assertThat(inputs).isGreaterThan(50_000);
        assertThat(failures).as("the sweep must actually hit errors").isGreaterThan(inputs / 2);
    }
}
