package io.jcni.it.teardown;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What these tests run against, required rather than assumed: a missing Go peer, plugin or tool fails the test (only
 * root, which the whole networking suite needs, skips it).
 */
final class Peers {
    /** What the tests run of both sets. */
    static final List<String> TYPES = List.of("bridge", "ptp", "host-local", "portmap", "bandwidth", "firewall",
            "tuning", "macvlan", "sbr");
    /** What they run of jcni's only (Go 1.1.1 has neither). */
    static final List<String> JCNI_ONLY = List.of("tap", "cluster-ipam");

    private Peers() {
    }

    static void require(boolean jcniPlugins) {
        Prerequisites.assumeRoot();
        for (String tool : List.of("ip", "nft", "tc")) {
            assertThat(Prerequisites.onPath(tool)).as("%s on PATH (scripts/setup installs it)", tool).isTrue();
        }
        executable(Locations.libcniDriver(), "the Go libcni driver: it/scripts/build-go-tools.sh (scripts/setup "
                + "installs golang-go and golang-github-appc-cni-dev)");
        for (String type : TYPES) {
            if (jcniPlugins) {
                executable(Locations.distPlugin(type), "jcni's plugin: ./mvnw -B package");
            } else {
                executable(Locations.referencePlugin(type), "Debian's Go plugin: package containernetworking-plugins");
            }
        }
        if (jcniPlugins) {
            for (String type : JCNI_ONLY) {
                executable(Locations.distPlugin(type), "jcni's plugin: ./mvnw -B package");
            }
            executable(Locations.distJcni(), "the jcni CLI: ./mvnw -B package");
        }
    }

    private static void executable(Path file, String what) {
        assertThat(Files.isExecutable(file)).as("%s is missing: %s", file, what).isTrue();
    }
}
