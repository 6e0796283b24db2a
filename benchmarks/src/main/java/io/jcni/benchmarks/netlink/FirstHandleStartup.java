package io.jcni.benchmarks.netlink;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Start-up cost of netlink-ffm in a fresh JVM, with and without an AOT cache: what a CNI plugin pays per exec.
 *
 * <p>The harness runs child JVMs, each doing one of:
 * <ul>
 *   <li>{@code jvm}: nothing (the baseline);</li>
 *   <li>{@code current}: {@code Netlink.open()} and one request ({@code link("lo")}) in the JVM's namespace;</li>
 *   <li>{@code netns}: {@code NetNs.create()}, {@code Netlink.open(ns)} (a platform thread switches in and back) and
 *       one request: the path of a plugin working in a container;</li>
 *   <li>{@code next}: one {@code Netlink.open()} and close, untimed, then {@value #NEXT} more: the handles a fresh
 *       JVM opens after its first (a plugin's later sockets, a fresh plugin service's first calls), whose code is
 *       loaded but still runs interpreted.</li>
 * </ul>
 * and reports, per mode, the median wall time of the whole process (fork to exit) and the median time the child
 * measured itself from {@code main} to the reply ({@code next}: the mean time of one of its timed handles, open and
 * close). The AOT cache is trained by one {@code netns} run
 * ({@code -XX:AOTCacheOutput}) and used with {@code -XX:AOTMode=on}, which fails instead of silently ignoring a
 * stale cache. Children run like a plugin launcher: netlink-ffm as a named module, {@code -XX:TieredStopAtLevel=1
 * -XX:+UseSerialGC}. Needs root (creates a namespace).
 *
 * <pre>
 * java -cp benchmarks/target/jcni-benchmarks-0.1.0-SNAPSHOT.jar:netlink-ffm/target/jcni-netlink-ffm-0.1.0-SNAPSHOT.jar \
 *     io.jcni.benchmarks.netlink.FirstHandleStartup \
 *     netlink-ffm/target/jcni-netlink-ffm-0.1.0-SNAPSHOT.jar benchmarks/target/jcni-benchmarks-0.1.0-SNAPSHOT.jar 15
 * </pre>
 * Arguments: the netlink-ffm jar (module path of the children), the jar holding this class (their class path),
 * runs per mode (default 15). Both must be jars: the AOT cache ignores classes loaded from directories.
 */
public final class FirstHandleStartup {
    private FirstHandleStartup() {}

    private static final String MARK = "first-handle-ms ";
    /** The timed handles of mode {@code next}. */
    private static final int NEXT = 5;

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--child")) {
            child(args[1]);
            return;
        }
        if (args.length < 2) {
            System.err.println("usage: FirstHandleStartup <netlink-ffm.jar> <benchmarks.jar> [runs]");
            System.exit(2);
        }
        harness(Path.of(args[0]), Path.of(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 15);
    }

    /** Runs in the child JVM: the work of one mode, timed from here to the reply. */
    private static void child(String mode) {
        long start = System.nanoTime();
        switch (mode) {
            case "jvm" -> { }
            case "current" -> openAndAsk();
            case "netns" -> {
                try (NetNs ns = NetNs.create(); NetlinkHandle nl = Netlink.open(ns)) {
                    nl.link("lo");
                }
            }
            case "next" -> {
                openAndAsk();
                start = System.nanoTime();
                for (int i = 0; i < NEXT; i++) {
                    openAndAsk();
                }
                System.out.println(MARK + (System.nanoTime() - start) / 1e6 / NEXT);
                return;
            }
            default -> throw new IllegalArgumentException(mode);
        }
        System.out.println(MARK + (System.nanoTime() - start) / 1e6);
    }

    /** {@code Netlink.open()} in the JVM's namespace, one request ({@code link("lo")}), close. */
    private static void openAndAsk() {
        try (NetlinkHandle nl = Netlink.open()) {
            nl.link("lo");
        }
    }

    private record Run(double wallMs, double inProcessMs) {
    }

    private static void harness(Path netlinkJar, Path probeJar, int runs) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path dir = Files.createTempDirectory("jcni-startup");
        Path cache = dir.resolve("netlink.aot");
        List<String> base = List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "--enable-native-access=io.jcni.netlink", "-p", netlinkJar.toString(), "--add-modules",
                "io.jcni.netlink", "-cp", probeJar.toString());
        try {
            run(withFlags(base, "-XX:AOTCacheOutput=" + cache), "netns");
            if (!Files.isRegularFile(cache)) {
                throw new IllegalStateException("the training run wrote no AOT cache at " + cache);
            }
            System.out.printf(Locale.ROOT, "%-8s %-8s %14s %16s%n", "mode", "aot", "wall ms (med)", "in-JVM ms (med)");
            for (boolean aot : new boolean[] {false, true}) {
                List<String> command = aot ? withFlags(base, "-XX:AOTCache=" + cache, "-XX:AOTMode=on") : base;
                for (String mode : List.of("jvm", "current", "netns", "next")) {
                    run(command, mode); // warm the page cache
                    List<Run> results = new ArrayList<>();
                    for (int i = 0; i < runs; i++) {
                        results.add(run(command, mode));
                    }
                    System.out.printf(Locale.ROOT, "%-8s %-8s %14.1f %16.2f%n", mode, aot ? "on" : "off",
                            median(results.stream().mapToDouble(Run::wallMs).toArray()),
                            median(results.stream().mapToDouble(Run::inProcessMs).toArray()));
                }
            }
            System.out.printf(Locale.ROOT, "(%d runs per row, %s)%n", runs, System.getProperty("java.version"));
        } finally {
            Files.deleteIfExists(cache);
            Files.deleteIfExists(dir);
        }
    }

    private static List<String> withFlags(List<String> base, String... flags) {
        List<String> command = new ArrayList<>(base.subList(0, 1));
        command.addAll(Arrays.asList(flags));
        command.addAll(base.subList(1, base.size()));
        return command;
    }

    private static Run run(List<String> command, String mode) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(command);
        full.addAll(List.of(FirstHandleStartup.class.getName(), "--child", mode));
        long start = System.nanoTime();
        Process p = new ProcessBuilder(full).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = p.waitFor();
        double wall = (System.nanoTime() - start) / 1e6;
        int at = out.indexOf(MARK);
        if (exit != 0 || at < 0) {
            throw new IllegalStateException("child " + mode + " failed (exit " + exit + "):\n" + out);
        }
        String rest = out.substring(at + MARK.length()).strip();
        return new Run(wall, Double.parseDouble(rest.split("\\s+")[0]));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
