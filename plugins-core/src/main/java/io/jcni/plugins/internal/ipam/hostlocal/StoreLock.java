package io.jcni.plugins.internal.ipam.hostlocal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The exclusive lock a store holds for the whole of each operation, on {@code <dataDir>/<network>/lock}.
 *
 * <p><b>Sharp edge, until integration:</b> Go's host-local locks that file with {@code flock(2)}. Java's {@code
 * FileChannel.lock} takes a POSIX record lock ({@code fcntl}), and on Linux the two kinds never exclude each other.
 * {@link #standard()} is therefore correct among jcni processes and threads but does <em>not</em> exclude a Go
 * host-local running at the same moment. The flock-backed lock of {@code io.jcni.netlink} replaces it by changing the
 * one line in {@link #standard()}; nothing else in the store knows which lock it holds.
 */
@FunctionalInterface
public interface StoreLock {

    /** Blocks until the lock on {@code lockFile} (created if missing) is held; closing the result releases it. */
    Held acquire(Path lockFile) throws IOException;

    /** A held lock. */
    interface Held extends AutoCloseable {
        @Override
        void close() throws IOException;
    }

    /** The lock stores use unless told otherwise. */
    static StoreLock standard() {
        return FcntlStoreLock.INSTANCE; // integration: the flock(2) lock from io.jcni.netlink goes here
    }
}
