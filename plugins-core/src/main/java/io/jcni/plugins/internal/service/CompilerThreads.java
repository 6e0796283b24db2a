package io.jcni.plugins.internal.service;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.sys.ThreadScheduling;

/**
 * The JIT's compiler threads of the service's JVM, put under {@code SCHED_IDLE} at start (issue 25): they compile in
 * CPU time that the calls and the node's other processes leave, and a call thread that wakes up takes their core at
 * once instead of waiting out their time slice.
 *
 * <p>Why: a fresh service's first calls are slow because the JIT is at work, not because they run more code. Measured
 * in calls 2-20 of a fresh service, default flags: the call thread ran 6-8 ms of CPU per bridge ADD and waited another
 * 2.5-4 ms for a core while C1 and C2 ran 9-13 ms per call on the two cores. The cost: on a machine with no idle CPU
 * at all the JIT waits, and the service runs its less optimized code meanwhile (correct, only slower).
 *
 * <p>The threads are found by the names HotSpot gives them ("C1 CompilerThread0", "C2 CompilerThread0", cut to 15
 * bytes by the kernel). The service's JVM starts all of them at once ({@code -XX:-UseDynamicNumberOfCompilerThreads}
 * in its flags), so none appears later. A JVM whose compiler threads are named otherwise keeps their policy; the
 * debug log says how many were found.
 */
final class CompilerThreads {
    private CompilerThreads() {
    }

    /** Puts the compiler threads under SCHED_IDLE; how many, or why not, in the debug log. */
    static void idle(ServiceLog log) {
        int done = 0;
        String failure = null;
        for (ThreadScheduling.Task task : ThreadScheduling.tasks()) {
            if (!task.name().startsWith("C1 CompilerThre") && !task.name().startsWith("C2 CompilerThre")) {
                continue;
            }
            try {
                ThreadScheduling.idle(task.tid());
                done++;
            } catch (NetlinkException e) {
                failure = e.getMessage();
            }
        }
        log.debug("JIT compiler threads under SCHED_IDLE: " + done + (failure == null ? "" : "; " + failure));
    }
}
