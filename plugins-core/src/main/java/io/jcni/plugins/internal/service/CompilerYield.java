package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.ThreadNice;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A fresh service's first client call comes before its JIT compilers: while it runs, the compiler threads run at nice
 * {@value #YIELDED_NICE}, and at their own nice value again as soon as it has ended.
 *
 * <p>Why: a JVM that has just started compiles for about a second (the AOT cache's trained methods, queued eagerly
 * as their classes initialize, and what the first calls make hot), on both cores of a small node. A fresh service's
 * first call then runs its code interpreted (its methods' compilations are still queued) and waits for a core behind
 * the compilers half of the time: measured here, its call thread ran 26 to 42 ms and waited 13 to 52 ms for a core,
 * while the C1 and C2 threads ran 60 to 180 ms between them; with the compilers at nice 19, the same call waited 2 to
 * 10 ms, and the call took 45 to 52 ms instead of 69 to 74 ms. Only the first call: when the compilers also yielded to
 * calls 2 to 20, those calls took as long as before (the code they run was compiled later), and the processes beside
 * the service paid for the compilations put off (Go's exec'd bridge beside them 3 to 7 ms slower). Nor must a service
 * that meets a burst starve its compilers: kept under {@code SCHED_IDLE} throughout, they cost the simulated
 * cluster's burst its warm code and a p99 five times as long. Calls that begin while the first runs do not yield by
 * themselves; the compilers yield until the first ends.
 *
 * <p>Which threads: HotSpot's, named "C1 CompilerThread<i>n</i>" and "C2 CompilerThread<i>n</i>" (15 characters of it
 * in {@code /proc/self/task/<tid>/comm}), found once at start. A compiler thread that HotSpot adds later is made by a
 * compiler thread and inherits its nice value, so the last restore looks for compiler threads again. Off when no
 * compiler thread is found (an interpreter-only JVM), when they already run at nice 19 or more, and when this
 * process could not raise them back ({@code CAP_SYS_NICE} or a {@code RLIMIT_NICE} that allows their nice value is
 * needed): a compiler left at nice 19 would be worse than none yielding. Thread-safe (its monitor).
 */
final class CompilerYield {
    /** Client calls, counted from the service's start, during which the compilers yield: the first. */
    static final int YIELDING_CALLS = 1;
    static final int YIELDED_NICE = 19;
    /** {@code CAP_SYS_NICE}, bit 23 of the capability sets in {@code /proc/self/status}. */
    private static final int CAP_SYS_NICE = 23;

    private final ServiceLog log;
    /** The compiler threads found at start and the nice value they had; empty when off. */
    private final int[] tids;
    private final int nice;
    // Guarded by this.
    private int begun;
    private int running;
    private boolean over;
    private long yieldedSince;
    private long yieldedNanos;

    private CompilerYield(ServiceLog log, int[] tids, int nice) {
        this.log = log;
        this.tids = tids;
        this.nice = nice;
        this.over = tids.length == 0;
    }

    /** Finds this JVM's compiler threads; a yield that does nothing if there are none or they cannot be restored. */
    static CompilerYield find(ServiceLog log) {
        int[] tids = compilerThreads();
        if (tids.length == 0) {
            log.debug("compilers do not yield to the first calls: no JIT compiler thread found");
            return new CompilerYield(log, tids, 0);
        }
        int nice;
        try {
            nice = ThreadNice.of(tids[0]);
        } catch (KernelException e) {
            log.debug("compilers do not yield to the first calls: " + e.getMessage());
            return new CompilerYield(log, new int[0], 0);
        }
        if (nice >= YIELDED_NICE) {
            log.debug("compilers do not yield to the first calls: they run at nice " + nice + " already");
            return new CompilerYield(log, new int[0], 0);
        }
        if (!mayRaiseTo(nice)) {
            log.debug("compilers do not yield to the first calls: without CAP_SYS_NICE or a RLIMIT_NICE of "
                    + (20 - nice) + " the service could not give them their nice value " + nice + " back");
            return new CompilerYield(log, new int[0], 0);
        }
        return new CompilerYield(log, tids, nice);
    }

    /** Whether the compilers yield now, for a client's call that begins: then {@link #end} follows it, once. */
    synchronized boolean begin() {
        if (over || begun >= YIELDING_CALLS) {
            return false;
        }
        begun++;
        if (running++ == 0) {
            yieldedSince = System.nanoTime();
            for (int tid : tids) {
                try {
                    ThreadNice.set(tid, YIELDED_NICE);
                } catch (KernelException e) {
                    // That compiler thread has ended (HotSpot stops idle ones); the others still yield.
                }
            }
        }
        return true;
    }

    /** A call that {@link #begin} let the compilers yield to has ended. */
    synchronized void end() {
        if (--running > 0) {
            return;
        }
        yieldedNanos += System.nanoTime() - yieldedSince;
        boolean last = begun >= YIELDING_CALLS;
        for (int tid : last ? allCompilerThreads() : tids) {
            try {
                ThreadNice.set(tid, nice);
            } catch (KernelException e) {
                if (e.kind() == KernelException.Kind.PERMISSION_DENIED) {
                    log.info("could not give JIT compiler thread " + tid + " its nice value " + nice + " back: "
                            + e.getMessage());
                    over = true;
                }
                // Otherwise the thread has ended.
            }
        }
        if (last) {
            over = true;
            log.debug("compilers yielded to the service's first client calls (" + YIELDING_CALLS + "): nice "
                    + YIELDED_NICE + " for "
                    + yieldedNanos / 1_000_000 + " ms in all, nice " + nice + " again");
        }
    }

    /** The compiler threads found at start and any started since. */
    private int[] allCompilerThreads() {
        int[] now = compilerThreads();
        List<Integer> all = new ArrayList<>();
        for (int tid : tids) {
            all.add(tid);
        }
        for (int tid : now) {
            if (!all.contains(tid)) {
                all.add(tid);
            }
        }
        int[] out = new int[all.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = all.get(i);
        }
        return out;
    }

    /** The thread ids of HotSpot's JIT compiler threads in this process. */
    static int[] compilerThreads() {
        List<Integer> found = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                String comm;
                try {
                    comm = Files.readString(task.resolve("comm"));
                } catch (IOException e) {
                    continue; // ended meanwhile
                }
                if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
                    found.add(Integer.parseInt(task.getFileName().toString()));
                }
            }
        } catch (IOException | RuntimeException e) {
            return new int[0];
        }
        int[] out = new int[found.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = found.get(i);
        }
        return out;
    }

    /**
     * Whether this process may set a thread's nice value back to {@code nice} once it is 19: with {@code
     * CAP_SYS_NICE} in its effective set, or a soft {@code RLIMIT_NICE} of at least {@code 20 - nice}.
     */
    static boolean mayRaiseTo(int nice) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("CapEff:")) {
                    long caps = Long.parseUnsignedLong(line.substring("CapEff:".length()).trim(), 16);
                    if ((caps & (1L << CAP_SYS_NICE)) != 0) {
                        return true;
                    }
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max nice priority")) {
                    String[] fields = line.substring("Max nice priority".length()).trim().split("\\s+");
                    return fields[0].equals("unlimited") || Integer.parseInt(fields[0]) >= 20 - nice;
                }
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return false;
    }

    /** Whether the compilers can yield at all (for tests and the start's log). */
    boolean enabled() {
        return tids.length > 0;
    }
}
