package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed ADD's rollback always finishes: it gets a budget of its own, the exception says whether it completed
 * ({@link CniRuntimeException#rolledBack()}), and one cut short is finished by the next ADD or DEL of the attachment
 * (or gc --stale, {@link GcStaleTest}) from the ADD's journal. Real processes (scripts); the journal read back from
 * the cache directory.
 */
class RollbackJournalTest {
    @TempDir
    Path tmp;

    Path bin;
    Path cacheDir;
    FakePlugin a;
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    final RuntimeConf rt = new RuntimeConf("ctr-1", "/var/run/netns/test", "eth0");

    @BeforeEach
    void plugins() throws IOException {
        bin = Files.createDirectory(tmp.resolve("bin"));
        cacheDir = tmp.resolve("cache");
        a = FakePlugin.create(bin, "a").answer("ADD", CniRuntimeListTest.R1);
    }

    private CniRuntime runtime(CniRuntime.Options options) {
        return CniRuntime.create(options.withCacheDir(cacheDir).withStderr(stderr));
    }

    private CniRuntime.Options options() {
        return CniRuntime.Options.of(List.of(bin));
    }

    static NetworkConfigList list(String... types) {
        StringBuilder plugins = new StringBuilder();
        for (String type : types) {
            plugins.append(plugins.isEmpty() ? "" : ",").append("{\"type\":\"").append(type).append("\"}");
        }
        return CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":["
                + plugins + "]}").getBytes(StandardCharsets.UTF_8));
    }

    private Path journal() {
        return cacheDir.resolve("journal/net1-ctr-1-eth0");
    }

    /** A plugin whose ADD never ends by itself and whose DEL takes {@code delMillis}; it logs each call. */
    private void slowPlugin(String name, int delMillis) throws IOException {
        String log = bin.resolve(name + ".log").toString();
        ScriptPlugins.write(bin, name, """
                cat > /dev/null
                echo "$CNI_COMMAND $CNI_NETNS" >> '%1$s'
                case "$CNI_COMMAND" in
                  ADD) exec sleep 300 ;;
                  DEL) sleep %2$s; echo "$CNI_COMMAND done" >> '%1$s' ;;
                esac
                exit 0""".formatted(log, delMillis / 1000.0));
    }

    private List<String> log(String name) throws IOException {
        Path file = bin.resolve(name + ".log");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test
    void aRollbackGetsItsOwnBudgetSoADeadlineShorterThanTheDelStillLeavesNothing() throws Exception {
        // The ADD runs out of its 300 ms; the killed plugin's DEL takes 600 ms. Before the rollback had a budget of
        // its own, that DEL was killed by a budget as short as the call's, and what the ADD made stayed.
        slowPlugin("slow", 600);
        CniRuntime runtime = runtime(options());

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofMillis(300)).addNetworkList(list("a", "slow"), rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.getSuppressed()).as("no rollback failure").isEmpty();
        assertThat(e.rolledBack()).isTrue();
        assertThat(log("slow")).containsExactly("ADD /var/run/netns/test", "DEL /var/run/netns/test", "DEL done");
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(journal()).as("nothing owed: no journal").doesNotExist();
    }

    @Test
    void thePluginTimeoutDoesNotCutTheRollbackShortEither() throws Exception {
        slowPlugin("slow", 600);
        CniRuntime runtime = runtime(options().withPluginTimeout(Duration.ofMillis(300)));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.addNetworkList(list("a", "slow"), rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.rolledBack()).isTrue();
        assertThat(log("slow")).containsExactly("ADD /var/run/netns/test", "DEL /var/run/netns/test", "DEL done");
    }

    @Test
    void aRollbackCutShortSaysSoAndTheNextDelFinishesIt() throws Exception {
        slowPlugin("slow", 5000);
        CniRuntime runtime = runtime(options().withRollbackTimeout(Duration.ofMillis(300)));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofMillis(200)).addNetworkList(list("a", "slow"), rt));

        // The rollback's 300 ms are over while the killed plugin's DEL runs: it is killed, and a's is not started.
        assertThat(e.rolledBack()).isFalse();
        assertThat(e.getSuppressed()).hasSize(2);
        assertThat(e.getSuppressed()[0]).hasMessageStartingWith("cleanup after failed ADD: plugin type=\"slow\"");
        assertThat(e.getSuppressed()[1]).hasMessageStartingWith("cleanup after failed ADD: plugin type=\"a\"");
        assertThat(journal()).exists();
        assertThat(Files.readString(journal())).contains("\"kind\":\"jcniAddJournalV1\"").contains("{\"start\":0}")
                .contains("{\"start\":1}").doesNotContain("\"deleted\"").doesNotContain("\"failed\"");
        assertThat(cacheDir.resolve("results/net1-ctr-1-eth0")).doesNotExist();

        slowPlugin("slow", 0);
        runtime.delNetworkList(list("a", "slow"), rt);

        assertThat(journal()).as("the DEL did what the rollback owed").doesNotExist();
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        // Without a cache entry, the DEL's prevResult is the last result the failed ADD got (plugin a's).
        assertThat(a.calls().getLast().stdin()).contains("\"prevResult\"").contains("10.1.0.2/24");
    }

    @Test
    void theNextAddOfTheAttachmentFinishesAnUnfinishedRollbackFirst() throws Exception {
        slowPlugin("slow", 5000);
        CniRuntime runtime = runtime(options().withRollbackTimeout(Duration.ofMillis(300)));
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofMillis(200)).addNetworkList(list("a", "slow"), rt));
        assertThat(e.rolledBack()).isFalse();

        Files.delete(bin.resolve("slow.log"));
        FakePlugin slow = FakePlugin.create(bin, "slow").answer("ADD", CniRuntimeListTest.R2);
        runtime.addNetworkList(list("a", "slow"), rt);

        // The owed DELs ran before the new ADD's plugins.
        assertThat(slow.commands()).containsExactly("DEL", "ADD");
        assertThat(a.commands()).containsExactly("ADD", "DEL", "ADD");
        assertThat(journal()).doesNotExist();
        assertThat(cacheDir.resolve("results/net1-ctr-1-eth0")).exists();
    }

    @Test
    void aPluginThatFailedByItselfIsNotOwedADel() throws Exception {
        FakePlugin b = FakePlugin.create(bin, "b").fail("ADD", "{\"code\":7,\"msg\":\"eth0 already exists\"}", 1);
        FakePlugin.create(bin, "c");
        a.fail("DEL", "{\"code\":11,\"msg\":\"try later\"}", 1);
        CniRuntime runtime = runtime(options());

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.addNetworkList(list("a", "b", "c"), rt));

        assertThat(e.code()).isEqualTo(7);
        assertThat(e.rolledBack()).as("a's DEL failed").isFalse();
        assertThat(Files.readString(journal())).contains("{\"failed\":1}");
        a.answer("DEL", "");

        runtime.gcStale(List.of(list("a", "b", "c")), StaleOptions.of());

        assertThat(b.commands()).as("b failed by itself: never a DEL (it would delete the eth0 that was there)")
                .containsExactly("ADD");
        assertThat(a.commands()).containsExactly("ADD", "DEL", "DEL");
        assertThat(journal()).doesNotExist();
    }

    @Test
    void aFailureBeforeAnyPluginRanLeavesNothingAndSaysSo() throws Exception {
        CniRuntime runtime = runtime(options());
        runtime.addNetworkList(list("a"), rt);

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.addNetworkList(list("a"), rt));

        assertThat(e.code()).as("already added").isEqualTo(4);
        assertThat(e.rolledBack()).isTrue();
    }

    @Test
    void withoutRollbackTheJournalWaitsForTheCallersDel() throws Exception {
        FakePlugin.create(bin, "b").fail("ADD", "{\"code\":7,\"msg\":\"no\"}", 1);
        CniRuntime runtime = runtime(options().withDeleteOnAddFailure(false));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.addNetworkList(list("a", "b"), rt));

        assertThat(e.rolledBack()).isFalse();
        assertThat(a.commands()).containsExactly("ADD");
        assertThat(Files.readString(journal())).contains("\"leftForCaller\":true");
        runtime.delNetworkList(list("a", "b"), rt);
        assertThat(journal()).doesNotExist();
    }

    @Test
    void aSuccessfulAddLeavesNoJournalAndAFailedOneThatRolledBackNone() throws Exception {
        CniRuntime runtime = runtime(options());
        runtime.addNetworkList(list("a"), rt);
        assertThat(journal()).doesNotExist();
        assertThat(cacheDir.resolve("journal")).isEmptyDirectory();

        FakePlugin.create(bin, "b").fail("ADD", "{\"code\":7,\"msg\":\"no\"}", 1);
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.addNetworkList(list("a", "b"), new RuntimeConf("ctr-2", "/x", "eth0")));
        assertThat(e.rolledBack()).isTrue();
        assertThat(cacheDir.resolve("journal")).isEmptyDirectory();
    }
}
