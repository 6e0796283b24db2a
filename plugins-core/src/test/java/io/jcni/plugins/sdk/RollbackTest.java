package io.jcni.plugins.sdk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollbackTest {
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final PluginLog log = new PluginLog("p", stderr, false);
    private final List<String> undone = new ArrayList<>();

    @Test
    void failureUndoesNewestFirst() {
        try (Rollback rollback = new Rollback(log)) {
            rollback.onFailure("a", () -> undone.add("a"));
            rollback.onFailure("b", () -> undone.add("b"));
            rollback.onFailure("c", () -> undone.add("c"));
        }
        assertThat(undone).containsExactly("c", "b", "a");
        assertThat(stderr.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void commitUndoesNothing() {
        try (Rollback rollback = new Rollback(log)) {
            rollback.onFailure("a", () -> undone.add("a"));
            rollback.commit();
            assertThat(rollback.committed()).isTrue();
        }
        assertThat(undone).isEmpty();
    }

    @Test
    void aFailingStepIsLoggedAndTheOthersStillRun() {
        RuntimeException primary = new RuntimeException("the ADD failure");
        assertThatThrownBy(() -> {
            try (Rollback rollback = new Rollback(log)) {
                rollback.onFailure("a", () -> undone.add("a"));
                rollback.onFailure("delete veth v1", () -> {
                    throw new IllegalStateException("EBUSY");
                });
                rollback.onFailure("c", () -> undone.add("c"));
                throw primary;
            }
        }).isSameAs(primary);
        assertThat(undone).containsExactly("c", "a");
        assertThat(stderr.toString(StandardCharsets.UTF_8))
                .startsWith("p: rollback step failed (continuing): delete veth v1\n")
                .contains("IllegalStateException: EBUSY");
    }

    @Test
    void closeRunsOnce() {
        Rollback rollback = new Rollback(log);
        rollback.onFailure("a", () -> undone.add("a"));
        rollback.close();
        rollback.close();
        assertThat(undone).containsExactly("a");
        assertThatThrownBy(() -> rollback.onFailure("late", () -> undone.add("late")))
                .isInstanceOf(IllegalStateException.class);
    }

    /**
     * An in-process ADD cancelled by an interrupt (a runtime's deadline or its caller) fails because of that interrupt;
     * its undo steps must not fail at their first interruptible wait because of the same one.
     */
    @Test
    void undoStepsRunWithTheInterruptClearedAndItIsSetAgainAfterwards() {
        List<Boolean> interruptedDuringUndo = new ArrayList<>();
        Thread.currentThread().interrupt();
        try (Rollback rollback = new Rollback(log)) {
            rollback.onFailure("a", () -> {
                interruptedDuringUndo.add(Thread.currentThread().isInterrupted());
                Thread.sleep(1); // an interruptible wait, as a lock or a delegated DEL has
                undone.add("a");
            });
        }
        assertThat(Thread.interrupted()).as("the interrupt is set again after the rollback").isTrue();
        assertThat(interruptedDuringUndo).containsExactly(false);
        assertThat(undone).containsExactly("a");
    }
}
