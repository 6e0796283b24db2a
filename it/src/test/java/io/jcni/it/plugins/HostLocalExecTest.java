package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * host-local through its launcher, as a runtime execs it: many processes at once on one data directory, SIGKILL in
 * the middle of an ADD, and the data directory of Debian's Go host-local shared both ways.
 */
class HostLocalExecTest {
    static final Pattern ADDRESS = Pattern.compile("\"address\": \"([0-9a-f.:]+)/(\\d+)\"");

    @TempDir
    Path tmp;

    @BeforeAll
    static void distIsBuilt() {
        Prerequisites.assumeDistPlugins("host-local");
    }

    static String conf(String network, Path dataDir, String ranges) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + dataDir + "\",\"ranges\":" + ranges + "}}";
    }

    static Map<String, String> env(String command, String containerId) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("CNI_CONTAINERID", containerId);
        env.put("CNI_NETNS", "/var/run/netns/jcni-sdk-none");
        env.put("CNI_IFNAME", "eth0");
        env.put("CNI_PATH", Locations.distCniBin().toString());
        return env;
    }

    static ProcessResult exec(Path plugin, String command, String containerId, String conf) {
        return Processes.run(List.of(plugin.toString()), env(command, containerId), conf, Duration.ofSeconds(60));
    }

    /** The reservation files of a network directory (Go's lock and last_reserved_ip files excluded). */
    static List<String> reservations(Path networkDir) {
        return HostLocalFiles.reservations(networkDir.getParent(), networkDir.getFileName().toString());
    }

    /**
     * Two shell processes, each running 100 ADDs through the launcher 8 at a time (xargs -P), at the same moment on
     * one data directory: 200 distinct addresses, each file naming its container; then all DELs the same way leave
     * no reservation behind.
     */
    @Test
    void twoProcessesOfAHundredParallelAddsGetDistinctAddressesAndDelsLeaveNothing() throws Exception {
        Path dataDir = tmp.resolve("data");
        String conf = conf("par", dataDir, "[[{\"subnet\":\"10.150.0.0/16\"}]]");
        Path confFile = Files.writeString(tmp.resolve("conf.json"), conf);
        Path results = Files.createDirectory(tmp.resolve("results"));
        Path plugin = Locations.distPlugin("host-local");
        // One file per call: "<container> <status>" then the plugin's stdout.
        String worker = "cid=$1; out=" + results + "/$cid; CNI_CONTAINERID=$cid \"" + plugin + "\" < " + confFile
                + " > $out.json 2> $out.err; echo $? > $out.rc";
        List<Process> drivers = new ArrayList<>();
        for (String group : List.of("a", "b")) {
            drivers.add(driver(group, "ADD", worker));
        }
        for (Process driver : drivers) {
            assertThat(driver.waitFor(10, TimeUnit.MINUTES)).isTrue();
            assertThat(driver.exitValue()).isZero();
        }
        Set<String> addresses = new HashSet<>();
        for (String group : List.of("a", "b")) {
            for (int i = 0; i < 100; i++) {
                String cid = "par-" + group + "-" + i;
                String rc = Files.readString(results.resolve(cid + ".rc")).strip();
                String out = Files.readString(results.resolve(cid + ".json"));
                assertThat(rc).as("%s: %s / %s", cid, out, Files.readString(results.resolve(cid + ".err")))
                        .isEqualTo("0");
                Matcher m = ADDRESS.matcher(out);
                assertThat(m.find()).as(out).isTrue();
                assertThat(addresses.add(m.group(1))).as("%s got a duplicate address %s", cid, m.group(1)).isTrue();
                assertThat(Files.readString(dataDir.resolve("par").resolve(m.group(1))))
                        .isEqualTo(cid + "\r\neth0");
            }
        }
        assertThat(addresses).hasSize(200);
        assertThat(reservations(dataDir.resolve("par"))).hasSize(200);

        drivers.clear();
        for (String group : List.of("a", "b")) {
            drivers.add(driver(group, "DEL", worker));
        }
        for (Process driver : drivers) {
            assertThat(driver.waitFor(10, TimeUnit.MINUTES)).isTrue();
        }
        for (String group : List.of("a", "b")) {
            for (int i = 0; i < 100; i++) {
                String cid = "par-" + group + "-" + i;
                assertThat(Files.readString(results.resolve(cid + ".rc")).strip()).as(cid).isEqualTo("0");
            }
        }
        assertThat(reservations(dataDir.resolve("par"))).isEmpty();
    }

    private Process driver(String group, String command, String worker) throws IOException {
        StringBuilder ids = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            ids.append("par-").append(group).append('-').append(i).append('\n');
        }
        ProcessBuilder builder = new ProcessBuilder("sh", "-c",
                "xargs -P 8 -I{} sh -c '" + worker.replace("'", "'\\''") + "' _ {}");
        builder.environment().putAll(env(command, "unused"));
        builder.redirectErrorStream(true);
        builder.redirectOutput(tmp.resolve("driver-" + group + "-" + command + ".log").toFile());
        Process process = builder.start();
        process.getOutputStream().write(ids.toString().getBytes(StandardCharsets.US_ASCII));
        process.getOutputStream().close();
        return process;
    }

    /**
     * SIGKILL at points spread over an ADD's whole run (JVM start to exit), then DEL of that container: nothing of it
     * is left, and the next ADD and DEL work on the same directory.
     */
    @Test
    void killDashNineDuringAnAddThenDelLeavesNoReservation() throws Exception {
        Path dataDir = tmp.resolve("data");
        String conf = conf("kill", dataDir, "[[{\"subnet\":\"10.151.0.0/24\"}],[{\"subnet\":\"fd51::/64\"}]]");
        Path plugin = Locations.distPlugin("host-local");
        // Calibrate: how long one ADD takes here, so that the kills cover its run. The fastest of three: on a loaded
        // machine one slow ADD would spread the kills past the end of most runs, and too few would be killed.
        long addMillis = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            assertThat(exec(plugin, "ADD", "calibrate", conf).exitCode()).isZero();
            addMillis = Math.min(addMillis, (System.nanoTime() - start) / 1_000_000);
            assertThat(exec(plugin, "DEL", "calibrate", conf).exitCode()).isZero();
        }

        int killed = 0;
        for (int step = 0; step < 16; step++) {
            String cid = "kill-" + step;
            long delay = addMillis * step / 12;
            ProcessBuilder builder = new ProcessBuilder(plugin.toString());
            builder.environment().putAll(env("ADD", cid));
            builder.redirectErrorStream(true);
            builder.redirectOutput(tmp.resolve(cid + ".out").toFile());
            Process add = builder.start();
            add.getOutputStream().write(conf.getBytes(StandardCharsets.UTF_8));
            add.getOutputStream().close();
            Thread.sleep(delay);
            // SIGKILL (the launcher execs the JVM, so this is the JVM itself). The ADD may finish between any check
            // and the signal, so a kill is counted only when the exit status says SIGKILL ended it (128 + 9).
            add.destroyForcibly();
            assertThat(add.waitFor(60, TimeUnit.SECONDS)).isTrue();
            if (add.exitValue() == 137) {
                killed++;
            }

            ProcessResult del = exec(plugin, "DEL", cid, conf);
            assertThat(del.exitCode()).as(del.describe()).isZero();
            for (String file : reservations(dataDir.resolve("kill"))) {
                assertThat(Files.readString(dataDir.resolve("kill").resolve(file))).as("file %s", file)
                        .doesNotStartWith(cid + "\r");
            }
            assertThat(reservations(dataDir.resolve("kill"))).as("after kill at %d ms and DEL", delay).isEmpty();
        }
        assertThat(killed).as("some ADDs must actually have been killed").isGreaterThan(4);

        ProcessResult add = exec(plugin, "ADD", "after", conf);
        assertThat(add.exitCode()).as(add.describe()).isZero();
        assertThat(reservations(dataDir.resolve("kill"))).hasSize(2);
        assertThat(exec(plugin, "DEL", "after", conf).exitCode()).isZero();
        assertThat(reservations(dataDir.resolve("kill"))).isEmpty();
    }

    /** Go host-local and ours on one data directory, one after the other, each seeing the other's reservations. */
    @Test
    void goAndJcniShareADataDirectoryBothWays() throws Exception {
        Prerequisites.assumeReferencePlugins("host-local");
        Path dataDir = tmp.resolve("data");
        String conf = conf("shared", dataDir, "[[{\"subnet\":\"10.152.0.0/29\"}]]");
        Path ours = Locations.distPlugin("host-local");
        Path go = Locations.referencePlugin("host-local");
        Path dir = dataDir.resolve("shared");

        assertThat(exec(go, "ADD", "go-1", conf).stdout()).contains("10.152.0.2/29");
        assertThat(exec(ours, "ADD", "jcni-1", conf).stdout()).as("ours skips Go's reservation")
                .contains("10.152.0.3/29");
        assertThat(exec(go, "ADD", "go-2", conf).stdout()).as("Go follows our last_reserved_ip")
                .contains("10.152.0.4/29");
        assertThat(exec(ours, "ADD", "go-1", conf).stdout()).as("ours returns Go's reservation for the same "
                + "attachment").contains("10.152.0.2/29");
        assertThat(exec(ours, "CHECK", "go-2", conf).exitCode()).as("ours finds Go's reservation").isZero();
        assertThat(exec(ours, "DEL", "go-1", conf).exitCode()).isZero();
        assertThat(reservations(dir)).containsExactly("10.152.0.3", "10.152.0.4");
        assertThat(exec(go, "DEL", "jcni-1", conf).exitCode()).as("Go releases ours").isZero();
        assertThat(reservations(dir)).containsExactly("10.152.0.4");
        assertThat(exec(ours, "ADD", "jcni-2", conf).stdout()).contains("10.152.0.5/29");
        assertThat(exec(go, "ADD", "go-3", conf).stdout()).contains("10.152.0.6/29");
        assertThat(exec(ours, "ADD", "jcni-3", conf).stdout()).as("wraps around to the first free").contains(
                "10.152.0.2/29");
        assertThat(exec(go, "ADD", "go-4", conf).stdout()).contains("10.152.0.3/29");
        ProcessResult full = exec(ours, "ADD", "jcni-4", conf);
        assertThat(full.exitCode()).isEqualTo(1);
        assertThat(full.stdout()).contains("no IP addresses available in range set: 10.152.0.1-10.152.0.6");
        for (String cid : List.of("go-2", "jcni-2", "go-3", "jcni-3", "go-4")) {
            assertThat(exec(cid.startsWith("go") ? ours : go, "DEL", cid, conf).exitCode()).isZero();
        }
        assertThat(reservations(dir)).isEmpty();
    }
}
