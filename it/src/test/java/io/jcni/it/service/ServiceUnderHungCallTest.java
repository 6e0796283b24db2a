package io.jcni.it.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, "Done when" 1: with one call hung for ever in the service, ADD, DEL, CHECK and GC of other networks keep
 * their normal latency: p99 within 2x of the unloaded figure, measured in the same run, through {@code jcni serve}
 * and the dist's clients, as a runtime runs them.
 *
 * <p>Loaded means: a call that never ends (a bridge DEL whose IPAM delegate never answers, its client waiting; or a
 * cluster-ipam ADD whose credentials file is a FIFO, its client waiting) and a GC of that call's network sent after it
 * and kept in flight (sent again whenever it gives up). Unloaded and loaded phases alternate, so that the machine's
 * own load (other builds share it) hits both alike. Before issue 23 the first loaded call never returned: the GC took
 * the service-wide lock behind the hung call, and everything queued behind the GC.
 *
 * <p>What is measured: the client's whole exec (spawn, socket round trip, host-local in the service), 400 calls of
 * each verb in each condition, on network "fast", in 40 alternations of the two. The p99 of a few hundred calls is the
 * few slowest, which a neighbour's build on this shared machine can make in either condition: a run that misses the
 * bound is measured once more (both runs print their figures). A stalled service misses it by orders of magnitude
 * (its calls time out after 20 s), in every run.
 */
class ServiceUnderHungCallTest {
    private static final int ROUNDS = 40;
    private static final int PER_ROUND = 10;
    /** A run whose p99s miss the bound is measured once more: a neighbour's build can take a few calls' time. */
    private static final int ATTEMPTS = 2;
    private static final Duration CALL_LIMIT = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "hung in {0}")
    @ValueSource(strings = {"a delegate", "a FIFO credentials file"})
    void otherNetworksKeepTheirLatencyWhileACallHangsAndAGcOfItsNetworkWaits(String how) throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("host-local", "bridge", "cluster-ipam");
        try (ServiceLab lab = ServiceLab.start(tmp, "--call-timeout", "3600")) {
            lab.hangingIpam("hang-ipam");
            Path credentials = lab.fifo("credentials");
            String fast = lab.hostLocal("fast", "10.97.0.0/16");
            String hungConf = how.equals("a delegate") ? ServiceLab.bridgeWithIpam("stuck", "hang-ipam")
                    : ServiceLab.clusterIpamWithCredentials("stuck", credentials);
            String hungType = how.equals("a delegate") ? "bridge" : "cluster-ipam";
            String hungCommand = how.equals("a delegate") ? "DEL" : "ADD";
            String stuckGc = ServiceLab.withValid(lab.hostLocal("stuck", "10.98.0.0/24"), "[]");

            ProcessResult served = lab.call("host-local", "VERSION", "", "", CALL_LIMIT);
            assertThat(served.exitCode()).as(served.describe()).isZero();

            String figures = "";
            for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
                Map<String, List<Duration>> unloaded = new LinkedHashMap<>();
                Map<String, List<Duration>> loaded = new LinkedHashMap<>();
                int n = 0;
                for (int round = 0; round < ROUNDS; round++) {
                    n = measure(lab, fast, unloaded, n);
                    // The hung call, then a GC of its network behind it, kept in flight while the other network runs.
                    Process hung = lab.startClient(hungType, hungCommand, hungConf, "hung-" + attempt + "-" + round);
                    Thread.sleep(100);
                    AtomicBoolean on = new AtomicBoolean(true);
                    Thread collector = Thread.ofVirtual().start(() -> {
                        while (on.get()) {
                            lab.call("host-local", "GC", stuckGc, "", Duration.ofMinutes(2));
                            pause(); // one in flight, as a runtime sends them: not a load of its own
                        }
                    });
                    Thread repeater = Thread.ofVirtual().start(() -> {
                        // The FIFO case: each such call is refused at once now; keep one coming, as a runtime retries.
                        while (on.get() && !how.equals("a delegate")) {
                            lab.call(hungType, hungCommand, hungConf, "again-" + System.nanoTime(), CALL_LIMIT);
                            pause();
                        }
                    });
                    Thread.sleep(100);
                    n = measure(lab, fast, loaded, n);
                    on.set(false);
                    hung.destroyForcibly().waitFor(); // the runtime's timeout: the service cancels the call
                    collector.join(Duration.ofMinutes(3));
                    repeater.join(Duration.ofMinutes(1));
                }
                StringBuilder line = new StringBuilder("hung in " + how + ", attempt " + attempt + ": p99 ms unloaded"
                        + " -> loaded (ratio), " + unloaded.get("ADD").size() + " calls of each:");
                boolean within = true;
                for (String verb : unloaded.keySet()) {
                    double u = ServiceLab.percentile(unloaded.get(verb), 99);
                    double l = ServiceLab.percentile(loaded.get(verb), 99);
                    within &= l / u <= 2.0;
                    line.append(String.format(" %s %.2f -> %.2f (%.2fx; p50 %.2f -> %.2f)", verb, u, l, l / u,
                            ServiceLab.percentile(unloaded.get(verb), 50),
                            ServiceLab.percentile(loaded.get(verb), 50)));
                }
                System.out.println(line);
                figures = line.toString();
                if (within) {
                    return;
                }
            }
            throw new AssertionError("a p99 with the hung call is more than 2x the unloaded one in every attempt: "
                    + figures);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * {@link #PER_ROUND} ADD, CHECK, DEL and GC of network "fast", each timed, each required to succeed: returns the
     * next container number.
     */
    private static int measure(ServiceLab lab, String fast, Map<String, List<Duration>> into, int n) {
        for (int i = 0; i < PER_ROUND; i++, n++) {
            String container = "c" + n;
            for (String verb : List.of("ADD", "CHECK", "DEL", "GC")) {
                String conf = verb.equals("GC") ? ServiceLab.withValid(fast, "[]") : fast;
                ProcessResult r = lab.call("host-local", verb, conf, container, CALL_LIMIT);
                assertThat(r.exitCode()).as(verb + " " + container + ": " + r.describe()).isZero();
                into.computeIfAbsent(verb, v -> new ArrayList<>()).add(r.elapsed());
            }
        }
        return n;
    }
}
