package io.jcni.plugins.internal.meta.tuning;

import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Json;
import io.jcni.spec.JsonBoolean;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The values tuning's ADD replaced, which DEL puts back: {@code <dataDir>/<containerID>_<ifName>.json}, in the format
 * of upstream tuning's {@code configToRestore} ({@code mac}, {@code promisc}, {@code mtu}, {@code allmulti},
 * {@code txQLen}, each present only when ADD changed it), so Go's tuning restores what jcni's ADD changed and vice
 * versa. jcni adds {@code jcniSysctl}, the previous values of the sysctls it wrote (canonical keys), which Go ignores:
 * upstream does not restore sysctls.
 *
 * @param mac        the previous MAC, or ""
 * @param promisc    the previous promiscuous mode, or null
 * @param mtu        the previous MTU, or 0
 * @param allmulti   the previous all-multicast mode, or null
 * @param txQueueLen the previous transmit queue length, or -1
 * @param sysctls    canonical sysctl path to previous value, in the order ADD wrote them
 */
record TuningBackup(String mac, Boolean promisc, int mtu, Boolean allmulti, int txQueueLen,
        Map<String, String> sysctls) {

    static final String SYSCTL_KEY = "jcniSysctl";

    private static final Set<StandardOpenOption> CREATE_NEW_WRITE = Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE);
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY = PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rw-------"));

    /** The file of one attachment, named as Go names it. */
    static Path file(Path dataDir, String containerId, String ifName) {
        return dataDir.resolve(containerId + "_" + ifName + ".json");
    }

    boolean restoresLink() {
        return !mac.isEmpty() || promisc != null || mtu != 0 || allmulti != null || txQueueLen >= 0;
    }

    JsonObject toJson() {
        LinkedHashMap<String, Json> members = new LinkedHashMap<>();
        if (!mac.isEmpty()) {
            members.put("mac", new JsonString(mac));
        }
        if (promisc != null) {
            members.put("promisc", JsonBoolean.of(promisc));
        }
        if (mtu != 0) {
            members.put("mtu", JsonNumber.of(mtu));
        }
        if (allmulti != null) {
            members.put("allmulti", JsonBoolean.of(allmulti));
        }
        if (txQueueLen >= 0) {
            members.put("txQLen", JsonNumber.of(txQueueLen));
        }
        if (!sysctls.isEmpty()) {
            LinkedHashMap<String, Json> values = new LinkedHashMap<>();
            for (Map.Entry<String, String> entry : sysctls.entrySet()) {
                values.put(entry.getKey(), new JsonString(entry.getValue()));
            }
            members.put(SYSCTL_KEY, JsonObject.of(values));
        }
        return JsonObject.of(members);
    }

    /**
     * Reads a backup file; null when there is none.
     *
     * @throws CniException code 5 if unreadable, code 6 if it is not a backup file
     */
    static TuningBackup read(Path file) throws CniException {
        byte[] bytes;
        try {
            bytes = BoundedFiles.read(file, CniJson.MAX_DOCUMENT_BYTES, BoundedFiles.Links.REFUSE);
        } catch (NoSuchFileException absent) {
            return null;
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "failed to open file \"" + file + "\": "
                    + IoText.reason(e));
        }
        ConfigNode root = ConfigNode.root(CniJson.parse(bytes), CniError.DECODING_FAILURE);
        root.asObject();
        LinkedHashMap<String, String> sysctls = new LinkedHashMap<>();
        if (root.object(SYSCTL_KEY).isPresent()) {
            for (Map.Entry<String, ConfigNode> entry : root.object(SYSCTL_KEY).get().entries()) {
                sysctls.put(entry.getKey(), entry.getValue().asString());
            }
        }
        return new TuningBackup(root.string("mac").orElse(""), root.bool("promisc").orElse(null),
                (int) root.integer("mtu", 0, Integer.MAX_VALUE).orElse(0L).longValue(),
                root.bool("allmulti").orElse(null),
                (int) root.integer("txQLen", 0, Integer.MAX_VALUE).orElse(-1L).longValue(), sysctls);
    }

    /**
     * Writes this backup to {@code file} atomically (temporary file, fsync, rename), creating the directory (0700)
     * if needed; the file is 0600, as Go writes it.
     */
    void write(Path file) throws CniException {
        Path dir = file.getParent();
        Path temp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                    "rwx------")));
            Files.deleteIfExists(temp);
            try (FileChannel channel = FileChannel.open(temp, CREATE_NEW_WRITE, OWNER_ONLY)) {
                ByteBuffer bytes = ByteBuffer.wrap(CniJson.encodeIndented(toJson()));
                while (bytes.hasRemaining()) {
                    channel.write(bytes);
                }
                channel.force(true);
            }
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // The write failed already; that is the error to report.
            }
            throw new CniException(CniError.IO_FAILURE, "failed to save file " + file + ": " + IoText.reason(e));
        }
    }

    /** Removes the file of a finished attachment; absent is fine. */
    static void delete(Path file) throws CniException {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "failed to remove file " + file + ": " + IoText.reason(e));
        }
    }
}
