package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DelegationTest {
    private static final String RESULT = """
            {"cniVersion":"1.0.0","ips":[{"address":"10.1.0.5/24",\
            "gateway":"10.1.0.1"}]}""";
    private static final byte[] CONFIG = "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"ipam\"}"
            .getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path tmp;

    private Path bin;
    private Map<String, String> env;

    @BeforeEach
    void pluginEnvironment() throws IOException {
        bin = Files.createDirectory(tmp.resolve("bin"));
        env = new HashMap<>(Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "ctr", "CNI_NETNS", "/var/run/netns/n",
                "CNI_IFNAME", "eth0", "CNI_ARGS", "K=V", "CNI_PATH", tmp.resolve("empty") + ":" + bin,
                "PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin")));
    }

    @Test
    void addExecsTheDelegateWithTheSameEnvironmentAndConfig() throws Exception {
        ScriptPlugins.recording(bin, "ipam", RESULT);

        CniResult result = Delegation.create(env, InProcessPlugins.none()).add("ipam", CONFIG);

        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(((Result) result).ips().getFirst().address().toString()).isEqualTo("10.1.0.5/24");
        assertThat(Files.readString(bin.resolve("ipam.stdin"))).isEqualTo(new String(CONFIG, StandardCharsets.UTF_8)
                + "\n");
        assertThat(Files.readString(bin.resolve("ipam.env")))
                .isEqualTo("ADD|ctr|/var/run/netns/n|eth0|K=V|" + env.get("CNI_PATH") + "\n");
    }

    @Test
    void eachVerbSetsCniCommand() throws Exception {
        ScriptPlugins.recording(bin, "ipam", "");
        Delegation delegation = Delegation.create(env, InProcessPlugins.none());

        delegation.check("ipam", CONFIG);
        delegation.del("ipam", CONFIG);
        delegation.gc("ipam", CONFIG);
        delegation.status("ipam", CONFIG);

        assertThat(Files.readAllLines(bin.resolve("ipam.env"))).extracting(l -> l.split("\\|")[0])
                .containsExactly("CHECK", "DEL", "GC", "STATUS");
    }

    @Test
    void theDelegatesErrorComesBackUnchanged() throws IOException {
        ScriptPlugins.write(bin, "ipam",
                "printf '{\"code\":11,\"msg\":\"try again\",\"details\":\"pool busy\"}'; exit 1");

        assertThatThrownBy(() -> Delegation.create(env, InProcessPlugins.none()).add("ipam", CONFIG))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.error()).isEqualTo(new CniError(11, "try again", "pool busy"));
                    assertThat(e.getMessage()).isEqualTo("try again; pool busy");
                });
    }

    @Test
    void aMissingDelegateIsAnErrorEvenOnDel() {
        assertThatThrownBy(() -> Delegation.create(env, InProcessPlugins.none()).del("host-local", CONFIG))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.INTERNAL);
                    assertThat(e.getMessage()).isEqualTo("failed to find plugin \"host-local\" in path ["
                            + tmp.resolve("empty") + " " + bin + "]");
                });
    }

    @Test
    void aDelegateTypeWithAPathIsRefused() {
        assertThatThrownBy(() -> Delegation.create(env, InProcessPlugins.none()).add("../ipam", CONFIG))
                .hasMessage("invalid plugin name: ../ipam");
    }

    @Test
    void aJcniLauncherOfARegisteredTypeRunsInProcessWithTheSameInputs() throws Exception {
        // The launcher is also a working script: if it were exec'd, it would leave a file behind.
        Path launcher = ScriptPlugins.write(bin, "host-local", JcniLaunchers.markerLine("host-local")
                + "\ntouch '" + tmp.resolve("execd") + "'; printf '" + RESULT + "'");
        Files.createSymbolicLink(bin.resolve("my-ipam"), launcher);
        List<Map<String, String>> envs = new ArrayList<>();
        List<String> stdins = new ArrayList<>();
        InProcessPlugin hostLocal = (pluginEnv, stdin, stdout, stderr) -> {
            envs.add(pluginEnv);
            stdins.add(new String(stdin, StandardCharsets.UTF_8));
            try {
                stdout.write(RESULT.getBytes(StandardCharsets.UTF_8));
                stderr.write("in-process log\n".getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return 0;
        };
        ByteArrayOutputStream log = new ByteArrayOutputStream();

        CniResult result = Delegation.create(env, InProcessPlugins.of(Map.of("host-local", hostLocal)), log)
                .add("my-ipam", CONFIG);

        assertThat(((Result) result).ips()).hasSize(1);
        assertThat(tmp.resolve("execd")).doesNotExist();
        Map<String, String> expected = new HashMap<>(env);
        expected.put("CNI_COMMAND", "ADD");
        assertThat(envs).containsExactly(expected);
        assertThat(stdins).containsExactly(new String(CONFIG, StandardCharsets.UTF_8));
        assertThat(log.toString(StandardCharsets.UTF_8)).isEqualTo("in-process log\n");
    }

    @Test
    void aJcniLauncherOfAnUnregisteredTypeIsExecd() throws Exception {
        ScriptPlugins.write(bin, "host-local", JcniLaunchers.markerLine("host-local")
                + "\ntouch '" + tmp.resolve("execd") + "'; printf '" + RESULT + "'");
        InProcessPlugin other = (pluginEnv, stdin, stdout, stderr) -> {
            throw new AssertionError("must not run");
        };

        Delegation.create(env, InProcessPlugins.of(Map.of("static", other))).add("host-local", CONFIG);

        assertThat(tmp.resolve("execd")).exists();
    }

    @Test
    void anInProcessDelegatesFailureIsDecodedLikeAnExecdOne() {
        Path launcherDir = bin;
        InProcessPlugin failing = (pluginEnv, stdin, stdout, stderr) -> {
            try {
                stdout.write("{\"code\":7,\"msg\":\"bad range\"}".getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            return 1;
        };
        assertThatThrownBy(() -> {
            ScriptPlugins.write(launcherDir, "host-local", JcniLaunchers.markerLine("host-local"));
            Delegation.create(env, InProcessPlugins.of(Map.of("host-local", failing))).add("host-local", CONFIG);
        }).isInstanceOfSatisfying(CniException.class, e ->
                assertThat(e.error()).isEqualTo(new CniError(7, "bad range")));
    }

    @Test
    void anUndecodableResultIsCode6() throws IOException {
        ScriptPlugins.write(bin, "ipam", "printf ''");
        assertThatThrownBy(() -> Delegation.create(env, InProcessPlugins.none()).add("ipam", CONFIG))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.DECODING_FAILURE);
                    assertThat(e.getMessage()).isEqualTo("failed to unmarshal raw result: unexpected end of JSON input");
                });
    }
}
