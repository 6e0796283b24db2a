package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.FailureTexts;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.runtime.Delegation;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Delegation} (what jcni's plugins use to call IPAM) against real Go peers: Debian's static and host-local IPAM
 * plugins, and the trivial plugin's failure modes with the errors libcni reports for them. IPAM plugins touch no
 * namespace, so no root is needed.
 */
class DelegationToGoPluginsTest {

    @TempDir
    Path tmp;

    private static Map<String, String> pluginEnv(String command, Path cniPath) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.putAll(Map.of("CNI_COMMAND", command, "CNI_CONTAINERID", "jcni-rt-delegation", "CNI_NETNS",
                "/var/run/netns/jcni-rt-absent", "CNI_IFNAME", "eth0", "CNI_ARGS", "", "CNI_PATH", cniPath.toString()));
        return env;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void staticIpamAddCheckDel(String version) throws Exception {
        Prerequisites.assumeReferencePlugins("static");
        byte[] config = bytes("""
                {"cniVersion":"%s","name":"jcni-rt-static","type":"bridge","ipam":{"type":"static",\
                "addresses":[{"address":"10.77.0.5/24","gateway":"10.77.0.1"}],"routes":[{"dst":"0.0.0.0/0"}],\
                "dns":{"nameservers":["10.77.0.53"]}}}""".formatted(version));
        Delegation delegation = Delegation.create(pluginEnv("ADD", Locations.referencePlugins()),
                InProcessPlugins.none());

        CniResult result = delegation.add("static", config);

        assertThat(result.cniVersion()).isEqualTo(CniVersion.parse(version));
        Result r = (Result) result;
        assertThat(r.ips()).singleElement().satisfies(ip -> {
            assertThat(ip.address().toString()).isEqualTo("10.77.0.5/24");
            assertThat(ip.gateway().getHostAddress()).isEqualTo("10.77.0.1");
        });
        assertThat(r.routes()).singleElement().satisfies(route -> assertThat(route.dst().toString())
                .isEqualTo("0.0.0.0/0"));
        assertThat(r.dns().nameservers()).containsExactly("10.77.0.53");
        if (CniVersion.parse(version).supportsCheck()) {
            // CHECK is checked against the ADD result, which the calling plugin passes as prevResult.
            byte[] withPrev = CniJson.encode(CniJson.decodePluginConfig(config).withPrevResult(result));
            delegation.check("static", withPrev);
        }
        delegation.del("static", config);
    }

    @Test
    void hostLocalAllocatesAndReleasesInItsDataDir() throws Exception {
        Prerequisites.assumeReferencePlugins("host-local");
        Path dataDir = tmp.resolve("ipam");
        byte[] config = bytes("""
                {"cniVersion":"1.0.0","name":"jcni-rt-hl","type":"bridge","ipam":{"type":"host-local",\
                "dataDir":"%s","ranges":[[{"subnet":"10.78.0.0/24"}]]}}""".formatted(dataDir));
        Delegation delegation = Delegation.create(pluginEnv("ADD", Locations.referencePlugins()),
                InProcessPlugins.none());

        Result result = (Result) delegation.add("host-local", config);

        assertThat(result.ips()).singleElement().satisfies(ip ->
                assertThat(ip.address().toString()).isEqualTo("10.78.0.2/24"));
        Path reservation = dataDir.resolve("jcni-rt-hl/10.78.0.2");
        assertThat(Files.readString(reservation)).isEqualTo("jcni-rt-delegation\r\neth0");

        delegation.del("host-local", config);
        assertThat(reservation).doesNotExist();
        delegation.del("host-local", config);
    }

    @Test
    void hostLocalsOwnErrorComesBackUnchanged() throws Exception {
        Prerequisites.assumeReferencePlugins("host-local");
        byte[] config = bytes("""
                {"cniVersion":"1.0.0","name":"jcni-rt-hl","type":"bridge","ipam":{"type":"host-local",\
                "dataDir":"%s","ranges":[[{"subnet":"10.78.0.0/33"}]]}}""".formatted(tmp.resolve("ipam")));

        assertThatThrownBy(() -> Delegation.create(pluginEnv("ADD", Locations.referencePlugins()),
                InProcessPlugins.none()).add("host-local", config))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    // Go's skel wraps a plain error as code 999 (ErrInternal); the text is host-local's own.
                    assertThat(e.code()).isEqualTo(CniError.INTERNAL);
                    assertThat(e.error().msg()).contains("10.78.0.0/33");
                });
    }

    /** Each trivial-plugin failure mode through Delegation gives the CNI error libcni finds in its error chain. */
    @ParameterizedTest(name = "mode {0}")
    @ValueSource(strings = {"crash", "error", "stderr-only", "empty-exit1", "garbage"})
    void trivialPluginFailuresMatchLibcnisErrors(String mode) throws Exception {
        Prerequisites.assumeGoTools();
        JsonNode recorded = FailureTexts.recordedCase("add", mode);
        Map<String, String> env = pluginEnv("ADD", Locations.goBin());
        env.put("JCNI_TRIVIAL_MODE", mode);
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        byte[] config = bytes("{\"cniVersion\":\"1.0.0\",\"name\":\"iop-trivial\",\"type\":\"trivial-plugin\"}");

        assertThatThrownBy(() -> Delegation.create(env, InProcessPlugins.none(), stderr)
                .add(Locations.TRIVIAL_PLUGIN_TYPE, config)).isInstanceOfSatisfying(CniException.class, e -> {
                    JsonNode expected = recorded.path("cniError");
                    assertThat(e.code()).isEqualTo(expected.path("code").asInt());
                    assertThat(e.error().details()).isEqualTo(expected.path("details").asText(""));
                    if (mode.equals("garbage")) {
                        // Same prefix; after it libcni quotes Go's JSON parser, jcni its own.
                        String goParserText = "invalid character 'i' in literal true (expecting 'u')";
                        String msg = expected.path("msg").asText();
                        assertThat(e.error().msg()).startsWith(msg.substring(0, msg.indexOf(goParserText)));
                    } else {
                        assertThat(e.error().msg()).isEqualTo(expected.path("msg").asText());
                    }
                });
    }

    @Test
    void theTrivialPluginsResultDecodes() throws Exception {
        Prerequisites.assumeGoTools();
        byte[] config = bytes("{\"cniVersion\":\"1.0.0\",\"name\":\"iop-trivial\",\"type\":\"trivial-plugin\"}");
        Result result = (Result) Delegation.create(pluginEnv("ADD", Locations.goBin()), InProcessPlugins.none())
                .add(Locations.TRIVIAL_PLUGIN_TYPE, config);
        assertThat(new String(CniJson.encode(result), StandardCharsets.UTF_8)).contains("192.0.2.10/24");
        assertThat(result.interfaces()).singleElement().satisfies(i -> {
            assertThat(i.name()).isEqualTo("eth0");
            assertThat(i.sandbox()).isEqualTo("/var/run/netns/jcni-rt-absent");
        });
    }

}
