package io.jcni.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * What an installation of jcni would change on this machine, read from the machine itself (the test JVM's mount
 * namespace): dpkg's and apt's databases (their hashes, and any entry or file naming jcni), dpkg's log, and the paths
 * the package and the tarball install. A test reads it before and after installing in an {@code InstallRoot}.
 *
 * @param dpkgStatus    SHA-256 of /var/lib/dpkg/status
 * @param aptStates     SHA-256 of /var/lib/apt/extended_states ("" if absent)
 * @param dpkgLogLines  lines of /var/log/dpkg.log ("" if absent)
 * @param jcni          everything naming jcni: status and extended_states entries, dpkg info files, dpkg.log lines,
 *                      and the installed paths that exist
 */
record HostPackages(String dpkgStatus, String aptStates, long dpkgLogLines, List<String> jcni) {
    static final List<String> PATHS = List.of("/usr/lib/jcni", "/usr/bin/jcni", "/opt/cni",
            "/lib/systemd/system/jcni-plugins.service", "/lib/systemd/system/jcni-plugins.socket",
            "/lib/systemd/system/jcni-dhcp.service", "/lib/systemd/system/jcni-dhcp.socket", "/usr/share/doc/jcni");

    static HostPackages read() {
        try {
            List<String> jcni = new ArrayList<>();
            Path status = Path.of("/var/lib/dpkg/status");
            if (Files.readString(status).contains("\nPackage: jcni\n")) {
                jcni.add("dpkg status: Package: jcni");
            }
            Path states = Path.of("/var/lib/apt/extended_states");
            if (Files.exists(states) && Files.readString(states).contains("Package: jcni\n")) {
                jcni.add("apt extended_states: Package: jcni");
            }
            try (Stream<Path> info = Files.list(Path.of("/var/lib/dpkg/info"))) {
                info.filter(f -> f.getFileName().toString().startsWith("jcni.")).forEach(f -> jcni.add(f.toString()));
            }
            Path log = Path.of("/var/log/dpkg.log");
            List<String> logLines = Files.exists(log) ? Files.readAllLines(log) : List.of();
            for (String line : logLines) {
                if (line.contains(" jcni:") || line.contains(" jcni ")) {
                    jcni.add("dpkg.log: " + line);
                }
            }
            for (String path : PATHS) {
                if (Files.exists(Path.of(path)) || Files.isSymbolicLink(Path.of(path))) {
                    jcni.add(path);
                }
            }
            return new HostPackages(sha256(status), Files.exists(states) ? sha256(states) : "", logLines.size(),
                    List.copyOf(jcni));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Fails unless the machine is as {@code before}: nothing of jcni appeared, and dpkg's and apt's databases are the
     * same files. Another package operation on this shared machine meanwhile (dpkg.log grew by lines not about
     * jcni) excuses a changed database, with a warning, since it changes the same files.
     */
    void assertUnchangedSince(HostPackages before) {
        assertThat(jcni).as("the machine's dpkg database, logs and paths name jcni").isEqualTo(before.jcni());
        boolean databasesSame = dpkgStatus.equals(before.dpkgStatus()) && aptStates.equals(before.aptStates());
        if (!databasesSame && dpkgLogLines > before.dpkgLogLines()) {
            System.err.println("HostPackages: the machine's dpkg database changed while the test ran, and dpkg.log"
                    + " shows other package operations meanwhile (none about jcni): not counted against the test");
            return;
        }
        assertThat(dpkgStatus).as("the machine's /var/lib/dpkg/status").isEqualTo(before.dpkgStatus());
        assertThat(aptStates).as("the machine's /var/lib/apt/extended_states").isEqualTo(before.aptStates());
        assertThat(dpkgLogLines).as("the machine's /var/log/dpkg.log").isEqualTo(before.dpkgLogLines());
    }

    private static String sha256(Path file) throws IOException {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
