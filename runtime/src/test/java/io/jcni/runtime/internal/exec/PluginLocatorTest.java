package io.jcni.runtime.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.runtime.ScriptPlugins;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginLocatorTest {
    @TempDir
    Path tmp;

    @Test
    void aTypeWithAPathSeparatorIsRefusedWithLibcnisMessageCve2021_20206() throws IOException {
        Path bin = Files.createDirectory(tmp.resolve("bin"));
        ScriptPlugins.write(tmp, "outside", "exit 0");

        assertThatThrownBy(() -> PluginLocator.find("../outside", List.of(bin)))
                .isInstanceOf(PluginFailure.class).hasMessage("invalid plugin name: ../outside");
        assertThatThrownBy(() -> PluginLocator.find(tmp.resolve("outside").toString(), List.of(bin)))
                .hasMessage("invalid plugin name: " + tmp.resolve("outside"));
    }

    @Test
    void theFirstDirectoryHoldingTheTypeWins() throws Exception {
        Path first = Files.createDirectory(tmp.resolve("first"));
        Path second = Files.createDirectory(tmp.resolve("second"));
        Path wanted = ScriptPlugins.write(first, "p", "exit 0");
        ScriptPlugins.write(second, "p", "exit 0");

        assertThat(PluginLocator.find("p", List.of(first, second))).isEqualTo(wanted);
    }

    @Test
    void directoriesAndNonExecutableFilesDoNotShadowALaterPlugin() throws Exception {
        Path first = Files.createDirectory(tmp.resolve("first"));
        Path second = Files.createDirectory(tmp.resolve("second"));
        Path third = Files.createDirectory(tmp.resolve("third"));
        Files.createDirectory(first.resolve("p"));
        Files.setPosixFilePermissions(Files.writeString(second.resolve("p"), "#!/bin/sh\n"),
                PosixFilePermissions.fromString("rw-r--r--"));
        Path wanted = ScriptPlugins.write(third, "p", "exit 0");

        assertThat(PluginLocator.find("p", List.of(first, second, third))).isEqualTo(wanted);
    }

    @Test
    void symlinksInsideThePathAreFollowed() throws Exception {
        Path bin = Files.createDirectory(tmp.resolve("bin"));
        Path real = ScriptPlugins.write(tmp, "real", "exit 0");
        Path link = Files.createSymbolicLink(bin.resolve("p"), real);

        assertThat(PluginLocator.find("p", List.of(bin))).isEqualTo(link);
    }

    @Test
    void notFoundAndEmptyInputsUseLibcnisMessages() throws IOException {
        Path a = Files.createDirectory(tmp.resolve("a"));
        Path b = Files.createDirectory(tmp.resolve("b"));

        assertThatThrownBy(() -> PluginLocator.find("nope", List.of(a, b)))
                .hasMessage("failed to find plugin \"nope\" in path [" + a + " " + b + "]")
                .satisfies(e -> assertThat(((PluginFailure) e).error().code()).isEqualTo(999));
        assertThatThrownBy(() -> PluginLocator.find("", List.of(a))).hasMessage("no plugin name provided");
        assertThatThrownBy(() -> PluginLocator.find("p", List.of())).hasMessage("no paths provided");
    }

    @Test
    void cniPathSplitsOnColonsAndDropsEmptyElements() {
        assertThat(PluginLocator.splitPath("/a::/b:")).containsExactly(Path.of("/a"), Path.of("/b"));
        assertThat(PluginLocator.splitPath("")).isEmpty();
        assertThat(PluginLocator.splitPath(null)).isEmpty();
        assertThat(PluginLocator.joinPath(List.of(Path.of("/a"), Path.of("/b")))).isEqualTo("/a:/b");
    }

    @Test
    void errnoTextIsReadFromBothJdkMessageShapes() {
        assertThat(ProcessRunner.errnoText(new java.io.IOException(
                "Cannot run program \"/x\": Exec failed, error: 26 (Text file busy) "))).isEqualTo("text file busy");
        assertThat(ProcessRunner.errnoText(new java.io.IOException(
                "Cannot run program \"/x\": error=13, Permission denied"))).isEqualTo("permission denied");
        assertThat(ProcessRunner.errnoText(new java.io.IOException("odd"))).isEqualTo("odd");
    }
}
