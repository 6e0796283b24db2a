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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Debian package ({@code jcni_<version>_amd64.deb}) installs with {@code apt-get install ./…deb}, serves podman
 * and containerd's CRI from {@code /opt/cni/bin}, runs its plugin service, and purges to nothing, on the machine as it is but without
 * changing it: in an {@link InstallRoot} (the machine's {@code /usr}, {@code /var}, {@code /opt} and {@code /etc} under
 * overlays of a private mount namespace, the build's {@code dist/} hidden), so apt and dpkg read the machine's
 * database and write only the namespace's copy. The machine's own dpkg database and files are read before and after
 * and must not have changed ({@link HostPackages}).
 */
class DebPackageTest {
    @TempDir
    Path tmp;

    @Test
    void aptInstallsItPodmanAndContainerdRunOnItItsServiceAnswersAndPurgeLeavesNothing() throws Exception {
        Prerequisites.assumeRoot();
        for (String tool : List.of("apt-get", "dpkg", "dpkg-query")) {
            Prerequisites.assumeCommand(tool);
        }
        Path deb = Files.copy(Packages.deb(), tmp.resolve(Packages.deb().getFileName()));
        String version = Packages.version();
        String debVersion = version.replace('-', '~');
        HostPackages before = HostPackages.read();
        assertThat(before.jcni()).as("jcni is not installed on this machine").isEmpty();

        try (InstallRoot root = InstallRoot.start(Files.createDirectories(tmp.resolve("layers")),
                List.of(Locations.dist()))) {
            String status = Files.readString(root.resolve("/var/lib/dpkg/status"));

            ShellSession.Result install = root.run(List.of("apt-get", "install", "-y", "-q",
                    "--no-install-recommends", deb.toString()));
            assertThat(install.exit()).as(install.output()).isZero();
            assertThat(root.run(List.of("dpkg-query", "-W", "-f", "${Status} ${Version}", "jcni")).requireSuccess()
                    .output()).isEqualTo("install ok installed " + debVersion);
            List<String> files = root.run(List.of("dpkg", "-L", "jcni")).requireSuccess().output().lines().toList();
            assertThat(files).contains("/opt/cni/bin/bridge", "/usr/bin/jcni", "/usr/lib/jcni/image/sbom.cdx.json",
                    "/lib/systemd/system/jcni-plugins.socket");
            assertThat(root.leftovers("/opt")).as("what the install put in the overlay, as leftovers() sees it")
                    .contains("/opt/cni", "/opt/cni/bin/bridge");

            // The layout the ecosystem expects.
            for (String type : Packages.types()) {
                assertThat(Files.readSymbolicLink(root.resolve("/opt/cni/bin/" + type)))
                        .isEqualTo(Path.of("/usr/lib/jcni/cni/bin/" + type));
                ShellSession.Result answer = root.run("JCNI_SERVICE_SOCKET=off CNI_COMMAND=VERSION /opt/cni/bin/"
                        + type);
                assertThat(answer.exit()).as(type + ": " + answer.output()).isZero();
                assertThat(answer.output()).startsWith("{\"cniVersion\":\"1.1.0\"");
            }
            assertThat(root.run("jcni --version").requireSuccess().output()).as("jcni on PATH")
                    .isEqualTo("jcni " + version + "\n");
            assertThat(Files.readString(root.resolve("/lib/systemd/system/jcni-plugins.service")))
                    .contains("ExecStart=/usr/lib/jcni/bin/jcni serve");
            assertThat(Files.readString(root.resolve("/lib/systemd/system/jcni-dhcp.service")))
                    .contains("ExecStart=/usr/lib/jcni/cni/bin/dhcp daemon");
            assertThat(root.resolve("/usr/lib/jcni/image/sbom.cdx.json")).isRegularFile();
            assertThat(root.resolve("/usr/share/doc/jcni/copyright")).isRegularFile();

            // The package's plugin service answers the package's clients.
            Path service = Files.createDirectories(tmp.resolve("service"));
            Files.setPosixFilePermissions(service, java.nio.file.attribute.PosixFilePermissions.fromString(
                    "rwx------"));
            String socket = service.resolve("plugins.sock").toString();
            root.run("jcni serve --socket " + ShellSession.quote(socket) + " > " + ShellSession.quote(service
                    + "/log") + " 2>&1 & echo $! > " + ShellSession.quote(service + "/pid")).requireSuccess();
            try {
                root.run("i=0; while [ ! -S " + ShellSession.quote(socket) + " ] && [ $i -lt 600 ]; do sleep 0.1;"
                        + " i=$((i+1)); done").requireSuccess();
                ShellSession.Result served = root.run("JCNI_SERVICE_SOCKET=" + ShellSession.quote(socket)
                        + " JCNI_DEBUG=1 CNI_COMMAND=VERSION /opt/cni/bin/bridge");
                assertThat(served.exit()).as(served.output()).isZero();
                assertThat(served.output()).contains("VERSION via service");
            } finally {
                root.run("kill $(cat " + ShellSession.quote(service + "/pid") + "); wait");
            }

            try (PodmanNode node = new PodmanNode("deb")) {
                node.publishAPortAndCleanUp(tmp, root.mountNamespace());
            }
            try (ContainerdNode node = new ContainerdNode("debctr")) {
                node.runAPodWithAHostPortAndCleanUp(tmp.resolve("ctr"), root.mountNamespace());
            }

            ShellSession.Result purge = root.run(List.of("apt-get", "purge", "-y", "-q", "jcni"));
            assertThat(purge.exit()).as(purge.output()).isZero();
            assertThat(root.run(List.of("dpkg-query", "-W", "jcni")).exit()).as("jcni is not known to dpkg")
                    .isNotZero();
            List<String> left = new ArrayList<>();
            for (String file : files) {
                Path path = root.resolve(file);
                if ((Files.exists(path) || Files.isSymbolicLink(path)) && !Files.isDirectory(Path.of(file))) {
                    left.add(file);
                }
            }
            assertThat(left).as("files of the package left after purge").isEmpty();
            for (String overlaid : List.of("/usr", "/opt", "/etc")) {
                assertThat(root.leftovers(overlaid)).as("what the install left in " + overlaid).isEmpty();
            }
            assertThat(Files.readString(root.resolve("/var/lib/dpkg/status"))).as("dpkg's status as before")
                    .isEqualTo(status);
            assertThat(root.leftovers("/var")).as("dpkg's and apt's files of jcni")
                    .noneMatch(f -> f.contains("jcni"));
        }

        HostPackages after = HostPackages.read();
        after.assertUnchangedSince(before);
    }
}
