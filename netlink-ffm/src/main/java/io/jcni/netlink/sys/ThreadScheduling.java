package io.jcni.netlink.sys;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.ffm.NativeAccess;
import io.jcni.netlink.internal.ffm.Syscalls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The scheduling policy of this process's own threads, by the kernel's thread id ({@code /proc/self/task/<tid>}):
 * threads the JVM starts itself (its JIT compilers) have no {@link Thread} to reach them by.
 */
public final class ThreadScheduling {
    private static final Path TASKS = Path.of("/proc/self/task");

    private ThreadScheduling() {
    }

    /** A thread of this process: its kernel id and its name as the kernel keeps it (at most 15 bytes). */
    public record Task(int tid, String name) {
    }

    /** The threads of this process now; empty if {@code /proc} cannot be read. */
    public static List<Task> tasks() {
        List<Task> tasks = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(TASKS)) {
            for (Path e : entries) {
                int tid;
                try {
                    tid = Integer.parseInt(e.getFileName().toString());
                } catch (NumberFormatException notATask) {
                    continue;
                }
                try {
                    String comm = new String(Files.readAllBytes(e.resolve("comm")), StandardCharsets.UTF_8);
                    tasks.add(new Task(tid, comm.strip()));
                } catch (IOException ended) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        return tasks;
    }

    /**
     * Puts thread {@code tid} of this process under {@code SCHED_IDLE}: it runs only on CPU time that no other thread
     * of the machine wants, and a thread that wakes up preempts it at once. No privilege needed.
     *
     * @throws NetlinkException if the kernel refuses (the thread has ended: {@code ESRCH})
     */
    public static void idle(int tid) {
        NativeAccess.check();
        Syscalls.schedIdle(tid);
    }
}
