package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the plugins' jlink image is made of. spec-model reads Jackson only for its optional databind adapters
 * ({@code requires static}), so the image, built from plugins-core's runtime dependencies, holds none of it: a Jackson
 * module there would be loaded by no plugin and cost every exec a larger image and AOT cache.
 */
class ImageContentsTest {

    @Test
    void theImageHoldsJcnisModulesAndNoJackson() {
        Prerequisites.assumeDistPlugins("static");
        ProcessResult modules = Processes.check(Locations.dist().resolve("image/bin/java").toString(),
                "--list-modules");
        List<String> names = modules.stdout().lines().map(line -> line.replaceFirst("@.*", "")).toList();

        assertThat(names).contains("io.jcni.spec", "io.jcni.runtime", "io.jcni.netlink", "io.jcni.plugins",
                "java.base");
        assertThat(names).noneMatch(name -> name.startsWith("com.fasterxml"));
    }
}
