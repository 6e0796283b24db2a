package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.plugins.Plugins;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.PluginLog;
import io.jcni.plugins.sdk.Skel;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code Plugins.inProcess()} and in-process delegation against the shipped launchers: a plugin whose IPAM in CNI_PATH
 * is a jcni launcher runs it in its own JVM (proved by the delegate's debug line carrying this JVM's pid), and the
 * in-process answer is byte-for-byte the exec'd launcher's.
 */
class InProcessPluginsTest {
    static final String STATIC_CONF = """
            {"cniVersion":"1.0.0","name":"ipt","type":"delegator","ipam":\
            {"type":"static","addresses":[{"address":"10.77.0.5/24","gateway":"10.77.0.1"}]}}""";

    @TempDir
    Path tmp;

    @BeforeAll
    static void distIsBuilt() {
        Prerequisites.assumeDistPlugins("static");
    }

    /** A plugin that only delegates to its IPAM, as bridge does before touching links. */
    static final class Delegator implements CniPlugin {
        @Override
        public CniResult add(CniRequest request) throws CniException {
            return request.ipam().add();
        }

        @Override
        public void del(CniRequest request) throws CniException {
            request.ipam().del();
        }

        @Override
        public void check(CniRequest request) throws CniException {
            request.ipam().check();
        }
    }

    static Map<String, String> env(String command, Path cniPath) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "ipt-1");
        env.put("CNI_NETNS", "/var/run/netns/jcni-sdk-none");
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", cniPath.toString());
        env.put(PluginLog.DEBUG_ENV, "1");
        return env;
    }

    record Run(int status, String stdout, String stderr) {
    }

    static Run run(InProcessPlugin plugin, Map<String, String> env, String stdin) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = plugin.run(Map.copyOf(env), stdin.getBytes(StandardCharsets.UTF_8), out, err);
        return new Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void everyShippedTypeIsAvailableInProcess() {
        assertThat(Plugins.inProcess().types()).containsExactlyElementsOf(Plugins.types());
        assertThat(Plugins.types()).contains("static");
    }

    @Test
    void delegationToAShippedLauncherRunsInThisJvm() {
        Skel delegator = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED).withDelegates(Plugins.inProcess());
        Run add = run(delegator, env("ADD", Locations.distCniBin()), STATIC_CONF);
        assertThat(add.status()).as(add.toString()).isZero();
        long pid = ProcessHandle.current().pid();
        assertThat(add.stderr()).contains("static: ADD in-process, pid " + pid);
        assertThat(add.stdout()).contains("\"address\": \"10.77.0.5/24\"");
    }

    @Test
    void hostLocalDelegatedInThisJvmAllocatesAndReleases() throws Exception {
        Prerequisites.assumeDistPlugins("host-local");
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"ipt-hl\",\"type\":\"delegator\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + tmp.resolve("data") + "\",\"ranges\":[[{\"subnet\":"
                + "\"10.78.0.0/24\"}]]}}";
        Skel delegator = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED).withDelegates(Plugins.inProcess());
        Run add = run(delegator, env("ADD", Locations.distCniBin()), conf);
        assertThat(add.status()).as(add.toString()).isZero();
        assertThat(add.stderr()).contains("host-local: ADD in-process, pid " + ProcessHandle.current().pid());
        assertThat(add.stdout()).contains("\"address\": \"10.78.0.2/24\"");
        assertThat(Files.readString(tmp.resolve("data/ipt-hl/10.78.0.2"))).isEqualTo("ipt-1\r\neth0");
        assertThat(run(delegator, env("DEL", Locations.distCniBin()), conf).status()).isZero();
        assertThat(tmp.resolve("data/ipt-hl/10.78.0.2")).doesNotExist();
    }

    @Test
    void delegationToTheSameLauncherThroughASymlinkedCniPathStillRunsInThisJvm() throws Exception {
        Path bin = Files.createSymbolicLink(tmp.resolve("bin"), Locations.distCniBin());
        Skel delegator = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED).withDelegates(Plugins.inProcess());
        Run add = run(delegator, env("ADD", bin), STATIC_CONF);
        assertThat(add.stderr()).contains("static: ADD in-process, pid " + ProcessHandle.current().pid());
        Files.delete(bin);
    }

    @Test
    void aForeignDelegateOfTheSameTypeIsExecd() throws Exception {
        Prerequisites.assumeReferencePlugins("static");
        Path bin = Files.createDirectory(tmp.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("static"), Locations.referencePlugin("static"));
        Skel delegator = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED).withDelegates(Plugins.inProcess());
        Run add = run(delegator, env("ADD", bin), STATIC_CONF);
        assertThat(add.status()).as(add.toString()).isZero();
        assertThat(add.stderr()).contains("delegator: ADD in-process").doesNotContain("static: ADD");
        assertThat(add.stdout()).contains("\"address\": \"10.77.0.5/24\"");
        Files.delete(bin.resolve("static"));
    }

    @Test
    void inProcessAnswersAreTheExecdLaunchersByteForByte() {
        InProcessPlugin plugin = Plugins.inProcess().find("static").orElseThrow();
        String conf = STATIC_CONF.replace("\"delegator\"", "\"static\"");
        for (String version : List.of("0.2.0", "0.4.0", "1.0.0", "1.1.0", "7.0.0")) {
            String stdin = conf.replace("1.0.0", version);
            Map<String, String> env = env("ADD", Path.of("/nonexistent"));
            env.remove(PluginLog.DEBUG_ENV);
            Run inProcess = run(plugin, env, stdin);
            ProcessResult exec = Processes.run(List.of(Locations.distPlugin("static").toString()), env, stdin,
                    Duration.ofSeconds(30));
            assertThat(inProcess.status()).as(version).isEqualTo(exec.exitCode());
            assertThat(inProcess.stdout()).as(version).isEqualTo(exec.stdout());
        }
    }
}
