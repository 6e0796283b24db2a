package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.plugins.Plugins;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Skel;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A runtime's deadline and cancellation reaching jcni's plugins run in-process, at their real blocking points: an
 * in-process host-local waiting for its data directory's lock (held by another process, as a Go host-local holds it),
 * and an in-process plugin waiting for a delegated IPAM plugin that hangs (exec'd, so killed). Each call ends at its
 * limit, reports it, and leaves nothing: no reservation, no cache entry, no process, no interrupt behind.
 */
class InProcessDeadlineTest {
    @TempDir
    Path tmp;

    /** Holds {@code <dataDir>/<network>/lock} with {@code flock(1)}, as another host-local would, until closed. */
    private Process holdLock(Path networkDir) throws Exception {
        Files.createDirectories(networkDir);
        Path ready = tmp.resolve("holding");
        Process holder = new ProcessBuilder("flock", "--exclusive", networkDir.resolve("lock").toString(), "sh",
                "-c", "touch " + ready + "; exec sleep 120").start();
        for (int i = 0; i < 1000 && !Files.exists(ready); i++) {
            Thread.sleep(10);
        }
        assertThat(ready).exists();
        return holder;
    }

    /** Ends the holder and the command it runs under the lock (which holds the lock's descriptor too). */
    private static void release(Process holder) throws InterruptedException {
        holder.descendants().forEach(ProcessHandle::destroyForcibly);
        holder.destroyForcibly().waitFor();
    }

    private NetworkConfigList hostLocalNetwork(Path dataDir) {
        return CniJson.decodeNetworkConfigList(("""
                {"cniVersion":"1.0.0","name":"ipd-hl","plugins":[{"type":"host-local","ipam":{"type":"host-local",\
                "dataDir":"%s","ranges":[[{"subnet":"10.79.0.0/24"}]]}}]}""").formatted(dataDir).getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> reservations(Path networkDir) throws Exception {
        try (Stream<Path> files = Files.list(networkDir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("10.")).sorted().toList();
        }
    }

    @Test
    void anInProcessHostLocalWaitingForItsLockStopsAtTheDeadlineAndReservesNothing() throws Exception {
        Path dataDir = tmp.resolve("data");
        Path networkDir = dataDir.resolve("ipd-hl");
        NetworkConfigList list = hostLocalNetwork(dataDir);
        RuntimeConf rt = new RuntimeConf("ipd-1", "/var/run/netns/jcni-ipd-none", "eth0");
        try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.distCniBin()))
                .withCacheDir(tmp.resolve("cache")).withInProcess(Plugins.inProcess()))) {
            Process holder = holdLock(networkDir);
            try {
                long start = System.nanoTime();
                CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                        () -> runtime.withTimeout(Duration.ofMillis(800)).addNetworkList(list, rt));
                long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

                assertThat(e.timedOut()).as("%s", e).isTrue();
                assertThat(e.pluginType()).isEqualTo("host-local");
                assertThat(e.getMessage()).contains("interrupted while waiting for the lock");
                assertThat(elapsedMillis).as("ended near its deadline, not with the lock").isLessThan(30_000);
                assertThat(holder.isAlive()).as("the lock was never taken from its holder").isTrue();
                assertThat(Thread.currentThread().isInterrupted()).isFalse();
                assertThat(reservations(networkDir)).isEmpty();
                assertThat(tmp.resolve("cache/results/ipd-hl-ipd-1-eth0")).doesNotExist();
            } finally {
                release(holder);
            }
            // Nothing of the first ADD is left: the same attachment gets the first address.
            Result result = Result.from(runtime.addNetworkList(list, rt));
            assertThat(result.ips()).extracting(ip -> ip.address().toString()).containsExactly("10.79.0.2/24");
            runtime.delNetworkList(list, rt);
            assertThat(reservations(networkDir)).isEmpty();
        }
    }

    @Test
    void interruptingTheCallerCancelsAnInProcessLockWait() throws Exception {
        Path dataDir = tmp.resolve("data");
        Path networkDir = dataDir.resolve("ipd-hl");
        NetworkConfigList list = hostLocalNetwork(dataDir);
        RuntimeConf rt = new RuntimeConf("ipd-2", "/var/run/netns/jcni-ipd-none", "eth0");
        try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.distCniBin()))
                .withCacheDir(tmp.resolve("cache")).withInProcess(Plugins.inProcess()))) {
            Process holder = holdLock(networkDir);
            try {
                AtomicReference<Throwable> thrown = new AtomicReference<>();
                AtomicBoolean interruptedAfter = new AtomicBoolean();
                Thread caller = Thread.ofPlatform().start(() -> {
                    try {
                        runtime.addNetworkList(list, rt);
                    } catch (Throwable t) {
                        thrown.set(t);
                    }
                    interruptedAfter.set(Thread.currentThread().isInterrupted());
                });
                Thread.sleep(300);
                assertThat(caller.isAlive()).as("waiting for the lock").isTrue();
                caller.interrupt();
                caller.join(TimeUnit.SECONDS.toMillis(30));

                assertThat(caller.isAlive()).isFalse();
                assertThat(thrown.get()).isInstanceOfSatisfying(CniRuntimeException.class, e -> {
                    assertThat(e.interrupted()).isTrue();
                    assertThat(e.timedOut()).isFalse();
                });
                assertThat(interruptedAfter).isTrue();
                assertThat(reservations(networkDir)).isEmpty();
            } finally {
                release(holder);
            }
        }
    }

    /** A plugin that delegates to its IPAM and nothing else, in-process. */
    static final class Delegator implements CniPlugin {
        @Override
        public CniResult add(CniRequest request) throws CniException {
            return request.ipam().add();
        }

        @Override
        public void del(CniRequest request) throws CniException {
            request.ipam().del();
        }

        @Override
        public void check(CniRequest request) throws CniException {
            request.ipam().check();
        }
    }

    /**
     * The delegate, exec'd from CNI_PATH, hangs in its ADD: at the deadline the in-process plugin's thread is
     * interrupted, the delegate is killed, and, since it could not undo its own partial work, sent DEL.
     */
    @Test
    void aDelegateThatHangsIsKilledAtTheDeadlineAndSentDel() throws Exception {
        Prerequisites.assumeGoTools();
        Path record = tmp.resolve("calls.jsonl");
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("JCNI_TRIVIAL_MODE", "hang");
        env.put("JCNI_TRIVIAL_MODE_ON", "ADD");
        env.put("JCNI_TRIVIAL_RECORD", record.toString());
        InProcessPlugin delegator = Skel.of("delegator", new Delegator(), CniVersion.SUPPORTED)
                .withDelegates(Plugins.inProcess());
        NetworkConfigList list = CniJson.decodeNetworkConfigList("""
                {"cniVersion":"1.0.0","name":"ipd-dg","plugins":[{"type":"delegator",\
                "ipam":{"type":"trivial-plugin"}}]}""".getBytes(StandardCharsets.UTF_8));
        RuntimeConf rt = new RuntimeConf("ipd-3", "/var/run/netns/jcni-ipd-none", "eth0");
        try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(List.of(Locations.goBin()))
                .withCacheDir(tmp.resolve("cache")).withEnvironment(env)
                .withInProcess(InProcessPlugins.of(Map.of("delegator", delegator))))) {

            CniRuntimeException e = catchThrowableOfType(CniRuntimeException.class,
                    () -> runtime.withTimeout(Duration.ofMillis(800)).addNetworkList(list, rt));

            assertThat(e.timedOut()).as("%s", e).isTrue();
            assertThat(e.pluginType()).isEqualTo("delegator");
            List<String> commands = new ArrayList<>();
            for (String line : Files.readAllLines(record)) {
                JsonNode call = Json.parse(line);
                commands.add(call.path("command").asText());
            }
            assertThat(commands).containsExactly("ADD", "DEL");
            String plugin = Locations.trivialPlugin().toString();
            assertThat(ProcessHandle.allProcesses().filter(p -> p.info().command().orElse("").equals(plugin)))
                    .as("trivial-plugin processes still running").isEmpty();
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        }
    }
}
