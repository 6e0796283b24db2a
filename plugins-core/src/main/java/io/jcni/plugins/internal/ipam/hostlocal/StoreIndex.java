package io.jcni.plugins.internal.ipam.hostlocal;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/*
 * Over 600 lines on purpose: the index's on-disk layout (header, bitmaps, hash table), its page I/O and its rebuild
 * share one header (the H_* offsets), one page cache and one commit of dirty pages; split, each part would need the
 * others' offsets and pages.
 */

/**
 * The index file, {@code <dataDir>/.jcni/<network>.index}: a hint that makes lookups and allocation independent of
 * how full the network is. The reservation files stay the truth; every index hit is checked against its file, and the
 * index is rebuilt from the files whenever the directory's {@link DirSignature} differs from the recorded one.
 *
 * <p>Layout (little-endian, 4 KiB pages, read and written page by page through a per-operation cache):
 * <pre>
 * page 0   header: magic, version, state (0 consistent, 1 being rewritten), directory signature, generation,
 *          table offset/capacity/live/dead counts, bitmap count, intent (address being created), boot id, cached
 *          last_reserved_ip.0..15, bitmap descriptors (range start, end, offset)
 * bitmaps  one per range of at most 2^24 addresses: bit i set = the file for rangeStart + i exists
 * table    open-addressing hash table (linear probing, load &le; 1/2) of 32-byte slots
 *          {key, state|family, address high, address low}; key = hash of (containerID, ifname), ifname empty for
 *          a legacy reservation; one slot per reserved address
 * </pre>
 *
 * <p>Crash safety: pages are written at {@link #commit}, then the header with the new signature; a process killed in
 * between leaves the old signature, which no longer matches the directory (every change that needs index pages also
 * changes the directory), so the next operation rebuilds. A {@link #rewrite} marks the header "being rewritten"
 * first. No write is synced: the header carries the boot id, and an index from another boot (after a power loss,
 * when unsynced writes may be lost in any order) is rebuilt. Not thread-safe: the store's lock serializes use.
 *
 * <p>The index is never needed for correctness, so it never fails an operation by being unwritable. When a write
 * fails (a full disk: the index is the largest thing host-local writes, and Go's host-local writes no such file) the
 * index <em>detaches</em> for the rest of the operation: it truncates its file to nothing (which frees its space and
 * makes the next operation rebuild) and goes on in memory, where every page it needs is already cached or, after a
 * rewrite, built from the scan. An index that cannot be opened at all ({@link #inMemory()}) lives in memory only and is
 * rebuilt from a scan by every operation: Go's cost, Go's behaviour. The file is opened with {@code O_NOFOLLOW} and
 * must be a regular file: a link planted at its path is never written through.
 */
final class StoreIndex implements Closeable {

    static final int PAGE = 4096;
    static final int MAX_BITMAPS = 64;
    /** Ranges with more addresses are walked by probing files, as Go does. */
    static final long MAX_BITMAP_BITS = 1L << 24;
    /** last_reserved_ip.n for n below this is cached in the header. */
    static final int LAST_CACHE = 16;

    private static final long MAGIC = 0x0a4c48494e434a89L; // bytes 89 'J' 'C' 'N' 'I' 'H' 'L' '\n'
    private static final int VERSION = 2;
    /** Smallest table, in slots; tests lower it to make the table grow and compact often. */
    static int minCapacity = 1024;
    private static final int SLOT = 32;
    private static final long EMPTY = 0;
    private static final long LIVE = 1;
    private static final long DEAD = 2;
    private static final long V6 = 1L << 8;

    private static final int H_MAGIC = 0;
    private static final int H_VERSION = 8;
    private static final int H_STATE = 12;
    private static final int H_SIGNATURE = 16; // 4 longs
    private static final int H_GENERATION = 48;
    private static final int H_TABLE_OFFSET = 56;
    private static final int H_CAPACITY = 64;
    private static final int H_LIVE = 68;
    private static final int H_DEAD = 72;
    private static final int H_BITMAPS = 76;
    private static final int H_INTENT = 80; // flag (0 none, 1 v4, 2 v6), high, low
    private static final int H_BOOT = 104; // the kernel's boot_id when the index was written
    private static final int H_LAST = 128; // LAST_CACHE x {flag (0 unknown, 1 absent, 2 v4, 3 v6), high, low}
    private static final int H_DESC = 512; // MAX_BITMAPS x {flag (v6), start high, start low, end high, end low, offset}
    private static final int DESC = 48;

    /** The file, or null for an index that lives in memory only. */
    private final FileChannel ch;
    /** Whether a write failed in this operation: from then on nothing more is written (see the class comment). */
    private boolean detached;
    private final Map<Long, ByteBuffer> pages = new HashMap<>();
    private final TreeSet<Long> dirty = new TreeSet<>();
    private ByteBuffer header;
    private long cachedGeneration = -1;
    private boolean tableReset;
    private boolean changed;
    /** Pages from this one on are new in this operation: they start zeroed, not read from the file. */
    private long freshFrom = Long.MAX_VALUE;

    // decoded header
    private long tableOffset;
    private int capacity;
    private int live;
    private int dead;
    private final List<BitmapDesc> bitmaps = new ArrayList<>();

    private record BitmapDesc(IpAddress start, IpAddress end, long offset) {}

    /** The addresses a bitmap covers: a range's start and end. */
    record Span(IpAddress start, IpAddress end) {

        static Span of(IpRange r) {
            return new Span(r.rangeStart(), r.rangeEnd());
        }

        boolean wantsBitmap() {
            return IpAddress.distance(start, end) < MAX_BITMAP_BITS;
        }
    }

    private StoreIndex(FileChannel ch) {
        this.ch = ch;
    }

    /**
     * This boot's {@code /proc/sys/kernel/random/boot_id}, read once per JVM (a JVM does not outlive a boot).
     *
     * <p>Why: within one boot every process sees the same page cache, so index writes need no {@code fsync} to be
     * seen by the next process, even after a SIGKILL. Only a power loss or kernel crash can lose or reorder them, and
     * that is a new boot: an index written in another boot is rebuilt. If the boot id cannot be read, every ordering
     * point is synced instead ({@link #SYNC_ORDER}).
     */
    private static final class Boot {
        static final long[] ID = read();

        private static long[] read() {
            try {
                String s = java.nio.file.Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).strip();
                java.util.UUID u = java.util.UUID.fromString(s);
                return new long[] {u.getMostSignificantBits(), u.getLeastSignificantBits()};
            } catch (IOException | IllegalArgumentException e) {
                return null;
            }
        }
    }

    /** Whether index writes must be synced in order, because the boot id is unknown. */
    private static final boolean SYNC_ORDER = Boot.ID == null;

    private static boolean sameBoot(ByteBuffer h) {
        return Boot.ID != null && h.getLong(H_BOOT) == Boot.ID[0] && h.getLong(H_BOOT + 8) == Boot.ID[1];
    }

    /**
     * The index in {@code file}, created if missing. Refused (an {@link IOException}) when something other than a
     * regular file is there, a symbolic link included: the caller then uses {@link #inMemory()}.
     */
    static StoreIndex open(Path file) throws IOException {
        try {
            BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile()) {
                throw new FileSystemException(file.toString(), null, "not a regular file: not used as the index");
            }
        } catch (NoSuchFileException absent) {
            // created below
        }
        return new StoreIndex(FileChannel.open(file, CREATE, READ, WRITE, LinkOption.NOFOLLOW_LINKS));
    }

    /** An index without a file: every operation rebuilds it from a scan of the directory. */
    static StoreIndex inMemory() {
        return new StoreIndex(null);
    }

    /** Whether this index has no file (see {@link #inMemory()}). */
    boolean isInMemory() {
        return ch == null;
    }

    /**
     * Reads the header. False when the file is not a consistent index of this version (new, foreign, or a rewrite was
     * interrupted): the caller rebuilds. Pages cached by an earlier operation are kept only if nobody committed since.
     */
    boolean load() throws IOException {
        if (detached) {
            // The last operation could not write: what it left in memory was never stored. Start from the file.
            detached = false;
            dropCache();
        }
        ByteBuffer h = newPage();
        readFully(h, 0);
        header = h;
        bitmaps.clear();
        if (h.getLong(H_MAGIC) != MAGIC || h.getInt(H_VERSION) != VERSION || h.getInt(H_STATE) != 0
                || (!SYNC_ORDER && !sameBoot(h))) {
            dropCache();
            return false;
        }
        long generation = h.getLong(H_GENERATION);
        if (generation != cachedGeneration) {
            dropCache();
        }
        tableOffset = h.getLong(H_TABLE_OFFSET);
        capacity = h.getInt(H_CAPACITY);
        live = h.getInt(H_LIVE);
        dead = h.getInt(H_DEAD);
        int n = h.getInt(H_BITMAPS);
        if (capacity < 16 || Integer.bitCount(capacity) != 1 || n < 0 || n > MAX_BITMAPS
                || tableOffset % PAGE != 0 || tableOffset < PAGE) {
            dropCache();
            return false;
        }
        for (int i = 0; i < n; i++) {
            int at = H_DESC + i * DESC;
            boolean v6 = h.getLong(at) != 0;
            bitmaps.add(new BitmapDesc(
                    address(v6, h.getLong(at + 8), h.getLong(at + 16)),
                    address(v6, h.getLong(at + 24), h.getLong(at + 32)),
                    h.getLong(at + 40)));
        }
        return true;
    }

    /** Forgets every cached page (after a failed operation, or when someone else committed). */
    void dropCache() {
        pages.clear();
        dirty.clear();
        tableReset = false;
        changed = false;
        freshFrom = Long.MAX_VALUE;
        cachedGeneration = -1;
    }

    boolean matches(DirSignature s) {
        return header.getLong(H_SIGNATURE) == s.mtimeNanos() && header.getLong(H_SIGNATURE + 8) == s.size()
                && header.getLong(H_SIGNATURE + 16) == s.identity() && header.getLong(H_SIGNATURE + 24) == s.birthNanos();
    }

    // ---- intent: the address whose file is being created ----

    /**
     * Records, before the file exists, that {@code ip}'s reservation file is about to be created. If the process dies
     * between create and write, the next operation finds the intent and removes the torn file. (After a power loss
     * the index is rebuilt anyway; an empty file then stays taken until GC.)
     */
    void writeIntent(IpAddress ip) throws IOException {
        header.putLong(H_INTENT, ip.v6() ? 2 : 1).putLong(H_INTENT + 8, ip.high()).putLong(H_INTENT + 16, ip.low());
        writeFully(header.slice(H_INTENT, 24), H_INTENT);
        if (SYNC_ORDER) {
            force();
        }
        changed = true;
    }

    /** The address of an interrupted creation, or null. */
    IpAddress pendingIntent() {
        long flag = header.getLong(H_INTENT);
        return flag == 0 ? null : address(flag == 2, header.getLong(H_INTENT + 8), header.getLong(H_INTENT + 16));
    }

    // ---- last_reserved_ip cache ----

    /** Whether the header caches {@code last_reserved_ip.<rangeSet>}. */
    static boolean cachesLastReserved(int rangeSet) {
        return rangeSet >= 0 && rangeSet < LAST_CACHE;
    }

    /** The cached last reserved address of a range set, or null when there is none (or it is not cached). */
    IpAddress lastReserved(int rangeSet) {
        int at = H_LAST + rangeSet * 24;
        long flag = header.getLong(at);
        return flag < 2 ? null : address(flag == 3, header.getLong(at + 8), header.getLong(at + 16));
    }

    void setLastReserved(int rangeSet, IpAddress ip) {
        if (!cachesLastReserved(rangeSet)) {
            return;
        }
        int at = H_LAST + rangeSet * 24;
        if (ip == null) {
            header.putLong(at, 1).putLong(at + 8, 0).putLong(at + 16, 0);
        } else {
            header.putLong(at, ip.v6() ? 3 : 2).putLong(at + 8, ip.high()).putLong(at + 16, ip.low());
        }
        changed = true;
    }

    // ---- bitmaps ----

    /** The bitmap of {@code r}, or -1 if the index has none for exactly this range. */
    int bitmapFor(IpRange r) {
        return bitmapFor(Span.of(r));
    }

    static boolean wantsBitmap(IpRange r) {
        return Span.of(r).wantsBitmap();
    }

    /** The spans the loaded index has bitmaps for. */
    List<Span> spans() {
        List<Span> out = new ArrayList<>(bitmaps.size());
        for (BitmapDesc d : bitmaps) {
            out.add(new Span(d.start, d.end));
        }
        return out;
    }

    private int bitmapFor(Span s) {
        for (int i = 0; i < bitmaps.size(); i++) {
            if (bitmaps.get(i).start.equals(s.start()) && bitmaps.get(i).end.equals(s.end())) {
                return i;
            }
        }
        return -1;
    }

    /** The first clear bit in {@code [from, to]} of bitmap {@code b}, or -1. */
    long nextClear(int b, long from, long to) throws IOException {
        long offset = bitmaps.get(b).offset;
        long bit = from;
        while (bit <= to) {
            long pos = offset + (bit >>> 6) * 8;
            long word = ~page(pos / PAGE).getLong((int) (pos % PAGE)) & (-1L << (bit & 63));
            if (word != 0) {
                long found = (bit & ~63L) + Long.numberOfTrailingZeros(word);
                return found <= to ? found : -1;
            }
            bit = (bit & ~63L) + 64;
        }
        return -1;
    }

    void setBit(int b, long bit, boolean value) throws IOException {
        long pos = bitmaps.get(b).offset + (bit >>> 6) * 8;
        long pageNo = pos / PAGE;
        ByteBuffer p = page(pageNo);
        long word = p.getLong((int) (pos % PAGE));
        long updated = value ? word | (1L << (bit & 63)) : word & ~(1L << (bit & 63));
        if (updated != word) {
            p.putLong((int) (pos % PAGE), updated);
            dirty.add(pageNo);
            changed = true;
        }
    }

    /** Sets or clears {@code ip}'s bit in every bitmap whose range holds it. */
    void mark(IpAddress ip, boolean reserved) throws IOException {
        for (int i = 0; i < bitmaps.size(); i++) {
            BitmapDesc d = bitmaps.get(i);
            if (ip.v6() == d.start.v6() && ip.compareTo(d.start) >= 0 && ip.compareTo(d.end) <= 0) {
                setBit(i, IpAddress.distance(d.start, ip), reserved);
            }
        }
    }

    // ---- the (containerID, ifname) -> addresses table ----

    /** FNV-1a over the UTF-16 units of both strings, separated by '\n' (which neither can hold), then mixed. */
    static long key(String containerId, String ifname) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < containerId.length(); i++) {
            h = (h ^ containerId.charAt(i)) * 0x100000001b3L;
        }
        h = (h ^ '\n') * 0x100000001b3L;
        for (int i = 0; i < ifname.length(); i++) {
            h = (h ^ ifname.charAt(i)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h;
    }

    /** A live slot: where it is and the address it maps to. */
    record Slot(int index, IpAddress address) {}

    /** Every live slot with {@code key} (possibly stale: callers verify against the files). */
    List<Slot> lookup(long key) throws IOException {
        List<Slot> out = new ArrayList<>(2);
        int mask = capacity - 1;
        int i = home(key, mask);
        for (int probes = 0; probes < capacity; probes++, i = (i + 1) & mask) {
            long meta = slotLong(i, 8);
            long state = meta & 0xff;
            if (state == EMPTY) {
                break;
            }
            if (state == LIVE && slotLong(i, 0) == key) {
                out.add(new Slot(i, address((meta & V6) != 0, slotLong(i, 16), slotLong(i, 24))));
            }
        }
        return out;
    }

    /** Adds a slot mapping {@code key} to {@code ip}, unless one exists; grows the table when it is half full. */
    void insert(long key, IpAddress ip) throws IOException {
        if ((long) (live + dead + 1) * 2 > capacity) {
            regrow(live + 1);
        }
        int mask = capacity - 1;
        int i = home(key, mask);
        int free = -1;
        for (int probes = 0; probes < capacity; probes++, i = (i + 1) & mask) {
            long meta = slotLong(i, 8);
            long state = meta & 0xff;
            if (state == EMPTY) {
                if (free < 0) {
                    free = i;
                }
                break;
            }
            if (state == DEAD && free < 0) {
                free = i;
            } else if (state == LIVE && slotLong(i, 0) == key && ((meta & V6) != 0) == ip.v6()
                    && slotLong(i, 16) == ip.high() && slotLong(i, 24) == ip.low()) {
                return;
            }
        }
        if (free < 0) {
            regrow(live + 1);
            insert(key, ip);
            return;
        }
        if ((slotLong(free, 8) & 0xff) == DEAD) {
            dead--;
        }
        writeSlot(free, key, LIVE | (ip.v6() ? V6 : 0), ip.high(), ip.low());
        live++;
    }

    /** Marks a slot deleted. */
    void kill(int index) throws IOException {
        writeSlot(index, slotLong(index, 0), DEAD, 0, 0);
        live--;
        dead++;
    }

    /** Rebuilds the table in place from its live slots, sized for {@code expected} entries. */
    private void regrow(int expected) throws IOException {
        List<long[]> entries = new ArrayList<>(live);
        for (int i = 0; i < capacity; i++) {
            long meta = slotLong(i, 8);
            if ((meta & 0xff) == LIVE) {
                entries.add(new long[] {slotLong(i, 0), meta, slotLong(i, 16), slotLong(i, 24)});
            }
        }
        // Drop the old table's pages; the file is cut at tableOffset at commit and the new table is sparse.
        long firstPage = tableOffset / PAGE;
        removeFrom(pages.keySet(), firstPage);
        removeFrom(dirty, firstPage);
        tableReset = true;
        freshFrom = firstPage;
        capacity = capacityFor(Math.max(expected, entries.size()));
        live = 0;
        dead = 0;
        int mask = capacity - 1;
        for (long[] e : entries) {
            int i = home(e[0], mask);
            while ((slotLong(i, 8) & 0xff) != EMPTY) {
                i = (i + 1) & mask;
            }
            writeSlot(i, e[0], e[1], e[2], e[3]);
            live++;
        }
    }

    private static int capacityFor(int entries) {
        long want = Math.max(minCapacity, (long) entries * 4);
        long cap = Long.highestOneBit(want - 1) << 1;
        if (cap > (1 << 30)) {
            throw new IllegalStateException("index table would exceed 2^30 slots");
        }
        return (int) cap;
    }

    private static int home(long key, int mask) {
        return (int) (key ^ (key >>> 32)) & mask;
    }

    private long slotLong(int index, int field) throws IOException {
        long pos = tableOffset + (long) index * SLOT + field;
        return page(pos / PAGE).getLong((int) (pos % PAGE));
    }

    private void writeSlot(int index, long key, long meta, long high, long low) throws IOException {
        long pos = tableOffset + (long) index * SLOT;
        long pageNo = pos / PAGE;
        int at = (int) (pos % PAGE);
        page(pageNo).putLong(at, key).putLong(at + 8, meta).putLong(at + 16, high).putLong(at + 24, low);
        dirty.add(pageNo);
        changed = true;
    }

    // ---- commit and rewrite ----

    /** Whether this operation changed anything that {@link #commit} would write. */
    boolean hasChanges() {
        return changed;
    }

    /**
     * Writes the changed pages, then the header carrying {@code signature} (the directory as this operation leaves
     * it). Nothing is synced: within a boot the page cache is what every process reads, and after a reboot the index
     * is rebuilt (see {@link Boot}).
     */
    void commit(DirSignature signature) throws IOException {
        if (tableReset) {
            truncate(tableOffset);
            tableReset = false;
        }
        freshFrom = Long.MAX_VALUE;
        for (long p : dirty) {
            writeFully(pages.get(p).duplicate().clear(), p * PAGE);
        }
        dirty.clear();
        if (SYNC_ORDER) {
            force();
        }
        long generation = header.getLong(H_GENERATION) + 1;
        putSignature(header, signature);
        header.putLong(H_GENERATION, generation)
                .putLong(H_TABLE_OFFSET, tableOffset)
                .putInt(H_CAPACITY, capacity)
                .putInt(H_LIVE, live)
                .putInt(H_DEAD, dead)
                .putLong(H_INTENT, 0).putLong(H_INTENT + 8, 0).putLong(H_INTENT + 16, 0);
        writeFully(header.duplicate().clear(), 0);
        // Sharp edge (multigrain timestamps, Linux >= 6.13): tmpfs stamps a directory on unlink with the removed
        // file's coarse ctime, which is the newest timestamp handed out so far, possibly the very mtime just
        // recorded; an unlink and a create by Go in that same tick would then leave mtime and size as recorded.
        // Writing this file again after a stat makes the kernel hand out a fine-grained timestamp, which moves its
        // global floor past the recorded time, so every later stamp differs. DirSignatureTest checks the effect.
        if (ch != null && !detached) {
            ch.size();
        }
        writeFully(header.duplicate().clear(), 0);
        cachedGeneration = generation;
        changed = false;
        if (detached) {
            emptyFile();
        }
    }

    /** Removes the page numbers from {@code firstPage} on (a loop: a lambda would cost a bootstrap per exec). */
    private static void removeFrom(Collection<Long> pageNumbers, long firstPage) {
        for (Iterator<Long> it = pageNumbers.iterator(); it.hasNext(); ) {
            if (it.next() >= firstPage) {
                it.remove();
            }
        }
    }

    /** One reservation for {@link #rewrite}: its table key and address. */
    record Entry(long key, IpAddress address) {}

    /**
     * Replaces the whole index: bitmaps for {@code spans} (those small enough, the first {@link #MAX_BITMAPS}) with
     * the bits of {@code occupied}, a table of {@code entries}, the last reserved addresses, and {@code signature}.
     */
    void rewrite(List<Span> spans, List<IpAddress> occupied, List<Entry> entries,
            Map<Integer, IpAddress> lastReserved, DirSignature signature) throws IOException {
        long oldGeneration = header != null && header.getLong(H_MAGIC) == MAGIC ? header.getLong(H_GENERATION) : 0;
        // Mark the old content as being rewritten before touching anything else.
        ByteBuffer h = newPage();
        h.putLong(H_MAGIC, MAGIC).putInt(H_VERSION, VERSION).putInt(H_STATE, 1);
        if (Boot.ID != null) {
            h.putLong(H_BOOT, Boot.ID[0]).putLong(H_BOOT + 8, Boot.ID[1]);
        }
        writeFully(h.duplicate().clear(), 0);
        if (SYNC_ORDER) {
            force();
        }
        truncate(PAGE);
        dropCache();
        header = h;
        freshFrom = 1;

        bitmaps.clear();
        long end = PAGE;
        for (Span r : spans) {
            if (bitmaps.size() == MAX_BITMAPS) {
                break;
            }
            if (!r.wantsBitmap() || bitmapFor(r) >= 0) {
                continue;
            }
            bitmaps.add(new BitmapDesc(r.start(), r.end(), end));
            end += (IpAddress.distance(r.start(), r.end()) / 64 + 1) * 8;
        }
        tableOffset = (end + PAGE - 1) / PAGE * PAGE;
        capacity = capacityFor(entries.size());
        live = 0;
        dead = 0;
        for (IpAddress ip : occupied) {
            mark(ip, true);
        }
        for (Entry e : entries) {
            insert(e.key(), e.address());
        }
        for (int i = 0; i < LAST_CACHE; i++) {
            setLastReserved(i, lastReserved.get(i));
        }
        h.putInt(H_BITMAPS, bitmaps.size());
        for (int i = 0; i < bitmaps.size(); i++) {
            BitmapDesc d = bitmaps.get(i);
            h.putLong(H_DESC + i * DESC, d.start.v6() ? 1 : 0)
                    .putLong(H_DESC + i * DESC + 8, d.start.high()).putLong(H_DESC + i * DESC + 16, d.start.low())
                    .putLong(H_DESC + i * DESC + 24, d.end.high()).putLong(H_DESC + i * DESC + 32, d.end.low())
                    .putLong(H_DESC + i * DESC + 40, d.offset);
        }
        h.putLong(H_GENERATION, Math.max(oldGeneration, System.nanoTime()));
        // The file ends where the table ends, so the sparse tail reads as empty slots.
        writeFully(ByteBuffer.allocate(1), tableOffset + (long) capacity * SLOT - 1);
        commit(signature);
        header.putInt(H_STATE, 0);
        writeFully(header.duplicate().clear(), 0);
    }

    // ---- pages ----

    private ByteBuffer page(long pageNo) throws IOException {
        ByteBuffer p = pages.get(pageNo);
        if (p == null) {
            p = newPage();
            if (pageNo < freshFrom) {
                readFully(p, pageNo * PAGE);
            }
            pages.put(pageNo, p);
        }
        return p;
    }

    private static ByteBuffer newPage() {
        return ByteBuffer.allocate(PAGE).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Fills {@code p} from {@code position}; past the end of the file (or without a file) it reads zeros. */
    private void readFully(ByteBuffer p, long position) throws IOException {
        if (ch == null) {
            Arrays.fill(p.array(), (byte) 0);
            return;
        }
        ByteBuffer b = p.duplicate().clear();
        while (b.hasRemaining()) {
            int n = ch.read(b, position + b.position());
            if (n < 0) {
                Arrays.fill(p.array(), b.position(), p.capacity(), (byte) 0);
                return;
            }
        }
    }

    // ---- writes: each one detaches the index instead of failing (see the class comment) ----

    private void writeFully(ByteBuffer b, long position) {
        if (ch == null || detached) {
            return;
        }
        try {
            long pos = position;
            while (b.hasRemaining()) {
                pos += ch.write(b, pos);
            }
        } catch (IOException e) {
            detach();
        }
    }

    private void truncate(long size) {
        if (ch == null || detached) {
            return;
        }
        try {
            ch.truncate(size);
        } catch (IOException e) {
            detach();
        }
    }

    private void force() {
        if (ch == null || detached) {
            return;
        }
        try {
            ch.force(false);
        } catch (IOException e) {
            detach();
        }
    }

    /**
     * Gives the file's space back (truncates it to nothing, so the next operation rebuilds) and forgets the cache: for
     * an operation that failed for want of space and runs again without this index.
     */
    void discard() {
        dropCache();
        detached = false;
        if (ch != null) {
            emptyFile();
        }
    }

    /**
     * Stops writing for the rest of this operation. The file keeps what was written before the failure: pages under
     * the old header, whose signature no longer matches a directory this operation changed, or a header in state 1 (see
     * {@link #commit} and {@link #rewrite}); either way the next operation rebuilds. Until {@link #commit} empties it,
     * pages not cached yet are still read from it.
     */
    private void detach() {
        detached = true;
    }

    /**
     * Truncates a detached index's file to nothing, at the end of its operation (after which no page is read from
     * it): an empty index is rebuilt by the next operation, and its pages go back to a file system that may just have
     * run out of them, for the reservation files that need them. After a rewrite, every page it holds is cached.
     */
    private void emptyFile() {
        try {
            ch.truncate(0);
        } catch (IOException e) {
            // What is left is not trusted by the next operation (see detach).
        }
    }

    private static void putSignature(ByteBuffer h, DirSignature s) {
        h.putLong(H_SIGNATURE, s.mtimeNanos()).putLong(H_SIGNATURE + 8, s.size())
                .putLong(H_SIGNATURE + 16, s.identity()).putLong(H_SIGNATURE + 24, s.birthNanos());
    }

    private static IpAddress address(boolean v6, long high, long low) {
        return v6 ? new IpAddress(true, high, low) : new IpAddress(false, 0, low);
    }

    @Override
    public void close() throws IOException {
        if (ch != null) {
            ch.close();
        }
    }
}
