package io.jcni.plugins.internal.ipam.hostlocal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The exclusive lock a store holds for the whole of each operation, on {@code <dataDir>/<network>/lock}.
 *
 * <p>Go's host-local locks that file with {@code flock(2)}, so {@link #standard()} does too (through netlink-ffm, the
 * only module allowed native calls). Java's {@code FileChannel.lock} would not do: it takes a POSIX record lock
 * ({@code fcntl}), and on Linux the two kinds never exclude each other. Nothing else in the store knows which lock it
 * holds.
 */
@FunctionalInterface
public interface StoreLock {

    /** Blocks until the lock on {@code lockFile} (created if missing) is held; closing the result releases it.
     *  @throws java.nio.file.NoSuchFileException if the directory of {@code lockFile} does not exist */
    Held acquire(Path lockFile) throws IOException;

    /** A held lock. */
    interface Held extends AutoCloseable {
        @Override
        void close() throws IOException;
    }

    /** The lock stores use unless told otherwise. */
    static StoreLock standard() {
        return FlockStoreLock.INSTANCE;
    }
}
