package io.jcni.plugins.testing;

import io.jcni.plugins.sdk.Skel;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One plugin call with its environment, run in-process through a {@link Skel} or by exec'ing an executable. */
public final class PluginCall {
    private final Map<String, String> env = new HashMap<>();
    private String stdin = "";

    private PluginCall(String command) {
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", "ctr-1");
        env.put("CNI_NETNS", "/var/run/netns/jcni-sdk-none");
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", "/nonexistent");
    }

    public static PluginCall of(String command) {
        return new PluginCall(command);
    }

    public PluginCall env(String name, String value) {
        if (value == null) {
            env.remove(name);
        } else {
            env.put(name, value);
        }
        return this;
    }

    public PluginCall containerId(String id) {
        return env("CNI_CONTAINERID", id);
    }

    public PluginCall ifName(String name) {
        return env("CNI_IFNAME", name);
    }

    public PluginCall netns(String path) {
        return env("CNI_NETNS", path);
    }

    public PluginCall args(String cniArgs) {
        return env("CNI_ARGS", cniArgs);
    }

    public PluginCall stdin(String config) {
        this.stdin = config;
        return this;
    }

    public Map<String, String> envMap() {
        return Map.copyOf(env);
    }

    /** Runs in this JVM. */
    public Outcome run(Skel skel) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = skel.run(Map.copyOf(env), stdin.getBytes(StandardCharsets.UTF_8), out, err);
        return new Outcome(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** Execs {@code executable} with exactly this environment (plus PATH), as a runtime would. */
    public Outcome exec(Path executable) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(List.of(executable.toString()));
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        byte[] err;
        byte[] out;
        // Plugin output is small; read stdout fully, then stderr (both fit the pipe buffers for these tests).
        out = process.getInputStream().readAllBytes();
        err = process.getErrorStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException(executable + " did not finish");
        }
        return new Outcome(process.exitValue(), new String(out, StandardCharsets.UTF_8),
                new String(err, StandardCharsets.UTF_8));
    }

    /** What a call produced. */
    public record Outcome(int status, String stdout, String stderr) {
        public CniResult result() throws CniException {
            if (status != 0) {
                throw new AssertionError("expected success, got " + this);
            }
            return CniJson.decodeResult(stdout.getBytes(StandardCharsets.UTF_8));
        }

        public CniError error() throws CniException {
            if (status != 1) {
                throw new AssertionError("expected an error (status 1), got " + this);
            }
            return CniJson.decodeError(stdout.getBytes(StandardCharsets.UTF_8));
        }

        public Outcome ok() {
            if (status != 0) {
                throw new AssertionError("expected success, got " + this);
            }
            return this;
        }
    }
}
