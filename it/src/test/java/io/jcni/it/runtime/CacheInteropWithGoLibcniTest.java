package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CachedAttachment;
import io.jcni.runtime.CachedConfig;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The result cache is libcni's, both ways: what jcni writes, Go libcni 1.1.2 reads (cached result, cached config, and
 * as prevResult of its CHECK and DEL), and what libcni writes, jcni reads the same way. So a node can switch between
 * a libcni-based runtime and a jcni-based one without losing its attachments.
 */
class CacheInteropWithGoLibcniTest {
    private static final String TAG = "rt";
    private static final String CNI_ARGS = "IgnoreUnknown=1;K8S_POD_NAME=web";
    private static final String CAP_ARGS = """
            {"portMappings":[{"hostPort":8080,"containerPort":80,\
            "protocol":"tcp"}],"mac":"02:00:00:00:00:09"}""";

    @TempDir
    Path tmp;

    private Path trivialConflist(Path record) throws Exception {
        return Files.writeString(tmp.resolve("net.conflist"), """
                {"cniVersion":"1.0.0","name":"jcni-rt-iop","plugins":[{"type":"trivial-plugin","recordFile":"%s",\
                "capabilities":{"portMappings":true}},{"type":"trivial-plugin","recordFile":"%s"}]}"""
                .formatted(record, record));
    }

    private CniRuntime runtime(List<Path> cniPath) {
        return CniRuntime.create(CniRuntime.Options.of(cniPath).withCacheDir(tmp.resolve("cache")));
    }

    private static RuntimeConf rt(String id, String netns) throws Exception {
        return new RuntimeConf(id, netns, "eth0", CniArgs.parse(CNI_ARGS), (JsonObject) io.jcni.spec.Json.parse(
                CAP_ARGS));
    }

    private static CniResult decode(JsonNode json) throws Exception {
        return CniJson.decodeResult(Json.write(json).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void whatJcniCachesGoLibcniReadsAndDeletesWith() throws Exception {
        Prerequisites.assumeGoTools();
        Path record = tmp.resolve("calls.jsonl");
        Path conf = trivialConflist(record);
        NetworkConfigList list = CniJson.decodeNetworkConfigList(Files.readAllBytes(conf));
        RuntimeConf rt = rt("iop-jcni-first", "/var/run/netns/jcni-rt-absent");
        CniResult added = runtime(List.of(Locations.goBin())).addNetworkList(list, rt);
        var driver = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("cache"));
        Attachment attachment = Attachment.of(rt.containerId(), "eth0").withCniArgs(CNI_ARGS)
                .withCapabilityArgs(CAP_ARGS);

        assertThat(decode(driver.cachedResult(conf, attachment).answer())).isEqualTo(added);
        JsonNode config = driver.cachedConfig("jcni-rt-iop", attachment).answer();
        assertThat(config.path("config").asText()).isEqualTo(Files.readString(conf));
        assertThat(Json.write(config.path("cniArgs")))
                .isEqualTo("[[\"IgnoreUnknown\",\"1\"],[\"K8S_POD_NAME\",\"web\"]]");
        assertThat(config.path("capabilityArgs")).isEqualTo(Json.parse(CAP_ARGS));

        assertThat(driver.check(conf, Path.of(rt.netns()), attachment).succeeded()).isTrue();
        assertThat(driver.del(conf, Path.of(rt.netns()), attachment).succeeded()).isTrue();

        List<JsonNode> calls = Records.read(record);
        assertThat(calls).extracting(c -> c.path("command").asText())
                .containsExactly("ADD", "ADD", "CHECK", "CHECK", "DEL", "DEL");
        JsonNode expectedPrev = Json.parse(CniJson.toJson(added).toString());
        for (JsonNode call : calls.subList(2, 6)) {
            assertThat(call.path("config").path("prevResult")).as("libcni's prevResult from jcni's cache")
                    .isEqualTo(expectedPrev);
        }
        assertThat(tmp.resolve("cache/results/jcni-rt-iop-iop-jcni-first-eth0")).doesNotExist();
    }

    @Test
    void whatGoLibcniCachesJcniReadsAndDeletesWith() throws Exception {
        Prerequisites.assumeGoTools();
        Path record = tmp.resolve("calls.jsonl");
        Path conf = trivialConflist(record);
        NetworkConfigList list = CniJson.decodeNetworkConfigList(Files.readAllBytes(conf));
        RuntimeConf rt = rt("iop-go-first", "/var/run/netns/jcni-rt-absent");
        var driver = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("cache"));
        Attachment attachment = Attachment.of(rt.containerId(), "eth0").withCniArgs(CNI_ARGS)
                .withCapabilityArgs(CAP_ARGS);
        CniResult added = decode(driver.add(conf, Path.of(rt.netns()), attachment).answer());
        CniRuntime runtime = runtime(List.of(Locations.goBin()));

        assertThat(runtime.cachedResult(list, rt)).contains(added);
        CachedConfig config = runtime.cachedConfig("jcni-rt-iop", new RuntimeConf(rt.containerId(), "", "eth0"))
                .orElseThrow();
        assertThat(new String(config.config(), StandardCharsets.UTF_8)).isEqualTo(Files.readString(conf));
        assertThat(config.runtimeConf().args()).isEqualTo(rt.args());
        assertThat(config.runtimeConf().capabilityArgs()).isEqualTo(rt.capabilityArgs());
        List<CachedAttachment> attachments = runtime.cachedAttachments(rt.containerId());
        assertThat(attachments).singleElement().satisfies(a -> {
            assertThat(a.network()).isEqualTo("jcni-rt-iop");
            assertThat(a.runtimeConf().args()).isEqualTo(rt.args());
            assertThat(a.runtimeConf().netns()).as("libcni 1.1.2 writes no netns").isEmpty();
        });

        runtime.checkNetworkList(list, rt);
        runtime.delNetworkList(list, rt);

        List<JsonNode> calls = Records.read(record);
        assertThat(calls).extracting(c -> c.path("command").asText())
                .containsExactly("ADD", "ADD", "CHECK", "CHECK", "DEL", "DEL");
        JsonNode expectedPrev = Json.parse(CniJson.toJson(added).toString());
        for (JsonNode call : calls.subList(2, 6)) {
            assertThat(call.path("config").path("prevResult")).as("jcni's prevResult from libcni's cache")
                    .isEqualTo(expectedPrev);
        }
        // jcni removes capabilities from what plugins see; libcni 1.1.2 leaves it in (compare the ADD records).
        assertThat(calls.get(0).path("config").has("capabilities")).isTrue();
        assertThat(calls.get(2).path("config").has("capabilities")).isFalse();
        assertThat(calls.get(2).path("config").path("runtimeConfig").path("portMappings"))
                .isEqualTo(Json.parse(CAP_ARGS).path("portMappings"));
        assertThat(tmp.resolve("cache/results/jcni-rt-iop-iop-go-first-eth0")).doesNotExist();
    }

    /**
     * Real plugins, both directions: one runtime adds, the other deletes from the cache, and the kernel is clean. Both
     * runtimes run their plugins in one test host.
     */
    @Test
    void goAddsBridgeJcniDeletesItAndTheOtherWayRound() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("bridge", "host-local");
        String bridge = Names.link(TAG);
        try (TestHost host = TestHost.create(TAG)) {
            TestNetns first = host.container();
            TestNetns second = host.container();
            Path conf = Files.writeString(tmp.resolve("bridge.conflist"), Conflists.list("1.0.0", "jcni-rt-iopbr",
                    Conflists.bridge(bridge, "", Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.215.3.0/24")))));
            NetworkConfigList list = CniJson.decodeNetworkConfigList(Files.readAllBytes(conf));
            LibcniDriver driver = host.libcni(List.of(Locations.referencePlugins()), tmp.resolve("cache"));
            CniRuntime runtime = runtime(host.runtimeCniPath(tmp.resolve("host-bin"),
                    List.of(Locations.referencePlugins())));

            driver.add(conf, first.path(), Attachment.of("iop-go-adds", "eth0")).answer();
            runtime.addNetworkList(list, new RuntimeConf("iop-jcni-adds", second.path().toString(), "eth0"));
            assertThat(first.kernel().link("eth0")).isPresent();
            assertThat(second.kernel().link("eth0")).isPresent();
            assertThat(host.kernel().links()).filteredOn(l -> bridge.equals(l.master())).hasSize(2);

            runtime.delNetworkList(list, new RuntimeConf("iop-go-adds", first.path().toString(), "eth0"));
            driver.del(conf, second.path(), Attachment.of("iop-jcni-adds", "eth0")).answer();

            assertThat(first.kernel().links()).extracting(IpLink::name).containsExactly("lo");
            assertThat(second.kernel().links()).extracting(IpLink::name).containsExactly("lo");
            assertThat(host.kernel().links()).noneMatch(l -> bridge.equals(l.master()));
            assertThat(tmp.resolve("cache/results")).isEmptyDirectory();
            assertThat(tmp.resolve("ipam/jcni-rt-iopbr/10.215.3.2")).doesNotExist();
            assertThat(tmp.resolve("ipam/jcni-rt-iopbr/10.215.3.3")).doesNotExist();
        }
    }
}
