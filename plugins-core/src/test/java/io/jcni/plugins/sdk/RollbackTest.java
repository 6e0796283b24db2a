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
}
