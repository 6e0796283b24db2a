package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniNames;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * The daemon's leases on disk: one file per attachment in the state directory ({@code /run/cni/dhcp} by default),
 * named by its key ({@code <network>-<containerID>-<ifname>.json}), written before the daemon answers and on every
 * renewal, removed once the lease is released. So a daemon killed at any point and started again holds what it held:
 * it resumes renewing, and a DEL releases the lease at the server.
 *
 * <p>A file holds the attachment, the namespace path and identity, the link's hardware address, the configuration and
 * CNI_ARGS the lease's options came from, the lease state, the server's link-layer address, when the ACK came and the
 * ACK itself (base64): everything else (times, result) is computed from it again. Files are written atomically
 * (a temporary file, fsync, rename, fsync of the directory) with mode 0600; read only if they are regular files of at
 * most 64 KiB, links not followed.
 */
final class LeaseStore {
    static final String KIND = "jcniDhcpLeaseV1";
    private static final String SUFFIX = ".json";
    private static final int MAX_FILE = 64 << 10;

    private final Path dir;

    LeaseStore(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** Creates the directory (mode 0700) if missing. */
    void create() throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        }
    }

    Path file(String key) {
        return dir.resolve(key + SUFFIX);
    }

    /** Writes (or replaces) the file of {@code lease}. */
    void write(ManagedLease lease) throws IOException {
        byte[] bytes = CniJson.encode(toJson(lease));
        Path target = file(lease.key());
        Path temp = dir.resolve("." + lease.key() + ".tmp");
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING, LinkOption.NOFOLLOW_LINKS)) {
            Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            channel.force(true);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
            directory.force(true);
        }
    }

    /** Removes the file of {@code key}; nothing there is success. */
    void delete(String key) throws IOException {
        Files.deleteIfExists(file(key));
    }

    /** The lease files present (temporary files and anything else skipped). */
    List<Path> files() throws IOException {
        List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return files;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.endsWith(SUFFIX) && !name.startsWith(".")) {
                    files.add(entry);
                }
            }
        }
        files.sort(null);
        return files;
    }

    /** Reads one lease file; its name must be the key of what it holds. */
    ManagedLease read(Path file) throws IOException, CniException {
        byte[] bytes = BoundedFiles.read(file, MAX_FILE, BoundedFiles.Links.REFUSE);
        ConfigNode root = ConfigNode.root(CniJson.parse(bytes));
        if (!root.requireString("kind").equals(KIND)) {
            throw root.invalid("not a jcni dhcp lease (kind " + root.requireString("kind") + ")");
        }
        String network = CniNames.requireNetworkName(root.requireString("network"));
        String containerId = CniNames.requireContainerId(root.requireString("containerId"));
        String ifName = CniNames.requireInterfaceName(root.requireString("ifName"));
        if (!file.getFileName().toString().equals(ManagedLease.key(network, containerId, ifName) + SUFFIX)) {
            throw root.invalid("the file's name does not match the attachment it holds");
        }
        NetNs.Id id = new NetNs.Id(root.requireField("netnsDevice").asLong(0, Long.MAX_VALUE),
                root.requireField("netnsInode").asLong(0, Long.MAX_VALUE));
        MacAddress mac;
        byte[] serverMac;
        byte[] ack;
        try {
            mac = MacAddress.parse(root.requireString("mac"));
            serverMac = HexFormat.ofDelimiter(":").parseHex(root.requireString("serverMac"));
            ack = Base64.getDecoder().decode(root.requireString("ack"));
        } catch (IllegalArgumentException e) {
            throw root.invalid("a malformed hardware address or ACK: " + e.getMessage());
        }
        DhcpMessage message;
        try {
            message = DhcpMessage.decode(ack, 0, ack.length);
        } catch (DhcpMessage.Malformed e) {
            throw root.invalid("ack: " + e.getMessage());
        }
        String stateText = root.requireString("state");
        ManagedLease.State state;
        switch (stateText) {
            case "bound":
                state = ManagedLease.State.BOUND;
                break;
            case "expired":
                state = ManagedLease.State.EXPIRED;
                break;
            default:
                throw root.invalid("unknown state " + stateText);
        }
        long boundAt = root.requireField("boundAt").asLong(0, Long.MAX_VALUE);
        return new ManagedLease(network, containerId, ifName, root.requireString("netns"), id, mac,
                root.string("args").orElse(""), root.requireField("ipam").asObject(),
                new Lease(message, boundAt, serverMac), state);
    }

    static JsonObject toJson(ManagedLease lease) {
        Lease current = lease.lease;
        return JsonObject.of("kind", Json.of(KIND), "network", Json.of(lease.network), "containerId",
                Json.of(lease.containerId), "ifName", Json.of(lease.ifName), "netns", Json.of(lease.netns),
                "netnsDevice", Json.of(lease.netnsId.device()), "netnsInode", Json.of(lease.netnsId.inode()),
                "mac", Json.of(lease.mac.toString()), "args", Json.of(lease.cniArgs), "ipam", lease.ipam,
                "state", Json.of(lease.state == ManagedLease.State.EXPIRED ? "expired" : "bound"),
                "boundAt", Json.of(current.boundAt), "serverMac",
                Json.of(HexFormat.ofDelimiter(":").formatHex(current.serverMac)),
                "ack", Json.of(Base64.getEncoder().encodeToString(current.ack.encode())));
    }
}
