package io.jcni.plugins.sdk;

import java.util.ArrayList;
import java.util.List;

/**
 * Undo registered at the moment of each side effect: when a command fails part-way, closing the rollback undoes,
 * newest first, everything registered so far; a committed rollback undoes nothing.
 *
 * <p>Each call has one, {@link CniRequest#rollback()}, which the skel commits when the command succeeded and closes
 * otherwise, so a handler only registers steps:
 * <pre>{@code
 * CniResult ipam = request.ipam().add();               // registers the IPAM DEL itself
 * Link veth = createVeth(...);
 * request.rollback().onFailure("delete veth " + name, new DeleteLink(name));
 * ...
 * return result;                                       // committed by the skel after printing succeeds
 * }</pre>
 *
 * <p>{@link #close} never throws: an undo that fails is logged (with its description) and the others still run, so
 * the error that caused the rollback is the one the runtime sees. Not thread-safe: a rollback belongs to one call.
 *
 * <p>Interrupts: an in-process call is cancelled (or reaches its deadline) by an interrupt of its thread, and the
 * failure that interrupt causes is what starts the rollback. The undo steps therefore run with the thread's interrupt
 * status cleared, so that the same interrupt does not stop them at their first interruptible wait (a delegated IPAM
 * DEL, a lock); it is set again afterwards. An interrupt that arrives while they run stops them as it would any code.
 */
public final class Rollback implements AutoCloseable {

    /** One undo step. Implementations should tolerate the effect being already gone. */
    @FunctionalInterface
    public interface Undo {
        void undo() throws Exception;
    }

    private final PluginLog log;
    private final List<String> descriptions = new ArrayList<>();
    private final List<Undo> steps = new ArrayList<>();
    private boolean committed;
    private boolean closed;

    Rollback(PluginLog log) {
        this.log = log;
    }

    /**
     * A rollback for a multi-step operation outside a plugin call (a daemon's), which its owner commits when the
     * operation succeeded and closes in any case ({@code try (Rollback undo = Rollback.standalone(log)) { ...;
     * undo.commit(); }}); failed steps are written to {@code log}.
     */
    public static Rollback standalone(PluginLog log) {
        return new Rollback(log);
    }

    /** Registers {@code undo} (described for the log, e.g. "delete veth veth1234") to run if the ADD fails. */
    public void onFailure(String description, Undo undo) {
        if (committed || closed) {
            throw new IllegalStateException("rollback already " + (committed ? "committed" : "closed"));
        }
        descriptions.add(description);
        steps.add(undo);
    }

    /** The ADD succeeded: nothing will be undone. */
    public void commit() {
        committed = true;
    }

    /** Whether {@link #commit} was called. */
    public boolean committed() {
        return committed;
    }

    /** Undoes every registered step, newest first, unless committed. Runs once; never throws. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (committed || steps.isEmpty()) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        try {
            for (int i = steps.size() - 1; i >= 0; i--) {
                try {
                    steps.get(i).undo();
                    log.debug("rolled back: " + descriptions.get(i));
                } catch (Exception | LinkageError e) {
                    log.failure("rollback step failed (continuing): " + descriptions.get(i), e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
