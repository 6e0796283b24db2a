package io.jcni.it.ifaces;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** What host-local (Go's or jcni's: the same format) has allocated under a data dir. */
final class IpamFiles {
    private IpamFiles() {
    }

    /** The reserved addresses of {@code network}: its files other than the lock and last-reserved markers. */
    static List<String> allocations(Path dataDir, String network) throws IOException {
        Path dir = dataDir.resolve(network);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> !n.equals("lock") && !n.startsWith("last_reserved_ip")).sorted().toList();
        }
    }
}
