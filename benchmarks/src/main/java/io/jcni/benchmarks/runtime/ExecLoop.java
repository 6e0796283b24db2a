package io.jcni.benchmarks.runtime;

import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The jcni side of the runtime exec-overhead comparison in {@code benchmarks/compare.sh}: a long-lived JVM (as a Java
 * container runtime is) that runs blocks of plugin execs through {@link CniRuntime} on request, so the driver can
 * alternate blocks of it with blocks of Go libcni's {@code libcni-driver bench-exec} on the same plugin binary.
 *
 * <pre>
 * java -cp benchmarks.jar io.jcni.benchmarks.runtime.ExecLoop \
 *     &lt;cni-path dir&gt; &lt;cache dir&gt; &lt;list file&gt; &lt;netns&gt; [&lt;native launch helper&gt;]
 * </pre>
 * Reads one request per line on stdin, {@code <variant> <count>}, and answers each with one line on stdout: the
 * wall time of every call in nanoseconds, space-separated, or {@code error <message>} (the process then exits 1).
 * Variants, each the counterpart of one {@code bench-exec} invocation:
 * <ul>
 * <li>{@code version}: {@code versionInfo(type)} with the runtime's default spawn ({@code --level invoke});</li>
 * <li>{@code version-helper}: the same with one pre-started launch helper ({@code Options.withLaunchHelpers(1)});</li>
 * <li>{@code version-native-helper}: the same with one pre-started native launch helper
 * ({@code Options.withLaunchHelpers(1, helper)}, the optional fifth argument: dist/libexec/jcni-launch-helper);</li>
 * <li>{@code add}: {@code addNetworkList} of the list file, with the durable result cache
 * ({@code --command ADD --level libcni}).</li>
 * </ul>
 * The plugin type is the first plugin's of the list. End of input ends the process. Nothing is timed outside the
 * calls themselves; warm-up is the driver's business (it discards the first blocks).
 */
public final class ExecLoop {
    private ExecLoop() {}

    public static void main(String[] args) throws IOException {
        PrintStream out = System.out;
        if (args.length != 4 && args.length != 5) {
            out.println("error usage: ExecLoop <cni-path dir> <cache dir> <list file> <netns> [<launch helper>]");
            out.flush();
            System.exit(2);
        }
        try {
            run(Path.of(args[0]), Path.of(args[1]), Path.of(args[2]), args[3], args.length == 5 ? Path.of(args[4])
                    : null, out);
        } catch (RuntimeException e) {
            out.println("error " + e.toString().replace('\n', ' '));
            out.flush();
            System.exit(1);
        }
    }

    private static void run(Path dir, Path cacheDir, Path listFile, String netns, Path helper, PrintStream out)
            throws IOException, CniException, CniRuntimeException {
        NetworkConfigList list = CniJson.decodeNetworkConfigList(Files.readAllBytes(listFile));
        String type = list.plugins().getFirst().type();
        CniRuntime.Options options = CniRuntime.Options.of(List.of(dir)).withCacheDir(cacheDir)
                .withStderr(OutputStream.nullOutputStream());
        CniRuntime plain = CniRuntime.create(options);
        CniRuntime helped = CniRuntime.create(options.withLaunchHelpers(1));
        CniRuntime nativeHelped = helper == null ? null : CniRuntime.create(options.withLaunchHelpers(1, helper));
        RuntimeConf rt = new RuntimeConf("jcni-bench-exec", netns, "eth0");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] request = line.strip().split("\\s+");
            if (request.length != 2) {
                throw new IllegalArgumentException("bad request \"" + line + "\": want <variant> <count>");
            }
            int count = Integer.parseInt(request[1]);
            long[] times = new long[count];
            Path entry = cacheDir.resolve("results/" + list.name() + "-" + rt.containerId() + "-" + rt.ifName());
            for (int i = 0; i < count; i++) {
                // Not measured: the runtime refuses to ADD an attachment that is already added, so each measured ADD
                // is a first one (Go libcni's counterpart overwrites the entry; the write costs the same).
                Files.deleteIfExists(entry);
                long start = System.nanoTime();
                call(request[0], type, plain, helped, nativeHelped, list, rt);
                times[i] = System.nanoTime() - start;
            }
            StringBuilder answer = new StringBuilder(count * 9);
            for (long t : times) {
                answer.append(answer.isEmpty() ? "" : " ").append(t);
            }
            out.println(answer);
            out.flush();
        }
    }

    private static void call(String variant, String type, CniRuntime plain, CniRuntime helped,
            CniRuntime nativeHelped, NetworkConfigList list, RuntimeConf rt) throws CniRuntimeException {
        switch (variant) {
            case "version" -> plain.versionInfo(type);
            case "version-helper" -> helped.versionInfo(type);
            case "version-native-helper" -> {
                if (nativeHelped == null) {
                    throw new IllegalArgumentException("version-native-helper needs the launch helper argument");
                }
                nativeHelped.versionInfo(type);
            }
            case "add" -> plain.addNetworkList(list, rt);
            default -> throw new IllegalArgumentException("unknown variant \"" + variant + "\"");
        }
    }
}
