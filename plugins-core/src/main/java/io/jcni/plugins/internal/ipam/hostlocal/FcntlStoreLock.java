package io.jcni.plugins.internal.ipam.hostlocal;

import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.WRITE;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The interim {@link StoreLock}: a POSIX record lock ({@code FileChannel.lock}) for other processes plus an in-JVM
 * lock per file for other threads (a record lock belongs to the whole process, and the JDK refuses a second one on
 * the same file with {@code OverlappingFileLockException}). Does not exclude {@code flock(2)} holders such as Go's
 * host-local; see {@link StoreLock}.
 */
final class FcntlStoreLock implements StoreLock {

    static final FcntlStoreLock INSTANCE = new FcntlStoreLock();

    private final ConcurrentHashMap<Path, ReentrantLock> byRealPath = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Path, ReentrantLock> byPath = new ConcurrentHashMap<>();

    private FcntlStoreLock() {}

    @Override
    public Held acquire(Path lockFile) throws IOException {
        FileChannel channel = FileChannel.open(lockFile, CREATE, WRITE);
        ReentrantLock local;
        try {
            local = inJvmLock(lockFile);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        local.lock();
        FileLock fileLock;
        try {
            fileLock = channel.lock();
        } catch (IOException | RuntimeException e) {
            local.unlock();
            channel.close();
            throw e;
        }
        return () -> {
            try {
                fileLock.release();
                channel.close();
            } finally {
                local.unlock();
            }
        };
    }

    /** One in-JVM lock per real file, so that two spellings of one path share it; resolved once per spelling. */
    private ReentrantLock inJvmLock(Path lockFile) throws IOException {
        Path key = lockFile.toAbsolutePath().normalize();
        ReentrantLock lock = byPath.get(key);
        if (lock == null) {
            lock = byRealPath.computeIfAbsent(lockFile.toRealPath(), p -> new ReentrantLock());
            byPath.putIfAbsent(key, lock);
        }
        return lock;
    }
}
