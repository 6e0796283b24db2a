package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's runtime reads a network configuration as Go libcni 1.1.2 does: each plugin's object as libcni's
 * {@code NetConf} struct, whose keys match in any case ({@code "Type"}, {@code "CAPABILITIES"}), the list's top level
 * as a map, whose keys must be exact ({@code "Plugins"} is no list). Both runtimes run the same conflist on Go's
 * trivial plugin with go-cni's capability arguments, and the plugin records the stdin each got: the same, but for the
 * order of the keys (libcni re-sorts them) and for {@code capabilities}, which jcni removes as the spec says (in
 * every spelling) and libcni 1.1.2 leaves in.
 */
class RuntimeKeyMatchingTest {
    private static final String CAP_ARGS = """
            {"portMappings":[{"HostPort":18080,"ContainerPort":8080,"Protocol":"tcp","HostIP":""}],\
            "bandwidth":{"IngressRate":8000000,"IngressBurst":80000,"EgressRate":8000000,"EgressBurst":80000},\
            "ipRanges":[[{"Subnet":"10.231.50.0/24","RangeStart":"","RangeEnd":"","Gateway":""}]],\
            "dns":{"Servers":["10.231.50.53"],"Searches":["example.com"],"Options":["ndots:5"]}}""";

    @TempDir
    Path tmp;

    private Path conflist(Path record) throws Exception {
        return Files.writeString(tmp.resolve("net.conflist"), """
                {"cniVersion":"1.0.0","name":"jcni-rt-keys","plugins":[\
                {"Type":"trivial-plugin","RecordFile":"%s","Capabilities":{"portMappings":true,"dns":true}},\
                {"TYPE":"trivial-plugin","recordfile":"%s","CAPABILITIES":{"bandwidth":true,"ipRanges":true},\
                "ipMasq":true},\
                {"type":"trivial-plugin","recordFile":"%s","capabilities":{"portmappings":true}}]}"""
                .formatted(record, record, record));
    }

    @Test
    void pluginKeysInAnyCaseAreReadAsLibcniReadsThem() throws Exception {
        Prerequisites.assumeGoTools();
        Path goRecord = tmp.resolve("go.jsonl");
        Path jcniRecord = tmp.resolve("jcni.jsonl");
        Path goConf = conflist(goRecord);
        Attachment attachment = Attachment.of("keys-rt", "eth0").withCapabilityArgs(CAP_ARGS);
        DriverOutcome go = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("go-cache"))
                .add(goConf, Path.of("/var/run/netns/jcni-rt-absent"), attachment);
        assertThat(go.succeeded()).as(go.process().describe()).isTrue();

        Path jcniConf = conflist(jcniRecord);
        NetworkConfigList list = CniJson.decodeNetworkConfigList(Files.readAllBytes(jcniConf));
        CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                .withCacheDir(tmp.resolve("jcni-cache")));
        runtime.addNetworkList(list, new RuntimeConf("keys-rt", "/var/run/netns/jcni-rt-absent", "eth0",
                CniArgs.empty(), (JsonObject) io.jcni.spec.Json.parse(CAP_ARGS)));

        List<JsonNode> goCalls = Records.read(goRecord);
        List<JsonNode> jcniCalls = Records.read(jcniRecord);
        assertThat(goCalls).hasSize(3);
        assertThat(jcniCalls).hasSize(3);
        for (int i = 0; i < 3; i++) {
            JsonNode goConfig = withoutCapabilities(goCalls.get(i).path("config"), goRecord, jcniRecord);
            JsonNode jcniConfig = jcniCalls.get(i).path("config");
            assertThat(hasCapabilitiesKey(jcniConfig)).as("jcni removes capabilities in any spelling").isFalse();
            assertThat(jcniConfig).as("plugin %d: jcni's stdin against libcni's", i).isEqualTo(goConfig);
        }
        // What the calls prove: the capability arguments reached the plugins that enable them, go-cni's keys intact.
        assertThat(jcniCalls.get(0).path("config").path("runtimeConfig").path("portMappings").get(0).has("HostPort"))
                .isTrue();
        assertThat(jcniCalls.get(1).path("config").path("runtimeConfig").path("ipRanges")).isNotEmpty();
        // "portmappings" is not "portMappings": libcni looks capability arguments up in a map, exactly.
        assertThat(jcniCalls.get(2).path("config").has("runtimeConfig")).isFalse();
    }

    /** The list's own keys are looked up in a map by libcni: another spelling is no such key, in jcni too. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"Plugins", "NAME", "CNIVersion"})
    void theListsTopLevelKeysAreExactInBothRuntimes(String key) throws Exception {
        Prerequisites.assumeGoTools();
        String document = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-rt-keys\",\"plugins\":[{\"type\":"
                + "\"trivial-plugin\"}]}";
        String original = key.toLowerCase(Locale.ROOT).equals("cniversion") ? "cniVersion"
                : key.toLowerCase(Locale.ROOT);
        document = document.replace("\"" + original + "\"", "\"" + key + "\"");
        Path conf = Files.writeString(tmp.resolve("top.conflist"), document);
        DriverOutcome go = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("go-cache"))
                .add(conf, Path.of("/var/run/netns/jcni-rt-absent"), Attachment.of("keys-top", "eth0"));
        if (key.equals("CNIVersion")) {
            // Neither reads "CNIVersion" as the list's version: libcni hands its plugins "" (which they refuse),
            // jcni takes the absent version as 0.1.0, as it does for a list without one.
            assertThat(go.process().stdout()).as(go.process().describe()).contains("config is \\\"\\\"");
            NetworkConfigList list = CniJson.decodeNetworkConfigList(document.getBytes());
            assertThat(list.cniVersion().toString()).isEqualTo("0.1.0");
            return;
        }
        assertThat(go.succeeded()).as("libcni refuses %s: %s", document, go.process().describe()).isFalse();
        CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                .withCacheDir(tmp.resolve("jcni-cache")));
        String refused = document;
        assertThatThrownBy(() -> runtime.addNetworkList(CniJson.decodeNetworkConfigList(refused.getBytes()),
                new RuntimeConf("keys-top", "/var/run/netns/jcni-rt-absent", "eth0")))
                .isInstanceOf(CniException.class);
    }

    private static boolean hasCapabilitiesKey(JsonNode config) {
        for (Iterator<String> it = config.fieldNames(); it.hasNext(); ) {
            if (it.next().equalsIgnoreCase("capabilities")) {
                return true;
            }
        }
        return false;
    }

    /** libcni's stdin without what jcni removes, its record file renamed to jcni's. */
    private static JsonNode withoutCapabilities(JsonNode config, Path goRecord, Path jcniRecord) {
        ObjectNode copy = ((ObjectNode) config).deepCopy();
        List<String> remove = new ArrayList<>();
        for (Iterator<String> it = copy.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (name.equalsIgnoreCase("capabilities")) {
                remove.add(name);
            }
            if (name.equalsIgnoreCase("recordfile")) {
                copy.put(name, jcniRecord.toString());
            }
        }
        copy.remove(remove);
        return copy;
    }
}
