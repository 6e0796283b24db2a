package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * List semantics of {@link CniRuntime} (spec section 3, 1.1.0 for GC/STATUS) with scripted plugins: what each plugin
 * gets on stdin and in its environment, in which order, and what is cached.
 */
public class CniRuntimeListTest {
    public static final String R1 = """
            {"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":\
            "/var/run/netns/test"}],"ips":[{"address":"10.1.0.2/24","gateway":"10.1.0.1",\
            "interface":0}]}""";
    public static final String R2 = """
            {"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":\
            "/var/run/netns/test"}],"ips":[{"address":"10.1.0.2/24","gateway":"10.1.0.1",\
            "interface":0}],"dns":{"nameservers":["10.1.0.53"]}}""";

    @TempDir
    Path tmp;

    Path bin;
    Path cacheDir;
    FakePlugin a;
    FakePlugin b;
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    CniRuntime runtime;
    RuntimeConf rt = new RuntimeConf("ctr-1", "/var/run/netns/test", "eth0",
            CniArgs.parse("IgnoreUnknown=1;K8S_POD_NAME=web"), JsonObject.EMPTY);

    CniRuntimeListTest() throws Exception {
    }

    @BeforeEach
    void plugins() throws IOException {
        bin = Files.createDirectory(tmp.resolve("bin"));
        cacheDir = tmp.resolve("cache");
        a = FakePlugin.create(bin, "a").answer("ADD", R1);
        b = FakePlugin.create(bin, "b").answer("ADD", R2);
        runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir).withStderr(stderr));
    }

    static NetworkConfigList list(String json) throws Exception {
        return CniJson.decodeNetworkConfigList(json.getBytes(StandardCharsets.UTF_8));
    }

    NetworkConfigList twoPlugins(String version) throws Exception {
        return list("{\"cniVersion\":\"" + version + "\",\"name\":\"net1\",\"plugins\":[{\"type\":\"a\"},"
                + "{\"type\":\"b\"}]}");
    }

    Path cacheFile() {
        return cacheDir.resolve("results/net1-ctr-1-eth0");
    }

    @Test
    void capabilitiesAreRemovedAsTheSpecSaysUnlikeLibcni112AndEverythingElsePassesThrough() throws Exception {
        NetworkConfigList list = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"a","capabilities":{"portMappings":true,\
                "mac":false,"bandwidth":true},"x":[1.50,1e3],"cniVersion":"0.3.1","name":"own"}]}""");
        JsonObject caps = (JsonObject) Json.parse("""
                {"bandwidth":{"ingressRate":1},"mac":"02:00:00:00:00:01","portMappings":[{"hostPort":8080}],"ips":[]}""");

        runtime.addNetworkList(list, rt.withCapabilityArgs(caps));

        // Keys stay in place (name and cniVersion replaced where they were), capabilities is gone, runtimeConfig
        // holds exactly the enabled capabilities that have arguments, in the plugin's capability order.
        assertThat(a.calls().getFirst().stdin()).isEqualTo("""
                {"type":"a","x":[1.50,1e3],"cniVersion":"1.0.0","name":"net1","runtimeConfig":{"portMappings":\
                [{"hostPort":8080}],"bandwidth":{"ingressRate":1}}}""");
    }

    @Test
    void addChainsPrevResultAndCachesTheFinalResult() throws Exception {
        NetworkConfigList list = twoPlugins("1.0.0");

        CniResult result = runtime.addNetworkList(list, rt);

        assertThat(a.calls()).singleElement().satisfies(call -> {
            assertThat(call.command()).isEqualTo("ADD");
            assertThat(call.containerId()).isEqualTo("ctr-1");
            assertThat(call.netns()).isEqualTo("/var/run/netns/test");
            assertThat(call.ifName()).isEqualTo("eth0");
            assertThat(call.args()).isEqualTo("IgnoreUnknown=1;K8S_POD_NAME=web");
            assertThat(call.path()).isEqualTo(bin.toString());
            assertThat(call.stdin()).isEqualTo("{\"type\":\"a\",\"name\":\"net1\",\"cniVersion\":\"1.0.0\"}");
        });
        JsonObject bStdin = (JsonObject) Json.parse(b.calls().getFirst().stdin());
        assertThat(bStdin.get("prevResult")).contains(CniJson.toJson(CniJson.decodeResult(
                R1.getBytes(StandardCharsets.UTF_8))));
        assertThat(result).isEqualTo(CniJson.decodeResult(R2.getBytes(StandardCharsets.UTF_8)));

        JsonObject cached = (JsonObject) Json.parse(Files.readString(cacheFile()));
        assertThat(cached.keys()).containsExactly("kind", "containerId", "config", "ifName", "networkName", "netns",
                "cniArgs", "result");
        assertThat(cached.get("kind")).contains(Json.of("cniCacheV1"));
        assertThat(Base64.getDecoder().decode(((io.jcni.spec.JsonString) cached.get("config").orElseThrow()).value()))
                .isEqualTo(list.bytes());
        assertThat(cached.get("cniArgs").orElseThrow().toString())
                .isEqualTo("[[\"IgnoreUnknown\",\"1\"],[\"K8S_POD_NAME\",\"web\"]]");
        assertThat(cached.get("netns")).contains(Json.of("/var/run/netns/test"));
        assertThat(runtime.cachedResult(list, rt)).contains(result);
    }

    @Test
    void aResultInAnotherVersionIsConvertedToTheListsVersionBeforeItIsPassedOn() throws Exception {
        a.answer("ADD", "{\"cniVersion\":\"0.4.0\",\"ips\":[{\"version\":\"4\",\"address\":\"10.1.0.2/24\"}]}");

        CniResult result = runtime.addNetworkList(twoPlugins("1.0.0"), rt.withArgs(CniArgs.empty()));

        JsonObject bStdin = (JsonObject) Json.parse(b.calls().getFirst().stdin());
        assertThat(((JsonObject) bStdin.get("prevResult").orElseThrow()).get("cniVersion"))
                .contains(Json.of("1.0.0"));
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
    }

    @Test
    void checkRunsInOrderWithTheCachedResult() throws Exception {
        NetworkConfigList list = twoPlugins("0.4.0");
        runtime.addNetworkList(list, rt);

        runtime.checkNetworkList(list, rt);

        assertThat(a.commands()).containsExactly("ADD", "CHECK");
        assertThat(b.commands()).containsExactly("ADD", "CHECK");
        JsonObject check = (JsonObject) Json.parse(a.calls().get(1).stdin());
        assertThat(check.get("prevResult")).contains(CniJson.toJson(runtime.cachedResult(list, rt).orElseThrow()));
        assertThat(((JsonObject) check.get("prevResult").orElseThrow()).get("cniVersion"))
                .contains(Json.of("0.4.0"));
    }

    @Test
    void checkIsRefusedBefore040WithLibcnisMessage() throws Exception {
        assertThatThrownBy(() -> runtime.checkNetworkList(twoPlugins("0.3.1"), rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage())
                            .isEqualTo("configuration version \"0.3.1\" does not support the CHECK command");
                    assertThat(e.code()).isEqualTo(CniError.INCOMPATIBLE_CNI_VERSION);
                });
        assertThat(a.calls()).isEmpty();
    }

    @Test
    void checkIsSkippedWithDisableCheck() throws Exception {
        runtime.checkNetworkList(list("""
                {"cniVersion":"1.0.0","name":"net1","disableCheck":true,\
                "plugins":[{"type":"a"}]}"""), rt);
        assertThat(a.calls()).isEmpty();
    }

    @Test
    void checkFailuresNameThePluginUnlikeLibcni() throws Exception {
        NetworkConfigList list = twoPlugins("1.0.0");
        runtime.addNetworkList(list, rt);
        b.fail("CHECK", "{\"code\":100,\"msg\":\"address missing\"}", 1);

        assertThatThrownBy(() -> runtime.checkNetworkList(list, rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("plugin type=\"b\" failed (check): address missing");
                    assertThat(e.error()).isEqualTo(new CniError(100, "address missing"));
                    assertThat(e.pluginType()).isEqualTo("b");
                });
    }

    @Test
    void delRunsInReverseWithTheCachedResultRemovesTheCacheAndCanBeRepeated() throws Exception {
        NetworkConfigList list = twoPlugins("1.0.0");
        runtime.addNetworkList(list, rt);
        String cachedJson = CniJson.toJson(runtime.cachedResult(list, rt).orElseThrow()).toString();

        runtime.delNetworkList(list, rt);

        assertThat(b.calls().get(1).command()).isEqualTo("DEL");
        assertThat(((JsonObject) Json.parse(b.calls().get(1).stdin())).get("prevResult").orElseThrow().toString())
                .isEqualTo(cachedJson);
        assertThat(cacheFile()).doesNotExist();
        assertThat(runtime.cachedResult(list, rt)).isEmpty();

        runtime.delNetworkList(list, rt);
        assertThat(((JsonObject) Json.parse(a.calls().get(2).stdin())).has("prevResult"))
                .as("no cache, no prevResult").isFalse();
        // DEL order: b before a, both times.
        assertThat(a.commands()).containsExactly("ADD", "DEL", "DEL");
        assertThat(b.commands()).containsExactly("ADD", "DEL", "DEL");
    }

    @Test
    void delIsInReverseOrder() throws Exception {
        // One shared log: a third plugin type logging into the same file would be clumsy, so compare via the order of
        // the DEL that the cleanup path and the normal path share; here the normal path.
        Path log = tmp.resolve("order.log");
        ScriptPlugins.write(bin, "first", "cat >/dev/null; echo \"first $CNI_COMMAND\" >> '" + log + "'; printf '"
                + R1 + "'");
        ScriptPlugins.write(bin, "second", "cat >/dev/null; echo \"second $CNI_COMMAND\" >> '" + log + "'; printf '"
                + R2 + "'");
        NetworkConfigList list = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"first"},\
                {"type":"second"}]}""");

        runtime.addNetworkList(list, rt);
        runtime.delNetworkList(list, rt);

        assertThat(Files.readAllLines(log)).containsExactly("first ADD", "second ADD", "second DEL", "first DEL");
    }

    @Test
    void delBefore040SendsNoPrevResult() throws Exception {
        NetworkConfigList list = twoPlugins("0.3.1");
        runtime.addNetworkList(list, rt);
        runtime.delNetworkList(list, rt);
        assertThat(((JsonObject) Json.parse(a.calls().get(1).stdin())).has("prevResult")).isFalse();
        assertThat(cacheFile()).doesNotExist();
    }

    @Test
    void addFailingMidChainDeletesOnlyThePluginsThatSucceededAndReportsTheAddError() throws Exception {
        Path log = tmp.resolve("order.log");
        ScriptPlugins.write(bin, "first", "cat >/dev/null; echo \"first $CNI_COMMAND\" >> '" + log + "'; printf '"
                + R1 + "'");
        ScriptPlugins.write(bin, "second", "cat >/dev/null; echo \"second $CNI_COMMAND\" >> '" + log + "'; "
                + "if [ $CNI_COMMAND = ADD ]; then printf '{\"code\":11,\"msg\":\"no more leases\",\"details\":"
                + "\"pool empty\"}'; exit 1; fi");
        NetworkConfigList list = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"first"},\
                {"type":"second"}]}""");

        assertThatThrownBy(() -> runtime.addNetworkList(list, rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo(
                            "plugin type=\"second\" failed (add): no more leases; pool empty");
                    assertThat(e.error()).isEqualTo(new CniError(11, "no more leases", "pool empty"));
                    assertThat(e.fromPlugin()).isTrue();
                    assertThat(e.getSuppressed()).isEmpty();
                });
        // The failing plugin gets no DEL: a DEL works by name and would delete what it found already there.
        assertThat(Files.readAllLines(log)).containsExactly("first ADD", "second ADD", "first DEL");
        assertThat(cacheFile()).doesNotExist();
    }

    @Test
    void theCleanupDelGetsTheLastResultTheAddProduced() throws Exception {
        b.fail("ADD", "{\"code\":100,\"msg\":\"boom\"}", 1);

        assertThatThrownBy(() -> runtime.addNetworkList(twoPlugins("1.0.0"), rt)).isInstanceOf(
                CniRuntimeException.class);

        assertThat(a.commands()).containsExactly("ADD", "DEL");
        JsonObject del = (JsonObject) Json.parse(a.calls().get(1).stdin());
        assertThat(del.get("prevResult")).contains(CniJson.toJson(CniJson.decodeResult(
                R1.getBytes(StandardCharsets.UTF_8))));
    }

    @Test
    void theFailingPluginGetsNoDelSoWhatExistedBeforeTheAddIsNotDeleted() throws Exception {
        // The plugin stands for bridge finding "eth0 already exists": its DEL would delete that eth0.
        a.fail("ADD", "{\"code\":100,\"msg\":\"container veth name provided (eth0) already exists\"}", 1);

        assertThatThrownBy(() -> runtime.addNetworkList(twoPlugins("1.0.0"), rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> assertThat(e.getSuppressed()).isEmpty());

        assertThat(a.commands()).containsExactly("ADD");
        assertThat(b.commands()).isEmpty();
    }

    @Test
    void aPluginThatExitedZeroWithUnusableOutputIsRolledBackLikeOneThatSucceeded() throws Exception {
        a.answer("ADD", "this is not a result");

        assertThatThrownBy(() -> runtime.addNetworkList(twoPlugins("1.0.0"), rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> assertThat(e.pluginType()).isEqualTo("a"));

        assertThat(a.commands()).as("it exited 0: what it made is this ADD's").containsExactly("ADD", "DEL");
        assertThat(b.commands()).isEmpty();
    }

    @Test
    void cleanupFailuresAreAttachedToTheAddErrorAndDoNotStopTheCleanup() throws Exception {
        FakePlugin c = FakePlugin.create(bin, "c").fail("ADD", "{\"code\":100,\"msg\":\"add failed\"}", 1);
        b.fail("DEL", "{\"code\":101,\"msg\":\"del failed too\"}", 1);
        NetworkConfigList list = list("{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":[{\"type\":\"a\"},"
                + "{\"type\":\"b\"},{\"type\":\"c\"}]}");

        assertThatThrownBy(() -> runtime.addNetworkList(list, rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.error().code()).isEqualTo(100);
                    assertThat(e.getSuppressed()).singleElement().satisfies(s -> assertThat(s.getMessage())
                            .isEqualTo("cleanup after failed ADD: plugin type=\"b\" failed (delete): del failed too"));
                });
        assertThat(c.commands()).containsExactly("ADD");
        assertThat(a.commands()).as("the cleanup went on to a").containsExactly("ADD", "DEL");
    }

    @Test
    void aRepeatedAddIsRefusedWithCode4BeforeAnyPluginRunsAndTheFirstAttachmentStaysAsItWas() throws Exception {
        NetworkConfigList list = twoPlugins("1.0.0");
        runtime.addNetworkList(list, rt);
        byte[] cached = Files.readAllBytes(cacheFile());

        assertThatThrownBy(() -> runtime.addNetworkList(list, rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
                    assertThat(e.getMessage()).isEqualTo("attachment (CNI_CONTAINERID \"ctr-1\", CNI_IFNAME "
                            + "\"eth0\") of network \"net1\" is already added");
                    assertThat(e.error().details()).isEqualTo("its cached result is " + cacheFile()
                            + "; DEL the attachment before adding it again");
                    assertThat(e.fromPlugin()).isFalse();
                });

        assertThat(a.commands()).as("no plugin ran, none was sent DEL").containsExactly("ADD");
        assertThat(b.commands()).containsExactly("ADD");
        assertThat(Files.readAllBytes(cacheFile())).isEqualTo(cached);

        runtime.delNetworkList(list, rt);
        runtime.addNetworkList(list, rt);
        assertThat(a.commands()).as("after DEL, ADD works again").containsExactly("ADD", "DEL", "ADD");
    }

    @Test
    void aCorruptCacheEntryStillMarksTheAttachmentAsAdded() throws Exception {
        Files.createDirectories(cacheFile().getParent());
        Files.writeString(cacheFile(), "not json");

        assertThatThrownBy(() -> runtime.addNetworkList(twoPlugins("1.0.0"), rt))
                .isInstanceOfSatisfying(CniRuntimeException.class,
                        e -> assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES));
        assertThat(a.calls()).isEmpty();
        assertThat(cacheFile()).hasContent("not json");
    }

    @Test
    void withoutCleanupAFailedAddLeavesThePluginsAlone() throws Exception {
        CniRuntime noCleanup = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withDeleteOnAddFailure(false));
        b.fail("ADD", "{\"code\":100,\"msg\":\"boom\"}", 1);

        assertThatThrownBy(() -> noCleanup.addNetworkList(twoPlugins("1.0.0"), rt)).isInstanceOf(
                CniRuntimeException.class);
        assertThat(a.commands()).containsExactly("ADD");
        assertThat(b.commands()).containsExactly("ADD");
    }

    @Test
    void aMissingPluginMidChainIsCleanedUpToo() throws Exception {
        NetworkConfigList list = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"a"},\
                {"type":"missing"}]}""");

        assertThatThrownBy(() -> runtime.addNetworkList(list, rt))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("plugin type=\"missing\" failed (add): failed to find plugin "
                            + "\"missing\" in path [" + bin + "]");
                    assertThat(e.fromPlugin()).isFalse();
                    // The missing plugin never ran: it gets no DEL; a, which succeeded, does.
                    assertThat(e.getSuppressed()).isEmpty();
                });
        assertThat(a.commands()).containsExactly("ADD", "DEL");
    }

    @Test
    void cniVersionsPicksTheHighestSupportedVersion() throws Exception {
        NetworkConfigList list = list("""
                {"cniVersion":"0.4.0","cniVersions":["0.3.1","1.1.0","9.9.9"],\
                "name":"net1","plugins":[{"type":"a"}]}""");
        a.answer("ADD", "{\"ips\":[]}");

        CniResult result = runtime.addNetworkList(list, rt);

        assertThat(((JsonObject) Json.parse(a.calls().getFirst().stdin())).get("cniVersion"))
                .contains(Json.of("1.1.0"));
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_1_0);
    }

    @Test
    void gcDeletesStaleCachedAttachmentsThenSendsValidAttachmentsToEveryPlugin() throws Exception {
        NetworkConfigList list = twoPlugins("1.1.0");
        RuntimeConf keep = new RuntimeConf("keep", "/var/run/netns/k", "eth0");
        RuntimeConf stale = new RuntimeConf("stale", "/var/run/netns/s", "eth1",
                CniArgs.parse("K=V"), JsonObject.EMPTY);
        runtime.addNetworkList(list, keep);
        runtime.addNetworkList(list, stale);

        runtime.gcNetworkList(list, List.of(new GcAttachment("keep", "eth0")));

        assertThat(a.commands()).containsExactly("ADD", "ADD", "DEL", "GC");
        FakePlugin.Call del = a.calls().get(2);
        assertThat(del.containerId()).isEqualTo("stale");
        assertThat(del.netns()).as("from the cache").isEqualTo("/var/run/netns/s");
        assertThat(del.ifName()).isEqualTo("eth1");
        assertThat(del.args()).isEqualTo("K=V");
        assertThat(cacheDir.resolve("results/net1-stale-eth1")).doesNotExist();
        assertThat(cacheDir.resolve("results/net1-keep-eth0")).exists();
        FakePlugin.Call gc = a.calls().get(3);
        assertThat(gc.containerId()).isEmpty();
        assertThat(gc.netns()).isEmpty();
        assertThat(gc.ifName()).isEmpty();
        JsonObject gcStdin = (JsonObject) Json.parse(gc.stdin());
        Json expected = Json.parse("[{\"containerID\":\"keep\",\"ifname\":\"eth0\"}]");
        assertThat(gcStdin.get("cni.dev/valid-attachments")).contains(expected);
        assertThat(gcStdin.get("cni.dev/attachments")).contains(expected);
        assertThat(gcStdin.get("name")).contains(Json.of("net1"));
        assertThat(gcStdin.get("cniVersion")).contains(Json.of("1.1.0"));
        assertThat(b.commands()).containsExactly("ADD", "ADD", "DEL", "GC");
    }

    @Test
    void gcContinuesPastErrorsAndReportsThemAll() throws Exception {
        NetworkConfigList list = twoPlugins("1.1.0");
        a.fail("GC", "{\"code\":100,\"msg\":\"a cannot gc\"}", 1);
        b.fail("GC", "{\"code\":101,\"msg\":\"b cannot gc\"}", 1);

        assertThatThrownBy(() -> runtime.gcNetworkList(list, List.of()))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo(
                            "failed to GC plugin a: a cannot gc\nfailed to GC plugin b: b cannot gc");
                    assertThat(e.code()).isEqualTo(100);
                    assertThat(e.getSuppressed()).hasSize(2);
                });
        assertThat(b.commands()).containsExactly("GC");
    }

    @Test
    void gcBefore110OnlyDeletesStaleAttachmentsAndDisableGcDoesNothing() throws Exception {
        runtime.addNetworkList(twoPlugins("1.0.0"), rt);
        runtime.gcNetworkList(list("""
                {"cniVersion":"1.0.0","name":"net1","disableGC":true,"plugins":\
                [{"type":"a"},{"type":"b"}]}"""), List.of());
        assertThat(a.commands()).containsExactly("ADD");

        runtime.gcNetworkList(twoPlugins("1.0.0"), List.of());
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(cacheFile()).doesNotExist();
    }

    @Test
    void statusIsANoOpBefore110AndReturnsThePluginsErrorUnchanged() throws Exception {
        a.fail("STATUS", "{\"cniVersion\":\"1.1.0\",\"code\":50,\"msg\":\"plugin not available\"}", 1);

        runtime.statusNetworkList(twoPlugins("1.0.0"));
        assertThat(a.calls()).isEmpty();

        assertThatThrownBy(() -> runtime.statusNetworkList(twoPlugins("1.1.0")))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.error()).isEqualTo(new CniError("1.1.0", 50, "plugin not available", ""));
                    assertThat(e.getMessage()).isEqualTo("plugin type=\"a\" failed (status): plugin not available");
                });
        assertThat(a.calls()).singleElement().satisfies(call -> {
            assertThat(call.command()).isEqualTo("STATUS");
            assertThat(call.stdin()).isEqualTo("{\"type\":\"a\",\"name\":\"net1\",\"cniVersion\":\"1.1.0\"}");
        });
        assertThat(b.calls()).as("STATUS stops at the first failure").isEmpty();
    }

    @Test
    void validateCollectsEveryProblemAndReturnsTheCapabilityUnion() throws Exception {
        NetworkConfigList ok = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"a","capabilities":{"portMappings":true,\
                "mac":false}},{"type":"b","capabilities":{"bandwidth":true,"portMappings":true}}]}""");
        assertThat(runtime.validateNetworkList(ok)).containsExactly("bandwidth", "portMappings");

        b.answer("VERSION", "{\"cniVersion\":\"0.4.0\",\"supportedVersions\":[\"0.3.1\",\"0.4.0\"]}");
        NetworkConfigList bad = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"missing"},\
                {"type":"a"},{"type":"b"}]}""");
        assertThatThrownBy(() -> runtime.validateNetworkList(bad))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("failed to find plugin \"missing\" in path [" + bin + "]\n"
                            + "plugin b does not support config version \"1.0.0\"");
                    assertThat(e.getSuppressed()).hasSize(2);
                });
    }

    @Test
    void versionInfoOfAPluginThatPredatesVersionIs010() throws Exception {
        a.fail("VERSION", "{\"code\":4,\"msg\":\"unknown CNI_COMMAND: VERSION\"}", 1);
        assertThat(runtime.versionInfo("a").supportedVersions()).containsExactly("0.1.0");

        FakePlugin.Call call = a.calls().getFirst();
        assertThat(call.stdin()).isEqualTo("{\"cniVersion\":\"1.1.0\"}");
        assertThat(List.of(call.netns(), call.ifName(), call.path())).containsExactly("dummy", "dummy", "dummy");
    }

    @Test
    void pluginStderrReachesTheSink() throws Exception {
        a.stderr("ADD", "a says hello\n");
        runtime.addNetworkList(twoPlugins("1.0.0"), rt);
        assertThat(stderr.toString(StandardCharsets.UTF_8)).isEqualTo("a says hello\n");
    }

    @Test
    void inProcessPluginsRunWithoutCniPathAndGetTheSameInputs() throws Exception {
        List<Map<String, String>> envs = new java.util.ArrayList<>();
        List<String> stdins = new java.util.ArrayList<>();
        InProcessPlugin inProcess = (env, stdin, out, err) -> {
            envs.add(env);
            stdins.add(new String(stdin, StandardCharsets.UTF_8));
            try {
                out.write(R1.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return 0;
        };
        CniRuntime withInProcess = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withInProcess(InProcessPlugins.of(Map.of("nowhere", inProcess))));
        NetworkConfigList list = list("""
                {"cniVersion":"1.0.0","name":"net1","plugins":[{"type":"nowhere"},\
                {"type":"b"}]}""");

        withInProcess.addNetworkList(list, rt);

        assertThat(stdins).containsExactly("{\"type\":\"nowhere\",\"name\":\"net1\",\"cniVersion\":\"1.0.0\"}");
        assertThat(envs).singleElement().satisfies(env -> {
            assertThat(env).containsEntry("CNI_COMMAND", "ADD").containsEntry("CNI_CONTAINERID", "ctr-1")
                    .containsEntry("CNI_IFNAME", "eth0").containsEntry("CNI_PATH", bin.toString());
            assertThat(env.get("PATH")).isEqualTo(System.getenv("PATH"));
        });
        assertThat(b.commands()).containsExactly("ADD");
    }

    @Test
    void aPluginTimeoutKillsTheHungPlugin() throws Exception {
        ScriptPlugins.write(bin, "hang", "exec sleep 300");
        CniRuntime withTimeout = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withPluginTimeout(java.time.Duration.ofMillis(200)));
        NetworkConfigList list = list("{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":[{\"type\":\"hang\"}]}");

        assertThatThrownBy(() -> withTimeout.checkNetworkList(list, rt))
                .hasMessage("plugin type=\"hang\" failed (check): netplugin failed with no error message: "
                        + "signal: killed; plugin " + bin.resolve("hang") + " did not finish within 200 ms");
    }

    @Test
    void invalidAttachmentNamesAreRefusedForEveryVerbBecauseTheyNameTheCacheFile() throws Exception {
        NetworkConfigList list = twoPlugins("1.0.0");
        RuntimeConf evil = new RuntimeConf("../../etc", "/var/run/netns/x", "eth0");

        assertThatThrownBy(() -> runtime.delNetworkList(list, evil))
                .isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
                    assertThat(e.getMessage()).isEqualTo("invalid characters in containerID; ../../etc");
                });
        assertThatThrownBy(() -> runtime.addNetworkList(list, new RuntimeConf("ok", "/x", "a/b")))
                .hasMessage("interface name contains / or : or whitespace characters");
        assertThat(a.calls()).isEmpty();
    }
}
