package io.jcni.runtime.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.runtime.ScriptPlugins;
import io.jcni.spec.CniError;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pre-started launch helpers: a plugin run through one sees exactly what a direct spawn gives it, runs in the process
 * that was started ahead of time, and every failure reads as with a direct spawn.
 */
class WarmSpawnerTest {
    private static final Map<String, String> CNI_ENV = Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1",
            "CNI_NETNS", "/var/run/netns/x", "CNI_IFNAME", "eth0", "CNI_ARGS", "A=1;B=x y", "CNI_PATH", "/opt/cni/bin");

    @TempDir
    Path tmp;

    WarmSpawner spawner;
    Map<String, String> base;

    @BeforeEach
    void spawner() throws Exception {
        base = new HashMap<>(System.getenv());
        base.remove("IFS");
        base.remove("OPTIND");
        base.remove("PPID");
        base.put("JCNI_TEST_VALUE", "with spaces and 'quotes' and \"double\" and $dollar");
        spawner = create(base);
        org.junit.jupiter.api.Assumptions.assumeTrue(spawner != null, "no dash on this machine: no launch helpers");
    }

    /** The spawner under test: dash helpers here, jcni's native helper in {@link NativeLaunchHelperTest}. */
    WarmSpawner create(Map<String, String> env) throws Exception {
        return WarmSpawner.create(env, 1);
    }

    ProcessRunner.Outcome run(Path plugin, String stdin, long timeoutNanos) throws PluginFailure {
        return new ProcessRunner(5, 50).run(plugin, stdin.getBytes(StandardCharsets.UTF_8), base, CNI_ENV,
                timeoutNanos, spawner);
    }

    void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (spawner.readyCount() < 1) {
            assertThat(System.nanoTime()).as("a helper started").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    static Set<Long> children() {
        return ProcessHandle.current().children().map(ProcessHandle::pid).collect(Collectors.toSet());
    }

    @Test
    void thePluginRunsInTheHelperStartedAheadOfTime() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "cat >/dev/null; echo $$");
        spawner.take(); // starts the first helper
        awaitReady();
        Set<Long> before = children();

        ProcessRunner.Outcome outcome = run(plugin, "{}", 0);

        long pid = Long.parseLong(new String(outcome.stdout, StandardCharsets.UTF_8).strip());
        assertThat(before).as("the plugin's pid was a child before the call").contains(pid);
        assertThat(outcome.status).isZero();
    }

    @Test
    void thePluginSeesExactlyTheEnvironmentAndStdinOfADirectSpawn() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "cat; echo; exec /usr/bin/env");
        String stdin = "{\"cniVersion\":\"1.0.0\",\"x\":\"" + "y".repeat(6000) + "\"}";
        spawner.take();
        awaitReady();

        ProcessRunner.Outcome warm = run(plugin, stdin, 0);
        ProcessRunner.Outcome direct = new ProcessRunner(5, 50).run(plugin, stdin.getBytes(StandardCharsets.UTF_8),
                base, CNI_ENV, 0);

        List<String> warmLines = new String(warm.stdout, StandardCharsets.UTF_8).lines().toList();
        List<String> directLines = new String(direct.stdout, StandardCharsets.UTF_8).lines().toList();
        assertThat(warmLines.getFirst()).isEqualTo(stdin);
        assertThat(Set.copyOf(warmLines)).isEqualTo(Set.copyOf(directLines));
        assertThat(warmLines).contains("CNI_ARGS=A=1;B=x y",
                "JCNI_TEST_VALUE=with spaces and 'quotes' and \"double\" and $dollar");
        assertThat(warm.stderr).isEmpty();
    }

    @Test
    void anExecFailureInTheHelperFallsBackToADirectSpawnWithLibcnisText() throws Exception {
        Path bad = ScriptPlugins.write(tmp, "bad", "");
        Files.writeString(bad, "#!/nonexistent/interpreter\n");
        spawner.take();
        awaitReady();

        assertThatThrownBy(() -> new PluginInvoker(new ProcessRunner(5, 50), null, spawner).exec(bad, new byte[0],
                base, CNI_ENV, 0)).isInstanceOfSatisfying(PluginFailure.class, f -> assertThat(f.error())
                        .isEqualTo(new CniError(0, "netplugin failed with no error message: fork/exec " + bad
                                + ": no such file or directory")));
    }

    @Test
    void aPluginExiting127IsNotMistakenForAnExecFailureAndRunsOnce() throws Exception {
        Path count = tmp.resolve("runs");
        Path plugin = ScriptPlugins.write(tmp, "p", "echo run >> '" + count + "'; exit 127");
        spawner.take();
        awaitReady();

        assertThat(run(plugin, "", 0).status).isEqualTo(127);
        assertThat(Files.readAllLines(count)).containsExactly("run");
    }

    @Test
    void aTimeoutKillsAPluginStartedThroughAHelper() throws Exception {
        Path plugin = ScriptPlugins.write(tmp, "p", "exec sleep 300");
        spawner.take();
        awaitReady();

        ProcessRunner.Outcome outcome = run(plugin, "", Duration.ofMillis(200).toNanos());

        assertThat(outcome.timedOut).isTrue();
        assertThat(outcome.status).isEqualTo(137);
    }

    @Test
    void valuesWithNewlinesAndShellManagedVariablesAreNotTrustedToAHelper() {
        assertThat(WarmSpawner.carries(Path.of("/bin/p"), Map.of("CNI_ARGS", "a\nb"))).isFalse();
        assertThat(WarmSpawner.carries(Path.of("/bin/p"), Map.of("CNI_ARGS", "a=b;c=d"))).isTrue();
        Map<String, String> withIfs = new HashMap<>(base);
        withIfs.put("IFS", ":");
        assertThat(WarmSpawner.create(withIfs, 1)).isNull();
        assertThat(WarmSpawner.create(base, 0)).isNull();
    }
}
