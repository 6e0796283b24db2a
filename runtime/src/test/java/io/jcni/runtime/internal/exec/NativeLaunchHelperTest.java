package io.jcni.runtime.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every case of {@link WarmSpawnerTest} with jcni's native launch helper (src/main/c/launch-helper.c, compiled here as
 * the build compiles it into dist/libexec) in dash's place, and what only it can do: serve an environment with the
 * variables a shell manages.
 */
class NativeLaunchHelperTest extends WarmSpawnerTest {
    @TempDir
    static Path bin;
    static Path helper;

    @BeforeAll
    static void compile() throws Exception {
        Path source = Path.of("src/main/c/launch-helper.c").toAbsolutePath();
        assumeTrue(Files.isRegularFile(source), "run from the runtime module: " + source + " is missing");
        helper = bin.resolve("jcni-launch-helper");
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-O2",
                    "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2", "-o", helper.toString(), source.toString())
                    .redirectErrorStream(true).start();
        } catch (java.io.IOException e) {
            assumeTrue(false, "gcc is not installed (scripts/setup installs it)");
            return;
        }
        String output = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as(output).isZero();
    }

    @Override
    WarmSpawner create(Map<String, String> env) {
        return WarmSpawner.create(env, 1, helper);
    }

    /** The native helper starts the plugin as its child (and collects its outputs): the plugin's parent. */
    @Override
    @Test
    void thePluginRunsInTheHelperStartedAheadOfTime() throws Exception {
        Path plugin = io.jcni.runtime.ScriptPlugins.write(bin, "ppid", "cat >/dev/null; echo $PPID");
        spawner.take(); // starts the first helper
        awaitReady();
        java.util.Set<Long> before = children();

        ProcessRunner.Outcome outcome = run(plugin, "{}", 0);

        long parent = Long.parseLong(new String(outcome.stdout, StandardCharsets.UTF_8).strip());
        assertThat(before).as("the plugin's parent was a helper started before the call").contains(parent);
        assertThat(outcome.status).isZero();
    }

    @Test
    void oneResidentHelperServesCallAfterCall() throws Exception {
        Path plugin = io.jcni.runtime.ScriptPlugins.write(bin, "ppid2", "cat >/dev/null; echo $PPID");
        spawner.take(); // starts the first helper
        awaitReady();
        java.util.Set<String> parents = new java.util.HashSet<>();
        for (int i = 0; i < 5; i++) {
            ProcessRunner.Outcome outcome = run(plugin, "{}", 0);
            assertThat(outcome.status).isZero();
            parents.add(new String(outcome.stdout, StandardCharsets.UTF_8).strip());
        }
        assertThat(parents).as("every call served by the one helper").hasSize(1);
        assertThat(spawner.readyCount()).as("and it is idle again").isEqualTo(1);
    }

    @Test
    void stdoutStderrAndStatusComeBackTogether() throws Exception {
        Path plugin = io.jcni.runtime.ScriptPlugins.write(bin, "both", "cat; echo out; echo err >&2; exit 3");
        spawner.take();
        awaitReady();

        ProcessRunner.Outcome outcome = run(plugin, "{\"x\":1}", 0);

        assertThat(new String(outcome.stdout, StandardCharsets.UTF_8)).isEqualTo("{\"x\":1}out\n");
        assertThat(new String(outcome.stderr, StandardCharsets.UTF_8)).isEqualTo("err\n");
        assertThat(outcome.status).isEqualTo(3);
        assertThat(outcome.timedOut).isFalse();
    }

    @Test
    void anEnvironmentWithTheVariablesAShellManagesIsServedUnchanged() throws Exception {
        Map<String, String> withShellVariables = new HashMap<>(base);
        withShellVariables.put("IFS", ":");
        withShellVariables.put("OPTIND", "7");
        withShellVariables.remove("PWD");
        base = withShellVariables;
        spawner = create(base);
        assertThat(spawner).isNotNull();
        Path plugin = Path.of("/usr/bin/env"); // not a shell script: a shell would manage IFS itself
        spawner.take();
        awaitReady();

        ProcessRunner.Outcome warm = run(plugin, "", 0);
        ProcessRunner.Outcome direct = new ProcessRunner(5, 50).run(plugin, new byte[0], base,
                Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1", "CNI_NETNS", "/var/run/netns/x",
                        "CNI_IFNAME", "eth0", "CNI_ARGS", "A=1;B=x y", "CNI_PATH", "/opt/cni/bin"), 0, null);
        List<String> seen = new String(warm.stdout, StandardCharsets.UTF_8).lines().sorted().toList();
        assertThat(seen).contains("IFS=:", "OPTIND=7")
                .isEqualTo(new String(direct.stdout, StandardCharsets.UTF_8).lines().sorted().toList());
    }

    @Test
    void aMissingHelperMeansDirectSpawns() {
        assertThat(WarmSpawner.create(base, 1, bin.resolve("nonexistent"))).isNull();
    }
}
