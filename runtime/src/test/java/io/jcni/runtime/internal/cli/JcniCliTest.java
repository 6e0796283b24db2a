package io.jcni.runtime.internal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.runtime.CniRuntimeListTest;
import io.jcni.runtime.FakePlugin;
import io.jcni.spec.CniJson;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI run in-process with captured streams: commands, environment, exit statuses and messages. */
class JcniCliTest {
    @TempDir
    Path tmp;

    Path bin;
    Path confDir;
    Path cache;
    FakePlugin plugin;
    Map<String, String> env;
    String stdout;
    String stderr;

    @BeforeEach
    void world() throws Exception {
        bin = Files.createDirectory(tmp.resolve("bin"));
        confDir = Files.createDirectory(tmp.resolve("net.d"));
        cache = tmp.resolve("cache");
        plugin = FakePlugin.create(bin, "p").answer("ADD", CniRuntimeListTest.R1);
        Files.writeString(confDir.resolve("10-net.conflist"), """
                {"cniVersion":"1.0.0","name":"net",\
                "plugins":[{"type":"p","capabilities":{"portMappings":true}}]}""");
        env = new HashMap<>(Map.of("NETCONFPATH", confDir.toString(), "CNI_PATH", bin.toString(),
                "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")));
    }

    int run(String... args) {
        return runWithStdin("", args);
    }

    int runWithStdin(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = JcniCli.run(List.of(args), env, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        stdout = out.toString(StandardCharsets.UTF_8);
        stderr = err.toString(StandardCharsets.UTF_8);
        return status;
    }

    @Test
    void addPrintsTheResultWithCnitoolsContainerIdAndEnvironment() throws Exception {
        env.put("CNI_ARGS", "IgnoreUnknown=1;K=V");
        env.put("CAP_ARGS", "{\"portMappings\":[{\"hostPort\":80}],\"mac\":\"x\"}");
        env.put("CNI_IFNAME", "net0");

        assertThat(run("add", "net", "/var/run/netns/jcni-test", "--cache-dir", cache.toString())).isZero();

        assertThat(Json.parse(stdout)).isEqualTo(CniJson.toJson(CniJson.decodeResult(
                CniRuntimeListTest.R1.getBytes(StandardCharsets.UTF_8))));
        assertThat(stdout).startsWith("{\n    \"cniVersion\": \"1.0.0\"");
        FakePlugin.Call call = plugin.calls().getFirst();
        assertThat(call.containerId()).isEqualTo("cnitool-49edaf0553057fe716c5");
        assertThat(call.netns()).isEqualTo("/var/run/netns/jcni-test");
        assertThat(call.ifName()).isEqualTo("net0");
        assertThat(call.args()).isEqualTo("IgnoreUnknown=1;K=V");
        assertThat(((JsonObject) Json.parse(call.stdin())).get("runtimeConfig").orElseThrow().toString())
                .isEqualTo("{\"portMappings\":[{\"hostPort\":80}]}");
        assertThat(cache.resolve("results/net-cnitool-49edaf0553057fe716c5-net0")).exists();
    }

    @Test
    void optionsOverrideContainerIdAndIfnameAndTheNetnsPathIsMadeAbsolute() throws Exception {
        assertThat(run("--container-id=my-ctr", "add", "net", "relative/ns", "--ifname", "eth5", "--cache-dir",
                cache.toString())).isZero();
        FakePlugin.Call call = plugin.calls().getFirst();
        assertThat(call.containerId()).isEqualTo("my-ctr");
        assertThat(call.ifName()).isEqualTo("eth5");
        assertThat(call.netns()).isEqualTo(Path.of("relative/ns").toAbsolutePath().toString());
    }

    @Test
    void checkAndDelRunQuietly() {
        assertThat(run("add", "net", "/ns", "--cache-dir", cache.toString())).isZero();
        assertThat(run("check", "net", "/ns", "--cache-dir", cache.toString())).isZero();
        assertThat(stdout).isEmpty();
        assertThat(run("del", "net", "/ns", "--cache-dir", cache.toString())).isZero();
        assertThat(stdout).isEmpty();
        assertThat(plugin.commands()).containsExactly("ADD", "CHECK", "DEL");
    }

    @Test
    void delWithAnEmptyNetnsPassesAnEmptyCniNetnsAndNeedsAContainerId() {
        assertThat(run("add", "net", "/ns", "--container-id", "ctr-gone", "--cache-dir", cache.toString())).isZero();

        assertThat(run("del", "net", "", "--cache-dir", cache.toString())).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).startsWith("jcni: del without a network namespace needs --container-id");
        assertThat(run("del", "net", "", "--container-id", "ctr-gone", "--cache-dir", cache.toString())).isZero();

        FakePlugin.Call del = plugin.calls().getLast();
        assertThat(del.command()).isEqualTo("DEL");
        assertThat(del.netns()).as("not the working directory, as cnitool would make it").isEmpty();
        assertThat(del.containerId()).isEqualTo("ctr-gone");
        assertThat(Json.parse(del.stdin()).toString()).as("the cached result as prevResult").contains("prevResult");
        assertThat(cache.resolve("results/net-ctr-gone-eth0")).doesNotExist();
    }

    @Test
    void addAndCheckWithAnEmptyNetnsAreUsageErrors() {
        for (String command : List.of("add", "check")) {
            assertThat(run(command, "net", "", "--container-id", "c", "--cache-dir", cache.toString()))
                    .as(command).isEqualTo(JcniCli.USAGE);
            assertThat(stderr).startsWith("jcni: " + command + " needs the path of a network namespace");
        }
        assertThat(plugin.calls()).isEmpty();
    }

    @Test
    void aPluginErrorExits1WithTheCniCodeAndThePluginsStderr() throws Exception {
        plugin.fail("ADD", "{\"code\":11,\"msg\":\"pool busy\",\"details\":\"retry\"}", 1);
        plugin.stderr("ADD", "p: detailed log\n");

        assertThat(run("add", "net", "/ns", "--cache-dir", cache.toString())).isEqualTo(JcniCli.FAILED);

        assertThat(stdout).isEmpty();
        assertThat(stderr).isEqualTo("""
                p: detailed log\n\
                jcni: plugin type="p" failed (add): pool busy; retry\n\
                jcni: CNI error code 11 (Try again later)\n""");
    }

    @Test
    void noRollbackLeavesWhatTheFirstPluginsMadeForALaterDelAsCnitoolDoes() throws Exception {
        FakePlugin failing = FakePlugin.create(bin, "q").fail("ADD", "{\"code\":100,\"msg\":\"boom\"}", 1);
        Files.writeString(confDir.resolve("20-two.conflist"), "{\"cniVersion\":\"1.0.0\",\"name\":\"two\","
                + "\"plugins\":[{\"type\":\"p\"},{\"type\":\"q\"}]}");

        assertThat(run("add", "--no-rollback", "two", "/ns", "--cache-dir", cache.toString()))
                .isEqualTo(JcniCli.FAILED);
        assertThat(plugin.commands()).containsExactly("ADD");
        assertThat(failing.commands()).containsExactly("ADD");

        assertThat(run("add", "two", "/ns2", "--cache-dir", cache.toString())).isEqualTo(JcniCli.FAILED);
        assertThat(plugin.commands()).as("with rollback p is deleted").containsExactly("ADD", "ADD", "DEL");
        assertThat(failing.commands()).as("the failing plugin is not").containsExactly("ADD", "ADD");
    }

    @Test
    void noRollbackAppliesToAddOnly() {
        assertThat(run("del", "--no-rollback", "net", "/ns", "--cache-dir", cache.toString()))
                .isEqualTo(JcniCli.USAGE);
        assertThat(stderr).startsWith("jcni: --no-rollback applies to add only\n");
        assertThat(run("gc", "--no-rollback", "net", "--cache-dir", cache.toString())).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).startsWith("jcni: --no-rollback does not apply to this command\n");
    }

    @Test
    void aRepeatedAddIsRefusedWithCode4AndRunsNoPlugin() {
        assertThat(run("add", "net", "/ns", "--cache-dir", cache.toString())).isZero();
        assertThat(run("add", "net", "/ns", "--cache-dir", cache.toString())).isEqualTo(JcniCli.FAILED);
        assertThat(stderr).contains(" is already added\njcni: CNI error code 4 ");
        assertThat(plugin.commands()).containsExactly("ADD");
    }

    @Test
    void aFifoAmongTheConfigurationsDoesNotBlockAddOrDel() throws Exception {
        Path fifo = confDir.resolve("05-fifo.conflist");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        try {
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
                assertThat(run("add", "net", "/ns", "--cache-dir", cache.toString())).isZero();
                assertThat(run("del", "net", "/ns", "--cache-dir", cache.toString())).isZero();
            });
            assertThat(run("add", "fifo", "/ns", "--cache-dir", cache.toString())).isEqualTo(JcniCli.CONFIG);
            assertThat(stderr).contains("error reading " + fifo + ": not a regular file (a FIFO)");
        } finally {
            // A reader stuck in open(2) (the bug this guards against) is released by a writer; O_RDWR never blocks.
            java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE).close();
        }
    }

    /**
     * Issue 23, item 11: NETCONFPATH itself a FIFO made {@code jcni} wait for ever (listing a directory opens it with
     * a plain open(2)). Now it is a configuration error naming what is there, at once; a regular file is refused alike.
     */
    @Test
    void netconfpathAFifoIsAConfigurationErrorNotAHang() throws Exception {
        Path fifo = tmp.resolve("netconf.fifo");
        new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor();
        try {
            env.put("NETCONFPATH", fifo.toString());
            org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () ->
                    assertThat(run("add", "net", "/ns", "--cache-dir", cache.toString())).isEqualTo(JcniCli.CONFIG));
            assertThat(stderr).contains("cannot read network configurations in " + fifo + ": not a directory (a FIFO)");
            assertThat(run("add", "net", "/ns", "--conf-dir", confDir.resolve("10-net.conflist").toString(),
                    "--cache-dir", cache.toString())).isEqualTo(JcniCli.CONFIG);
            assertThat(stderr).contains("not a directory (a regular file)");
        } finally {
            java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE).close();
        }
    }

    @Test
    void anUnknownNetworkExits3() {
        assertThat(run("add", "nope", "/ns")).isEqualTo(JcniCli.CONFIG);
        assertThat(stderr).isEqualTo("jcni: no net configuration with name \"nope\" in " + confDir + "\n");
    }

    @Test
    void aMissingCniPathExits3WithAHint() {
        env.remove("CNI_PATH");
        assertThat(run("add", "net", "/ns")).isEqualTo(JcniCli.CONFIG);
        assertThat(stderr).startsWith("jcni: CNI_PATH is not set");
    }

    @Test
    void commandLineMistakesExit2() {
        assertThat(run()).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).isEqualTo("jcni: missing command\nRun 'jcni --help' for usage.\n");
        assertThat(run("frobnicate")).isEqualTo(JcniCli.USAGE);
        assertThat(run("add", "net")).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).startsWith("jcni: add takes <network> <netns>, got 1 argument\n");
        assertThat(run("add", "net", "/ns", "--bogus")).isEqualTo(JcniCli.USAGE);
        assertThat(run("version", "p", "--valid", "a/b")).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).startsWith("jcni: --valid does not apply to this command");
        assertThat(run("add", "net", "/ns", "--timeout", "soon")).isEqualTo(JcniCli.USAGE);
        env.put("CAP_ARGS", "[1]");
        assertThat(run("add", "net", "/ns")).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).startsWith("jcni: CAP_ARGS must be a JSON object");
    }

    @Test
    void helpAndVersion() {
        assertThat(run("--help")).isZero();
        assertThat(stdout).isEqualTo(JcniCli.USAGE_TEXT);
        assertThat(run("--version")).isZero();
        assertThat(stdout).matches("jcni \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\n");
    }

    @Test
    void versionPrintsThePluginsAnswer() throws Exception {
        assertThat(run("version", "p")).isZero();
        assertThat(Json.parse(stdout).toString()).startsWith("{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[");
    }

    @Test
    void validateByNameAndByFile() throws Exception {
        assertThat(run("validate", "net")).isZero();
        assertThat(Json.parse(stdout).toString()).isEqualTo(
                "{\"name\":\"net\",\"cniVersion\":\"1.0.0\",\"plugins\":[\"p\"],\"capabilities\":[\"portMappings\"]}");
        Path file = Files.writeString(tmp.resolve("other.conf"), """
                {"cniVersion":"1.0.0","name":"o",\
                "type":"missing"}""");
        assertThat(run("validate", file.toString())).isEqualTo(JcniCli.FAILED);
        assertThat(stderr).startsWith("jcni: failed to find plugin \"missing\" in path [" + bin + "]\n");
    }

    @Test
    void convertReadsAFileOrStdinAndPrintsTheConvertedResult() throws Exception {
        Path file = Files.writeString(tmp.resolve("r.json"), CniRuntimeListTest.R1);
        assertThat(run("convert", "--to", "0.4.0", file.toString())).isZero();
        assertThat(Json.parse(stdout).toString()).contains("\"cniVersion\":\"0.4.0\"").contains("\"version\":\"4\"");

        assertThat(runWithStdin(CniRuntimeListTest.R1, "convert", "--to=0.2.0", "-")).isZero();
        assertThat(Json.parse(stdout).toString()).contains("\"ip4\"");

        assertThat(runWithStdin("{\"cniVersion\":\"1.0.0\"}", "convert", "--to", "0.2.0")).isEqualTo(JcniCli.FAILED);
        assertThat(stderr).startsWith("jcni: convert: cannot convert: no valid IP addresses");
        assertThat(runWithStdin(CniRuntimeListTest.R1, "convert", "--to", "7.0.0")).isEqualTo(JcniCli.FAILED);
        assertThat(run("convert", file.toString())).isEqualTo(JcniCli.USAGE);
    }

    @Test
    void gcTreatsCachedAttachmentsAsValidUnlessToldOtherwise() throws Exception {
        Files.writeString(confDir.resolve("10-net.conflist"), """
                {"cniVersion":"1.1.0","name":"net",\
                "plugins":[{"type":"p"}]}""");
        assertThat(run("add", "net", "/ns/a", "--container-id", "a", "--cache-dir", cache.toString())).isZero();
        assertThat(run("add", "net", "/ns/b", "--container-id", "b", "--cache-dir", cache.toString())).isZero();

        assertThat(run("gc", "net", "--cache-dir", cache.toString())).isZero();
        assertThat(plugin.commands()).containsExactly("ADD", "ADD", "GC");
        assertThat(plugin.calls().get(2).stdin()).contains(
                """
                        "cni.dev/valid-attachments":[{"containerID":"a","ifname":"eth0"},\
                        {"containerID":"b","ifname":"eth0"}]""");

        assertThat(run("gc", "net", "--valid", "a/eth0", "--cache-dir", cache.toString())).isZero();
        assertThat(plugin.commands()).containsExactly("ADD", "ADD", "GC", "DEL", "GC");
        assertThat(plugin.calls().get(3).containerId()).isEqualTo("b");
        assertThat(run("gc", "net", "--valid", "nonsense")).isEqualTo(JcniCli.USAGE);
    }

    @Test
    void gcStaleRemovesAttachmentsWhoseNamespaceIsGoneAndPrintsALinePerAttachmentAndNetwork() throws Exception {
        Path gone = tmp.resolve("gone");
        plugin.answer("ADD", CniRuntimeListTest.R1.replace("/var/run/netns/test", gone.toString()));
        assertThat(run("add", "net", gone.toString(), "--container-id", "dead", "--cache-dir", cache.toString()))
                .isZero();
        plugin.answer("ADD", CniRuntimeListTest.R1.replace("/var/run/netns/test", "/proc/self/ns/net"));
        assertThat(run("add", "net", "/proc/self/ns/net", "--container-id", "kept", "--cache-dir",
                cache.toString())).isZero();

        assertThat(run("gc", "--stale", "--dry-run", "--cache-dir", cache.toString())).isZero();
        assertThat(stdout.lines()).containsExactly("would remove net dead/eth0 netns " + gone + ": no such file",
                "kept net kept/eth0 netns /proc/self/ns/net: a process's namespace path, and pids are reused: it "
                        + "may name another namespace now", "gc net: skipped: version 1.0.0 has no GC (1.1.0 and later)");
        assertThat(plugin.commands()).containsExactly("ADD", "ADD");

        assertThat(run("gc", "--stale", "net", "--cache-dir", cache.toString())).isZero();
        assertThat(stdout.lines()).first().isEqualTo("removed net dead/eth0 netns " + gone + ": no such file");
        assertThat(plugin.calls().getLast().command()).isEqualTo("DEL");
        assertThat(plugin.calls().getLast().containerId()).isEqualTo("dead");
        assertThat(plugin.calls().getLast().netns()).isEmpty();
        assertThat(cache.resolve("results/net-dead-eth0")).doesNotExist();
        assertThat(cache.resolve("results/net-kept-eth0")).exists();
    }

    @Test
    void gcStaleExits1WhenADelFailsAndItsOptionsAreCheckedLikeAnyOther() throws Exception {
        Path gone = tmp.resolve("gone");
        assertThat(run("add", "net", gone.toString(), "--container-id", "dead", "--cache-dir", cache.toString()))
                .isZero();
        plugin.fail("DEL", "{\"code\":11,\"msg\":\"try later\"}", 1);

        assertThat(run("gc", "--stale", "--cache-dir", cache.toString())).isEqualTo(JcniCli.FAILED);
        assertThat(stdout).startsWith("failed net dead/eth0 netns " + gone + ": no such file; DEL failed: ");
        assertThat(stderr).contains("jcni: CNI error code 11");

        assertThat(run("gc", "--dry-run", "net")).isEqualTo(JcniCli.USAGE);
        assertThat(stderr).contains("--dry-run applies to gc --stale only");
        assertThat(run("gc", "--stale", "--valid", "a/eth0")).isEqualTo(JcniCli.USAGE);
        assertThat(run("gc", "--stale", "net", "other")).isEqualTo(JcniCli.USAGE);
    }

    @Test
    void statusExits1WithThePluginsCode() throws Exception {
        Files.writeString(confDir.resolve("10-net.conflist"), """
                {"cniVersion":"1.1.0","name":"net",\
                "plugins":[{"type":"p"}]}""");
        assertThat(run("status", "net")).isZero();
        plugin.fail("STATUS", "{\"code\":50,\"msg\":\"no IPs left\"}", 1);
        assertThat(run("status", "net")).isEqualTo(JcniCli.FAILED);
        assertThat(stderr).endsWith("jcni: CNI error code 50 (Plugin not available)\n");
    }

    @Test
    void durationsParse() throws Exception {
        assertThat(JcniCli.parseDuration("500ms").toMillis()).isEqualTo(500);
        assertThat(JcniCli.parseDuration("30s").toSeconds()).isEqualTo(30);
        assertThat(JcniCli.parseDuration("2m").toSeconds()).isEqualTo(120);
        assertThat(JcniCli.parseDuration("7").toSeconds()).isEqualTo(7);
    }
}
