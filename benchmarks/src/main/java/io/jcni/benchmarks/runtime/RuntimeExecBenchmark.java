package io.jcni.benchmarks.runtime;

import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.VersionInfo;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * The runtime's cost per plugin exec, on the Go trivial plugin (whose own work is negligible), comparable with Go
 * libcni's {@code libcni-driver bench-exec} on the same binary:
 * <ul>
 * <li>{@link #versionInfo}: {@code CniRuntime.versionInfo} = find in CNI_PATH, spawn, stdin, stdout/stderr pipes,
 * wait, decode; the counterpart of {@code bench-exec --command VERSION --level invoke} (libcni's GetVersionInfo);</li>
 * <li>{@link #versionInfoWithLaunchHelper}: the same with one pre-started launch helper
 * ({@code Options.withLaunchHelpers(1)}), which takes the JDK's extra helper exec off the critical path;</li>
 * <li>{@link #versionInfoSpaced} and {@link #versionInfoWithLaunchHelperSpaced}: the same two with 3 ms of idle
 * time before each call (not measured), as a runtime between pod starts has; back to back, a helper's own start in
 * the background competes with the measured exec for the CPU;</li>
 * <li>{@link #addNetworkList}: a one-plugin list ADD = config derivation, attachment lock, exec, result decode, durable
 * cache write; the counterpart of {@code bench-exec --command ADD --level libcni};</li>
 * <li>{@link #processBuilderOnly}: the JDK's {@link ProcessBuilder} alone with the same environment, stdin and pipes,
 * no lookup and no decode: how much of {@link #versionInfo} is the JDK's spawn;</li>
 * <li>{@link #decodeVersionInfo}: decoding the plugin's VERSION answer alone.</li>
 * </ul>
 * Sample mode: the p0.50 of the per-call times is the figure to compare with Go's median.
 * {@code benchmarks/compare.sh} compares the same exec with Go libcni's, interleaved, in its runtime rows
 * ({@link ExecLoop}).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar RuntimeExecBenchmark -p pluginDir=<dir of trivial-plugin>}
 * (build the plugin with {@code it/scripts/build-go-tools.sh <dir>}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class RuntimeExecBenchmark {
    static final String PLUGIN = "trivial-plugin";
    static final byte[] VERSION_STDIN = "{\"cniVersion\":\"1.1.0\"}".getBytes(StandardCharsets.UTF_8);
    static final byte[] VERSION_ANSWER = ("{\"cniVersion\":\"1.1.0\",\"supportedVersions\":[\"0.1.0\",\"0.2.0\","
            + "\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]}\n").getBytes(StandardCharsets.UTF_8);

    /** The directory holding {@code trivial-plugin}; falls back to -Djcni.bench.pluginDir or $JCNI_BENCH_PLUGIN_DIR. */
    @Param("")
    public String pluginDir;

    private Path dir;
    private Path cacheDir;
    private CniRuntime runtime;
    private CniRuntime warmRuntime;
    private NetworkConfigList list;
    private RuntimeConf rt;

    @Setup
    public void setUp() throws IOException, CniException {
        String configured = !pluginDir.isEmpty() ? pluginDir
                : System.getProperty("jcni.bench.pluginDir", System.getenv().getOrDefault("JCNI_BENCH_PLUGIN_DIR", ""));
        if (configured.isEmpty() || !Files.isExecutable(Path.of(configured, PLUGIN))) {
            throw new IllegalStateException("no " + PLUGIN + " in \"" + configured + "\": build it with "
                    + "it/scripts/build-go-tools.sh <dir> and pass -p pluginDir=<dir>");
        }
        dir = Path.of(configured).toAbsolutePath();
        cacheDir = Files.createTempDirectory("jcni-bench-cache");
        runtime = CniRuntime.create(CniRuntime.Options.of(List.of(dir)).withCacheDir(cacheDir)
                .withStderr(OutputStream.nullOutputStream()));
        warmRuntime = CniRuntime.create(CniRuntime.Options.of(List.of(dir)).withCacheDir(cacheDir)
                .withStderr(OutputStream.nullOutputStream()).withLaunchHelpers(1));
        list = CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-bench\",\"plugins\":"
                + "[{\"type\":\"" + PLUGIN + "\"}]}").getBytes(StandardCharsets.UTF_8));
        rt = new RuntimeConf("jcni-bench", "/var/run/netns/jcni-bench-absent", "eth0");
    }

    @TearDown
    public void tearDown() throws IOException {
        try (Stream<Path> files = Files.walk(cacheDir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Benchmark
    public VersionInfo versionInfo() throws CniRuntimeException {
        return runtime.versionInfo(PLUGIN);
    }

    @Benchmark
    public VersionInfo versionInfoWithLaunchHelper() throws CniRuntimeException {
        return warmRuntime.versionInfo(PLUGIN);
    }

    /** Idle time before each invocation of the spaced benchmarks (JMH does not count setup time). */
    @State(Scope.Thread)
    public static class Gap {
        @Setup(org.openjdk.jmh.annotations.Level.Invocation)
        public void idle() throws InterruptedException {
            Thread.sleep(3);
        }
    }

    @Benchmark
    public VersionInfo versionInfoSpaced(Gap gap) throws CniRuntimeException {
        return runtime.versionInfo(PLUGIN);
    }

    @Benchmark
    public VersionInfo versionInfoWithLaunchHelperSpaced(Gap gap) throws CniRuntimeException {
        return warmRuntime.versionInfo(PLUGIN);
    }

    /**
     * Removes the previous invocation's cache entry (not measured): the runtime refuses to ADD an attachment that is
     * already added, and each measured ADD is a first one, as Go libcni's counterpart (which overwrites) measures.
     */
    @State(Scope.Thread)
    public static class FreshAttachment {
        @Setup(org.openjdk.jmh.annotations.Level.Invocation)
        public void forget(RuntimeExecBenchmark bench) throws IOException {
            Files.deleteIfExists(bench.cacheDir.resolve("results/jcni-bench-jcni-bench-eth0"));
        }
    }

    @Benchmark
    public CniResult addNetworkList(FreshAttachment fresh) throws CniRuntimeException {
        return runtime.addNetworkList(list, rt);
    }

    @Benchmark
    public int processBuilderOnly() throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(dir.resolve(PLUGIN).toString());
        Map<String, String> env = builder.environment();
        env.put("CNI_COMMAND", "VERSION");
        env.put("CNI_CONTAINERID", "");
        env.put("CNI_NETNS", "dummy");
        env.put("CNI_ARGS", "");
        env.put("CNI_IFNAME", "dummy");
        env.put("CNI_PATH", "dummy");
        Process process = builder.start();
        try (OutputStream stdin = process.getOutputStream()) {
            stdin.write(VERSION_STDIN);
        }
        byte[] out = process.getInputStream().readAllBytes();
        process.getErrorStream().readAllBytes();
        return process.waitFor() + out.length;
    }

    @Benchmark
    public VersionInfo decodeVersionInfo() throws CniException {
        return CniJson.decodeVersionInfo(VERSION_ANSWER);
    }

    /**
     * The same benchmarks with the JDK's deprecated VFORK launch mechanism (no jspawnhelper in between): what the
     * helper exec costs. JDK 25 prints a deprecation warning for it and will remove it; jcni does not use it.
     */
    @Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "-Djdk.lang.Process.launchMechanism=VFORK"})
    public static class Vfork extends RuntimeExecBenchmark {
    }

    /** The same with FORK: the JVM's page tables are copied at every spawn. */
    @Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
            "-Djdk.lang.Process.launchMechanism=FORK"})
    public static class Fork_ extends RuntimeExecBenchmark {
    }
}
