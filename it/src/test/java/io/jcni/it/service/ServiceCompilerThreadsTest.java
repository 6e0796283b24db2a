package io.jcni.it.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25: the shipped {@code jcni serve} puts its JVM's JIT compiler threads, and only those, under SCHED_IDLE at
 * start, read back from the kernel ({@code /proc/<pid>/task/<tid>/stat}, field 41: the policy) of the running
 * service, and says how many in its debug log.
 */
class ServiceCompilerThreadsTest {
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;

    @TempDir
    Path tmp;

    @Test
    void theCompilerThreadsAndNoOtherRunUnderSchedIdle() throws Exception {
        Prerequisites.assumeRoot();
        Path socket = tmp.resolve("svc/plugins.sock");
        try (PluginServiceProcess service = PluginServiceProcess.start(socket, List.of("--warm-up", "0"),
                Map.of("JCNI_DEBUG", "1"))) {
            List<String> idle = new ArrayList<>();
            int others = 0;
            try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/" + service.pid() + "/task"))) {
                for (Path task : tasks) {
                    String stat;
                    try {
                        stat = Files.readString(task.resolve("stat"));
                    } catch (IOException ended) {
                        continue; // a thread that ended since the listing
                    }
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    int policy = Integer.parseInt(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[41 - 3]);
                    if (name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre")) {
                        assertThat(policy).as(name).isEqualTo(SCHED_IDLE);
                        idle.add(name);
                    } else {
                        assertThat(policy).as(name).isEqualTo(SCHED_OTHER);
                        others++;
                    }
                }
            }
            assertThat(idle).as("a C1 and a C2 compiler thread").anyMatch(n -> n.startsWith("C1"))
                    .anyMatch(n -> n.startsWith("C2"));
            assertThat(others).as("the service's other threads").isPositive();
            assertThat(service.log()).contains("jcni serve: JIT compiler threads under SCHED_IDLE: " + idle.size() + "\n");
        }
    }
}
