package io.jcni.runtime.internal.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Crash-safe file replacement: write a temporary file beside the target, fsync it, rename it over the target, fsync
 * the directory. A reader sees the old content or the new, never a mix; after a crash, the new content is either
 * complete or absent. Temporary files are named {@code .<target>.tmp-<random>} (a leading dot: readers that list the
 * directory skip them).
 */
final class AtomicFiles {
    static final FileAttribute<Set<PosixFilePermission>> DIR_MODE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));
    static final FileAttribute<Set<PosixFilePermission>> FILE_MODE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

    private AtomicFiles() {
    }

    /** Creates {@code dir} and missing parents with mode 0700 (libcni's mode for the cache directories). */
    static void ensureDirectory(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, DIR_MODE);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(dir)) {
                    throw e;
                }
            }
        }
    }

    /** Replaces {@code target} with {@code bytes} (mode 0600), durably. */
    static void write(Path target, byte[] bytes) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        ensureDirectory(dir);
        Path temp = dir.resolve("." + target.getFileName() + ".tmp-" + Long.toHexString(
                ThreadLocalRandom.current().nextLong()));
        try {
            try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), FILE_MODE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
                out.force(false); // fdatasync: the data and the size, all a reader of the renamed file needs
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        syncDirectory(dir);
    }

    /** Deletes {@code target} durably; false if it did not exist. */
    static boolean delete(Path target) throws IOException {
        boolean deleted = Files.deleteIfExists(target);
        if (deleted) {
            syncDirectory(target.toAbsolutePath().getParent());
        }
        return deleted;
    }

    /** fsync of a directory, so a rename or unlink in it survives a crash. */
    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
