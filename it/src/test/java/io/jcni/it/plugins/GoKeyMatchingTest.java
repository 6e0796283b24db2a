package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.GoKeySpellings;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Go's plugins and jcni's get the same stdin, byte for byte, and must answer the same: both accept it with the same
 * result and the same reservations, or both refuse it (with the same code when Go's is one of the spec's well-known
 * codes; Go's plugins answer most configuration errors with 999, jcni with the well-known code that fits). The
 * stdins are IPAM configurations whose keys are spelled as Go's encoding/json still matches them to its struct
 * fields ({@link GoKeySpellings}: {@code IPAM}, {@code Ranges}, {@code RANGESTART}, {@code ſubnet}), from seeded
 * spellings, and documents where several spellings of one key meet (the last one wins, objects merge, a wrong type
 * under an overridden key is still refused). The IPAM plugins run directly, so the document order reaches the
 * plugin as written (a runtime like libcni re-sorts the keys). The interface and meta plugins get the same treatment
 * through Go libcni in {@code GoKeyMatchingChainTest}.
 */
class GoKeyMatchingTest {
    private static final Set<String> MAP_KEYS = Set.of("capabilities", "sysctl");
    private static final int SPELLINGS = 6;

    @TempDir
    Path tmp;

    @AutoClose
    private TestNetns netns;

    private Path dataDir;

    @BeforeEach
    void setUp() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeReferencePlugins("host-local", "static");
        Prerequisites.assumeDistPlugins("host-local", "static");
        netns = TestNetns.create("keys");
        dataDir = tmp.resolve("ipam");
    }

    /** The IPAM configurations, in Go's documented keys, with {@code @DATA@} for the data dir. */
    static final String[][] IPAM_CONFIGS = {
        {"host-local ranges", """
            {"cniVersion":"1.0.0","name":"jcni-keys","type":"bridge","ipam":{"type":"host-local","dataDir":"@DATA@",\
            "ranges":[[{"subnet":"10.231.1.0/24","rangeStart":"10.231.1.10","rangeEnd":"10.231.1.20",\
            "gateway":"10.231.1.1"}],[{"subnet":"fd31:1::/64"}]],"routes":[{"dst":"0.0.0.0/0"},\
            {"dst":"10.9.0.0/16","gw":"10.231.1.254"}]}}"""},
        {"host-local legacy range", """
            {"cniVersion":"0.4.0","name":"jcni-keys","type":"ptp","ipam":{"type":"host-local","dataDir":"@DATA@",\
            "subnet":"10.231.2.0/24","rangeStart":"10.231.2.50","gateway":"10.231.2.1",\
            "routes":[{"dst":"0.0.0.0/0"}]}}"""},
        {"host-local ipRanges capability and args", """
            {"cniVersion":"1.0.0","name":"jcni-keys","type":"bridge","runtimeConfig":{"ipRanges":\
            [[{"subnet":"10.231.3.0/24","rangeStart":"10.231.3.100","rangeEnd":"10.231.3.110",\
            "gateway":"10.231.3.1"}]]},"args":{"cni":{"ips":["10.231.3.105"]}},"ipam":{"type":"host-local",\
            "dataDir":"@DATA@","ranges":[[{"subnet":"10.231.4.0/24"}]]}}"""},
        {"static", """
            {"cniVersion":"1.0.0","name":"jcni-keys","type":"macvlan","ipam":{"type":"static","addresses":\
            [{"address":"10.231.5.5/24","gateway":"10.231.5.1"},{"address":"fd31:5::5/64"}],\
            "routes":[{"dst":"0.0.0.0/0","gw":"10.231.5.1"}],"dns":{"nameservers":["10.231.5.53"],\
            "domain":"example.com","search":["example.com"],"options":["ndots:2"]}}}"""},
        {"static ips capability", """
            {"cniVersion":"1.0.0","name":"jcni-keys","type":"macvlan","runtimeConfig":{"ips":["10.231.6.6/24"]},\
            "ipam":{"type":"static","routes":[{"dst":"10.8.0.0/16","gw":"10.231.6.1"}]}}"""},
    };

    static Stream<Arguments> respelled() {
        List<Arguments> all = new ArrayList<>();
        for (String[] config : IPAM_CONFIGS) {
            for (int seed = 0; seed <= SPELLINGS; seed++) {
                all.add(Arguments.of(config[0], seed));
            }
        }
        return all.stream();
    }

    /** Seed 0 is the configuration as documented; the others respell every key Go matches to a struct field. */
    @ParameterizedTest(name = "{0}, spelling {1}")
    @MethodSource("respelled")
    void ipamPluginsAcceptEverySpellingGosAcceptsWithTheSameResult(String what, int seed) throws IOException {
        String base = null;
        for (String[] config : IPAM_CONFIGS) {
            if (config[0].equals(what)) {
                base = config[1].replace("@DATA@", dataDir.toString());
            }
        }
        String stdin = seed == 0 ? base
                : Json.write(GoKeySpellings.respell(Json.parse(base), MAP_KEYS, new Random(seed)));
        String type = Json.parse(base).path("ipam").path("type").asText();
        Outcome go = run(Locations.referencePlugin(type), stdin);
        assertThat(go.accepted).as("Go's %s accepts %s: %s", type, stdin, go.text).isTrue();
        Outcome jcni = run(Locations.distPlugin(type), stdin);
        jcni.requireSame(go, stdin);
    }

    /** Documents where spellings of one key meet; Go's answer is the reference, whichever it is. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        the last spelling wins       | "ranges":[[{"subnet":"10.231.7.0/24"}]],"RANGES":[[{"subnet":"10.231.8.0/24"}]]
        in document order            | "Ranges":[[{"subnet":"10.231.8.0/24"}]],"ranges":[[{"subnet":"10.231.7.0/24"}]]
        inside a range               | "ranges":[[{"subnet":"10.231.7.0/24","rangeStart":"10.231.7.9","RangeStart":"10.231.7.7"}]]
        a null leaves a string       | "ranges":[[{"subnet":"10.231.7.0/24"}]],"DataDir":null
        a null resets an IP          | "ranges":[[{"subnet":"10.231.7.0/24","rangeStart":"10.231.7.9","RANGESTART":null}]]
        a null resets an array       | "ranges":[[{"subnet":"10.231.7.0/24"}]],"routes":[{"dst":"10.1.0.0/16"}],"Routes":null
        a wrong type overridden      | "ranges":[[{"subnet":"10.231.7.0/24"}]],"Routes":{},"routes":[]
        an overridden string number  | "ranges":[[{"subnet":"10.231.7.0/24"}]],"dataDir":7,"DATADIR":"@DATA@"
        """)
    void whereSpellingsOfOneKeyMeetJcniAnswersAsGo(String what, String members) throws IOException {
        String stdin = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-keys\",\"type\":\"bridge\",\"ipam\":{"
                + "\"type\":\"host-local\",\"dataDir\":\"@DATA@\"," + members + "}}";
        stdin = stdin.replace("@DATA@", dataDir.toString());
        Outcome go = run(Locations.referencePlugin("host-local"), stdin);
        Outcome jcni = run(Locations.distPlugin("host-local"), stdin);
        jcni.requireSame(go, stdin);
    }

    /** Objects under two spellings of one key are merged, as Go decodes the second into the first. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        ipam merged               | "ipam":{"type":"host-local","dataDir":"@DATA@"},"IPAM":{"ranges":[[{"subnet":"10.231.9.0/24"}]]}
        ipam merged, later wins   | "IPAM":{"type":"host-local","dataDir":"@DATA@","subnet":"10.231.9.0/24"},"ipam":{"SUBNET":"10.231.10.0/24"}
        runtimeConfig merged      | "runtimeConfig":{"ipRanges":[[{"subnet":"10.231.11.0/24"}]]},"RuntimeConfig":{"IPRanges":[[{"Subnet":"10.231.12.0/24"}]]},"ipam":{"type":"host-local","dataDir":"@DATA@"}
        """)
    void objectsUnderSpellingsOfOneKeyMergeAsInGo(String what, String members) throws IOException {
        String stdin = ("{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-keys\",\"type\":\"bridge\"," + members + "}")
                .replace("@DATA@", dataDir.toString());
        Outcome go = run(Locations.referencePlugin("host-local"), stdin);
        assertThat(go.accepted).as("Go accepts %s: %s", stdin, go.text).isTrue();
        Outcome jcni = run(Locations.distPlugin("host-local"), stdin);
        jcni.requireSame(go, stdin);
    }

    /**
     * What one plugin answered to ADD, and what it left: the result (or "refused" and the code when Go's is a
     * well-known one), the reservation files after ADD, and after DEL of the same stdin. The data dir is emptied
     * first, so both plugins start from nothing.
     */
    private record Outcome(boolean accepted, int code, String text) {
        /** jcni's outcome is Go's: the same text, and the same code where Go's is one of the spec's. */
        void requireSame(Outcome go, String stdin) {
            assertThat(text).as("jcni (below) against Go (above), stdin %s", stdin).isEqualTo(go.text);
            if (!go.accepted && go.code > 0 && go.code < 100) {
                assertThat(code).as("jcni's code against Go's, stdin %s", stdin).isEqualTo(go.code);
            }
        }
    }

    private Outcome run(Path plugin, String stdin) throws IOException {
        deleteTree(dataDir);
        CniExec exec = CniExec.of(plugin, List.of(plugin.getParent()));
        CniExec.Outcome add = exec.add(stdin, netns.path(), "keys-ctr", "eth0");
        StringBuilder text = new StringBuilder();
        if (add.succeeded()) {
            text.append("result ").append(withoutEmptyDns(add.result())).append('\n');
        } else {
            text.append("refused").append('\n');
        }
        text.append("reserved ").append(reservations()).append('\n');
        CniExec.Outcome del = exec.del(stdin, netns.path(), "keys-ctr", "eth0");
        text.append("DEL ").append(del.succeeded() ? "ok" : "refused").append(", left ").append(reservations());
        return new Outcome(add.succeeded(), add.succeeded() ? 0 : add.code(), text.toString());
    }

    /** Go 1.1.1's results print {@code "dns":{}} when there is none; jcni's, as later Go releases, leave it out. */
    private static JsonNode withoutEmptyDns(JsonNode result) {
        if (result instanceof ObjectNode object && object.path("dns").isObject() && object.path("dns").isEmpty()) {
            ObjectNode copy = object.deepCopy();
            copy.remove("dns");
            return copy;
        }
        return result;
    }

    /** The reservation files in the data dir (an address per file), sorted; lock and marker files aside. */
    private List<String> reservations() throws IOException {
        List<String> found = new ArrayList<>();
        if (!Files.isDirectory(dataDir)) {
            return found;
        }
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.filter(Files::isRegularFile).map(p -> dataDir.relativize(p).toString())
                    .filter(name -> !name.startsWith(".jcni") && !name.contains("/.jcni")
                            && !name.endsWith("/lock") && !name.contains("last_reserved_ip"))
                    .sorted().forEach(found::add);
        }
        return found;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
