package io.jcni.netlink.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.NetlinkException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** SCHED_IDLE on a thread of this JVM, read back from the kernel ({@code /proc/self/task/<tid>/stat}). */
class ThreadSchedulingTest {
    /** sched(7): SCHED_OTHER and SCHED_IDLE. */
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;

    @Test
    void onlyTheThreadNamedGoesIdle() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Thread parked = new Thread(() -> {
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "jcni-sched-idle");
        parked.start();
        try {
            int tid = awaitTask("jcni-sched-idle");
            assertThat(policy(tid)).isEqualTo(SCHED_OTHER);
            ThreadScheduling.idle(tid);
            assertThat(policy(tid)).isEqualTo(SCHED_IDLE);
            for (ThreadScheduling.Task other : ThreadScheduling.tasks()) {
                int policy;
                try {
                    policy = policy(other.tid());
                } catch (IOException ended) {
                    continue; // a thread of the JVM that ended since the listing
                }
                if (other.tid() != tid) {
                    assertThat(policy).as(other.toString()).isEqualTo(SCHED_OTHER);
                }
            }
        } finally {
            done.countDown();
            parked.join();
        }
    }

    @Test
    void aThreadThatIsGoneIsRefusedWithEsrch() {
        assertThatThrownBy(() -> ThreadScheduling.idle(Integer.MAX_VALUE))
                .isInstanceOf(NetlinkException.class).hasMessageContaining("ESRCH");
    }

    @Test
    void tasksNameAThreadByTheFirst15BytesOfItsName() throws Exception {
        CountDownLatch done = new CountDownLatch(1);
        Thread parked = new Thread(() -> {
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "jcni-sched-a-long-thread-name");
        parked.start();
        try {
            int tid = awaitTask("jcni-sched-a-lo");
            assertThat(Files.readString(Path.of("/proc/self/task/" + tid + "/comm")).strip())
                    .isEqualTo("jcni-sched-a-lo");
        } finally {
            done.countDown();
            parked.join();
        }
    }

    private static int awaitTask(String name) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            for (ThreadScheduling.Task t : ThreadScheduling.tasks()) {
                if (t.name().equals(name)) {
                    return t.tid();
                }
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no task named " + name + " in " + ThreadScheduling.tasks());
    }

    private static Path stat(int tid) {
        return Path.of("/proc/self/task/" + tid + "/stat");
    }

    /** Field 41 of stat(5), counted after the parenthesized name (which may hold spaces). */
    private static int policy(int tid) throws IOException {
        String stat = Files.readString(stat(tid));
        String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(after[41 - 3]);
    }
}
