package io.jcni.netlink.sys;

import io.jcni.netlink.internal.ffm.NativeAccess;
import io.jcni.netlink.internal.ffm.Syscalls;

/**
 * The nice value of one thread of this process, by its kernel thread id ({@code /proc/self/task/<tid>}). Linux keeps
 * a nice value per thread: {@code setpriority(PRIO_PROCESS, tid)} changes that thread's alone. Raising a thread's
 * priority again (a lower nice value) needs {@code CAP_SYS_NICE} or a {@code RLIMIT_NICE} that allows it; lowering it
 * needs nothing.
 *
 * <p>A thread started by another takes the creator's nice value. Used by jcni's plugin service, whose first client
 * call runs ahead of the JVM's own start-up work.
 */
public final class ThreadNice {
    private ThreadNice() {
    }

    /** The kernel's id of the calling thread ({@code gettid}): its {@code /proc/self/task} entry. */
    public static int currentThreadId() {
        NativeAccess.check();
        return Syscalls.gettid();
    }

    /** The nice value of thread {@code tid} (-20 to 19). Throws {@code KernelException} if there is no such thread. */
    public static int of(int tid) {
        NativeAccess.check();
        return Syscalls.priority(tid);
    }

    /** Sets the nice value of thread {@code tid}; throws {@code KernelException} if not allowed or no such thread. */
    public static void set(int tid, int nice) {
        NativeAccess.check();
        Syscalls.setPriority(tid, nice);
    }
}
