package io.jcni.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JcniLaunchersTest {
    @TempDir
    Path dir;

    @Test
    void versionIsTheFilteredProjectVersion() {
        String projectVersion = System.getProperty("jcni.project.version");
        assertThat(projectVersion).as("the build passes ${project.version} (runtime's pom)").isNotBlank();
        assertThat(JcniLaunchers.version()).matches("\\d+\\.\\d+\\.\\d+(-SNAPSHOT)?").isEqualTo(projectVersion);
    }

    @Test
    void theModuleDescriptorAndTheResourceNameTheSameVersion() {
        assertThat(JcniLaunchersTest.class.getModule().isNamed()).as("tests run on the module path").isTrue();
        assertThat(JcniLaunchers.class.getModule().getDescriptor().rawVersion()).as("javac's --module-version")
                .contains(JcniLaunchers.resourceVersion());
        assertThat(JcniLaunchers.version()).isEqualTo(JcniLaunchers.resourceVersion());
    }

    @Test
    void fieldsOfTheMarkerMaySitAnySpacesApartButThereAreTwo() throws IOException {
        String version = JcniLaunchers.version();
        Path spaced = ScriptPlugins.write(dir, "spaced", "# jcni-launcher: plugin=ptp    version=" + version + "  ");
        Path three = ScriptPlugins.write(dir, "three", "# jcni-launcher: plugin=ptp version=" + version + " x=1");
        Path one = ScriptPlugins.write(dir, "one", "# jcni-launcher: plugin=ptp");

        assertThat(JcniLaunchers.pluginType(spaced)).contains("ptp");
        assertThat(JcniLaunchers.pluginType(three)).isEmpty();
        assertThat(JcniLaunchers.pluginType(one)).isEmpty();
    }

    @Test
    void markerLineHasTheAgreedShape() {
        assertThat(JcniLaunchers.markerLine("host-local"))
                .isEqualTo("# jcni-launcher: plugin=host-local version=" + JcniLaunchers.version());
    }

    @Test
    void markerLineRefusesWhatCannotBeAType() {
        assertThatThrownBy(() -> JcniLaunchers.markerLine("../bridge")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JcniLaunchers.markerLine("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> JcniLaunchers.markerLine("a b")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLauncherIsRecognizedDirectlyAndThroughASymlink() throws IOException {
        Path launcher = ScriptPlugins.write(dir, "bridge", JcniLaunchers.markerLine("bridge") + "\nexec true");
        Path link = Files.createSymbolicLink(dir.resolve("my-bridge"), launcher);

        assertThat(JcniLaunchers.pluginType(launcher)).contains("bridge");
        assertThat(JcniLaunchers.pluginType(link)).as("the type comes from the launcher, not the link's name")
                .contains("bridge");
    }

    @Test
    void aLauncherOfAnotherJcniVersionIsNotRecognized() throws IOException {
        Path other = ScriptPlugins.write(dir, "bridge", "# jcni-launcher: plugin=bridge version=0.0.1-other");
        assertThat(JcniLaunchers.pluginType(other)).isEmpty();
    }

    @Test
    void filesWithoutTheMarkerAreNotLaunchers() throws IOException {
        Path plain = ScriptPlugins.write(dir, "plain", "# jcni-launcher plugin=bridge version=" + JcniLaunchers.version());
        Path binary = Files.write(dir.resolve("binary"), new byte[] {0x7f, 'E', 'L', 'F', 0, 1, 2});

        assertThat(JcniLaunchers.pluginType(plain)).isEmpty();
        assertThat(JcniLaunchers.pluginType(binary)).isEmpty();
        assertThat(JcniLaunchers.pluginType(dir.resolve("missing"))).isEmpty();
        assertThat(JcniLaunchers.pluginType(dir)).as("a directory").isEmpty();
    }

    @Test
    void aMarkerPastTheWindowIsIgnored() throws IOException {
        Path late = ScriptPlugins.write(dir, "late", "#" + "x".repeat(JcniLaunchers.MARKER_WINDOW) + "\n"
                + JcniLaunchers.markerLine("bridge"));
        assertThat(JcniLaunchers.pluginType(late)).isEmpty();
    }

    @Test
    void aMarkerCutOffByTheWindowIsNotTrusted() throws IOException {
        String marker = JcniLaunchers.markerLine("bridge");
        // The marker's last byte falls just outside the window: the version would read one character short.
        String padding = "#" + "x".repeat(JcniLaunchers.MARKER_WINDOW - marker.length() - "#!/bin/sh\n".length() - 2);
        Path cut = ScriptPlugins.write(dir, "cut", padding + "\n" + marker + "0\nexec true");
        assertThat(Files.readString(cut).indexOf(marker)).isEqualTo(JcniLaunchers.MARKER_WINDOW - marker.length());
        assertThat(JcniLaunchers.pluginType(cut)).isEmpty();
    }

    @Test
    void aMarkerWithAPathInItsTypeIsRejected() throws IOException {
        Path evil = ScriptPlugins.write(dir, "evil",
                "# jcni-launcher: plugin=../bridge version=" + JcniLaunchers.version());
        assertThat(JcniLaunchers.pluginType(evil)).isEmpty();
    }
}
