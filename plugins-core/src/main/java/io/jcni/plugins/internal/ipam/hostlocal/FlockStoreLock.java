package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.FileLocks;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The {@link StoreLock} Go's host-local also takes: {@code flock(2)} on {@code <dataDir>/<network>/lock}, so a jcni
 * and a Go host-local running at the same moment on one data directory exclude each other. Each acquisition opens the
 * file anew, and flock locks belong to the open file description, so this also excludes other threads of this JVM.
 * The kernel drops the lock when a process dies, which the SIGKILL tests rely on.
 */
final class FlockStoreLock implements StoreLock {

    static final FlockStoreLock INSTANCE = new FlockStoreLock();

    private FlockStoreLock() {}

    @Override
    public Held acquire(Path lockFile) throws IOException {
        FileLocks.ExclusiveLock lock;
        try {
            lock = FileLocks.exclusive(lockFile);
        } catch (KernelException e) {
            if (e.isNotFound()) {
                // The contract of acquire: a missing directory is NoSuchFileException, so the store creates it.
                throw new NoSuchFileException(lockFile.toString(), null, e.getMessage());
            }
            throw new IOException("cannot lock " + lockFile + ": " + e.getMessage(), e);
        }
        return new Held() {
            @Override
            public void close() throws IOException {
                lock.close();
            }
        };
    }
}
