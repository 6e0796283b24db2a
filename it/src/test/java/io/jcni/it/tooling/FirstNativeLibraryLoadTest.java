package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression: an exec'd portmap died with SIGSEGV in its first young collection ({@code
 * markWord::displaced_mark_helper}), about once in 15,000 starts under load, in CI too. Its crash report showed libnet's
 * {@code NativeLibraryImpl} with the mark word 0x00010002 (libnet's JNI version) and its {@code jniVersion} field 0:
 * the JDK's {@code NativeLibraries.c} caches its field IDs unsynchronized on the first library load, and the launcher's
 * main thread (libnet) and the FFM preparation thread (libsyslookup) made their first loads at once. The launcher now
 * makes one load on the main thread before the preparation thread starts; this test reads the JVM's own library and
 * thread log ({@code -Xlog:library,os+thread}) and checks that order, which no timing can change: the thread that
 * loads libsyslookup comes alive only after another thread's load has finished.
 */
class FirstNativeLibraryLoadTest {
    private static final Pattern LINE = Pattern.compile("^\\[[0-9.]+s\\]\\[(\\d+)\\] (.*)$");
    private static final Pattern ALIVE = Pattern.compile("Thread is alive \\(tid: (\\d+),");

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"portmap", "firewall", "bandwidth"})
    void aJdkLibraryIsLoadedBeforeTheFfmPreparationThreadStarts(String type) {
        Prerequisites.assumeDistPlugins(type);
        // STATUS: these plugins ask the kernel whether nftables or tc answer, so the call waits for the preparation
        // (which the launcher starts for every verb but VERSION), and it changes nothing on the machine.
        ProcessResult run = Processes.run(List.of(Locations.distJvmPlugin(type).toString()),
                Map.of("CNI_COMMAND", "STATUS", "CNI_PATH", Locations.distCniBin().toString(), "JCNI_JAVA_OPTS",
                        "-Xlog:library=info,os+thread=info:stderr:uptime,tid"),
                "{\"cniVersion\":\"1.1.0\",\"name\":\"first-load\",\"type\":\"" + type + "\"}",
                Duration.ofSeconds(60));
        assertThat(run.exitCode()).as(run.describe()).isZero();
        List<String> log = run.stderr().lines().toList();

        String preparer = null;
        for (String line : log) {
            Matcher m = LINE.matcher(line);
            if (m.matches() && m.group(2).startsWith("Loaded library ") && m.group(2).contains("libsyslookup.so")) {
                preparer = m.group(1);
            }
        }
        assertThat(preparer).as("the FFM preparation loads libsyslookup:%n%s", run.stderr()).isNotNull();
        int alive = -1;
        int firstOtherLoad = -1;
        for (int i = 0; i < log.size(); i++) {
            Matcher m = LINE.matcher(log.get(i));
            if (!m.matches()) {
                continue;
            }
            Matcher a = ALIVE.matcher(m.group(2));
            if (alive < 0 && a.find() && a.group(1).equals(preparer)) {
                alive = i;
            }
            if (firstOtherLoad < 0 && m.group(2).startsWith("Loaded library ") && !m.group(1).equals(preparer)) {
                firstOtherLoad = i;
            }
        }
        assertThat(alive).as("the preparation thread's start is logged").isNotNegative();
        assertThat(firstOtherLoad).as("a library load on the main thread before the preparation thread is alive:%n%s",
                run.stderr()).isNotNegative().isLessThan(alive);
    }
}
