package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.runtime.internal.files.IoText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The migration from host-local: a node's reservations in host-local's data directory ({@code
 * <importHostLocal>/<network>/<address>} holding {@code <containerID>\r\n<ifname>}, Go's format) become this node's
 * reservations in etcd, once per node (the key {@code imported/<node>} records that it ran and what it skipped).
 * host-local's directory is only read. An address another node already holds in etcd is skipped and named in that
 * key: two nodes' host-local ranges overlapped, which the operator must resolve. Legacy files (container ID only) are
 * imported for interface {@code eth0}, which is what host-local before 0.7 served.
 */
final class HostLocalImport {
    private static final int MAX_FILE = 64 * 1024;

    private HostLocalImport() {
    }

    static void run(ClusterStore store, Path networkDir) throws IpamException {
        StringBuilder skipped = new StringBuilder();
        int imported = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(networkDir)) {
            for (Path file : files) {
                Optional<IpAddress> ip = IpAddress.parse(file.getFileName().toString());
                if (ip.isEmpty() || !Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                String content;
                try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
                    content = new String(in.readNBytes(MAX_FILE), StandardCharsets.UTF_8).strip();
                }
                int br = content.indexOf("\r\n");
                String id = (br < 0 ? content : content.substring(0, br)).strip();
                String ifname = br < 0 ? "eth0" : content.substring(br + 2).strip();
                if (id.isEmpty() || ifname.isEmpty()) {
                    continue; // a torn file: it holds the address for nobody
                }
                if (store.importReservation(ip.get(), new Attachment(id, ifname))) {
                    imported++;
                } else {
                    skipped.append(skipped.isEmpty() ? "" : ",").append(ip.get());
                }
            }
        } catch (NoSuchFileException e) {
            // nothing to import
        } catch (IOException e) {
            throw new IpamException(Reason.STORE_FAILURE, "cluster-ipam: cannot import host-local's "
                    + networkDir + ": " + IoText.reason(e), e);
        }
        store.importDone("imported " + imported + (skipped.isEmpty() ? "" : "; held by others: " + skipped));
    }
}
