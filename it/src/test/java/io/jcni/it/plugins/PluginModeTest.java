package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The suite runs twice (see the it module's pom): this proves which way each run's plugin calls really went, so that
 * the service run cannot pass by quietly falling back to the JVM launchers, nor the exec run by using a service.
 */
class PluginModeTest {
    @Test
    void thePluginClientsOfThisRunGoTheWayTheRunSays() {
        Prerequisites.assumeDistPlugins("static", "bridge");
        for (String type : List.of("static", "bridge")) {
            ProcessResult result = Processes.run(List.of(Locations.distPlugin(type).toString()),
                    Map.of("CNI_COMMAND", "VERSION", "JCNI_DEBUG", "1"), null, Duration.ofSeconds(60));
            assertThat(result.exitCode()).as(result.describe()).isZero();
            assertThat(result.stderr()).as(result.describe())
                    .contains(type + ": VERSION " + Locations.skelMode() + ", pid");
            if (Locations.viaService()) {
                assertThat(result.stderr()).doesNotContain("running the JVM launcher");
            } else {
                assertThat(result.stderr()).contains("JCNI_SERVICE_SOCKET: off; running the JVM launcher");
            }
        }
    }
}
