package io.jcni.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * What host-local (Go's or jcni's: they share the on-disk format) has allocated under a data dir:
 * {@code <dataDir>/<network>/<ip>} holding {@code <containerID>\r\n<ifname>}, next to a {@code lock} file and
 * {@code last_reserved_ip.<range>} markers.
 */
public final class HostLocalFiles {
    private HostLocalFiles() {}

    /** The reserved addresses of {@code network}, sorted: its files other than the lock and last-reserved markers. */
    public static List<String> reservations(Path dataDir, String network) {
        Path dir = dataDir.resolve(network);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> !n.equals("lock") && !n.startsWith("last_reserved_ip.")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }
}
