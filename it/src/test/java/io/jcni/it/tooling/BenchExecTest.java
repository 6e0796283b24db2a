package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's bench-exec prints a consistent report: as many durations as requested, all positive, and summary
 * figures that agree with them. (No timing is asserted: the numbers belong in the benchmark report.)
 */
class BenchExecTest {

    private static final int N = 20;

    @TempDir
    Path tmp;

    private LibcniDriver driver;

    @BeforeEach
    void driver() {
        Prerequisites.assumeGoTools();
        driver = LibcniDriver.create(List.of(Locations.goBin()), tmp.resolve("cache"));
    }

    @Test
    void versionExecsOfTheTrivialPluginAreTimedOneByOne() {
        JsonNode report = driver.benchVersion(Locations.TRIVIAL_PLUGIN_TYPE, N).answer();

        assertThat(report.path("command").asText()).isEqualTo("VERSION");
        assertThat(report.path("level").asText()).isEqualTo("invoke");
        assertConsistent(report);
    }

    @Test
    void addExecsOfTheTrivialPluginAreTimedOneByOne() throws IOException {
        Path conf = Files.writeString(tmp.resolve("trivial.conf"),
                "{\"cniVersion\":\"1.0.0\",\"name\":\"iop-bench\",\"type\":\"trivial-plugin\"}");

        JsonNode report = driver.benchExec(Locations.TRIVIAL_PLUGIN_TYPE, "ADD", conf,
                Path.of("/var/run/netns/jcni-iop-absent"), Attachment.of("iop-bench", "eth0"), N).answer();

        assertThat(report.path("command").asText()).isEqualTo("ADD");
        assertConsistent(report);
    }

    private static void assertConsistent(JsonNode report) {
        assertThat(report.path("plugin").asText()).isEqualTo(Locations.TRIVIAL_PLUGIN_TYPE);
        assertThat(report.path("n").asInt()).isEqualTo(N);
        var durations = new ArrayList<Long>();
        report.path("durationsNs").forEach(d -> durations.add(d.asLong()));
        assertThat(durations).hasSize(N).allSatisfy(d -> assertThat(d).isPositive());
        durations.sort(Comparator.naturalOrder());
        long median = (durations.get(N / 2 - 1) + durations.get(N / 2)) / 2;
        assertThat(report.path("medianNs").asLong()).isEqualTo(median);
        assertThat(report.path("minNs").asLong()).isEqualTo(durations.getFirst());
        assertThat(report.path("maxNs").asLong()).isEqualTo(durations.getLast());
        long sum = durations.stream().mapToLong(Long::longValue).sum();
        assertThat(report.path("meanNs").asLong()).isEqualTo(sum / N);
    }
}
