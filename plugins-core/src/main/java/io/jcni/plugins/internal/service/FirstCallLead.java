package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.ThreadNice;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A fresh service's first client call runs ahead of the JVM's start-up work: from the service's start until that call
 * has ended, the acceptor (until it has handed the call over), the call's thread and every thread they start run
 * {@value #LEAD} nice steps below the service's own value (at least -20); then each of them is back at that value.
 *
 * <p>Why: a JVM that has just started compiles for about a second (the AOT cache's trained methods, queued as their
 * classes initialize, and what the first call makes hot), on both cores of a small node. The first call runs its
 * code interpreted (the compiled code comes too late to help it) and waited for a core behind the compiler threads
 * for about as long as it ran: 13 to 52 ms beside 26 to 42 ms of its own CPU, measured here (README, Performance).
 *
 * <p>Why not the compilers lowered instead, which gave the first call about as much: a compiler thread at nice 19 on a
 * busy node holds the JIT's compile-queue lock while it is starved, and every thread that needs the lock waits (a
 * node's first ten calls were lost that way). Raised threads starve nobody: the compilers and the rest of the node
 * keep their priority and get the cores the call leaves, a nice value 10 steps up weighs about 9 times as much as
 * its neighbours, not all, and the lead lasts one call, or {@value #LIMIT_MILLIS} ms if that call takes longer (the
 * call watchdog ends it). A thread that waits for a lock a normal thread holds waits as it would have anyway.
 *
 * <p>Only the first call: calls that begin while it runs are not raised (a burst's other calls compete as before),
 * and the compile work is not removed, only put after the call. Off when the process may not raise a thread's
 * priority (without {@code CAP_SYS_NICE} or a {@code RLIMIT_NICE} that allows it: the first attempt fails and
 * nothing is changed) and with {@code -Djcni.service.firstCallLead=off} (to measure the service without it).
 * Thread-safe (its monitor).
 */
final class FirstCallLead {
    /** How many nice steps the led threads run below the service. */
    static final int LEAD = 10;
    /** The longest a lead lasts. */
    static final long LIMIT_MILLIS = 2000;

    private final ServiceLog log;
    /** The service's nice value (its acceptor's at start) and the led threads'. */
    private final int base;
    private final int led;
    // Guarded by this.
    private boolean handed;
    private boolean over;
    private long since;

    private FirstCallLead(ServiceLog log, int base, int led, boolean over) {
        this.log = log;
        this.base = base;
        this.led = led;
        this.over = over;
    }

    /** Run on the acceptor thread as it starts: raises it, or returns a lead that does nothing. */
    static FirstCallLead startOnAcceptor(ServiceLog log) {
        if ("off".equals(System.getProperty("jcni.service.firstCallLead"))) {
            log.debug("the first call does not lead: -Djcni.service.firstCallLead=off");
            return new FirstCallLead(log, 0, 0, true);
        }
        int base;
        int led;
        try {
            int self = ThreadNice.currentThreadId();
            base = ThreadNice.of(self);
            led = Math.max(-20, base - LEAD);
            if (led == base) {
                log.debug("the first call does not lead: the service runs at nice " + base + " already");
                return new FirstCallLead(log, base, led, true);
            }
            ThreadNice.set(self, led);
        } catch (RuntimeException e) {
            // EPERM/EACCES without CAP_SYS_NICE; no native access. The lead is optional: never the acceptor's end.
            log.debug("the first call does not lead: " + e.getMessage());
            return new FirstCallLead(log, 0, 0, true);
        }
        return new FirstCallLead(log, base, led, false);
    }

    /**
     * Run on the acceptor before it hands a client's call to a call thread: whether that call is the one that leads
     * (then {@link #enter} and {@link #end} follow on its thread). {@link #acceptorBack} follows on the acceptor.
     */
    synchronized boolean claim() {
        if (handed) {
            return false;
        }
        handed = true;
        since = System.nanoTime();
        return !over;
    }

    /** Run on the acceptor once the first call is handed over: the acceptor is back at the service's value. */
    synchronized void acceptorBack() {
        setSelf(base);
    }

    /** Run by the led call as it starts, on its thread (a call thread started before the lead has the base value). */
    synchronized void enter() {
        if (!over) {
            setSelf(led);
        }
    }

    /** The led call has ended (on its thread): every led thread is back at the service's value. */
    synchronized void end() {
        finish("its first call ended");
    }

    /** Run by the call watchdog: a lead past {@link #LIMIT_MILLIS} ends. */
    synchronized void expire(long now) {
        if (!over && handed && now - since > LIMIT_MILLIS * 1_000_000) {
            finish("its first call ran longer than " + LIMIT_MILLIS + " ms");
        }
    }

    /** Whether the lead is on now (for tests). */
    synchronized boolean leading() {
        return !over;
    }

    /** The nice value of the led threads; the base value when the lead is off. */
    int ledNice() {
        return led;
    }

    private void finish(String why) {
        if (over) {
            return;
        }
        over = true;
        int back = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                try {
                    if (ThreadNice.of(tid) == led) {
                        ThreadNice.set(tid, base);
                        back++;
                    }
                } catch (KernelException e) {
                    // That thread ended meanwhile.
                }
            }
        } catch (IOException | RuntimeException e) {
            log.info("could not give the threads that led the first call the service's nice value " + base
                    + " back: " + e.getMessage());
            return;
        }
        log.debug("the first call led at nice " + led + " for " + (System.nanoTime() - since) / 1_000_000
                + " ms (" + why + "); threads back at nice " + base + ": " + back);
    }

    private void setSelf(int nice) {
        try {
            ThreadNice.set(ThreadNice.currentThreadId(), nice);
        } catch (RuntimeException e) {
            // Never thrown into the acceptor's hand-over or a call: a nice value is not worth either.
            log.info("could not set a service thread's nice value to " + nice + ": " + e.getMessage());
        }
    }
}
