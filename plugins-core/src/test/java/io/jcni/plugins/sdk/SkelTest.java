package io.jcni.plugins.sdk;

import static io.jcni.plugins.sdk.SkelHarness.config;
import static io.jcni.plugins.sdk.SkelHarness.env;
import static io.jcni.plugins.sdk.SkelHarness.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.sdk.SkelHarness.Outcome;
import io.jcni.plugins.sdk.SkelHarness.RecordingPlugin;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.JsonObject;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SkelTest {
    private final RecordingPlugin plugin = new RecordingPlugin();
    private final Skel skel = Skel.of("recorder", plugin, CniVersion.SUPPORTED);

    static CniError error(Outcome outcome) throws CniException {
        assertThat(outcome.status()).as("exit status of %s", outcome).isEqualTo(1);
        return CniJson.decodeError(outcome.stdout().getBytes(StandardCharsets.UTF_8));
    }

    // ------------------------------------------------------------------ environment

    /** Per command, the variables the spec (and libcni's skel) requires, in libcni's reporting order. */
    static List<String> required(String command) {
        return switch (command) {
            case "ADD", "CHECK" -> List.of("CNI_CONTAINERID", "CNI_NETNS", "CNI_IFNAME", "CNI_PATH");
            case "DEL" -> List.of("CNI_CONTAINERID", "CNI_IFNAME", "CNI_PATH");
            case "GC", "STATUS" -> List.of("CNI_PATH");
            default -> List.of();
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"ADD", "CHECK", "DEL", "GC", "STATUS"})
    void everyCombinationOfMissingVariablesIsNamedInOneCode4Error(String command) throws Exception {
        List<String> required = required(command);
        String version = command.equals("GC") || command.equals("STATUS") ? "1.1.0" : "1.0.0";
        for (int mask = 1; mask < (1 << required.size()); mask++) {
            Map<String, String> env = env(command);
            List<String> missing = new ArrayList<>();
            for (int i = 0; i < required.size(); i++) {
                if ((mask & (1 << i)) != 0) {
                    missing.add(required.get(i));
                    // Empty counts as missing, as in libcni; alternate between the two forms.
                    if (mask % 2 == 0) {
                        env.remove(required.get(i));
                    } else {
                        env.put(required.get(i), "");
                    }
                }
            }
            CniError error = error(run(skel, env, config(version)));
            assertThat(error.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
            assertThat(error.msg()).isEqualTo("required env variables [" + String.join(",", missing) + "] missing");
        }
        assertThat(plugin.calls).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"ADD", "CHECK", "DEL", "GC", "STATUS"})
    void theRequiredVariablesAloneAreEnough(String command) {
        Map<String, String> env = new java.util.HashMap<>();
        env.put("CNI_COMMAND", command);
        for (String name : required(command)) {
            env.put(name, env(command).get(name));
        }
        String version = command.equals("GC") || command.equals("STATUS") ? "1.1.0" : "1.0.0";
        Outcome outcome = run(skel, env, config(version));
        assertThat(outcome.status()).as(outcome.toString()).isZero();
        assertThat(plugin.calls).singleElement().satisfies(call -> {
            assertThat(call.command().name()).isEqualTo(command);
            if (command.equals("GC") || command.equals("STATUS")) {
                assertThat(call.containerId()).isEmpty();
                assertThat(call.ifName()).isEmpty();
                assertThat(call.netns()).isEmpty();
            } else {
                assertThat(call.containerId()).isEqualTo("ctr-1");
                assertThat(call.ifName()).isEqualTo("eth0");
            }
        });
    }

    @Test
    void containerVariablesAreNotReadForGcAndStatusEvenWhenInvalid() {
        Map<String, String> env = env("GC");
        env.put("CNI_CONTAINERID", "bad/id");
        env.put("CNI_IFNAME", "this-name-is-far-too-long");
        assertThat(run(skel, env, config("1.1.0")).status()).isZero();
        assertThat(plugin.calls.getFirst().containerId()).isEmpty();
    }

    @Test
    void delWithoutNetnsRunsWithAnEmptyNetns() {
        Map<String, String> env = env("DEL");
        env.remove("CNI_NETNS");
        assertThat(run(skel, env, config("1.0.0")).status()).isZero();
        assertThat(plugin.calls.getFirst().netns()).isEmpty();
    }

    @Test
    void noCommandPrintsTheAboutTextOnStderrAndSucceedsLikeLibcni() {
        Map<String, String> env = env("ADD");
        env.remove("CNI_COMMAND");
        Outcome outcome = run(skel, env, config("1.0.0"));
        assertThat(outcome.status()).isZero();
        assertThat(outcome.stdout()).isEmpty();
        assertThat(outcome.stderr()).contains("CNI plugin recorder")
                .contains("CNI protocol versions supported: 0.1.0, 0.2.0, 0.3.0, 0.3.1, 0.4.0, 1.0.0, 1.1.0");
        assertThat(plugin.calls).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"add", "GET", "DELETE", "VERSION "})
    void unknownCommandIsCode4(String command) throws Exception {
        CniError error = error(run(skel, env(command), config("1.0.0")));
        assertThat(error.code()).isEqualTo(4);
        assertThat(error.msg()).isEqualTo("unknown CNI_COMMAND: " + command);
        assertThat(error.cniVersion()).isEmpty();
    }

    @Test
    void malformedContainerIdIsCode4AndMissingOneIsReportedAsMissingVariable() throws Exception {
        Map<String, String> env = env("ADD");
        env.put("CNI_CONTAINERID", "ctr/../x");
        CniError error = error(run(skel, env, config("1.0.0")));
        assertThat(error.code()).isEqualTo(4);
        assertThat(error.msg()).isEqualTo("invalid characters in containerID");
        assertThat(error.cniVersion()).isEqualTo("1.0.0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"eth0/1", "a:b", "sixteen-chars-xx", ".", "..", "e th0"})
    void invalidInterfaceNamesAreCode4(String ifName) throws Exception {
        Map<String, String> env = env("CHECK");
        env.put("CNI_IFNAME", ifName);
        assertThat(error(run(skel, env, config("1.0.0"))).code()).isEqualTo(4);
        assertThat(plugin.calls).isEmpty();
    }

    // ------------------------------------------------------------------ stdin

    @ParameterizedTest
    @ValueSource(strings = {"", "{", "[]", "{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"t\"} x",
            "{\"cniVersion\":1,\"name\":\"n\",\"type\":\"t\"}", "\u0000"})
    void malformedJsonIsCode6(String stdin) throws Exception {
        CniError error = error(run(skel, env("ADD"), stdin));
        assertThat(error.code()).as(error.toString()).isIn(CniError.DECODING_FAILURE);
        assertThat(plugin.calls).isEmpty();
    }

    @Test
    void missingNetworkNameIsCode7() throws Exception {
        CniError error = error(run(skel, env("ADD"), "{\"cniVersion\":\"1.0.0\",\"type\":\"recorder\"}"));
        assertThat(error.code()).isEqualTo(7);
        assertThat(error.msg()).isEqualTo("missing network name");
    }

    @Test
    void invalidNetworkNameIsCode7() throws Exception {
        CniError error = error(run(skel, env("DEL"), "{\"cniVersion\":\"1.0.0\",\"name\":\"../etc\",\"type\":\"r\"}"));
        assertThat(error.code()).isEqualTo(7);
        assertThat(error.msg()).contains("invalid characters found in network name");
    }

    @Test
    void stdinOverTheCodecLimitIsRejectedWithoutReadingItAll() throws Exception {
        String huge = "{\"name\":\"" + "x".repeat(CniJson.MAX_DOCUMENT_BYTES) + "\"}";
        CniError error = error(run(skel, env("ADD"), huge));
        assertThat(error.code()).isEqualTo(CniError.DECODING_FAILURE);
    }

    // ------------------------------------------------------------------ versions

    @ParameterizedTest
    @ValueSource(strings = {"0.5.0", "2.0.0", "1.2.0"})
    void unsupportedConfigVersionIsCode1WithLibcnisDetails(String version) throws Exception {
        CniError error = error(run(skel, env("ADD"), config(version)));
        assertThat(error.code()).isEqualTo(1);
        assertThat(error.msg()).isEqualTo("incompatible CNI versions");
        assertThat(error.details()).isEqualTo("config is \"" + version + "\", plugin supports [\"0.1.0\" \"0.2.0\" "
                + "\"0.3.0\" \"0.3.1\" \"0.4.0\" \"1.0.0\" \"1.1.0\"]");
        assertThat(error.cniVersion()).as("an unknown version is not echoed back").isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.0", "v1.0.0", "01.0.0", "1.0.0-rc1"})
    void malformedConfigVersionIsCode1(String version) throws Exception {
        assertThat(error(run(skel, env("ADD"), config(version))).code()).isEqualTo(1);
    }

    @Test
    void aPluginAcceptsOnlyTheVersionsItWasGiven() throws Exception {
        Skel narrow = Skel.of("narrow", plugin, List.of(CniVersion.V0_4_0, CniVersion.V1_0_0));
        assertThat(error(run(narrow, env("ADD"), config("0.3.1"))).details())
                .isEqualTo("config is \"0.3.1\", plugin supports [\"0.4.0\" \"1.0.0\"]");
        assertThat(run(narrow, env("ADD"), config("1.0.0")).status()).isZero();
        CniError tooNew = error(run(narrow, env("CHECK"), config("1.1.0")));
        assertThat(tooNew.msg()).isEqualTo("plugin version does not allow CHECK");
        assertThat(narrow.versionInfo().cniVersion()).isEqualTo("1.0.0");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.1.0", "0.2.0", "0.3.0", "0.3.1"})
    void checkNeedsAtLeast040(String version) throws Exception {
        CniError error = error(run(skel, env("CHECK"), config(version)));
        assertThat(error.code()).isEqualTo(1);
        assertThat(error.msg()).isEqualTo("config version does not allow CHECK");
        assertThat(plugin.calls).isEmpty();
        assertThat(run(skel, env("CHECK"), config("0.4.0")).status()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"GC", "STATUS"})
    void gcAndStatusNeedAtLeast110(String command) throws Exception {
        for (String version : List.of("0.4.0", "1.0.0")) {
            CniError error = error(run(skel, env(command), config(version)));
            assertThat(error.code()).isEqualTo(1);
            assertThat(error.msg()).isEqualTo("config version does not allow " + command);
        }
        assertThat(plugin.calls).isEmpty();
        assertThat(run(skel, env(command), config("1.1.0")).status()).isZero();
    }

    @Test
    void versionPrintsEverySupportedVersionWithoutReadingStdinOrOtherVariables() {
        Map<String, String> env = Map.of("CNI_COMMAND", "VERSION");
        Outcome outcome = run(skel, env, "this is not JSON");
        assertThat(outcome.status()).isZero();
        assertThat(outcome.stdout()).isEqualTo("""
                {"cniVersion":"1.1.0","supportedVersions":["0.1.0","0.2.0",\
                "0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]}\n""");
        assertThat(plugin.calls).isEmpty();
    }

    @Test
    void theHandWrittenVersionAnswerIsWhatTheCodecPrints() {
        for (List<CniVersion> versions : List.of(CniVersion.SUPPORTED, List.of(CniVersion.V0_1_0),
                List.of(CniVersion.V1_0_0, CniVersion.V0_4_0))) {
            Skel some = Skel.of("x", plugin, versions);
            assertThat(new String(some.versionAnswer(), StandardCharsets.UTF_8))
                    .isEqualTo(new String(CniJson.encode(some.versionInfo()), StandardCharsets.UTF_8));
        }
    }

    // ------------------------------------------------------------------ results and errors

    /**
     * The runtime side accepts a result whose interface index is outside {@code interfaces} (libcni does), but a plugin
     * of this SDK that makes one has a bug: code 999 and its rollback runs, nothing is printed as a result.
     */
    @ParameterizedTest
    @ValueSource(ints = {-1, 1, 7})
    void aResultWithAnInterfaceIndexOutsideInterfacesIsRefusedAndRolledBack(int index) throws Exception {
        List<String> undone = new ArrayList<>();
        Result bad = SkelHarness.sampleResult().withIps(List.of(new io.jcni.spec.IpConfig(index,
                io.jcni.spec.IpPrefix.parse("10.1.0.5/24", "t"), null)));
        Skel sloppy = Skel.of("sloppy", new CniPlugin() {
            @Override
            public CniResult add(CniRequest request) {
                request.rollback().onFailure("undo the veth", () -> undone.add("veth"));
                return bad;
            }

            @Override
            public void del(CniRequest request) {
            }

            @Override
            public void check(CniRequest request) {
            }
        }, CniVersion.SUPPORTED);

        CniError error = error(run(sloppy, env("ADD"), config("1.0.0")));

        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).isEqualTo("plugin sloppy made an invalid result: ips[0].interface: " + index
                + " is not an index of interfaces (1 entry)");
        assertThat(undone).containsExactly("veth");
    }

    /** A plugin with one handler, ADD, which registers an undo and then does {@code then}. */
    private static Skel addThen(String type, List<String> undone, Runnable then) {
        return Skel.of(type, new CniPlugin() {
            @Override
            public CniResult add(CniRequest request) {
                request.rollback().onFailure("undo the veth", () -> undone.add("veth"));
                then.run();
                return SkelHarness.sampleResult();
            }

            @Override
            public void del(CniRequest request) {
            }

            @Override
            public void check(CniRequest request) {
            }
        }, CniVersion.SUPPORTED);
    }

    /**
     * A call whose thread was interrupted (cancelled by its host: the plugin service when the client went away, a
     * runtime at its deadline) is not committed even though its handler finished: code 11, and its rollback runs, so
     * an ADD nobody waits for any more leaves nothing (issue 23). Before, it printed its result and kept everything.
     */
    @Test
    void anAddCancelledWhileItRanIsNotCommittedButRolledBack() throws Exception {
        List<String> undone = new ArrayList<>();
        Skel cancelled = addThen("cancelled", undone, () -> Thread.currentThread().interrupt());
        try {
            CniError error = error(run(cancelled, env("ADD"), config("1.0.0")));
            assertThat(error.code()).isEqualTo(CniError.TRY_AGAIN_LATER);
            assertThat(error.msg()).isEqualTo("ADD of plugin cancelled was cancelled before it could complete");
            assertThat(undone).containsExactly("veth");
            assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is kept for its owner").isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    /**
     * An OutOfMemoryError in a call is that call's failure: code 11 without a Java class name, its rollback done,
     * the JVM (the plugin service's, shared by every call) going on.
     */
    @Test
    void anOutOfMemoryErrorFailsItsCallWithCode11AndRollsItBack() throws Exception {
        List<String> undone = new ArrayList<>();
        Skel hungry = addThen("hungry", undone, () -> {
            throw new OutOfMemoryError("Java heap space");
        });
        CniError error = error(run(hungry, env("ADD"), config("1.0.0")));
        assertThat(error.code()).isEqualTo(CniError.TRY_AGAIN_LATER);
        assertThat(error.msg()).isEqualTo("plugin hungry ran out of memory").doesNotContain("Error");
        assertThat(undone).containsExactly("veth");
    }

    @Test
    void resultIsPrintedInTheConfigVersion031() throws Exception {
        Outcome outcome = run(skel, env("ADD"), config("0.3.1"));
        assertThat(outcome.status()).isZero();
        CniResult printed = CniJson.decodeResult(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(printed.cniVersion()).isEqualTo(CniVersion.V0_3_1);
        JsonObject json = (JsonObject) CniJson.parse(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(json.toString()).contains("\"version\":\"4\"").contains("\"version\":\"6\"")
                .doesNotContain("\"mtu\"").doesNotContain("\"table\"");
        assertThat(outcome.stdout()).startsWith("{\n    \"cniVersion\": \"0.3.1\",");
    }

    @Test
    void resultIsPrintedInTheConfigVersion020AsLegacyShape() throws Exception {
        Outcome outcome = run(skel, env("ADD"), config("0.2.0"));
        assertThat(outcome.status()).isZero();
        CniResult printed = CniJson.decodeResult(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(printed).isInstanceOf(LegacyResult.class);
        LegacyResult legacy = (LegacyResult) printed;
        assertThat(legacy.ip4().ip().toString()).isEqualTo("10.1.0.5/24");
        assertThat(legacy.ip6().ip().toString()).isEqualTo("fd00::5/64");
    }

    @Test
    void resultIsPrintedInTheConfigVersion110WithItsFields() throws Exception {
        Outcome outcome = run(skel, env("ADD"), config("1.1.0"));
        Result printed = (Result) CniJson.decodeResult(outcome.stdout().getBytes(StandardCharsets.UTF_8));
        assertThat(printed).isEqualTo(SkelHarness.sampleResult());
    }

    @Test
    void pluginErrorsKeepTheirCodeAndGainTheConfigVersion() throws Exception {
        plugin.failWith = new CniException(117, "no bananas", "the bridge ate them");
        Outcome outcome = run(skel, env("ADD"), config("1.0.0"));
        assertThat(outcome.stdout()).isEqualTo("""
                {
                    "cniVersion": "1.0.0",
                    "code": 117,
                    "msg": "no bananas",
                    "details": "the bridge ate them"
                }""");
        assertThat(error(outcome)).isEqualTo(new CniError("1.0.0", 117, "no bananas", "the bridge ate them"));
    }

    @Test
    void statusReportsCode50AsAnErrorWithExitStatus1() throws Exception {
        plugin.failWith = new CniException(CniError.PLUGIN_NOT_AVAILABLE, "data directory not writable");
        CniError error = error(run(skel, env("STATUS"), config("1.1.0")));
        assertThat(error.code()).isEqualTo(50);
    }

    @Test
    void unexpectedExceptionIsCode999WithTheStackTraceOnStderrOnly() throws Exception {
        plugin.crashWith = new IllegalStateException("boom");
        Outcome outcome = run(skel, env("ADD"), config("1.0.0"));
        CniError error = error(outcome);
        assertThat(error.code()).isEqualTo(999);
        assertThat(error.msg()).as("no Java class name in the message (issue 23)")
                .isEqualTo("internal error in plugin recorder: boom");
        assertThat(outcome.stdout()).doesNotContain("\tat ").doesNotContain("IllegalStateException");
        assertThat(outcome.stderr()).contains("recorder: internal error").contains("io.jcni.plugins.sdk.SkelTest.unexpectedExceptionIsCode999");
    }

    @Test
    void addWithoutResultIsABugNotASuccess() throws Exception {
        plugin.result = null;
        assertThat(error(run(skel, env("ADD"), config("1.0.0"))).code()).isEqualTo(999);
    }

    @Test
    void requestCarriesTheInputsUnchanged() throws Exception {
        Map<String, String> env = env("ADD");
        env.put("CNI_ARGS", "IgnoreUnknown=1;IP=10.1.0.9");
        env.put("CNI_PATH", "/a::/b:");
        String stdin = "{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"type\":\"recorder\",\"zz\":[1,2]}";
        run(skel, env, stdin);
        CniRequest call = plugin.calls.getFirst();
        assertThat(new String(call.stdin(), StandardCharsets.UTF_8)).isEqualTo(stdin);
        assertThat(call.cniArgs().get("IP")).contains("10.1.0.9");
        assertThat(call.cniPath()).containsExactly("/a", "/b");
        assertThat(call.config().name()).isEqualTo("net1");
        assertThat(call.env()).containsEntry("CNI_ARGS", "IgnoreUnknown=1;IP=10.1.0.9");
    }

    @Test
    void malformedCniArgsFailOnlyAPluginThatReadsThem() throws Exception {
        Map<String, String> env = env("ADD");
        env.put("CNI_ARGS", "novalue");
        assertThat(run(skel, env, config("1.0.0")).status()).isZero();
        assertThat(plugin.calls.getFirst().cniArgsText()).isEqualTo("novalue");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> plugin.calls.getFirst().cniArgs())
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(4));
    }

    // ------------------------------------------------------------------ own network namespace

    @ParameterizedTest
    @ValueSource(strings = {"ADD", "DEL"})
    void addAndDelAreRefusedOnThePluginsOwnNamespaceBeforeTheHandlerRuns(String command) throws Exception {
        Map<String, String> env = env(command);
        env.put("CNI_NETNS", "/proc/self/ns/net");
        CniError error = error(run(skel, env, config("1.0.0")));
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETNS);
        assertThat(error.msg()).isEqualTo("plugin's netns and netns from CNI_NETNS should not be the same");
        assertThat(plugin.calls).as("no handler, so no side effect").isEmpty();

        env.put("CNI_NETNS", "/proc/" + ProcessHandle.current().pid() + "/ns/net");
        assertThat(error(run(skel, env, config("1.0.0"))).code()).as("another path to the same namespace")
                .isEqualTo(CniError.INVALID_NETNS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "true", "TRUE", "True"})
    void netnsOverrideLetsAddRunOnTheOwnNamespace(String override) {
        Map<String, String> env = env("ADD");
        env.put("CNI_NETNS", "/proc/self/ns/net");
        env.put(Skel.NETNS_OVERRIDE, override);
        assertThat(run(skel, env, config("1.0.0")).status()).isZero();
        assertThat(plugin.calls).hasSize(1);
    }

    @Test
    void overrideMustSayYes() throws Exception {
        Map<String, String> env = env("ADD");
        env.put("CNI_NETNS", "/proc/self/ns/net");
        env.put(Skel.NETNS_OVERRIDE, "0");
        assertThat(error(run(skel, env, config("1.0.0"))).code()).isEqualTo(CniError.INVALID_NETNS);
    }

    @Test
    void checkIsNotRefusedOnTheOwnNamespace() {
        Map<String, String> env = env("CHECK");
        env.put("CNI_NETNS", "/proc/self/ns/net");
        assertThat(run(skel, env, config("1.0.0")).status()).isZero();
    }

    @Test
    void anotherFileOrAMissingPathIsNotTheOwnNamespace(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("netns"));
        Map<String, String> env = env("ADD");
        env.put("CNI_NETNS", file.toString());
        assertThat(run(skel, env, config("1.0.0")).status()).isZero();
        env.put("CNI_NETNS", dir.resolve("gone").toString());
        assertThat(run(skel, env, config("1.0.0")).status()).isZero();
        assertThat(plugin.calls).hasSize(2);
    }

    // ------------------------------------------------------------------ logging

    @Test
    void debugModeLogsTheCallAndItsTimingOnStderr() {
        Map<String, String> env = env("DEL");
        env.put(PluginLog.DEBUG_ENV, "1");
        Outcome outcome = run(skel, env, config("1.0.0"));
        assertThat(outcome.stdout()).isEmpty();
        assertThat(outcome.stderr()).matches("recorder: DEL in-process, pid " + ProcessHandle.current().pid()
                + "\nrecorder: timing DEL: handler \\d+ us\n");
        env.remove(PluginLog.DEBUG_ENV);
        assertThat(run(skel, env, config("1.0.0")).stderr()).isEmpty();
    }
}
