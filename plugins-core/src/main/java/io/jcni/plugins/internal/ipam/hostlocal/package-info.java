/**
 * The host-local IPAM engine: Go host-local's allocator and disk store (containernetworking/plugins 1.1.1), on Go's
 * on-disk format, with an index that keeps every common operation independent of how full the network is.
 * {@link io.jcni.plugins.internal.ipam.hostlocal.HostLocalStore} is the entry point; the plugin parses its config
 * into {@link io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec}s, canonicalizes them with {@link
 * io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet#canonicalAll}, and calls {@code allocate}, {@code find},
 * {@code release} or {@code gc}.
 *
 * <h2>On disk</h2>
 * <pre>
 * &lt;dataDir&gt;/&lt;network&gt;/                 Go's directory, Go's format, the source of truth
 *     lock                             the lock file, flock(2)-locked by Go and by us (StoreLock)
 *     10.1.0.2                         one file per reserved address, named by Go's net.IP.String()
 *                                      (IPv6: RFC 5952, e.g. fd00::2), holding "&lt;containerID&gt;\r\n&lt;ifname&gt;";
 *                                      a legacy file (host-local &lt; 0.7) holds only the container ID and
 *                                      belongs to every interface of that container
 *     last_reserved_ip.0               the address last reserved from range set 0 (no newline)
 * &lt;dataDir&gt;/.jcni/&lt;network&gt;.index     ours: the index (see StoreIndex); Go never looks here
 * </pre>
 * Nothing of ours is written inside the network directory: Go walks that directory recursively and matches every
 * file's content against the container it looks for (and deletes matches on DEL), so any file of ours there could
 * be read or deleted by Go. The index sits beside it under a dot directory, which no network can be named (CNI
 * network names start with a letter or digit). Reservation files are created as Go creates them ({@code
 * O_CREAT|O_EXCL}, one write), plus fsync of the file and the directory; {@code last_reserved_ip.<n>} is rewritten
 * in place as Go does (a torn one only moves the round-robin start, as in Go).
 *
 * <h2>The index</h2>
 * One file, read page by page: a header (a {@link io.jcni.plugins.internal.ipam.hostlocal.DirSignature} of the
 * network directory as the index last left it, the boot id, the cached {@code last_reserved_ip.0..15}, an intent
 * slot), one bitmap
 * per range of at most 2<sup>24</sup> addresses (bit set = the address's file exists), and an open-addressing hash
 * table from hash(containerID, ifname) to addresses. So:
 * <ul>
 *   <li>lookup by attachment (CHECK, DEL, the repeated-ADD check) reads the header, the table page(s) of its key
 *       and of its legacy key, and the attachment's own files: no other file, whatever the fill;</li>
 *   <li>the search for a free address follows Go's round-robin order exactly but skips 64 taken addresses per step
 *       in the bitmap, so a fragmented 99 % full /16 costs the same as an empty one;</li>
 *   <li>the index is a hint: every table hit is checked against the file's content (a stale hit is dropped), and a
 *       clear bit whose file exists only costs one more create attempt.</li>
 * </ul>
 * Each operation compares the directory's signature (mtime in ns, size, inode, birth time) with the recorded one;
 * when it differs, someone else (Go's host-local, an admin, a crashed process) created or removed files, and the
 * index is rebuilt from a scan of the directory (Go's cost, once). The same happens for an index file that is
 * missing, damaged, of another version or boot, or lacking a bitmap for a range of the current config.
 *
 * <h2>Crash safety and durability</h2>
 * A reservation is durable when its ADD returns: the file is synced, then the directory. Before creating the file,
 * the address is recorded as the header's intent. A process killed with SIGKILL at any point leaves either nothing,
 * a complete file, or an empty file named in the intent; in every case the directory changed after the last recorded
 * signature, so the next operation (under the lock) removes an empty intended file and rebuilds, and a later DEL of
 * that container releases whatever it got. Index pages are written before the header with the new signature, so a
 * process killed between them leaves a stale signature, hence a rebuild. The index itself is never synced: within one
 * boot every process reads the same page cache, and the header records the kernel's boot id, so after a power loss
 * (a new boot, when unsynced writes may be lost in any order) the first operation rebuilds. An empty reservation file
 * left by a power loss stays taken until GC. {@code StoreProcessTest} kills real processes at each point.
 *
 * <h2>A full disk, a hostile directory</h2>
 * The index is never needed for correctness, so it never fails an operation. A write to it that fails stops its
 * writes for the operation, which goes on from memory and then empties the file (the next operation rebuilds); an
 * operation that fails on the reservation files while the index holds space gives that space back and runs again
 * from a scan, as Go's host-local always runs; an index that cannot be opened (no space for it, something other than
 * a regular file at its path) is held in memory only. A failed ADD removes what it reserved, also when the failure
 * comes at commit; DEL always releases. {@code FullDiskTest} runs this on a tmpfs of a few pages, with Go's
 * host-local on the same directory. Files are opened without following a link in their own name and read only if
 * they are regular files ({@code HostileDataDirTest}).

 * <h2>Differences from Go host-local 1.1.1</h2>
 * <ul>
 *   <li>A repeated ADD of one attachment returns what it holds ({@link
 *       io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting#REUSE}); Go fails it as a duplicate ({@code REJECT}, kept
 *       for exact emulation).</li>
 *   <li>A failed multi-range ADD releases only what that call reserved; Go releases every address of the
 *       container.</li>
 *   <li>A gateway outside its subnet is refused ({@code gateway 10.9.9.9 not in network 10.0.0.0/24}), as newer
 *       upstream releases do; 1.1.1 accepted it.</li>
 *   <li>One lock for the whole ADD (Go takes it per range set); files named in a non-canonical spelling of an
 *       address are left alone (Go would also match them by content on DEL).</li>
 *   <li>GC (spec 1.1): keeps reservations of valid attachments and legacy files of valid container IDs, releases
 *       the rest including empty (torn) files. 1.1.1 has no GC.</li>
 * </ul>
 *
 * <h2>Limits</h2>
 * <ul>
 *   <li>Seeing Go's writes relies on multigrain timestamps (Linux &ge; 6.13, ext4/xfs/btrfs/tmpfs: a change made
 *       after a {@code stat} gets a newer timestamp). On older kernels a Go ADD landing in the same timestamp tick
 *       (a few ms) as our last commit can go unseen until the next rebuild: our DEL of that container would then
 *       miss its address (GC reclaims it) and our allocator would try it and move on (no double allocation).
 *       {@code DirSignatureTest} checks the property on the machine's disk and tmpfs.</li>
 *   <li>With Go and jcni writing alternately, each foreign change costs one directory scan (what Go pays on every
 *       operation).</li>
 *   <li>Ranges above 2<sup>24</sup> addresses (IPv6 wider than /104) are walked by trying addresses one by one, as
 *       Go does; a nearly full huge range is as slow as in Go. At most 64 ranges have bitmaps; last_reserved_ip
 *       values are cached for range sets 0 to 15 (others are read from their file).</li>
 * </ul>
 */
package io.jcni.plugins.internal.ipam.hostlocal;
