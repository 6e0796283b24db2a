package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The result cache file as Go libcni 1.1.2 writes and reads it: what jcni's runtime must write for libcni to read,
 * and must read when libcni wrote it. The recorded sample is
 * {@code src/test/resources/libcni-cache/jcni-iop-sample-iop-sample-container-eth0}.
 */
class LibcniCacheFileTest {

    private static final String TAG = "iop";
    private static final String SAMPLE_NAME = "jcni-iop-sample-iop-sample-container-eth0";
    private static final Attachment SAMPLE_ATTACHMENT = Attachment.of("iop-sample-container", "eth0");

    /** The top-level keys libcni 1.1.2 writes, in its order; cniArgs and capabilityArgs only when non-empty. */
    private static final List<String> KEYS = List.of(
            "kind", "containerId", "config", "ifName", "networkName", "cniArgs", "capabilityArgs", "result");

    @TempDir
    Path tmp;

    @Test
    void goLibcniWritesTheCacheFileWhereAndAsDocumented() throws IOException {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("bridge", "host-local");
        String bridge = Names.link(TAG);
        String network = "jcni-iop-cache";
        Path cache = tmp.resolve("cache");
        Path conf = BridgeConflist.write(tmp.resolve("net.conflist"), "1.0.0", network, bridge, tmp.resolve("ipam"));
        String capabilityArgs = """
                {"portMappings":[{"hostPort":8080,"containerPort":80,"protocol":"tcp"}],\
                "mac":"02:00:00:00:00:01"}""";
        var attachment = Attachment.of("iop-cache-container", "eth1")
                .withCniArgs("IgnoreUnknown=1;K8S_POD_NAME=iop").withCapabilityArgs(capabilityArgs);
        try (TestHost host = TestHost.create(TAG)) {
            TestNetns netns = host.container();
            var driver = host.libcni(List.of(Locations.referencePlugins()), cache);
            JsonNode result = driver.add(conf, netns.path(), attachment).answer();
            try {
                Path file = cache.resolve("results").resolve(network + "-iop-cache-container-eth1");
                try (var listing = Files.list(cache.resolve("results"))) {
                    assertThat(listing.toList()).containsExactly(file);
                }
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
                JsonNode cached = Json.read(file);

                assertThat(fieldNames(cached)).containsExactlyElementsOf(KEYS);
                assertThat(cached.has("netns")).as("libcni 1.1.2 does not write netns (later versions do)").isFalse();
                assertThat(cached.path("kind").asText()).isEqualTo("cniCacheV1");
                assertThat(cached.path("containerId").asText()).isEqualTo("iop-cache-container");
                assertThat(cached.path("ifName").asText()).isEqualTo("eth1");
                assertThat(cached.path("networkName").asText()).isEqualTo(network);
                assertThat(Base64.getDecoder().decode(cached.path("config").asText()))
                        .as("config is the list's original bytes, base64").isEqualTo(Files.readAllBytes(conf));
                assertThat(cached.path("cniArgs"))
                        .isEqualTo(Json.parse("[[\"IgnoreUnknown\",\"1\"],[\"K8S_POD_NAME\",\"iop\"]]"));
                assertThat(cached.path("capabilityArgs"))
                        .as("all capability args are cached, not only those a plugin declared")
                        .isEqualTo(Json.parse(capabilityArgs));
                assertThat(cached.path("result")).isEqualTo(result);
                assertThat(shape(cached)).as("same shape as the recorded sample").isEqualTo(shape(sample()));

                assertThat(driver.cachedResult(conf, attachment).answer()).isEqualTo(result);
            } finally {
                driver.del(conf, netns.path(), attachment).answer();
            }
        }
    }

    @Test
    void goLibcniReadsTheRecordedSample() throws IOException {
        Prerequisites.assumeGoTools();
        JsonNode sample = sample();
        var driver = driverOver(installInCache(sampleText()));

        assertThat(driver.cachedResult("jcni-iop-sample", "1.0.0", SAMPLE_ATTACHMENT).answer())
                .isEqualTo(sample.path("result"));
        JsonNode asOld = driver.cachedResult("jcni-iop-sample", "0.4.0", SAMPLE_ATTACHMENT).answer();
        assertThat(asOld.path("cniVersion").asText()).isEqualTo("0.4.0");
        assertThat(asOld.path("ips").get(0).path("version").asText()).as("converted to the list's version")
                .isEqualTo("4");
        JsonNode config = driver.cachedConfig("jcni-iop-sample", SAMPLE_ATTACHMENT).answer();
        assertThat(config.path("config").asText()).isEqualTo(
                new String(Base64.getDecoder().decode(sample.path("config").asText()), StandardCharsets.UTF_8));
        assertThat(config.path("cniArgs")).isEqualTo(sample.path("cniArgs"));
        assertThat(config.path("capabilityArgs")).isEqualTo(sample.path("capabilityArgs"));
    }

    @Test
    void goLibcniIgnoresANetnsFieldAsNewerLibcniAndJcniWriteIt() throws IOException {
        Prerequisites.assumeGoTools();
        ObjectNode withNetns = (ObjectNode) sample();
        withNetns.put("netns", "/var/run/netns/jcni-iop-sample");
        var driver = driverOver(installInCache(Json.write(withNetns)));

        assertThat(driver.cachedResult("jcni-iop-sample", "1.0.0", SAMPLE_ATTACHMENT).answer())
                .isEqualTo(withNetns.path("result"));
        assertThat(driver.cachedConfig("jcni-iop-sample", SAMPLE_ATTACHMENT).answer().path("cniArgs"))
                .isEqualTo(withNetns.path("cniArgs"));
    }

    @Test
    void goLibcniReadsALegacyBareResultButNotItsConfig() throws IOException {
        Prerequisites.assumeGoTools();
        JsonNode result = sample().path("result");
        var driver = driverOver(installInCache(Json.write(result)));

        assertThat(driver.cachedResult("jcni-iop-sample", "1.0.0", SAMPLE_ATTACHMENT).answer()).isEqualTo(result);
        assertThat(driver.cachedConfig("jcni-iop-sample", SAMPLE_ATTACHMENT).error())
                .isEqualTo("read cached network \"jcni-iop-sample\" config has wrong kind: ");
    }

    @Test
    void goLibcniReportsNoCacheFileAsNull() {
        Prerequisites.assumeGoTools();
        var driver = driverOver(tmp.resolve("empty-cache"));

        assertThat(driver.cachedResult("jcni-iop-sample", "1.0.0", SAMPLE_ATTACHMENT).answer().isNull()).isTrue();
        assertThat(driver.cachedConfig("jcni-iop-sample", SAMPLE_ATTACHMENT).answer().isNull()).isTrue();
    }

    private LibcniDriver driverOver(Path cache) {
        return LibcniDriver.create(List.of(Locations.goBin()), cache);
    }

    private Path installInCache(String content) throws IOException {
        Path cache = tmp.resolve("cache");
        Path file = cache.resolve("results").resolve(SAMPLE_NAME);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return cache;
    }

    private static String sampleText() throws IOException {
        try (InputStream in = LibcniCacheFileTest.class.getResourceAsStream("/libcni-cache/" + SAMPLE_NAME)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static JsonNode sample() throws IOException {
        return Json.parse(sampleText());
    }

    private static List<String> fieldNames(JsonNode node) {
        var names = new ArrayList<String>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The JSON structure without values: objects keep their keys, arrays their first element, leaves their type. */
    private static JsonNode shape(JsonNode node) {
        if (node.isObject()) {
            ObjectNode shape = Json.object();
            node.properties().forEach(e -> shape.set(e.getKey(), shape(e.getValue())));
            return shape;
        }
        if (node.isArray()) {
            var shape = Json.object().arrayNode();
            if (!node.isEmpty()) {
                shape.add(shape(node.get(0)));
            }
            return shape;
        }
        return Json.object().textNode(node.getNodeType().name());
    }
}
