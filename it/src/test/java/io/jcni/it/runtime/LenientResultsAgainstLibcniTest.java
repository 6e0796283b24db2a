package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Results that break the spec the way third-party plugins' results do, which Go libcni 1.1.2 accepts and passes on:
 * an {@code ips[].interface} that is not an index of {@code interfaces} (its {@code *int} takes any value), and a
 * 0.3.x/0.4.0 {@code ips[].version} that contradicts the address (a free string to it). A runtime must not fail a
 * container that Go runtimes start, so jcni accepts them too, with a warning. Compared with libcni itself, through the
 * libcni driver: {@code jcni convert} against libcni's {@code CreateFromBytes} + {@code GetAsVersion}, and the result
 * cache of each runtime against the other's (written by an ADD of the same plugin output, read back by both).
 *
 * <p>Where they agree: both accept every case; interface indexes are passed on exactly as printed; addresses,
 * gateways, interfaces, routes and DNS are the same; converted to 1.0.0 (what Go runtimes such as containerd and
 * podman read results as) the outputs are the same document. Where jcni differs, on purpose, each asserted below: the
 * model derives {@code version} from the address, so a contradicting {@code version} is printed corrected where
 * libcni copies it through (same version, 0.3.x/0.4.0 to each other), and a 0.2.0 conversion puts each address in
 * {@code ip4} or {@code ip6} by its family where libcni follows the declared {@code version} (an IPv6 address in
 * {@code ip4}).
 */
class LenientResultsAgainstLibcniTest {

    @TempDir
    Path tmp;

    /** One named case: a result a plugin printed, and what makes it break the spec. */
    record Case(String name, String result, boolean contradictingVersions) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final Case INDEX_MINUS_ONE = new Case("interface index -1", """
            {"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"/var/run/netns/x"}],"ips":[{"interface":-1,\
            "address":"10.9.0.2/24","gateway":"10.9.0.1"}],"routes":[{"dst":"0.0.0.0/0"}],"dns":{}}""", false);
    static final Case INDEX_PAST_THE_END = new Case("interface index past the end of interfaces", """
            {"cniVersion":"1.0.0","interfaces":[{"name":"eth0"}],"ips":[{"interface":1,"address":"10.9.0.2/24"},\
            {"interface":7,"address":"2001:db8::2/64"}],"dns":{}}""", false);
    static final Case INDEX_IN_040 = new Case("interface index past the end in a 0.4.0 result", """
            {"cniVersion":"0.4.0","interfaces":[{"name":"eth0"}],"ips":[{"version":"4","interface":2,\
            "address":"10.9.0.2/24","gateway":"10.9.0.1"}],"dns":{}}""", false);
    static final Case VERSION_6_ON_IPV4 = new Case("0.4.0 version \"6\" on an IPv4 address", """
            {"cniVersion":"0.4.0","interfaces":[{"name":"eth0"}],"ips":[{"version":"6","interface":0,\
            "address":"10.9.0.2/24","gateway":"10.9.0.1"}],"routes":[{"dst":"0.0.0.0/0"}],"dns":{}}""", true);
    static final Case VERSION_4_ON_IPV6 = new Case("0.3.1 version \"4\" on an IPv6 address", """
            {"cniVersion":"0.3.1","ips":[{"version":"4","address":"2001:db8::2/64"}],"dns":{}}""", true);
    static final Case BOTH = new Case("0.4.0 with both, and a consistent address", """
            {"cniVersion":"0.4.0","interfaces":[{"name":"eth0"}],"ips":[{"version":"6","interface":-1,\
            "address":"10.9.0.2/24","gateway":"10.9.0.1"},{"version":"4","interface":3,"address":"2001:db8::2/64"},\
            {"version":"4","interface":0,"address":"10.9.0.3/24"}],"routes":[{"dst":"0.0.0.0/0","gw":"10.9.0.1"}],\
            "dns":{"nameservers":["10.9.0.53"]}}""", true);

    static final List<Case> CASES = List.of(INDEX_MINUS_ONE, INDEX_PAST_THE_END, INDEX_IN_040, VERSION_6_ON_IPV4,
            VERSION_4_ON_IPV6, BOTH);

    /** The versions both implement (Debian's libcni 1.1.2 has no 1.1.0). */
    static final List<String> TARGETS = List.of("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0");

    static Stream<Arguments> conversions() {
        List<Arguments> all = new ArrayList<>();
        for (Case c : CASES) {
            for (String target : TARGETS) {
                all.add(Arguments.of(c, target));
            }
        }
        return all.stream();
    }

    static Stream<Case> cases() {
        return CASES.stream();
    }

    private static CniResult lenient(String json) {
        return CniJson.decodeResult(json.getBytes(StandardCharsets.UTF_8), null, new ArrayList<>());
    }

    private static CniVersion version(String text) {
        return CniVersion.parse(text);
    }

    /** The warnings jcni prints for a case, without the CLI's prefix and suffix. */
    private static List<String> warnings(Case c) {
        List<String> warnings = new ArrayList<>();
        CniJson.decodeResult(c.result().getBytes(StandardCharsets.UTF_8), null, warnings);
        return warnings;
    }

    @ParameterizedTest(name = "{0} to {1}")
    @MethodSource("conversions")
    void jcniConvertAcceptsWhatLibcniAcceptsAndAgreesWithItsOutput(Case c, String target) throws Exception {
        Prerequisites.assumeGoTools();
        Path file = Files.writeString(tmp.resolve("result.json"), c.result());
        DriverOutcome go = LibcniDriver.create(List.of(), tmp.resolve("cache")).convert(file, target);
        ProcessResult jcni = JcniCommand.MODULE.run(Map.of(), "convert", "--to", target, file.toString());

        assertThat(go.succeeded()).as("libcni accepts %s: %s", c, go.process().describe()).isTrue();
        assertThat(jcni.succeeded()).as("jcni accepts %s: %s", c, jcni.describe()).isTrue();
        List<String> expectedWarnings = new ArrayList<>();
        for (String warning : warnings(c)) {
            expectedWarnings.add("jcni: warning: " + warning + "; accepted, as Go libcni accepts it");
        }
        assertThat(expectedWarnings).as("each case is worth a warning").isNotEmpty();
        assertThat(jcni.stderr().lines().toList()).isEqualTo(expectedWarnings);

        JsonNode goJson = go.answer();
        JsonNode jcniJson = Json.parse(jcni.stdout());
        CniResult jcniResult = lenient(jcni.stdout());
        assertThat(jcniResult.cniVersion()).isEqualTo(version(target));
        boolean legacyTarget = version(target).hasLegacyResult();
        boolean copiedThrough = c.contradictingVersions() && !legacyTarget && !target.equals("1.0.0");
        if (legacyTarget && c.contradictingVersions()) {
            // libcni places each address by its declared version: an IPv4 address said to be "6" lands in ip6.
            // jcni places it by its family. The addresses themselves are the same set.
            assertThat(addressesOf(goJson)).containsExactlyInAnyOrderElementsOf(addressesOf(jcniJson));
            assertThat(goJson.path("ip4").path("ip").asText("")).doesNotContain(".");
            assertThat(jcniJson.path("ip4").path("ip").asText("")).doesNotContain(":");
        } else if (copiedThrough) {
            // libcni copies a contradicting version through a 0.x-to-0.x conversion; jcni prints the address's.
            JsonNode goIps = goJson.path("ips");
            JsonNode jcniIps = jcniJson.path("ips");
            JsonNode declared = Json.parse(c.result()).path("ips");
            for (int i = 0; i < declared.size(); i++) {
                assertThat(goIps.get(i).path("version")).isEqualTo(declared.get(i).path("version"));
                String family = jcniIps.get(i).path("address").asText().contains(":") ? "6" : "4";
                assertThat(jcniIps.get(i).path("version").asText()).isEqualTo(family);
            }
            assertThat(lenient(Json.write(goJson))).as("everything but the version").isEqualTo(jcniResult);
        } else {
            assertThat(lenient(Json.write(goJson))).isEqualTo(jcniResult);
            assertThat(withoutEmptyDns(goJson)).as("the same document").isEqualTo(withoutEmptyDns(jcniJson));
        }
        if (!legacyTarget) {
            for (int i = 0; i < goJson.path("ips").size(); i++) {
                assertThat(jcniJson.path("ips").get(i).path("interface"))
                        .as("ips[%d].interface passed on as printed", i)
                        .isEqualTo(goJson.path("ips").get(i).path("interface"));
            }
        }
    }

    /**
     * The result cache: the same plugin output ADDed through jcni's runtime and through libcni (each with its own
     * cache directory) is accepted by both, cached with the same interface indexes, and each runtime reads the other's
     * entry, CHECKs and DELs with it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void bothRuntimesAcceptCacheAndReadEachOthersEntries(Case c) throws Exception {
        Prerequisites.assumeGoTools();
        String listVersion = CniJson.decodeResult(c.result().getBytes(StandardCharsets.UTF_8)).cniVersion()
                .toString();
        Path conf = Files.writeString(tmp.resolve("net.conflist"), """
                {"cniVersion":"%s","name":"jcni-lenient","plugins":[{"type":"trivial-plugin","rawResult":%s}]}"""
                .formatted(listVersion, c.result()));
        NetworkConfigList list = CniJson.decodeNetworkConfigList(Files.readAllBytes(conf));
        Path jcniCache = tmp.resolve("jcni-cache");
        Path goCache = tmp.resolve("go-cache");
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        RuntimeConf rt = new RuntimeConf("lenient-1", "/var/run/netns/jcni-lenient-absent", "eth0");
        Attachment attachment = Attachment.of(rt.containerId(), "eth0");
        Path netns = Path.of(rt.netns());

        try (RuntimeWarnings warnings = new RuntimeWarnings();
                CniRuntime jcni = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                .withCacheDir(jcniCache).withStderr(sink))) {
            CniResult added = jcni.addNetworkList(list, rt);
            LibcniDriver go = LibcniDriver.create(List.of(Locations.goBin()), goCache);
            JsonNode goAdded = go.add(conf, netns, attachment).answer();

            assertThat(lenient(Json.write(goAdded))).isEqualTo(added);
            List<String> expectedWarnings = new ArrayList<>();
            for (String warning : warnings(c)) {
                expectedWarnings.add("plugin type=\"trivial-plugin\" (add) printed " + warning
                        + "; accepted and passed on, as Go libcni does");
            }
            // The runtime's warnings are System.Logger records (java.util.logging here), not lines in the sink.
            assertThat(warnings.messages()).isEqualTo(expectedWarnings);
            assertThat(sink.toString(StandardCharsets.UTF_8)).isEmpty();

            JsonNode jcniEntry = Json.read(jcniCache.resolve("results/jcni-lenient-lenient-1-eth0")).path("result");
            JsonNode goEntry = Json.read(goCache.resolve("results/jcni-lenient-lenient-1-eth0")).path("result");
            for (int i = 0; i < goEntry.path("ips").size(); i++) {
                assertThat(jcniEntry.path("ips").get(i).path("interface")).as("cached ips[%d].interface", i)
                        .isEqualTo(goEntry.path("ips").get(i).path("interface"));
            }
            assertThat(lenient(Json.write(goEntry))).isEqualTo(lenient(Json.write(jcniEntry)));

            // Each reads the other's entry: libcni jcni's, jcni libcni's.
            LibcniDriver goOnJcniCache = LibcniDriver.create(List.of(Locations.goBin()), jcniCache);
            assertThat(lenient(Json.write(goOnJcniCache.cachedResult(conf, attachment).answer()))).isEqualTo(added);
            try (CniRuntime jcniOnGoCache = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                    .withCacheDir(goCache).withStderr(sink))) {
                assertThat(jcniOnGoCache.cachedResult(list, rt)).contains(added);
                if (list.cniVersion().supportsCheck()) {
                    jcniOnGoCache.checkNetworkList(list, rt);
                    assertThat(goOnJcniCache.check(conf, netns, attachment).succeeded()).isTrue();
                }
                jcniOnGoCache.delNetworkList(list, rt);
                assertThat(goOnJcniCache.del(conf, netns, attachment).succeeded()).isTrue();
            }
            assertThat(jcniCache.resolve("results/jcni-lenient-lenient-1-eth0")).doesNotExist();
            assertThat(goCache.resolve("results/jcni-lenient-lenient-1-eth0")).doesNotExist();
        }
        if (c == BOTH) {
            Result modern = Result.from(lenient(c.result()));
            assertThat(modern.ips()).extracting(ip -> ip.interfaceIndex()).containsExactly(-1, 3, 0);
        }
    }

    /** The CLI prints the same warnings on stderr at ADD and the result, with the index kept, on stdout. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void jcniAddWarnsOnStderrAndPrintsTheResult(Case c) throws Exception {
        Prerequisites.assumeGoTools();
        String listVersion = CniJson.decodeResult(c.result().getBytes(StandardCharsets.UTF_8)).cniVersion()
                .toString();
        Path confDir = Files.createDirectories(tmp.resolve("net.d"));
        Files.writeString(confDir.resolve("10-lenient.conflist"), """
                {"cniVersion":"%s","name":"jcni-lenient","plugins":[{"type":"trivial-plugin","rawResult":%s}]}"""
                .formatted(listVersion, c.result()));

        ProcessResult add = JcniCommand.MODULE.run(Map.of("NETCONFPATH", confDir.toString(), "CNI_PATH",
                Locations.goBin().toString()), "--cache-dir", tmp.resolve("cache").toString(), "add", "jcni-lenient",
                "/var/run/netns/jcni-lenient-absent");

        assertThat(add.succeeded()).as(add.describe()).isTrue();
        List<String> expected = new ArrayList<>();
        for (String warning : warnings(c)) {
            expected.add("jcni: warning: plugin type=\"trivial-plugin\" (add) printed " + warning
                    + "; accepted and passed on, as Go libcni does");
        }
        assertThat(add.stderr().lines().toList()).isEqualTo(expected);
        assertThat(lenient(add.stdout())).isEqualTo(lenient(c.result()));
    }

    private static List<String> addressesOf(JsonNode legacy) {
        List<String> addresses = new ArrayList<>();
        for (String family : List.of("ip4", "ip6")) {
            if (legacy.has(family)) {
                addresses.add(legacy.path(family).path("ip").asText());
            }
        }
        return addresses;
    }

    /** libcni 1.1.2 prints {@code "dns": {}} in 1.0.0 results, jcni (like libcni 1.2) omits it: not a difference. */
    private static JsonNode withoutEmptyDns(JsonNode result) {
        JsonNode copy = result.deepCopy();
        if (copy.path("dns").isEmpty() && copy instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
            object.remove("dns");
        }
        return copy;
    }

    /** The WARNING records of the runtime's results logger while open. */
    private static final class RuntimeWarnings extends java.util.logging.Handler implements AutoCloseable {
        private final java.util.logging.Logger logger = java.util.logging.Logger.getLogger("io.jcni.runtime.results");
        private final List<String> messages = new ArrayList<>();

        RuntimeWarnings() {
            logger.addHandler(this);
            logger.setUseParentHandlers(false);
        }

        @Override
        public synchronized void publish(java.util.logging.LogRecord record) {
            if (record.getLevel() == java.util.logging.Level.WARNING) {
                messages.add(record.getMessage());
            }
        }

        synchronized List<String> messages() {
            return List.copyOf(messages);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
            logger.setUseParentHandlers(true);
        }
    }
}
