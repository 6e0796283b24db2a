package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.ipam.hostlocal.ReservationFiles.Found;
import io.jcni.plugins.internal.ipam.hostlocal.StoreIndex.Entry;
import io.jcni.plugins.internal.ipam.hostlocal.StoreIndex.Slot;
import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpAddress;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamStore;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeAllocator;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.Reservation;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The host-local allocation engine on one network's data directory: Go host-local's allocator and disk store,
 * with an index (see {@code package-info}) so that no operation reads every reservation on the common path.
 *
 * <p>Every public method is one operation under the network's lock ({@link StoreLock}): it sees the directory as
 * the last operation of any process left it and leaves it consistent. A store may be kept open across operations
 * (a runtime linking the plugins) or opened per operation (a plugin exec); it is safe for concurrent use by threads.
 */
public final class HostLocalStore implements IpamStore {

    /** The directory under the data dir holding jcni's index files; no network name can start with a dot. */
    static final String INDEX_DIR = ".jcni";

    private final Path netDir;
    private final Path lockFile;
    private final Path indexFile;
    private final StoreLock storeLock;
    private final ReservationFiles files;
    private final ReentrantLock instanceLock = new ReentrantLock();
    private StoreIndex index;
    private boolean closed;

    private HostLocalStore(Path dataDir, String network, StoreLock storeLock) {
        this.netDir = dataDir.resolve(network);
        this.lockFile = netDir.resolve(ReservationFiles.LOCK);
        this.indexFile = dataDir.resolve(INDEX_DIR).resolve(network + ".index");
        this.storeLock = storeLock;
        this.files = new ReservationFiles(netDir);
    }

    /** A store for {@code <dataDir>/<network>}, with the {@linkplain StoreLock#standard() standard lock}. */
    public static HostLocalStore open(Path dataDir, String network) throws IpamException {
        return open(dataDir, network, StoreLock.standard());
    }

    /**
     * A store for {@code <dataDir>/<network>}. Nothing is touched until the first operation, which creates the
     * directories it needs. The network name must be a valid CNI network name ({@code [a-zA-Z0-9][a-zA-Z0-9_.-]*}).
     */
    public static HostLocalStore open(Path dataDir, String network, StoreLock lock) throws IpamException {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(lock, "lock");
        if (!CniNames.isValidName(network)) {
            throw new IpamException(Reason.INVALID_ARGUMENT,
                    "invalid network name \"" + network + "\": must match [a-zA-Z0-9][a-zA-Z0-9_.-]*");
        }
        return new HostLocalStore(dataDir, network, lock);
    }

    /** The network directory, {@code <dataDir>/<network>}. */
    public Path directory() {
        return netDir;
    }

    /** Full scans of the network directory so far (for tests: the common path makes none). */
    long scans() {
        return files.scans();
    }

    /**
     * Allocates one address per range set for {@code who}, as Go host-local's ADD does: the rules are {@link
     * RangeAllocator}'s; a new address is the first free one in Go's round-robin order from the address after
     * {@code last_reserved_ip.<i>} (from the first range's start if that file is missing or outside the set),
     * skipping gateways. On any failure, addresses this call reserved are released again and nothing else changes.
     *
     * @param requested specific addresses wanted (CNI_ARGS {@code IP}, {@code args.cni.ips}, the {@code ips}
     *     capability), at most one per range set
     * @return one allocation per range set, in order
     */
    public List<Allocation> allocate(Attachment who, List<RangeSet> rangeSets, List<IpAddress> requested,
            OnExisting onExisting) throws IpamException {
        Objects.requireNonNull(onExisting, "onExisting");
        String id = ReservationFiles.checked(who);
        List<IpRange> wanted = new ArrayList<>();
        for (RangeSet set : rangeSets) {
            wanted.addAll(set.ranges());
        }
        return locked(wanted, new Op<List<Allocation>>() {
            @Override
            public List<Allocation> run(Session s) throws IOException, IpamException {
                return s.allocate(id, who, rangeSets, requested, onExisting);
            }

            @Override
            public void abandon(Session s) {
                s.abandonAllocation();
            }
        });
    }

    /**
     * The reservations of {@code who}, matched as Go's {@code FindByID} and {@code ReleaseByID} match: files holding
     * exactly {@code containerID\r\nifname}; if there are none, legacy files holding only the container ID.
     */
    public List<Reservation> find(Attachment who) throws IpamException {
        String id = ReservationFiles.checked(who);
        return locked(List.of(), new Op<List<Reservation>>() {
            @Override
            public List<Reservation> run(Session s) throws IOException {
                Owned mine = s.lookup(id, who.ifname());
                List<Reservation> out = new ArrayList<>();
                for (Slot slot : mine.releasable()) {
                    out.add(new Reservation(slot.address(), id, mine.exact.isEmpty() ? "" : who.ifname()));
                }
                return out;
            }
        });
    }

    /**
     * Releases the reservations {@link #find} reports (Go's DEL). Releasing what is not reserved is not an error.
     *
     * @return the released addresses
     */
    public List<IpAddress> release(Attachment who) throws IpamException {
        String id = ReservationFiles.checked(who);
        return locked(List.of(), new Op<List<IpAddress>>() {
            @Override
            public List<IpAddress> run(Session s) throws IOException {
                Owned mine = s.lookup(id, who.ifname());
                List<IpAddress> out = new ArrayList<>();
                for (Slot slot : mine.releasable()) {
                    s.unreserve(slot);
                    out.add(slot.address());
                }
                return out;
            }
        });
    }

    /**
     * Spec 1.1 GC: releases every reservation whose (containerID, ifname) is not in {@code valid}. A legacy
     * reservation is kept if its container ID is that of any valid attachment; a torn file (empty: its writer died)
     * belongs to nobody and is released. Reads every reservation file.
     *
     * @return the released reservations ({@code containerId} empty for torn files)
     */
    public List<Reservation> gc(Collection<Attachment> valid) throws IpamException {
        Set<String> exact = new HashSet<>();
        Set<String> ids = new HashSet<>();
        for (Attachment a : valid) {
            String id = ReservationFiles.goTrimSpace(a.containerId());
            exact.add(id + "\n" + a.ifname());
            ids.add(id);
        }
        return locked(List.of(), new Op<List<Reservation>>() {
            @Override
            public List<Reservation> run(Session s) throws IOException {
                return s.gc(exact, ids);
            }
        });
    }

    @Override
    public void close() throws IpamException {
        instanceLock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                if (index != null) {
                    index.close();
                }
            } finally {
                files.close();
            }
        } catch (IOException e) {
            throw failure(e);
        } finally {
            instanceLock.unlock();
        }
    }

    // ---- one operation ----

    private interface Op<T> {
        T run(Session s) throws IOException, IpamException;

        /** Undoes what {@link #run} changed when the operation fails after it, at commit; best effort. */
        default void abandon(Session s) {
        }
    }

    private <T> T locked(List<IpRange> wanted, Op<T> op) throws IpamException {
        instanceLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("store closed: " + netDir);
            }
            try {
                StoreLock.Held held = acquire();
                try {
                    StoreIndex idx = index();
                    try {
                        return attempt(idx, wanted, op);
                    } catch (IOException e) {
                        if (idx.isInMemory()) {
                            throw e;
                        }
                        // The disk may be full, and the index is the one thing host-local writes that Go's does
                        // not: its pages go back to the file system and the operation runs again as Go's runs,
                        // from a scan. The failed attempt undid its own reservations.
                        idx.discard();
                        return attempt(StoreIndex.inMemory(), wanted, op);
                    }
                } finally {
                    held.close();
                }
            } catch (IOException | RuntimeException e) {
                if (index != null) {
                    index.dropCache();
                }
                if (e instanceof RuntimeException r) {
                    throw r;
                }
                throw failure((IOException) e);
            }
        } finally {
            instanceLock.unlock();
        }
    }

    /** One run of {@code op} on {@code idx}: session, op, commit; a failed commit abandons what the op did. */
    private <T> T attempt(StoreIndex idx, List<IpRange> wanted, Op<T> op) throws IOException, IpamException {
        Session s = new Session(idx, wanted);
        try {
            T result = op.run(s);
            try {
                s.commit();
            } catch (IOException | RuntimeException e) {
                op.abandon(s);
                throw e;
            }
            return result;
        } catch (IpamException e) {
            s.commit();
            throw e;
        }
    }

    private StoreLock.Held acquire() throws IOException {
        try {
            return storeLock.acquire(lockFile);
        } catch (NoSuchFileException e) {
            Files.createDirectories(netDir);
            return storeLock.acquire(lockFile);
        }
    }

    /**
     * The index, opened (and its directory created) on first use. When that fails (a full disk, a read-only
     * {@code .jcni}, something other than a regular file at the index path) the operation runs on an index in memory,
     * rebuilt from a scan as Go's host-local works on every call, and the next operation tries the file again.
     */
    private StoreIndex index() throws IOException {
        if (index != null && index.isInMemory()) {
            index = null;
        }
        if (index == null) {
            try {
                index = StoreIndex.open(indexFile);
            } catch (NoSuchFileException e) {
                try {
                    Files.createDirectories(indexFile.getParent());
                    index = StoreIndex.open(indexFile);
                } catch (IOException again) {
                    index = StoreIndex.inMemory();
                }
            } catch (IOException e) {
                index = StoreIndex.inMemory();
            }
        }
        return index;
    }

    private IpamException failure(IOException e) {
        return new IpamException(Reason.STORE_FAILURE, "host-local store " + netDir + ": " + IoText.reason(e)
                + (e instanceof FileSystemException f && f.getFile() != null ? " (" + f.getFile() + ")" : ""), e);
    }

    /** Slots in the order of their files' names (the address as text), the order Go reads a directory in. */
    private static final Comparator<Slot> BY_FILE_NAME = new Comparator<>() {
        @Override
        public int compare(Slot a, Slot b) {
            return a.address().toString().compareTo(b.address().toString());
        }
    };

    /** The reservations of one attachment, verified against their files. */
    private record Owned(List<Slot> exact, List<Slot> legacy) {
        /** Go's FindByID/ReleaseByID matching: exact ones, or else legacy ones. */
        List<Slot> releasable() {
            return exact.isEmpty() ? legacy : exact;
        }

        /** Go's GetByID matching: both, in file-name order. */
        List<Slot> all() {
            List<Slot> out = new ArrayList<>(exact);
            out.addAll(legacy);
            out.sort(BY_FILE_NAME);
            return out;
        }
    }

    /** The state of one locked operation. */
    private final class Session {
        private final StoreIndex idx;
        private DirSignature signature;
        private boolean dirChanged;
        private boolean rebuilt;

        Session(StoreIndex idx, List<IpRange> wanted) throws IOException {
            this.idx = idx;
            boolean ok = idx.load();
            if (ok && idx.pendingIntent() != null) {
                removeIfTorn(idx.pendingIntent());
                ok = false;
            }
            signature = files.signature();
            ok = ok && idx.matches(signature);
            for (int i = 0; ok && i < wanted.size(); i++) {
                IpRange r = wanted.get(i);
                ok = !StoreIndex.wantsBitmap(r) || idx.bitmapFor(r) >= 0;
            }
            if (!ok) {
                rebuild(wanted);
            }
        }

        /** The file of an interrupted creation: removed if it never got its content. */
        private void removeIfTorn(IpAddress ip) throws IOException {
            var content = files.read(ip);
            if (content.isPresent()) {
                String owner = ReservationFiles.goTrimSpace(new String(content.get(), StandardCharsets.UTF_8));
                if (new Found(ip, owner).torn()) {
                    files.delete(ip);
                    dirChanged = true;
                }
            }
        }

        /** Rebuilds the index from a full scan of the directory. */
        private void rebuild(List<IpRange> wanted) throws IOException {
            rewrite(files.scan(), Set.of(), wanted);
        }

        private void rewrite(ReservationFiles.Scan scan, Set<IpAddress> removed, List<IpRange> wanted)
                throws IOException {
            List<StoreIndex.Span> spans = new ArrayList<>();
            for (IpRange r : wanted) {
                spans.add(StoreIndex.Span.of(r));
            }
            spans.addAll(idx.spans());
            List<IpAddress> occupied = new ArrayList<>();
            List<Entry> entries = new ArrayList<>();
            for (Found f : scan.reservations()) {
                if (removed.contains(f.address())) {
                    continue;
                }
                occupied.add(f.address());
                if (f.owned()) {
                    Reservation r = f.reservation();
                    entries.add(new Entry(StoreIndex.key(r.containerId(), r.ifname()), f.address()));
                }
            }
            if (dirChanged) {
                files.syncDirectory();
            }
            signature = files.signature();
            idx.rewrite(spans, occupied, entries, scan.lastReserved(), signature);
            dirChanged = false;
            rebuilt = true;
        }

        void commit() throws IOException {
            Failpoints.at(Failpoints.BEFORE_COMMIT);
            if (dirChanged) {
                files.syncDirectory();
                signature = files.signature();
            }
            if (dirChanged || idx.hasChanges()) {
                idx.commit(signature);
            }
            dirChanged = false;
        }

        /** The attachment's slots whose files still name it; stale slots are deleted on the way. */
        Owned lookup(String id, String ifname) throws IOException {
            return new Owned(verified(StoreIndex.key(id, ifname), id + "\r\n" + ifname),
                    verified(StoreIndex.key(id, ""), id));
        }

        private List<Slot> verified(long key, String expected) throws IOException {
            List<Slot> out = new ArrayList<>(1);
            for (Slot slot : idx.lookup(key)) {
                var content = files.read(slot.address());
                if (content.isPresent() && ReservationFiles.goTrimSpace(
                        new String(content.get(), StandardCharsets.UTF_8)).equals(expected)) {
                    out.add(slot);
                } else {
                    idx.kill(slot.index());
                }
            }
            return out;
        }

        void unreserve(Slot slot) throws IOException {
            files.delete(slot.address());
            dirChanged = true;
            idx.mark(slot.address(), false);
            idx.kill(slot.index());
        }

        /** The reservations of the last {@link #allocate}, for {@link #abandonAllocation}. */
        private Reserver lastReserver;

        /** A failed commit after {@link #allocate}: what it reserved is released again, so the failed ADD leaves none. */
        void abandonAllocation() {
            if (lastReserver != null) {
                lastReserver.rollback();
            }
        }

        List<Allocation> allocate(String id, Attachment who, List<RangeSet> sets, List<IpAddress> requested,
                OnExisting onExisting) throws IOException, IpamException {
            Reserver reserver = new Reserver(id, who);
            lastReserver = reserver;
            List<IpAddress> held = new ArrayList<>();
            for (Slot slot : lookup(id, who.ifname()).all()) {
                held.add(slot.address());
            }
            try {
                return RangeAllocator.allocate(id, sets, requested, held, onExisting, reserver);
            } catch (IpamException | IOException | RuntimeException e) {
                reserver.rollback();
                throw e;
            }
        }

        private IpAddress lastReserved(int setIndex) throws IOException {
            return StoreIndex.cachesLastReserved(setIndex)
                    ? idx.lastReserved(setIndex)
                    : files.readLastReserved(setIndex).orElse(null);
        }

        private void setLastReserved(int setIndex, IpAddress ip) throws IOException {
            files.writeLastReserved(setIndex, ip);
            idx.setLastReserved(setIndex, ip);
            dirChanged = true;
        }

        List<Reservation> gc(Set<String> validExact, Set<String> validIds) throws IOException {
            ReservationFiles.Scan scan = files.scan();
            List<Reservation> released = new ArrayList<>();
            Set<IpAddress> removed = new HashSet<>();
            for (Found f : scan.reservations()) {
                Reservation r;
                if (f.torn()) {
                    r = new Reservation(f.address(), "", "");
                } else if (f.owned()) {
                    r = f.reservation();
                    boolean valid = r.legacy()
                            ? validIds.contains(r.containerId())
                            : validExact.contains(r.containerId() + "\n" + r.ifname());
                    if (valid) {
                        continue;
                    }
                } else {
                    continue;
                }
                if (files.delete(f.address())) {
                    released.add(r);
                }
                removed.add(f.address());
                dirChanged = true;
            }
            rewrite(scan, removed, List.of());
            return released;
        }

        /** Reserves addresses for one attachment within this operation, remembering them for a rollback. */
        private final class Reserver implements RangeWalk.Probe, RangeAllocator.Pool<IOException> {
            private final byte[] content;
            private final long key;
            private final List<IpAddress> created = new ArrayList<>(2);

            Reserver(String id, Attachment who) {
                content = ReservationFiles.content(who);
                key = StoreIndex.key(id, who.ifname());
            }

            @Override
            public boolean tryReserve(IpAddress ip) throws IOException {
                return reserve(ip);
            }

            @Override
            public String refusal(IpAddress ip) {
                return null;
            }

            @Override
            public boolean takeRequested(int setIndex, RangeSet set, IpAddress ip) throws IOException {
                if (!reserve(ip)) {
                    return false;
                }
                setLastReserved(setIndex, ip);
                return true;
            }

            /** Go's round-robin walk from after {@code last_reserved_ip.<i>}, skipping gateways. */
            @Override
            public IpAddress takeNext(int setIndex, RangeSet set) throws IOException {
                IpAddress last = lastReserved(setIndex);
                IpAddress got = RangeWalk.walk(set, last, idx, this);
                if (got == null && !rebuilt) {
                    // Before calling the set full, make sure the index is not what says so.
                    rebuild(set.ranges());
                    got = RangeWalk.walk(set, last, idx, this);
                }
                if (got != null) {
                    setLastReserved(setIndex, got);
                }
                return got;
            }

            boolean reserve(IpAddress ip) throws IOException {
                idx.writeIntent(ip);
                boolean ok = files.create(ip, content);
                idx.mark(ip, true); // also when taken: then the index was behind the directory
                if (ok) {
                    dirChanged = true;
                    created.add(ip);
                    idx.insert(key, ip);
                }
                return ok;
            }

            /** Best effort: what this operation reserved is released again. */
            void rollback() {
                for (IpAddress ip : created) {
                    try {
                        files.delete(ip);
                        dirChanged = true;
                        idx.mark(ip, false);
                        for (Slot slot : idx.lookup(key)) {
                            if (slot.address().equals(ip)) {
                                idx.kill(slot.index());
                            }
                        }
                    } catch (IOException e) {
                        // The directory signature changed; the next operation rebuilds from the files.
                    }
                }
                created.clear();
            }
        }
    }
}
