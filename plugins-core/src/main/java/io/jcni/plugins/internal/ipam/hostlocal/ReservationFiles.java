package io.jcni.plugins.internal.ipam.hostlocal;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The network directory in Go host-local's format, which stays the source of truth:
 * <ul>
 *   <li>{@code <ip>}: one file per reserved address, named by {@link IpAddress#toString()} (Go's {@code
 *       net.IP.String()}), holding {@code <containerID>\r\n<ifname>}, or only {@code <containerID>} when written by a
 *       host-local older than v0.7 (a legacy reservation);</li>
 *   <li>{@code last_reserved_ip.<n>}: the address last reserved from range set {@code n}, no newline;</li>
 *   <li>{@code lock}: the file the lock is taken on (see {@link StoreLock}).</li>
 * </ul>
 * Callers hold the store lock. Nothing of jcni's is written here: the index lives outside this directory.
 *
 * <p>Files here are read only if they are regular files, without following a symbolic link in their own name
 * ({@code lstat} first, then {@code O_NOFOLLOW}): a FIFO named like an address would block the read forever, a link
 * would point the read elsewhere. An entry named like an address that is not a regular file occupies the address
 * for nobody, as a directory there does for Go. (A file swapped for a FIFO between the {@code lstat} and the open can
 * still block; that takes write access to the directory, which is root's.)
 */
final class ReservationFiles implements Closeable {

    static final String LOCK = "lock";
    static final String LAST_RESERVED_PREFIX = "last_reserved_ip.";
    private static final byte[] LINE_BREAK = {'\r', '\n'};
    /** Largest content read from one file: a container ID (at most a few hundred bytes in practice) and a name. */
    static final int MAX_FILE_BYTES = 64 << 10;

    private final Path dir;
    private FileChannel dirChannel;
    private long scans;

    ReservationFiles(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** How many full scans this instance made: the thing the index exists to avoid. */
    long scans() {
        return scans;
    }

    /** What a reservation file for {@code who} holds: Go writes {@code TrimSpace(id) + "\r\n" + ifname}. */
    static byte[] content(Attachment who) {
        byte[] id = goTrimSpace(who.containerId()).getBytes(StandardCharsets.UTF_8);
        byte[] ifname = who.ifname().getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[id.length + 2 + ifname.length];
        System.arraycopy(id, 0, out, 0, id.length);
        System.arraycopy(LINE_BREAK, 0, out, id.length, 2);
        System.arraycopy(ifname, 0, out, id.length + 2, ifname.length);
        return out;
    }

    /**
     * Creates {@code <ip>} exclusively ({@code O_CREAT|O_EXCL}, as Go does) holding {@code content}, synced. False if
     * the address is already reserved. The file is empty between the create and the single write: a caller that may
     * be killed records the address as its intent first (see {@link StoreIndex#writeIntent}).
     */
    boolean create(IpAddress ip, byte[] content) throws IOException {
        Path file = dir.resolve(ip.toString());
        FileChannel ch;
        try {
            ch = FileChannel.open(file, CREATE_NEW, WRITE);
        } catch (FileAlreadyExistsException e) {
            return false;
        }
        try (ch) {
            Failpoints.at(Failpoints.CREATED_EMPTY);
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(false);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        Failpoints.at(Failpoints.WRITTEN);
        return true;
    }

    /**
     * The raw content of {@code <ip>} (its first {@link #MAX_FILE_BYTES} bytes), or empty when there is no such
     * reservation or it is not a regular file. One lstat, open, read and close for a file of a usual size
     * ({@code Files.readAllBytes} adds an fstat and a second read).
     */
    Optional<byte[]> read(IpAddress ip) throws IOException {
        Path file = dir.resolve(ip.toString());
        FileChannel ch;
        try {
            if (!isRegularFile(file)) {
                return Optional.empty();
            }
            ch = FileChannel.open(file, READ, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        try (ch) {
            ByteBuffer buf = ByteBuffer.allocate(512);
            while (true) {
                int n = ch.read(buf);
                if (n < 0) {
                    return Optional.of(Arrays.copyOf(buf.array(), buf.position()));
                }
                if (buf.hasRemaining() || buf.capacity() >= MAX_FILE_BYTES) {
                    // A short read of a regular file is its end; past the limit it is not a reservation of Go's.
                    return Optional.of(Arrays.copyOf(buf.array(), buf.position()));
                }
                buf = ByteBuffer.wrap(Arrays.copyOf(buf.array(), buf.capacity() * 2)).position(buf.capacity());
            }
        }
    }

    /**
     * Removes {@code <ip>}; false if it was already gone. {@code java.io.File.delete} is a plain {@code unlink}
     * ({@code Files.delete} looks at the file first).
     */
    boolean delete(IpAddress ip) throws IOException {
        java.io.File file = dir.resolve(ip.toString()).toFile();
        if (file.delete()) {
            return true;
        }
        if (Files.exists(file.toPath(), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.delete(file.toPath()); // to throw the reason
        }
        return false;
    }

    /** {@code last_reserved_ip.<n>} as Go reads it ({@code net.ParseIP} of the whole content); empty if unusable. */
    Optional<IpAddress> readLastReserved(int rangeSet) throws IOException {
        Path file = dir.resolve(LAST_RESERVED_PREFIX + rangeSet);
        try {
            if (!isRegularFile(file)) {
                return Optional.empty();
            }
            byte[] b = readSmall(file);
            return IpAddress.parse(new String(b, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Rewrites {@code last_reserved_ip.<n>} in place, as Go does. Not atomic: a torn file only makes the next
     * allocation start its round-robin elsewhere (Go tolerates an unparsable file the same way).
     */
    void writeLastReserved(int rangeSet, IpAddress ip) throws IOException {
        byte[] b = ip.toString().getBytes(StandardCharsets.US_ASCII);
        Path file = dir.resolve(LAST_RESERVED_PREFIX + rangeSet);
        try {
            if (!isRegularFile(file)) {
                throw new FileSystemException(file.toString(), null, "not a regular file: not written");
            }
        } catch (NoSuchFileException absent) {
            // created below
        }
        // Read-write: an open for writing alone would block on a FIFO swapped in since the check.
        try (FileChannel ch = FileChannel.open(file, CREATE, READ, WRITE, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buf = ByteBuffer.wrap(b);
            long pos = 0;
            while (buf.hasRemaining()) {
                pos += ch.write(buf, pos);
            }
            // FileChannel.truncate costs an fstat and two seeks even when there is nothing to cut.
            if (ch.size() > b.length) {
                ch.truncate(b.length);
            }
        }
    }

    /** Whether {@code file} is a regular file, not following a link ({@code lstat}); NoSuchFileException if absent. */
    private static boolean isRegularFile(Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isRegularFile();
    }

    /**
     * A file of this directory, at most {@link #MAX_FILE_BYTES} (a reservation holds an ID and a name; anything larger
     * is not Go's and is not read whole), opened without following a link.
     */
    private static byte[] readSmall(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file, READ, LinkOption.NOFOLLOW_LINKS)) {
            return in.readNBytes(MAX_FILE_BYTES);
        }
    }

    /** Makes creations and removals of entries durable ({@code fsync} on the directory). */
    void syncDirectory() throws IOException {
        if (dirChannel == null) {
            dirChannel = FileChannel.open(dir, READ);
        }
        dirChannel.force(true);
    }

    /** The directory's current {@link DirSignature}. */
    DirSignature signature() throws IOException {
        return DirSignature.of(Files.readAttributes(dir, BasicFileAttributes.class));
    }

    /** Everything a full scan finds, in file-name order (the order Go's {@code filepath.Walk} visits). */
    record Scan(List<Found> reservations, TreeMap<Integer, IpAddress> lastReserved) {}

    /**
     * One entry named as an address: its trimmed content as {@code owner}, or {@code null} for something that is not
     * a file (it still occupies the address for Go's exclusive create).
     */
    record Found(IpAddress address, String owner) {

        /** Whether the entry is a file holding a reservation (not torn, not a directory). */
        boolean owned() {
            return owner != null && !torn();
        }

        /** A file that is empty or holds a NUL byte: its writer died between create and write. */
        boolean torn() {
            return owner != null && (owner.isEmpty() || owner.indexOf('\0') >= 0);
        }

        /** The reservation's owner, for an {@link #owned()} entry. */
        Reservation reservation() {
            int sep = owner.indexOf("\r\n");
            return sep < 0
                    ? new Reservation(address, owner, "")
                    : new Reservation(address, owner.substring(0, sep), owner.substring(sep + 2));
        }
    }

    /**
     * Reads every reservation and {@code last_reserved_ip.*} file. Only files named exactly as Go names an address
     * count as reservations; other names (and subdirectories) are left alone, as they are not ours to judge.
     */
    Scan scan() throws IOException {
        scans++;
        List<Found> found = new ArrayList<>();
        TreeMap<Integer, IpAddress> last = new TreeMap<>();
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                names.add(p.getFileName().toString());
            }
        }
        names.sort(null);
        for (String name : names) {
            if (name.equals(LOCK)) {
                continue;
            }
            if (name.startsWith(LAST_RESERVED_PREFIX)) {
                Optional<Integer> index = rangeSetIndex(name.substring(LAST_RESERVED_PREFIX.length()));
                if (index.isPresent()) {
                    Optional<IpAddress> ip = readLastReserved(index.get());
                    if (ip.isPresent()) {
                        last.put(index.get(), ip.get());
                    }
                }
                continue;
            }
            Optional<IpAddress> ip = IpAddress.parse(name);
            if (ip.isEmpty() || !ip.get().toString().equals(name)) {
                continue;
            }
            Path file = dir.resolve(name);
            byte[] content;
            try {
                if (!isRegularFile(file)) {
                    // A directory, FIFO, link...: Go's exclusive create fails on it too, so the address is taken,
                    // by nobody we can name.
                    found.add(new Found(ip.get(), null));
                    continue;
                }
                content = readSmall(file);
            } catch (NoSuchFileException e) {
                continue;
            }
            found.add(new Found(ip.get(), goTrimSpace(new String(content, StandardCharsets.UTF_8))));
        }
        return new Scan(found, last);
    }

    private static Optional<Integer> rangeSetIndex(String s) {
        if (s.isEmpty() || s.length() > 9 || (s.length() > 1 && s.charAt(0) == '0')) {
            return Optional.empty();
        }
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return Optional.empty();
            }
            n = n * 10 + (c - '0');
        }
        return Optional.of(n);
    }

    /** The trimmed container ID of {@code who}; refuses what the file format cannot hold (code 4 at the edge). */
    static String checked(Attachment who) throws IpamException {
        String id = goTrimSpace(who.containerId());
        if (id.isEmpty() || hasLineBreak(id)) {
            throw new IpamException(Reason.INVALID_ARGUMENT,
                    "container ID \"" + who.containerId() + "\" cannot be stored: empty or with a line break");
        }
        String ifname = who.ifname();
        if (ifname.isEmpty() || hasLineBreak(ifname) || !goTrimSpace(ifname).equals(ifname)) {
            throw new IpamException(Reason.INVALID_ARGUMENT,
                    "interface name \"" + ifname + "\" cannot be stored: empty, with a line break or white space");
        }
        return id;
    }

    private static boolean hasLineBreak(String s) {
        return s.indexOf('\r') >= 0 || s.indexOf('\n') >= 0;
    }

    /** Go's {@code strings.TrimSpace}: ASCII white space plus Unicode's White_Space characters. */
    static String goTrimSpace(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && isGoSpace(s.charAt(start))) {
            start++;
        }
        while (end > start && isGoSpace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean isGoSpace(char c) {
        return switch (c) {
            case '\t', '\n', 0x0b, '\f', '\r', ' ', 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000 -> true;
            default -> c >= 0x2000 && c <= 0x200a;
        };
    }

    @Override
    public void close() throws IOException {
        if (dirChannel != null) {
            dirChannel.close();
            dirChannel = null;
        }
    }
}
