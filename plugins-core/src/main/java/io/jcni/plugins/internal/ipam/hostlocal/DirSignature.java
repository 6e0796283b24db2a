package io.jcni.plugins.internal.ipam.hostlocal;

import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/**
 * What a {@code stat} of the network directory says about its entries: modification time in nanoseconds, size,
 * identity (the JDK's file key, i.e. device and inode, hashed) and birth time. The index records the signature after
 * each of its own changes; a different one later means someone else (Go's host-local, an admin, a crashed writer)
 * created or removed entries since, and the index is rebuilt from the files.
 *
 * <p>Why the modification time suffices on this kernel: since Linux 6.13, ext4, xfs, btrfs and tmpfs use multigrain
 * timestamps: once a timestamp has been read by {@code stat}, the next change of that inode gets a fine-grained one,
 * so a change right after our {@code stat} cannot keep the same time. One exception, measured here: tmpfs stamps a
 * directory on {@code unlink} with the removed file's coarse time, which can equal the recorded one; the size
 * (tmpfs counts entries in it) catches that, and a missed removal is harmless anyway (the index verifies each hit).
 * On older kernels, a creation in the same timestamp tick (a few ms) as our last change may go unseen; see
 * {@code package-info}.
 */
record DirSignature(long mtimeNanos, long size, long identity, long birthNanos) {

    static DirSignature of(BasicFileAttributes a) {
        Object key = a.fileKey();
        return new DirSignature(
                a.lastModifiedTime().to(TimeUnit.NANOSECONDS),
                a.size(),
                key == null ? 0 : key.hashCode(),
                a.creationTime().to(TimeUnit.NANOSECONDS));
    }

    // Written out rather than generated: a record's generated equals/hashCode/toString bootstrap
    // java.lang.runtime.ObjectMethods on first call, which costs milliseconds in every exec (StartupPathTest).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof DirSignature other
                && mtimeNanos == other.mtimeNanos
                && size == other.size
                && identity == other.identity
                && birthNanos == other.birthNanos;
    }

    @Override
    public int hashCode() {
        int h = Long.hashCode(mtimeNanos);
        h = 31 * h + Long.hashCode(size);
        h = 31 * h + Long.hashCode(identity);
        h = 31 * h + Long.hashCode(birthNanos);
        return h;
    }

    @Override
    public String toString() {
        return "DirSignature[mtimeNanos=" + mtimeNanos + ", size=" + size + ", identity=" + identity
                + ", birthNanos=" + birthNanos + "]";
    }
}
