package io.jcni.runtime.internal.files;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Reads files the runtime finds through its input (configuration files) or where its state lives (result cache
 * entries), so that whatever is found there cannot hang or exhaust the caller:
 * <ul>
 *   <li>only regular files are opened: a FIFO would block the open forever, a device could do anything. The kind
 *       is checked before opening (Java cannot open with {@code O_NONBLOCK} or {@code fstat} an open channel; the
 *       runtime does no native calls), so a file swapped for a FIFO in the instant between the check and the open
 *       can still block: that needs write access to the directory, and closes nothing more than this check;</li>
 *   <li>the size limit is applied before reading (a 1 GiB sparse file is refused, not read) and again while reading
 *       (a file that grows is cut off at the limit and refused);</li>
 *   <li>with {@link Links#REFUSE}, a symbolic link in the last component is not followed ({@code O_NOFOLLOW}): where
 *       state lives, a link planted there must not redirect a read. Configuration directories are often made of
 *       links (Kubernetes mounts ConfigMaps that way), so they use {@link Links#FOLLOW}.</li>
 * </ul>
 * Failures are {@link FileSystemException}s naming the file, with a reason for error messages ({@link IoText}).
 */
public final class BoundedFiles {
    private static final LinkOption[] FOLLOW = {};
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final OpenOption[] READ = {StandardOpenOption.READ};
    private static final OpenOption[] READ_NOFOLLOW = {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};

    private BoundedFiles() {
    }

    /** Whether a symbolic link at the file's own name is followed. */
    public enum Links {
        FOLLOW,
        REFUSE
    }

    /**
     * The whole content of the regular file {@code file}, at most {@code limit} bytes.
     *
     * @throws java.nio.file.NoSuchFileException if nothing is there
     * @throws FileSystemException               if it is not a regular file (or, with {@link Links#REFUSE}, a
     *                                           symbolic link), or larger than {@code limit}
     * @throws IOException                       if it cannot be read
     */
    public static byte[] read(Path file, int limit, Links links) throws IOException {
        LinkOption[] linkOptions = links == Links.FOLLOW ? FOLLOW : NOFOLLOW;
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class, linkOptions);
        if (!attributes.isRegularFile()) {
            throw new FileSystemException(file.toString(), null, "not a regular file (" + kind(file, attributes)
                    + ")");
        }
        if (attributes.size() > limit) {
            throw tooLarge(file, attributes.size() + " bytes", limit);
        }
        OpenOption[] options = links == Links.FOLLOW ? READ : READ_NOFOLLOW;
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file, options)) {
            bytes = in.readNBytes(limit + 1);
        }
        if (bytes.length > limit) {
            throw tooLarge(file, "more than " + limit + " bytes", limit);
        }
        return bytes;
    }

    private static FileSystemException tooLarge(Path file, String size, int limit) {
        return new FileSystemException(file.toString(), null, "too large to read: " + size + ", the limit is "
                + limit + " bytes");
    }

    /**
     * Null if {@code dir} is a directory (links followed) or nothing is there, else what it is instead ("not a
     * directory (a FIFO)"): stat only, nothing is opened. Listing a directory opens it with a plain {@code open(2)},
     * which blocks for ever on a FIFO: check this first.
     */
    public static String notADirectory(Path dir) {
        BasicFileAttributes attributes;
        try {
            attributes = Files.readAttributes(dir, BasicFileAttributes.class);
        } catch (IOException e) {
            return null; // nothing there, or unreadable: listing it reports that
        }
        return attributes.isDirectory() ? null : "not a directory (" + (attributes.isRegularFile() ? "a regular file"
                : kind(dir, attributes)) + ")";
    }

    /** "a FIFO", "a directory", ...: what is there instead of a regular file (stat only, nothing is opened). */
    static String kind(Path file, BasicFileAttributes attributes) {
        if (attributes.isSymbolicLink()) {
            return "a symbolic link, which is not followed here";
        }
        if (attributes.isDirectory()) {
            return "a directory";
        }
        try {
            int mode = (Integer) Files.getAttribute(file, "unix:mode");
            return switch (mode & 0170000) {
                case 0010000 -> "a FIFO";
                case 0020000 -> "a character device";
                case 0060000 -> "a block device";
                case 0140000 -> "a socket";
                default -> "file mode " + Integer.toOctalString(mode);
            };
        } catch (IOException | RuntimeException e) {
            return "a special file";
        }
    }
}
