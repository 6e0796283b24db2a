package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-call deadlines ({@link CniRuntime#withTimeout}, {@link CniRuntime#withDeadline}), cancellation by interrupt, and
 * closing, with real processes (scripts) and in-process plugins. Time limits here are generous: the assertions are
 * about what was killed, interrupted, rolled back and reported, not about how fast.
 */
class CniRuntimeDeadlineTest {
    @TempDir
    Path tmp;

    Path bin;
    Path cacheDir;
    FakePlugin a;
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    CniRuntime runtime;
    final RuntimeConf rt = new RuntimeConf("ctr-1", "/var/run/netns/test", "eth0");

    @BeforeEach
    void plugins() throws IOException {
        bin = Files.createDirectory(tmp.resolve("bin"));
        cacheDir = tmp.resolve("cache");
        a = FakePlugin.create(bin, "a").answer("ADD", CniRuntimeListTest.R1);
        runtime = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir).withStderr(stderr));
    }

    /**
     * A plugin whose ADD logs itself, starts a child that would outlive it ({@code sleep 300}), records the child's pid
     * and waits for it; its other commands log themselves and succeed.
     */
    private void hangingPlugin(String name) throws IOException {
        String d = bin.toString();
        ScriptPlugins.write(bin, name, """
                cat > /dev/null
                echo "$CNI_COMMAND" >> '%1$s/%2$s.log'
                if [ "$CNI_COMMAND" = ADD ]; then
                  sleep 300 &
                  echo $! > '%1$s/%2$s.child'
                  wait
                fi
                exit 0""".formatted(d, name));
    }

    private List<String> log(String name) throws IOException {
        Path file = bin.resolve(name + ".log");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    private long child(String name) throws Exception {
        Path file = bin.resolve(name + ".child");
        for (int i = 0; i < 500 && (!Files.exists(file) || Files.readString(file).isBlank()); i++) {
            Thread.sleep(10);
        }
        return Long.parseLong(Files.readString(file).strip());
    }

    private static boolean gone(long pid) throws InterruptedException {
        for (int i = 0; i < 500; i++) {
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                Thread.sleep(10);
            } else {
                return true;
            }
        }
        return false;
    }

    private static NetworkConfigList list(String... types) {
        StringBuilder plugins = new StringBuilder();
        for (String type : types) {
            plugins.append(plugins.isEmpty() ? "" : ",").append("{\"type\":\"").append(type).append("\"}");
        }
        return CniJson.decodeNetworkConfigList(("{\"cniVersion\":\"1.0.0\",\"name\":\"net1\",\"plugins\":["
                + plugins + "]}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theDeadlineKillsTheRunningPluginWithItsChildrenAndTheRollbackDeletesItToo() throws Exception {
        hangingPlugin("hang");

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofMillis(700)).addNetworkList(list("a", "hang"), rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.interrupted()).isFalse();
        assertThat(e.code()).isEqualTo(CniError.UNKNOWN);
        assertThat(e).hasMessageStartingWith("plugin type=\"hang\" failed (add): netplugin failed with no error "
                + "message: signal: killed; the call's deadline (700 ms) passed while plugin " + bin.resolve("hang")
                + " ran");
        assertThat(gone(child("hang"))).as("the plugin's child is killed with it").isTrue();
        // Killed, the plugin could not undo its partial ADD: the rollback sends it DEL, then to the plugin before it.
        assertThat(log("hang")).containsExactly("ADD", "DEL");
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(cacheDir.resolve("results/net1-ctr-1-eth0")).doesNotExist();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void aPluginThatFailsByItselfStillGetsNoDelUnderADeadline() throws Exception {
        FakePlugin b = FakePlugin.create(bin, "b").fail("ADD", "{\"code\":7,\"msg\":\"bad config\"}", 1);

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withTimeout(Duration.ofSeconds(30)).addNetworkList(list("a", "b"), rt));

        assertThat(e.code()).isEqualTo(7);
        assertThat(e.timedOut()).isFalse();
        assertThat(b.commands()).containsExactly("ADD");
        assertThat(a.commands()).containsExactly("ADD", "DEL");
    }

    @Test
    void aDeadlineAlreadyPassedStartsNoPlugin() throws Exception {
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.withDeadline(Instant.now().minusSeconds(1)).addNetworkList(list("a"), rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.getMessage()).startsWith("plugin type=\"a\" failed (add): netplugin failed with no error "
                + "message: context deadline exceeded; the call's deadline (0 ms) passed before ");
        assertThat(a.commands()).isEmpty();
    }

    @Test
    void whenTheDeadlinePassesBetweenPluginsTheNextOneIsNotStartedAndTheFirstIsRolledBack() throws Exception {
        FakePlugin b = FakePlugin.create(bin, "b").answer("ADD", CniRuntimeListTest.R1);
        List<String> calls = new ArrayList<>();
        // Finishes its ADD after the deadline without noticing the interrupt (it ignores it): it succeeded, and the
        // call stops before the next plugin.
        InProcessPlugin stubborn = (env, stdin, out, err) -> {
            calls.add(env.get("CNI_COMMAND"));
            if (env.get("CNI_COMMAND").equals("ADD")) {
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
                while (System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                write(out, CniRuntimeListTest.R1);
            }
            return 0;
        };
        CniRuntime inProcess = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withInProcess(InProcessPlugins.of(Map.of("stubborn", stubborn))));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> inProcess.withTimeout(Duration.ofMillis(200)).addNetworkList(list("stubborn", "b"), rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e).hasMessageContaining("plugin type=\"b\" failed (add)")
                .hasMessageContaining("context deadline exceeded");
        assertThat(b.commands()).isEmpty();
        assertThat(calls).containsExactly("ADD", "DEL");
        assertThat(Thread.currentThread().isInterrupted()).as("the runtime's interrupt is cleared").isFalse();
    }

    @Test
    void anInProcessPluginIsInterruptedAtTheDeadlineFailsAndLeavesNoInterruptBehind() throws Exception {
        AtomicBoolean sawInterrupt = new AtomicBoolean();
        InProcessPlugin sleeper = (env, stdin, out, err) -> {
            if (!env.get("CNI_COMMAND").equals("ADD")) {
                return 0;
            }
            try {
                Thread.sleep(60_000);
                write(out, CniRuntimeListTest.R1);
                return 0;
            } catch (InterruptedException interrupted) {
                sawInterrupt.set(true);
                Thread.currentThread().interrupt(); // as a well-behaved plugin does
                write(out, "{\"code\":999,\"msg\":\"interrupted while waiting\"}");
                return 1;
            }
        };
        CniRuntime inProcess = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withInProcess(InProcessPlugins.of(Map.of("sleeper", sleeper))));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> inProcess.withTimeout(Duration.ofMillis(300)).addNetworkList(list("a", "sleeper"), rt));

        assertThat(sawInterrupt).isTrue();
        assertThat(e.timedOut()).isTrue();
        assertThat(e.interrupted()).as("the runtime's own interrupt is not a cancellation").isFalse();
        assertThat(e.error().msg()).isEqualTo("interrupted while waiting");
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void thePluginTimeoutAppliesToInProcessPluginsToo() throws Exception {
        InProcessPlugin sleeper = (env, stdin, out, err) -> {
            try {
                Thread.sleep(60_000);
                return 0;
            } catch (InterruptedException interrupted) {
                write(out, "{\"code\":999,\"msg\":\"interrupted\"}");
                return 1;
            }
        };
        CniRuntime inProcess = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withPluginTimeout(Duration.ofMillis(200))
                .withInProcess(InProcessPlugins.of(Map.of("sleeper", sleeper))));

        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> inProcess.checkNetworkList(list("sleeper"), rt));

        assertThat(e.timedOut()).isTrue();
        assertThat(e.getCause().getCause()).hasMessage("in-process plugin sleeper did not finish within 200 ms; it "
                + "was interrupted");
    }

    @Test
    void interruptingTheCallingThreadCancelsTheAddRollsItBackAndKeepsTheInterruptStatus() throws Exception {
        hangingPlugin("hang");
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                runtime.addNetworkList(list("a", "hang"), rt);
            } catch (Throwable t) {
                thrown.set(t);
            }
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        });
        long child = child("hang");

        caller.interrupt();
        caller.join(TimeUnit.SECONDS.toMillis(60));

        assertThat(caller.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(CniRuntimeException.class);
        CniRuntimeException e = (CniRuntimeException) thrown.get();
        assertThat(e.interrupted()).isTrue();
        assertThat(e.timedOut()).isFalse();
        assertThat(e).hasMessageStartingWith("plugin type=\"hang\" failed (add): interrupted while running plugin");
        assertThat(interruptedAfter).as("the caller's interrupt status is kept").isTrue();
        assertThat(gone(child)).isTrue();
        // The interrupt that cancelled the ADD did not cut its rollback short.
        assertThat(log("hang")).containsExactly("ADD", "DEL");
        assertThat(a.commands()).containsExactly("ADD", "DEL");
        assertThat(e.getSuppressed()).isEmpty();
    }

    @Test
    void aCallOnAnInterruptedThreadStartsNoPluginAndKeepsTheInterrupt() throws Exception {
        Thread.currentThread().interrupt();
        try {
            CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                    () -> runtime.versionInfo("a"));
            assertThat(e.interrupted()).isTrue();
            assertThat(e).hasMessage("interrupted before " + bin.resolve("a") + " started");
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(a.commands()).isEmpty();
    }

    @Test
    void waitingForABusyAttachmentEndsAtTheDeadlineWithCode11() throws Exception {
        a.gate("DEL");
        runtime.addNetworkList(list("a"), rt);
        CountDownLatch started = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> {
            started.countDown();
            runtime.delNetworkList(list("a"), rt);
        });
        started.await();
        while (!a.commands().contains("DEL")) {
            Thread.sleep(10);
        }
        try {
            CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                    () -> runtime.withTimeout(Duration.ofMillis(300)).checkNetworkList(list("a"), rt));
            assertThat(e.code()).isEqualTo(CniError.TRY_AGAIN_LATER);
            assertThat(e.timedOut()).isTrue();
            assertThat(e).hasMessage("attachment ctr-1/eth0 is busy: the call's deadline (300 ms) passed while "
                    + "waiting for another operation on it");
            assertThat(a.commands()).containsExactly("ADD", "DEL");
        } finally {
            a.openGate();
            holder.join();
        }
    }

    @Test
    void aCallWithinItsDeadlineSucceedsAsWithoutOne() throws Exception {
        CniRuntime limited = runtime.withTimeout(Duration.ofSeconds(60));
        CniResult result = limited.addNetworkList(list("a"), rt);
        assertThat(Result.from(result).ips()).hasSize(1);
        limited.checkNetworkList(list("a"), rt);
        limited.delNetworkList(list("a"), rt);
        assertThat(limited.withDeadline(Instant.now().plusSeconds(60)).versionInfo("a").supportedVersions())
                .contains("1.0.0");
        assertThat(a.commands()).containsExactly("ADD", "CHECK", "DEL", "VERSION");
    }

    @Test
    void aClosedRuntimeRefusesCallsAndItsViewsCloseNothing() throws Exception {
        CniRuntime view = runtime.withTimeout(Duration.ofSeconds(5));
        view.close();
        runtime.versionInfo("a");
        runtime.close();
        runtime.close();
        assertThatThrownBy(() -> runtime.versionInfo("a")).isInstanceOf(IllegalStateException.class)
                .hasMessage("this CniRuntime is closed");
        assertThatThrownBy(() -> view.addNetworkList(list("a"), rt)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closeStopsTheLaunchHelpers() throws Exception {
        CniRuntime warm = CniRuntime.create(CniRuntime.Options.of(List.of(bin)).withCacheDir(cacheDir)
                .withLaunchHelpers(2));
        warm.versionInfo("a");
        List<ProcessHandle> helpers = new ArrayList<>();
        for (int i = 0; i < 500 && helpers.size() < 2; i++) {
            helpers.clear();
            ProcessHandle.current().children().filter(p -> p.info().command().orElse("").endsWith("dash")
                    && p.info().arguments().map(args -> String.join(" ", args)).orElse("").contains("exec \"$p\""))
                    .forEach(helpers::add);
            Thread.sleep(10);
        }
        assumeHelpers(helpers);

        warm.close();

        for (ProcessHandle helper : helpers) {
            assertThat(gone(helper.pid())).as("helper %s stopped", helper.pid()).isTrue();
        }
    }

    /** Launch helpers need dash; without it there is nothing to stop. */
    private static void assumeHelpers(List<ProcessHandle> helpers) {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of("/bin/dash"))
                || Files.isExecutable(Path.of("/usr/bin/dash")), "no dash: no launch helpers");
        assertThat(helpers).hasSize(2);
    }

    @Test
    void cachedAttachmentsHasANameForAllAndRefusesAnEmptyContainerId() throws Exception {
        runtime.addNetworkList(list("a"), rt);
        runtime.addNetworkList(list("a"), rt.withContainerId("ctr-2").withIfName("net1"));

        assertThat(runtime.cachedAttachments()).extracting(x -> x.runtimeConf().containerId())
                .containsExactly("ctr-1", "ctr-2");
        assertThat(runtime.cachedAttachments("ctr-2")).singleElement()
                .satisfies(x -> assertThat(x.runtimeConf().ifName()).isEqualTo("net1"));
        CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                () -> runtime.cachedAttachments(""));
        assertThat(e.code()).isIn(CniError.UNKNOWN_CONTAINER, CniError.INVALID_ENVIRONMENT_VARIABLES);
    }

    @Test
    void failuresAreUncheckedCniExceptionsSoCallsComposeWithLambdas() throws Exception {
        FakePlugin.create(bin, "b").fail("ADD", "{\"code\":11,\"msg\":\"busy\"}", 1);
        NetworkConfigList net = list("b");
        List<RuntimeConf> containers = List.of(rt, rt.withContainerId("ctr-2"));
        List<Integer> codes = new ArrayList<>();
        containers.forEach(c -> {
            try {
                runtime.addNetworkList(net, c);
            } catch (io.jcni.spec.CniException failure) {
                codes.add(failure.code());
            }
        });
        assertThat(codes).containsExactly(11, 11);
    }

    private static void write(java.io.OutputStream out, String text) {
        try {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
