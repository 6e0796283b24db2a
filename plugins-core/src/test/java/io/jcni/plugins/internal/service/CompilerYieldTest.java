package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.sys.ThreadNice;
import io.jcni.plugins.testing.Worlds;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JIT compiler threads of this JVM (the test's own: HotSpot's C1 and C2 threads) step back to nice 19 while one
 * of the first calls runs and get their nice value back when none does, read from {@code /proc/self/task/<tid>/stat}.
 */
class CompilerYieldTest {
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private final ServiceLog log = new ServiceLog(new PrintStream(logged, true, StandardCharsets.UTF_8), true);

    /** Field 19 of the thread's stat line: its nice value as the kernel has it. */
    private static int nice(int tid) throws Exception {
        String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }

    private static List<Integer> nices(int[] tids) throws Exception {
        List<Integer> out = new ArrayList<>();
        for (int tid : tids) {
            out.add(nice(tid));
        }
        return out;
    }

    @Test
    void theCompilersYieldWhileTheFirstCallsRunAndNotAfter() throws Exception {
        assumeTrue(Worlds.root(), "giving a thread its priority back needs root");
        int[] tids = CompilerYield.compilerThreads();
        assertThat(tids).as("HotSpot's C1 and C2 threads of this JVM").isNotEmpty();
        int base = nice(tids[0]);
        CompilerYield yield = CompilerYield.find(log);
        assertThat(yield.enabled()).isTrue();

        assertThat(yield.begin()).as("the first call").isTrue();
        assertThat(nices(tids)).containsOnly(CompilerYield.YIELDED_NICE);
        // The other yielding calls begin while the first runs; the compilers yield until the last of them ends.
        for (int call = 2; call <= CompilerYield.YIELDING_CALLS; call++) {
            assertThat(yield.begin()).as("call %d", call).isTrue();
        }
        assertThat(yield.begin()).as("a call that begins while they run, after the first %d",
                CompilerYield.YIELDING_CALLS).isFalse();
        for (int call = 1; call < CompilerYield.YIELDING_CALLS; call++) {
            yield.end();
            assertThat(nices(tids)).as("a call still runs").containsOnly(CompilerYield.YIELDED_NICE);
        }
        yield.end();
        assertThat(nices(tids)).as("no call runs").containsOnly(base);
        assertThat(yield.begin()).as("the call after the first %d", CompilerYield.YIELDING_CALLS).isFalse();
        assertThat(nices(CompilerYield.compilerThreads())).as("every compiler thread, also any started since")
                .containsOnly(base);
        assertThat(logged.toString(StandardCharsets.UTF_8))
                .contains("compilers yielded to the service's first client calls (" + CompilerYield.YIELDING_CALLS
                        + "): nice 19 for ")
                .contains("nice " + base + " again");
    }

    @Test
    void compilersThatRunAtNice19AlreadyDoNotYield() throws Exception {
        assumeTrue(Worlds.root(), "giving a thread its priority back needs root");
        int[] tids = CompilerYield.compilerThreads();
        assertThat(tids).isNotEmpty();
        int base = nice(tids[0]);
        try {
            for (int tid : tids) {
                ThreadNice.set(tid, 19);
            }
            CompilerYield yield = CompilerYield.find(log);
            assertThat(yield.enabled()).isFalse();
            assertThat(yield.begin()).isFalse();
            assertThat(logged.toString(StandardCharsets.UTF_8)).contains("they run at nice 19 already");
        } finally {
            for (int tid : tids) {
                ThreadNice.set(tid, base);
            }
        }
    }

    @Test
    void rootMayRaiseThemBack() throws Exception {
        assumeTrue(Worlds.root(), "root has CAP_SYS_NICE");
        assertThat(CompilerYield.mayRaiseTo(0)).isTrue();
        assertThat(CompilerYield.mayRaiseTo(-20)).isTrue();
    }
}
