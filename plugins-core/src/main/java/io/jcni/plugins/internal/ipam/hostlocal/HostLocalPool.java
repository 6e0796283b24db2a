package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamPools;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A host-local pool for the service's pool figures ({@link IpamPools}): its reservations are the files of its
 * directory (a file per address, Go's), counted when a scrape asks. A data directory given as a relative path (the
 * caller's working directory) is not recorded: it would be read from elsewhere later.
 */
final class HostLocalPool extends IpamPools.Pool {
    private final Path dir;

    private HostLocalPool(String network, Path dir, List<RangeSet> sets) {
        super("host-local", network, sets);
        this.dir = dir;
    }

    /** An ADD allocated from {@code network}'s pool under {@code dataDir}, configured as {@code sets}. */
    static void seen(Path dataDir, String network, List<RangeSet> sets) {
        if (IpamPools.watching() && dataDir.isAbsolute()) {
            IpamPools.seen(new HostLocalPool(network, dataDir.resolve(network), sets));
        }
    }

    @Override
    protected String where() {
        return "data_dir";
    }

    @Override
    protected String store() {
        return dir.getParent().toString();
    }

    /** The reservations in the pool's directory that fall in its ranges (a directory read: no deadline needed). */
    @Override
    protected long[] reserved(long deadline) {
        long[] n = new long[2];
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                Optional<IpAddress> ip = IpAddress.parse(entry.getFileName().toString());
                if (ip.isEmpty()) {
                    continue; // lock, last_reserved_ip.N, temporary files
                }
                for (RangeSet set : sets()) {
                    if (set.contains(ip.get())) {
                        n[ip.get().isV4() ? 0 : 1]++;
                        break;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // No directory (yet, or any more): nothing reserved.
        }
        return n;
    }
}
