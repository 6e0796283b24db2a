package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link QuorumRead}, the read that a node's concurrent warm ADDs share, with callers whose reads are scripted: each
 * read blocks until the test releases it, then answers or fails as the test says, so which call waits for which read
 * is decided by the test and not by timing. That the store's warm ADDs go through it against a real etcd is in
 * {@link ClusterIpamViewTest}. Most tests run it without grace (a read sent a moment before a call began proves
 * nothing for it), so that which read a call counts on does not depend on how fast threads start; the grace has tests
 * of its own.
 */
class ClusterQuorumReadTest {
    private QuorumRead quorum = new QuorumRead(0);
    private final Reads reads = new Reads();
    private final List<Thread> threads = new ArrayList<>();

    @AfterEach
    void releaseEverything() throws InterruptedException {
        reads.releaseAll();
        for (Thread t : threads) {
            t.interrupt();
            t.join(10_000);
        }
    }

    @Test
    void callersThatAskWhileAReadIsInFlightShareOneNextRead() throws Exception {
        Call first = call("first", 60_000);
        reads.get(0).awaitStarted();
        List<Call> joined = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            joined.add(call("joined-" + i, 60_000));
        }
        awaitWaiting(9);

        reads.get(0).release();
        first.assertAnswered();
        reads.get(1).awaitStarted();
        assertThat(reads.sent()).as("one read for the nine that joined").isEqualTo(2);
        for (Call c : joined) {
            assertThat(c.outcome.isDone()).as("%s waits for the second read", c.name).isFalse();
        }
        reads.get(1).release();
        for (Call c : joined) {
            c.assertAnswered();
        }
        assertThat(reads.sent()).as("ten calls, two reads").isEqualTo(2);
    }

    @Test
    void aRequestAnsweredThatWasSentWithinTheGraceBeforeACallBeganIsItsProofOneSentBeforeThatIsNot()
            throws Exception {
        quorum = new QuorumRead();
        long began = System.nanoTime();
        quorum.answered(began - QuorumRead.GRACE_NANOS / 2); // e.g. the node's DEL just before this ADD began
        call("b", 60_000, began).assertAnswered();
        assertThat(reads.sent()).as("no read: the write answered just before b began proves a quorum for it")
                .isZero();

        quorum = new QuorumRead();
        quorum.answered(began - 2 * QuorumRead.GRACE_NANOS);
        Call c = call("c", 60_000, began);
        reads.get(0).awaitStarted();
        assertThat(reads.get(0).sender).as("sent twice the grace before c began: c reads").isEqualTo("c");
        Thread.sleep(50);
        assertThat(c.outcome.isDone()).as("c waits for its read").isFalse();
        reads.get(0).release();
        c.assertAnswered();
    }

    @Test
    void aCallThatBeganWithinTheGraceAfterAReadWasSentCountsOnIt() throws Exception {
        quorum = new QuorumRead();
        long before = System.nanoTime();
        Call a = call("a", 60_000);
        reads.get(0).awaitStarted();
        // Sent after "before", so less than the grace before b began.
        Call b = call("b", 60_000, before + QuorumRead.GRACE_NANOS - 1_000_000);
        awaitWaiting(1);
        reads.get(0).release();
        a.assertAnswered();
        b.assertAnswered();
        assertThat(reads.sent()).as("b counted on a's read").isEqualTo(1);
    }

    @Test
    void aCallerThatAsksMidReadWaitsForAReadSentAfterItAsked() throws Exception {
        Call a = call("a", 60_000);
        reads.get(0).awaitStarted();
        Call b = call("b", 60_000);
        awaitWaiting(1);
        reads.get(0).release();
        a.assertAnswered();

        reads.get(1).awaitStarted();
        assertThat(reads.get(1).sender).as("b, the only one waiting, sends the next read").isEqualTo("b");
        Thread.sleep(50);
        assertThat(b.outcome.isDone()).as("the first read, sent before b asked, is not b's proof").isFalse();
        reads.get(1).release();
        b.assertAnswered();
        assertThat(reads.sent()).isEqualTo(2);

        Call c = call("c", 60_000);
        reads.get(2).awaitStarted();
        assertThat(reads.get(2).sender).as("no read in flight: c sends its own").isEqualTo("c");
        reads.get(2).release();
        c.assertAnswered();
    }

    @Test
    void aCallThatBeganBeforeAnAnsweredReadWasSentDoesNotWait() throws Exception {
        long began = System.nanoTime();
        Call a = call("a", 60_000);
        reads.get(0).awaitStarted();
        reads.get(0).release();
        a.assertAnswered();

        Call b = call("b", 60_000, began);
        b.assertAnswered();
        assertThat(reads.sent()).as("b began before a's read was sent: that read is its proof").isEqualTo(1);

        Call c = call("c", 60_000);
        reads.get(1).awaitStarted();
        assertThat(reads.get(1).sender).as("c began after it: c sends its own").isEqualTo("c");
        Thread.sleep(50);
        assertThat(c.outcome.isDone()).as("c waits for its read").isFalse();
        reads.get(1).release();
        c.assertAnswered();
    }

    @Test
    void aCallThatBeganBeforeTheReadInFlightWasSentCountsOnIt() throws Exception {
        long began = System.nanoTime();
        Call a = call("a", 60_000);
        reads.get(0).awaitStarted();
        Call b = call("b", 60_000, began);
        Call late = call("late", 60_000);
        awaitWaiting(2);
        reads.get(0).release();
        a.assertAnswered();
        b.assertAnswered();
        reads.get(1).awaitStarted();
        assertThat(reads.get(1).sender).as("the call that began after the read was sent waits for the next")
                .isEqualTo("late");
        assertThat(late.outcome.isDone()).isFalse();
        reads.get(1).release();
        late.assertAnswered();
        assertThat(reads.sent()).isEqualTo(2);
    }

    @Test
    void aReadThatFailsDropsTheProofOfTheReadsBeforeIt() throws Exception {
        long began = System.nanoTime();
        Call a = call("a", 60_000);
        reads.get(0).awaitStarted();
        reads.get(0).release();
        a.assertAnswered();
        EtcdException refused = new EtcdException(Kind.AUTH, "etcd http://127.0.0.1:1 refused /v3/kv/txn: etcdserver:"
                + " permission denied");
        reads.get(1).fail(refused);
        Call failing = call("failing", 60_000);
        reads.get(1).awaitStarted();
        reads.get(1).release();
        assertThat(failing.failure()).isSameAs(refused);

        Call b = call("b", 60_000, began);
        reads.get(2).awaitStarted();
        assertThat(reads.get(2).sender).as("after a failed read, a's answer proves nothing for b").isEqualTo("b");
        Thread.sleep(50);
        assertThat(b.outcome.isDone()).isFalse();
        reads.get(2).release();
        b.assertAnswered();
    }

    @Test
    void anotherRequestAnsweredSinceACallBeganIsItsProofUntilARequestGoesUnanswered() throws Exception {
        long began = System.nanoTime();
        quorum.answered(System.nanoTime()); // e.g. another call's write, sent after this one began
        call("b", 60_000, began).assertAnswered();
        assertThat(reads.sent()).as("no read: the answered write proves a quorum since b began").isZero();

        quorum.answered(began - 1_000_000); // sent before c began: no proof for it
        Call c = call("c", 60_000);
        reads.get(0).awaitStarted();
        reads.get(0).release();
        c.assertAnswered();

        long beganBeforeSilence = System.nanoTime();
        quorum.answered(System.nanoTime());
        quorum.unanswered(); // e.g. a write that got no answer in time
        quorum.answered(beganBeforeSilence); // answered late, sent before the silence: it restores nothing
        Call d = call("d", 60_000, beganBeforeSilence);
        reads.get(1).awaitStarted();
        assertThat(reads.get(1).sender).as("after a request went unanswered, d reads").isEqualTo("d");
        reads.get(1).release();
        d.assertAnswered();
        assertThat(reads.sent()).isEqualTo(2);
    }

    @Test
    void aSharedReadThatFailsFailsEveryCallerWaitingForItWithItsError() throws Exception {
        Call first = call("first", 60_000);
        reads.get(0).awaitStarted();
        List<Call> joined = List.of(call("b", 60_000), call("c", 60_000), call("d", 60_000));
        awaitWaiting(3);
        EtcdException refused = new EtcdException(Kind.AUTH, "etcd http://127.0.0.1:1 refused /v3/kv/txn: etcdserver:"
                + " permission denied");
        reads.get(1).fail(refused);
        reads.get(0).release();
        first.assertAnswered();
        reads.get(1).release();
        for (Call c : joined) {
            EtcdException e = c.failure();
            assertThat(e.kind()).as(c.name).isEqualTo(Kind.AUTH);
            assertThat(e.getMessage()).as(c.name).isEqualTo(refused.getMessage());
        }
        int own = 0;
        for (Call c : joined) {
            own += c.failure() == refused ? 1 : 0;
        }
        assertThat(own).as("the sender got its own exception, the others a copy each").isEqualTo(1);
        assertThat(reads.sent()).as("a refusal is not sent again").isEqualTo(2);
    }

    @Test
    void aReadThatFailedOnItsSendersDeadlineDoesNotFailCallersWithTimeLeft() throws Exception {
        Call first = call("first", 60_000);
        reads.get(0).awaitStarted();
        Call b = call("b", 60_000);
        Call c = call("c", 60_000);
        awaitWaiting(2);
        // Whichever of b and c sends the second read, its deadline "passes" in it (EtcdClient's only UNAVAILABLE).
        EtcdException timedOut = new EtcdException(Kind.UNAVAILABLE, "etcd did not answer within 10 s"
                + " (requestTimeoutSeconds): no endpoint tried");
        reads.get(1).fail(timedOut);
        reads.get(0).release();
        first.assertAnswered();
        reads.get(1).release();

        reads.get(2).awaitStarted();
        Call sender = reads.get(1).sender.equals("b") ? b : c;
        Call other = sender == b ? c : b;
        assertThat(sender.failure()).as("the sender fails with its own read's error").isSameAs(timedOut);
        assertThat(reads.get(2).sender).as("the other, with time left, sends the next read").isEqualTo(other.name);
        reads.get(2).release();
        other.assertAnswered();
        assertThat(reads.sent()).isEqualTo(3);
    }

    @Test
    void aCallerWaitingForAReadGivesUpAtItsOwnDeadline() throws Exception {
        Call first = call("first", 60_000);
        reads.get(0).awaitStarted();
        long asked = System.nanoTime();
        Call hurried = call("hurried", 300);
        Call patient = call("patient", 60_000);
        EtcdException e = hurried.failure();
        long waited = System.nanoTime() - asked;
        assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
        assertThat(e.getMessage()).startsWith("hurried: deadline: the quorum read shared");
        assertThat(waited).as("not before its deadline").isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        assertThat(first.outcome.isDone()).as("the read in flight is still unanswered").isFalse();
        awaitWaiting(1); // the patient call

        reads.get(0).release();
        first.assertAnswered();
        reads.get(1).awaitStarted();
        assertThat(reads.get(1).sender).isEqualTo("patient");
        reads.get(1).release();
        patient.assertAnswered();
        assertThat(reads.sent()).isEqualTo(2);
    }

    @Test
    void aReadNobodyWaitsForAnyMoreIsNotSent() throws Exception {
        Call first = call("first", 60_000);
        reads.get(0).awaitStarted();
        Call hurried = call("hurried", 200);
        assertThat(hurried.failure().kind()).isEqualTo(Kind.UNAVAILABLE);
        assertThat(quorum.waiting()).isZero();
        reads.get(0).release();
        first.assertAnswered();
        assertThat(reads.sent()).as("the read that only the hurried call waited for").isEqualTo(1);

        Call later = call("later", 60_000);
        reads.get(1).awaitStarted();
        assertThat(reads.get(1).sender).isEqualTo("later");
        reads.get(1).release();
        later.assertAnswered();
    }

    @Test
    void aCallerInterruptedWhileItWaitsGivesUpAsEtcdClientWould() throws Exception {
        Call first = call("first", 60_000);
        reads.get(0).awaitStarted();
        Call cancelled = call("cancelled", 60_000);
        awaitWaiting(1);
        cancelled.thread.interrupt();
        EtcdException e = cancelled.failure();
        assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
        assertThat(e.getMessage()).startsWith("the call was cancelled while it waited for etcd");
        assertThat(cancelled.interruptedAfter).as("the interrupt is kept for the caller").isTrue();
        assertThat(quorum.waiting()).isZero();
        reads.get(0).release();
        first.assertAnswered();
        assertThat(reads.sent()).isEqualTo(1);
    }

    // ---------------------------------------------------------------------------------------------- fixture

    /** The reads sent through {@link #quorum}, in the order they were sent. */
    private static final class Reads {
        private final List<Read> reads = new ArrayList<>();
        private final AtomicInteger sent = new AtomicInteger();

        synchronized Read get(int i) {
            while (reads.size() <= i) {
                reads.add(new Read());
            }
            return reads.get(i);
        }

        int sent() {
            return sent.get();
        }

        void send(String sender) throws EtcdException {
            Read read = get(sent.getAndIncrement());
            read.sender = sender;
            read.started.countDown();
            try {
                if (!read.released.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the read " + sender + " sent");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new EtcdException(Kind.UNAVAILABLE, "interrupted");
            }
            if (read.failure != null) {
                throw read.failure;
            }
        }

        synchronized void releaseAll() {
            for (Read r : reads) {
                r.release();
            }
        }
    }

    /** One read: who sent it, blocked until released, then answered or failed. */
    private static final class Read {
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
        volatile String sender;
        volatile EtcdException failure;

        void awaitStarted() throws InterruptedException {
            assertThat(started.await(10, TimeUnit.SECONDS)).as("the read was sent").isTrue();
        }

        void fail(EtcdException e) {
            failure = e;
        }

        void release() {
            released.countDown();
        }
    }

    /** One caller of {@link QuorumRead#await}, on a thread of its own. */
    private final class Call implements QuorumRead.Caller {
        final String name;
        final long deadline;
        final long started;
        final CompletableFuture<EtcdException> outcome = new CompletableFuture<>();
        Thread thread;
        volatile boolean interruptedAfter;

        Call(String name, long deadlineMillis, long started) {
            this.name = name;
            this.deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(deadlineMillis);
            this.started = started;
        }

        @Override
        public void read() throws EtcdException {
            reads.send(name);
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public long started() {
            return started;
        }

        @Override
        public EtcdException timedOut(String why) {
            return new EtcdException(Kind.UNAVAILABLE, name + ": deadline: " + why);
        }

        void run() {
            try {
                quorum.await(this);
                interruptedAfter = Thread.currentThread().isInterrupted();
                outcome.complete(null);
            } catch (EtcdException e) {
                interruptedAfter = Thread.currentThread().isInterrupted();
                outcome.complete(e);
            } catch (Throwable t) {
                outcome.completeExceptionally(t);
            }
        }

        void assertAnswered() throws Exception {
            assertThat(outcome.get(10, TimeUnit.SECONDS)).as("%s: answered", name).isNull();
        }

        EtcdException failure() throws Exception {
            EtcdException e = outcome.get(10, TimeUnit.SECONDS);
            assertThat(e).as("%s: failed", name).isNotNull();
            return e;
        }
    }

    /** A call that began as it asks (cluster-ipam exec'd or called alone). */
    private Call call(String name, long deadlineMillis) {
        return call(name, deadlineMillis, System.nanoTime());
    }

    /** A call that began at {@code started} and asks now (cluster-ipam delegated to by bridge, later in its call). */
    private Call call(String name, long deadlineMillis, long started) {
        Call c = new Call(name, deadlineMillis, started);
        c.thread = new Thread(c::run, "quorum-" + name);
        threads.add(c.thread);
        c.thread.start();
        return c;
    }

    /** Until {@code n} calls wait for a read another call sends. */
    private void awaitWaiting(int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (quorum.waiting() != n) {
            assertThat(System.nanoTime() - deadline).as("%d calls waiting (now %d)", n, quorum.waiting())
                    .isNegative();
            Thread.sleep(2);
        }
    }
}
