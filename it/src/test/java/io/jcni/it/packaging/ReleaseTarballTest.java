package io.jcni.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.InstallRoot;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ShellSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarball ({@code jcni-cni-plugins-linux-amd64-<version>.tgz}) installs as the Go plugins' does and works
 * without the build tree: every test runs in an {@link InstallRoot} whose {@code dist/} is hidden under an empty
 * tmpfs, so a program that found its way back to the build (the client's and the launcher's last fallback) would
 * fail. Unpacked anywhere, linked from elsewhere, copied as a whole, and unpacked into {@code /opt/cni/bin} for
 * podman and containerd; removing its files leaves nothing.
 */
class ReleaseTarballTest {
    @TempDir
    Path tmp;

    private Path tarball;

    @BeforeEach
    void copyTheTarballOutOfDist() throws Exception {
        Prerequisites.assumeRoot();
        // The tests hide dist/ in their namespace: they read the tarball from a copy.
        tarball = Files.copy(Packages.tarball(), tmp.resolve(Packages.tarball().getFileName()));
    }

    private InstallRoot installRoot() throws Exception {
        return InstallRoot.start(Files.createDirectories(tmp.resolve("layers")), List.of(Locations.dist()));
    }

    /** VERSION of every plugin type in {@code dir}, through its JVM launcher (no service), must answer. */
    private static void everyPluginAnswersVersion(InstallRoot root, Path dir) {
        for (String type : Packages.types()) {
            ShellSession.Result version = root.run("JCNI_SERVICE_SOCKET=off CNI_COMMAND=VERSION "
                    + ShellSession.quote(dir.resolve(type).toString()));
            assertThat(version.exit()).as(dir + "/" + type + ": " + version.output()).isZero();
            assertThat(version.output()).as(dir + "/" + type).startsWith("{\"cniVersion\":\"1.1.0\"")
                    .contains("\"supportedVersions\":[\"0.1.0\"");
        }
    }

    @Test
    void unpackedAnywhereLinkedOrCopiedEveryPluginRunsWithoutTheBuildTree() throws Exception {
        Path anywhere = Files.createDirectories(tmp.resolve("some/where"));
        Path links = Files.createDirectories(tmp.resolve("links"));
        Path copy = Files.createDirectories(tmp.resolve("copy"));
        try (InstallRoot root = installRoot()) {
            assertThat(root.run(List.of("ls", "-A", Locations.dist().toString())).output())
                    .as("the build's dist is hidden").isEmpty();
            root.run(List.of("tar", "-xzf", tarball.toString(), "-C", anywhere.toString())).requireSuccess();
            List<String> top = new ArrayList<>(Packages.types());
            top.add("jcni");
            assertThat(root.run(List.of("ls", anywhere.toString())).requireSuccess().output().lines().toList())
                    .as("flat, as the Go plugins' tarball, with what they need in jcni/")
                    .containsExactlyInAnyOrderElementsOf(top);
            everyPluginAnswersVersion(root, anywhere);

            for (String type : Packages.types()) {
                Files.createSymbolicLink(links.resolve(type), anywhere.resolve(type));
            }
            everyPluginAnswersVersion(root, links);

            root.run(List.of("cp", "-a", anywhere + "/.", copy.toString())).requireSuccess();
            root.run(List.of("rm", "-rf", anywhere.toString())).requireSuccess();
            everyPluginAnswersVersion(root, copy);

            assertThat(root.run(List.of(copy.resolve("jcni/bin/jcni").toString(), "--version")).requireSuccess()
                    .output()).isEqualTo("jcni " + Packages.version() + "\n");
            assertThat(root.resolve(copy.resolve("jcni/image/sbom.cdx.json").toString())).as("the image's SBOM")
                    .isRegularFile();
            assertThat(Files.readString(root.resolve(copy.resolve("jcni/systemd/jcni-plugins.service").toString())))
                    .contains("ExecStart=/opt/cni/bin/jcni/bin/jcni serve");
        }
    }

    @Test
    void unpackedIntoOptCniBinItServesPodmanAndContainerdAndRemovingItLeavesNothing() throws Exception {
        try (InstallRoot root = installRoot(); PodmanNode node = new PodmanNode("tgz")) {
            root.run("mkdir -p /opt/cni/bin && tar -xzf " + ShellSession.quote(tarball.toString())
                    + " -C /opt/cni/bin").requireSuccess();
            everyPluginAnswersVersion(root, Path.of("/opt/cni/bin"));

            node.publishAPortAndCleanUp(tmp, root.mountNamespace());
            try (ContainerdNode ctrNode = new ContainerdNode("tgzctr")) {
                ctrNode.runAPodWithAHostPortAndCleanUp(tmp.resolve("ctr"), root.mountNamespace());
            }

            // Uninstalled as the Go plugins' tarball is: its files deleted.
            root.run("cd /opt/cni/bin && tar -tzf " + ShellSession.quote(tarball.toString())
                    + " | grep -v '/$' | xargs rm -f && rm -r jcni && cd / && rmdir /opt/cni/bin /opt/cni")
                    .requireSuccess();
            assertThat(root.leftovers("/opt")).isEmpty();
            assertThat(root.leftovers("/usr")).isEmpty();
            assertThat(root.leftovers("/etc")).isEmpty();
        }
    }
}
