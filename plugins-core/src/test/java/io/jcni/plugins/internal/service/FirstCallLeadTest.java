package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.sys.ThreadNice;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first client call's lead: which threads run raised, when they are back, read from {@code /proc/self/task}. Root
 * only (raising a thread's priority needs {@code CAP_SYS_NICE}).
 */
class FirstCallLeadTest {
    @TempDir
    Path dir;

    /** Field 19 of /proc/self/task/TID/stat, the kernel's own account of a thread's nice value. */
    private static int niceInProc(int tid) throws Exception {
        String stat = Files.readString(Path.of("/proc/self/task/" + tid + "/stat"));
        return Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[16]);
    }

    /** The threads of this JVM at nice {@code nice} now. */
    private static List<Integer> threadsAt(int nice) throws Exception {
        List<Integer> found = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                try {
                    if (niceInProc(tid) == nice) {
                        found.add(tid);
                    }
                } catch (java.nio.file.NoSuchFileException ended) {
                    // ended meanwhile
                }
            }
        }
        return found;
    }

    private static void assumeRoot() {
        assumeTrue(System.getProperty("user.name").equals("root"), "raising a thread's priority needs root");
    }

    @Test
    void theAcceptorAndTheFirstCallsThreadsLeadUntilTheCallEndsThenAllAreBack() throws Exception {
        assumeRoot();
        int base = ThreadNice.of(ThreadNice.currentThreadId());
        int led = Math.max(-20, base - FirstCallLead.LEAD);
        assumeTrue(led != base, "this JVM runs at nice -20 already");
        assertThat(threadsAt(led)).as("threads at %d before the test", led).isEmpty();
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        ServiceLog log = new ServiceLog(new PrintStream(logged, true, StandardCharsets.UTF_8), true);

        AtomicReference<FirstCallLead> lead = new AtomicReference<>();
        AtomicInteger acceptorNice = new AtomicInteger();
        AtomicInteger acceptorTid = new AtomicInteger();
        AtomicInteger startedNice = new AtomicInteger();
        AtomicInteger acceptorAfter = new AtomicInteger();
        CountDownLatch callMayEnd = new CountDownLatch(1);
        CountDownLatch callThreadChecked = new CountDownLatch(1);
        AtomicInteger callThreadNice = new AtomicInteger();
        AtomicInteger helperNice = new AtomicInteger();
        AtomicInteger secondClaim = new AtomicInteger(-1);
        java.util.concurrent.atomic.AtomicBoolean firstLeads = new java.util.concurrent.atomic.AtomicBoolean();
        Thread acceptor = new Thread(() -> {
            FirstCallLead l = FirstCallLead.startOnAcceptor(log);
            lead.set(l);
            int self = ThreadNice.currentThreadId();
            acceptorTid.set(self);
            acceptorNice.set(ThreadNice.of(self));
            boolean leads = l.claim();
            // A call thread made now, as the pool makes one, takes the acceptor's value.
            Thread call = new Thread(() -> {
                startedNice.set(ThreadNice.of(ThreadNice.currentThreadId()));
                l.enter();
                callThreadNice.set(ThreadNice.of(ThreadNice.currentThreadId()));
                // A thread the call starts (a namespace worker) takes the call's value.
                Thread helper = new Thread(() -> helperNice.set(ThreadNice.of(ThreadNice.currentThreadId())));
                helper.start();
                try {
                    helper.join();
                    callThreadChecked.countDown();
                    callMayEnd.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                l.end();
            });
            call.start();
            l.acceptorBack();
            acceptorAfter.set(ThreadNice.of(self));
            secondClaim.set(l.claim() ? 1 : 0);
            firstLeads.set(leads);
            try {
                call.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        acceptor.start();
        callThreadChecked.await();
        assertThat(acceptorNice.get()).as("the acceptor from its start").isEqualTo(led);
        assertThat(startedNice.get()).as("a call thread the acceptor started").isEqualTo(led);
        assertThat(callThreadNice.get()).isEqualTo(led);
        assertThat(helperNice.get()).as("a thread the call started").isEqualTo(led);
        assertThat(lead.get().leading()).isTrue();
        callMayEnd.countDown();
        acceptor.join();
        assertThat(acceptorAfter.get()).as("the acceptor once it handed the call").isEqualTo(base);
        assertThat(firstLeads.get()).as("the first call leads").isTrue();
        assertThat(secondClaim.get()).as("a second call leads").isZero();
        assertThat(lead.get().leading()).isFalse();
        assertThat(threadsAt(led)).as("threads at %d after the first call", led).isEmpty();
        String text = logged.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("the first call led at nice " + led).contains("back at nice " + base);
    }

    @Test
    void aLeadLastsAtMostItsLimit() throws Exception {
        assumeRoot();
        ServiceLog log = new ServiceLog(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                true);
        AtomicReference<FirstCallLead> lead = new AtomicReference<>();
        CountDownLatch claimed = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread acceptor = new Thread(() -> {
            FirstCallLead l = FirstCallLead.startOnAcceptor(log);
            lead.set(l);
            l.claim(); // a call that then hangs: the acceptor stays raised only as long as the lead
            claimed.countDown();
            try {
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        acceptor.start();
        try {
            claimed.await();
            FirstCallLead l = lead.get();
            assertThat(threadsAt(l.ledNice())).isNotEmpty();
            l.expire(System.nanoTime());
            assertThat(l.leading()).as("within its limit").isTrue();
            l.expire(System.nanoTime() + (FirstCallLead.LIMIT_MILLIS + 1) * 1_000_000);
            assertThat(l.leading()).as("past its limit").isFalse();
            assertThat(threadsAt(l.ledNice())).isEmpty();
        } finally {
            done.countDown();
            acceptor.join();
        }
    }

    /** Through a real service: its first client call leads, its log says so, and no thread is left raised. */
    @Test
    void aServicesFirstClientCallLeadsAndLeavesNothingRaised() throws Exception {
        assumeRoot();
        int base = ThreadNice.of(ThreadNice.currentThreadId());
        int led = Math.max(-20, base - FirstCallLead.LEAD);
        assumeTrue(led != base, "this JVM runs at nice -20 already");
        ByteArrayOutputStream logged = new ByteArrayOutputStream();
        Path socket = dir.resolve("run/plugins.sock");
        PluginService service = PluginService.bind(new PluginService.Settings(socket, ServiceTest.us(), 8, 256,
                ServiceTest.BUILD_ID, Duration.ofSeconds(10), false),
                new ServiceLog(new PrintStream(logged, true, StandardCharsets.UTF_8), true));
        try {
            for (int i = 0; i < 3; i++) {
                TestClient.Reply reply = TestClient.call("VERSION")
                        .netns("/var/run/netns/x", Path.of("/proc/self/ns/net")).send(socket);
                assertThat(reply.status()).isZero();
            }
            Pattern line = Pattern.compile("the first call led at nice (-?\\d+) for \\d+ ms \\(its first call ended\\); "
                    + "threads back at nice (-?\\d+): (\\d+)");
            long deadline = System.nanoTime() + 10_000_000_000L;
            Matcher m;
            while (!(m = line.matcher(logged.toString(StandardCharsets.UTF_8))).find()
                    && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            String text = logged.toString(StandardCharsets.UTF_8);
            assertThat(m.find(0)).as("the service's log:\n%s", text).isTrue();
            assertThat(Integer.parseInt(m.group(1))).isEqualTo(led);
            assertThat(Integer.parseInt(m.group(2))).isEqualTo(base);
            assertThat(Integer.parseInt(m.group(3))).as("threads set back: the call's at least").isPositive();
            assertThat(text.split("the first call led", -1)).as("one lead in three calls").hasSize(2);
            assertThat(threadsAt(led)).as("threads at %d after the first call", led).isEmpty();
        } finally {
            service.stop(Duration.ofSeconds(10));
        }
    }
}
