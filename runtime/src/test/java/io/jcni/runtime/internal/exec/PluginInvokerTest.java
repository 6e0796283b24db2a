package io.jcni.runtime.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.runtime.ScriptPlugins;
import io.jcni.spec.CniError;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exec engine against real processes ({@code /bin/sh} scripts): environment, stdin, stdout, stderr, exit statuses,
 * timeouts, and the failure texts libcni gives for each way a plugin can fail (compare
 * it/src/test/resources/libcni-errors/failure-texts.json, replayed against the Go plugin in the it module).
 */
class PluginInvokerTest {
    private static final Map<String, String> CNI_ENV = Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1",
            "CNI_NETNS", "/var/run/netns/x", "CNI_IFNAME", "eth0", "CNI_ARGS", "A=1", "CNI_PATH", "/opt/cni/bin");

    @TempDir
    Path tmp;

    private final ByteArrayOutputStream sink = new ByteArrayOutputStream();
    private final PluginInvoker invoker = new PluginInvoker(new ProcessRunner(5, 50), sink);

    private byte[] run(Path plugin, String stdin) throws PluginFailure {
        return invoker.exec(plugin, stdin.getBytes(StandardCharsets.UTF_8), System.getenv(), CNI_ENV, 0);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Test
    void thePluginGetsStdinAndTheWholeEnvironmentPlusCniVariables() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p",
                "cat; echo; echo \"$CNI_COMMAND|$CNI_CONTAINERID|$CNI_NETNS|$CNI_IFNAME|$CNI_ARGS|$CNI_PATH|$HOME\"");
        Map<String, String> base = new HashMap<>(Map.of("HOME", "/home/test", "CNI_COMMAND", "overridden"));

        byte[] out = invoker.exec(plugin, "{\"cniVersion\":\"1.0.0\"}".getBytes(StandardCharsets.UTF_8), base, CNI_ENV,
                0);

        assertThat(text(out)).isEqualTo(
                "{\"cniVersion\":\"1.0.0\"}\nADD|c1|/var/run/netns/x|eth0|A=1|/opt/cni/bin|/home/test\n");
    }

    @Test
    void aGivenBaseEnvironmentReplacesThisProcesssEnvironment() throws Exception {
        // env(1) prints exactly what it was given (a shell would invent PATH and PWD for itself).
        Path plugin = ScriptPlugins.write(tmp, "p", "exec /usr/bin/env");
        byte[] out = invoker.exec(plugin, new byte[0], Map.of("ONLY", "me"), Map.of("CNI_COMMAND", "DEL"), 0);
        assertThat(text(out).lines().filter(l -> !l.startsWith("PWD="))).containsExactlyInAnyOrder(
                "ONLY=me", "CNI_COMMAND=DEL");
    }

    @Test
    void largeStdinAndLargeStdoutAndStderrDoNotDeadlock() throws Exception {
        // The plugin writes 256 KiB to stderr before reading stdin, then echoes 1 MiB of stdin back: each stream
        // exceeds a pipe's 64 KiB, so any missing concurrent drain or feed would hang here.
        Path plugin = ScriptPlugins.write(tmp, "p", "head -c 262144 /dev/zero | tr '\\0' e >&2; cat");
        String stdin = "x".repeat(1 << 20);

        byte[] out = run(plugin, stdin);

        assertThat(out).hasSize(1 << 20);
        assertThat(sink.size()).isEqualTo(262144);
    }

    @Test
    void stderrGoesToTheSinkOnSuccess() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "echo 'log line' >&2; printf ok");
        assertThat(text(run(plugin, "{}"))).isEqualTo("ok");
        assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("log line\n");
    }

    @Test
    void noOutputExit1IsLibcnisNoErrorMessageText() throws IOException {
        Path plugin = ScriptPlugins.write(tmp, "p", "exit 1");
        assertThatThrownBy(() -> run(plugin, "{}")).isInstanceOfSatisfying(PluginFailure.class, f -> {
            assertThat(f.error()).isEqualTo(
                    new CniError(0, "netplugin failed with no error message: exit status 1"));
            assertThat(f.fromPlugin()).isTrue();
        });
    }

    @Test
    void aPluginKilledBySignalIsReportedAsGoReportsIt() throws IOException {
        Path plugin = ScriptPlugins.write(tmp, "p", "kill -9 $$");
        assertThatThrownBy(() -> run(plugin, "{}")).isInstanceOfSatisfying(PluginFailure.class, f ->
                assertThat(f.error()).isEqualTo(
                        new CniError(0, "netplugin failed with no error message: signal: killed")));
    }

    @Test
    void exitStatus137IsIndistinguishableFromSigkillInJava() throws IOException {
        // Named difference: Java's Process folds "killed by signal N" into status 128 + N, so a plugin exiting with
        // 137 reads as SIGKILL; Go would say "exit status 137".
        Path plugin = ScriptPlugins.write(tmp, "p", "exit 137");
        assertThatThrownBy(() -> run(plugin, "{}"))
                .hasMessage("netplugin failed with no error message: signal: killed");
    }

    @Test
    void stderrOnlyIsQuotedInTheMessageAndStillReachesTheSink() throws IOException {
        Path plugin = ScriptPlugins.write(tmp, "p", "echo 'boom \"x\"' >&2; exit 1");
        assertThatThrownBy(() -> run(plugin, "{}")).isInstanceOfSatisfying(PluginFailure.class, f -> {
            assertThat(f.error()).isEqualTo(new CniError(0, "netplugin failed: \"boom \\\"x\\\"\\n\""));
            assertThat(f.stderrText()).isEqualTo("boom \"x\"\n");
        });
        // Named difference: libcni drops a failing plugin's stderr (it only quotes it); jcni also forwards it.
        assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("boom \"x\"\n");
    }

    @Test
    void anErrorResultOnStdoutIsThePluginsErrorUnchanged() throws IOException {
        Path plugin = ScriptPlugins.write(tmp, "p",
                "printf '{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"bad config\",\"details\":\"field x\"}'; exit 1");
        assertThatThrownBy(() -> run(plugin, "{}")).isInstanceOfSatisfying(PluginFailure.class, f ->
                assertThat(f.error()).isEqualTo(new CniError("1.0.0", 7, "bad config", "field x")));
    }

    @Test
    void garbageOnStdoutIsQuotedWithTheParseError() throws IOException {
        Path plugin = ScriptPlugins.write(tmp, "p", "printf 'not JSON {'; exit 1");
        assertThatThrownBy(() -> run(plugin, "{}")).isInstanceOfSatisfying(PluginFailure.class, f -> {
            assertThat(f.error().code()).isZero();
            // Same prefix as libcni; the parse error after it is jcni's parser's, not Go's.
            assertThat(f.error().msg()).startsWith(
                    "netplugin failed but error parsing its diagnostic message \"not JSON {\": invalid JSON");
        });
    }

    @Test
    void aPluginThatCannotBeStartedIsLibcnisForkExecText() throws IOException {
        // An interpreter that does not exist makes execve fail (ENOENT) even for root, who may exec anything.
        Path bad = ScriptPlugins.write(tmp, "bad", "");
        Files.writeString(bad, "#!/nonexistent/interpreter\n");

        assertThatThrownBy(() -> run(bad, "{}")).isInstanceOfSatisfying(PluginFailure.class, f -> {
            assertThat(f.error()).isEqualTo(new CniError(0,
                    "netplugin failed with no error message: fork/exec " + bad + ": no such file or directory"));
            assertThat(f.fromPlugin()).isFalse();
        });
    }

    @Test
    void aTimeoutKillsThePluginAndItsChildren() throws Exception {
        Path pidFile = tmp.resolve("child.pid");
        Path plugin = ScriptPlugins.write(tmp, "p", "sleep 300 & echo $! > '" + pidFile + "'; wait");

        long start = System.nanoTime();
        assertThatThrownBy(() -> invoker.exec(plugin, new byte[0], System.getenv(), CNI_ENV,
                Duration.ofMillis(300).toNanos())).isInstanceOfSatisfying(PluginFailure.class, f ->
                assertThat(f.error()).isEqualTo(new CniError("", 0,
                        "netplugin failed with no error message: signal: killed",
                        "plugin " + plugin + " did not finish within 300 ms")));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("not the child's 300 s").isLessThan(
                Duration.ofSeconds(60));

        long child = Long.parseLong(Files.readString(pidFile).strip());
        var handle = ProcessHandle.of(child);
        if (handle.isPresent()) {
            handle.get().onExit().get(10, TimeUnit.SECONDS);
        }
        assertThat(ProcessHandle.of(child).filter(ProcessHandle::isAlive)).as("the plugin's child").isEmpty();
    }

    @Test
    void stdoutBeyondTheLimitKillsThePlugin() throws IOException {
        Path plugin = ScriptPlugins.write(tmp, "p", "exec cat /dev/zero");
        assertThatThrownBy(() -> run(plugin, "")).isInstanceOfSatisfying(PluginFailure.class, f ->
                assertThat(f.getMessage()).isEqualTo("plugin " + plugin + " printed more than "
                        + ProcessRunner.MAX_STDOUT_BYTES + " bytes on stdout and was killed"));
    }

    @Test
    void aPluginNotReadingStdinStillSucceeds() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "exec 0<&-; printf done");
        assertThat(text(run(plugin, "x".repeat(200_000)))).isEqualTo("done");
    }

    @Test
    void textFileBusyIsRetriedUntilTheWriterCloses() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "printf ran");
        OutputStream writer = Files.newOutputStream(plugin, java.nio.file.StandardOpenOption.APPEND);
        boolean busy;
        try {
            new ProcessBuilder(plugin.toString()).start().waitFor();
            busy = false;
        } catch (IOException e) {
            busy = ProcessRunner.errnoText(e).equals("text file busy");
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(busy,
                "this kernel does not refuse to exec a file open for writing (no ETXTBSY): nothing to retry");
        Thread closer = Thread.ofPlatform().start(() -> {
            try {
                Thread.sleep(120);
                writer.close();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try {
            assertThat(text(run(plugin, ""))).isEqualTo("ran");
        } finally {
            closer.join();
        }
    }

    @Test
    void textFileBusyGivesUpAfterTheRetries() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "printf ran");
        try (OutputStream writer = Files.newOutputStream(plugin, java.nio.file.StandardOpenOption.APPEND)) {
            PluginInvoker quick = new PluginInvoker(new ProcessRunner(2, 10), null);
            try {
                byte[] out = quick.exec(plugin, new byte[0], System.getenv(), Map.of(), 0);
                org.junit.jupiter.api.Assumptions.assumeTrue(false,
                        "this kernel execs files open for writing (no ETXTBSY); ran: " + text(out));
            } catch (PluginFailure f) {
                assertThat(f.getMessage()).isEqualTo(
                        "netplugin failed with no error message: fork/exec " + plugin + ": text file busy");
            }
        }
    }
}
