package io.jcni.netlink.sys;

import io.jcni.netlink.internal.ffm.NativeAccess;
import io.jcni.netlink.internal.ffm.Syscalls;
import io.jcni.netlink.internal.wire.LibcH;

/**
 * The working directory of the calling thread alone. A process has one working directory, shared by its threads; a
 * thread that {@link #detach()}es gets a copy of its own ({@code unshare(CLONE_FS)}), which {@link #enter} then moves
 * without touching the other threads. What resolves against it: relative paths handed to the kernel (the JDK passes
 * them as they are: {@code Files}, {@code FileChannel}, {@code FileInputStream}), and processes the thread starts
 * ({@code ProcessBuilder} without a directory). What does not: {@code Path.toAbsolutePath()} and
 * {@code File.getAbsolutePath()}, which read the {@code user.dir} property.
 *
 * <p>Used by jcni's plugin service, which runs a client's call on one of its threads in the client's working
 * directory, so that a relative path in a configuration means what it means to an exec'd plugin.
 */
public final class ThreadDirectory {
    private static final ThreadLocal<Boolean> DETACHED = new ThreadLocal<>();

    private ThreadDirectory() {
    }

    /** Gives the calling thread a working directory of its own, still the same directory. Once per thread. */
    public static void detach() {
        if (DETACHED.get() == null) {
            NativeAccess.check();
            Syscalls.unshare(LibcH.CLONE_FS);
            DETACHED.set(Boolean.TRUE);
        }
    }

    /** Makes {@code dir} (a directory, opened with {@code O_PATH} or not) the calling thread's working directory. */
    public static void enter(Descriptor dir) {
        if (DETACHED.get() == null) {
            throw new IllegalStateException("the thread shares its working directory: detach() first");
        }
        Syscalls.fchdir(dir.fd(), dir.toString());
    }
}
