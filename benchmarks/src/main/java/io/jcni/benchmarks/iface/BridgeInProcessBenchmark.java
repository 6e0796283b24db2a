package io.jcni.benchmarks.iface;

import io.jcni.plugins.Plugins;
import io.jcni.runtime.InProcessPlugin;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * bridge (or ptp) ADD and DEL run in-process, as a Java runtime that links jcni's plugins runs them
 * ({@code Plugins.inProcess()}): no JVM start, no FFM bootstrap per call, the IPAM plugin (static) delegated to in the
 * same JVM. What is left is the plugin's own work and the kernel's, the figure to set next to Go's exec'd plugin
 * (benchmarks/compare.sh measures the exec path in the same units).
 *
 * <ul>
 *   <li>{@code add}: one ADD; the attachment is deleted again outside the measurement;</li>
 *   <li>{@code del}: one DEL of an attachment added outside the measurement (includes the kernel's veth deletion,
 *       ~16 ms here, as Go's DEL does).</li>
 * </ul>
 * Needs root; makes namespace {@code <prefix>-jmh-*} ({@code $JCNI_BENCH_NETNS_PREFIX}, default {@code jcni-bench}) and
 * bridge {@code jcni-bjmh*} and removes them at the end. {@code benchmarks/compare.sh --jmh} runs it inside a namespace
 * of its own, so the bridge is not on the real host.
 * Run briefly: {@code java -jar benchmarks/target/benchmarks.jar BridgeInProcessBenchmark -f 1 -wi 2 -i 3 -w 1 -r 2}.
 * Each invocation is milliseconds long, so per-invocation setup is fine here.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
@State(Scope.Benchmark)
public class BridgeInProcessBenchmark {

    @Param({"bridge", "ptp"})
    public String type;

    private String netns;
    private String bridge;
    private Path work;
    private InProcessPlugin plugin;
    private byte[] conf;
    private Map<String, String> env;
    private boolean added;

    @Setup(Level.Trial)
    public void world() throws Exception {
        String suffix = HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
        // benchmarks/compare.sh passes its run's tag, so that its cleanup finds the namespace of a killed trial.
        netns = System.getenv().getOrDefault("JCNI_BENCH_NETNS_PREFIX", "jcni-bench") + "-jmh-" + suffix;
        bridge = "jcni-bjmh" + suffix;
        run("ip", "netns", "add", netns);
        work = Files.createTempDirectory("jcni-net-jmh");
        // jcni's static IPAM, recognized as a jcni launcher in CNI_PATH and therefore delegated to in-process.
        Path launcher = work.resolve("static");
        Files.writeString(launcher, "#!/bin/sh\n" + io.jcni.runtime.JcniLaunchers.markerLine("static") + "\nexit 1\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        String ipam = "\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":\"10.218.0.5/24\",\"gateway\":"
                + "\"10.218.0.1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}";
        String keys = type.equals("bridge") ? ",\"bridge\":\"" + bridge + "\",\"isGateway\":true," : ",";
        conf = ("{\"cniVersion\":\"1.0.0\",\"name\":\"jmh\",\"type\":\"" + type + "\"" + keys + ipam + "}")
                .getBytes(StandardCharsets.UTF_8);
        plugin = Plugins.inProcess().find(type).orElseThrow();
        env = new HashMap<>();
        env.put("CNI_CONTAINERID", "jmh");
        env.put("CNI_NETNS", "/var/run/netns/" + netns);
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", work.toString());
    }

    @TearDown(Level.Trial)
    public void removeWorld() throws Exception {
        if (added) {
            call("DEL");
        }
        run("ip", "netns", "del", netns);
        runQuietly("ip", "link", "del", bridge);
        Files.deleteIfExists(work.resolve("static"));
        Files.deleteIfExists(work);
    }

    @Setup(Level.Invocation)
    public void toState(org.openjdk.jmh.infra.BenchmarkParams params) throws Exception {
        boolean wantAdded = params.getBenchmark().endsWith(".del");
        if (wantAdded && !added) {
            call("ADD");
        } else if (!wantAdded && added) {
            call("DEL");
        }
    }

    @Benchmark
    public int add() throws Exception {
        return call("ADD");
    }

    @Benchmark
    public int del() throws Exception {
        return call("DEL");
    }

    private int call(String command) throws IOException {
        Map<String, String> callEnv = new HashMap<>(env);
        callEnv.put("CNI_COMMAND", command);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = plugin.run(callEnv, conf, out, err);
        if (status != 0) {
            throw new IOException(type + " " + command + " failed: " + out + " " + err);
        }
        added = command.equals("ADD");
        return out.size();
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed");
        }
    }

    private static void runQuietly(String... command) throws IOException, InterruptedException {
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                .waitFor();
    }
}
