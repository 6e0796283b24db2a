package io.jcni.netlink.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.KernelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** One thread's nice value, set and read back through {@code /proc}, leaving the process's other threads alone. */
class ThreadNiceTest {
    private static int tidOfThisThread() throws Exception {
        // "/proc/thread-self" links to "<pid>/task/<tid>".
        return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString());
    }

    /** Field 19 of /proc/self/task/TID/stat, the kernel's own account (the comm field may hold spaces). */
    private static int niceInProc(int tid) throws Exception {
        String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(after[16]);
    }

    @Test
    void setsOneThreadsNiceValueAndNotItsNeighbours() throws Exception {
        assumeTrue(System.getProperty("user.name").equals("root"), "raising a thread's priority back needs root");
        AtomicInteger tid = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread other = new Thread(() -> {
            try {
                tid.set(tidOfThisThread());
            } catch (Exception e) {
                tid.set(-1);
            }
            started.countDown();
            try {
                done.await();
            } catch (InterruptedException ignored) {
                // ends
            }
        });
        other.start();
        try {
            started.await();
            int before = ThreadNice.of(tid.get());
            assertThat(before).isEqualTo(niceInProc(tid.get()));

            ThreadNice.set(tid.get(), 19);
            assertThat(niceInProc(tid.get())).isEqualTo(19);
            assertThat(ThreadNice.of(tid.get())).isEqualTo(19);
            assertThat(niceInProc(tidOfThisThread())).as("the calling thread's own").isEqualTo(before);

            ThreadNice.set(tid.get(), before);
            assertThat(niceInProc(tid.get())).isEqualTo(before);
        } finally {
            done.countDown();
            other.join();
        }
    }

    @Test
    void theCallingThreadsIdIsItsProcEntryAndAThreadItStartsTakesItsNiceValue() throws Exception {
        assumeTrue(System.getProperty("user.name").equals("root"), "raising a thread's priority needs root");
        int self = ThreadNice.currentThreadId();
        assertThat(self).isEqualTo(tidOfThisThread());
        int before = ThreadNice.of(self);
        int raised = Math.max(-20, before - 5);
        AtomicInteger child = new AtomicInteger(Integer.MIN_VALUE);
        ThreadNice.set(self, raised);
        try {
            Thread t = new Thread(() -> child.set(ThreadNice.of(ThreadNice.currentThreadId())));
            t.start();
            t.join();
        } finally {
            ThreadNice.set(self, before);
        }
        assertThat(child.get()).as("the started thread's nice value").isEqualTo(raised);
        assertThat(niceInProc(self)).isEqualTo(before);
    }

    @Test
    void aThreadThatIsGoneIsAnError() {
        // Thread ids go up to pid_max; this one is past the largest the kernel allows (4,194,304).
        assertThatThrownBy(() -> ThreadNice.set(5_000_000, 10)).isInstanceOf(KernelException.class)
                .hasMessageContaining("setpriority of thread 5000000");
        assertThatThrownBy(() -> ThreadNice.of(5_000_000)).isInstanceOf(KernelException.class)
                .hasMessageContaining("ESRCH");
    }
}
