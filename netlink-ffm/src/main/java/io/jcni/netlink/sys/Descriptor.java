package io.jcni.netlink.sys;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.ffm.SocketCalls;
import io.jcni.netlink.internal.ffm.Syscalls;
import io.jcni.netlink.internal.wire.LibcH;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A file descriptor this process owns: one received from another process ({@link UnixSocket#receive}, SCM_RIGHTS),
 * or one opened here to be handed to another ({@link #openPath}). Java has no public way to wrap a raw descriptor, so
 * code that must use it goes through {@link #procPath()} ({@code /proc/self/fd/N}), which any thread of this process
 * can open: e.g. {@code NetNs.openDescriptor} for a namespace a client handed over.
 *
 * <p>{@link #close()} releases it, once; the number may be reused by the process afterwards, so nothing may use it
 * then. Thread-safe.
 */
public final class Descriptor implements AutoCloseable {
    private final int fd;
    private final AtomicBoolean closed = new AtomicBoolean();

    private Descriptor(int fd) {
        this.fd = fd;
    }

    /** Takes ownership of {@code fd} (received or inherited): this object closes it. */
    static Descriptor adopt(int fd) {
        return new Descriptor(fd);
    }

    /**
     * {@code open(path, O_PATH | O_CLOEXEC)}: a handle on the file at {@code path} without opening the file itself
     * (a FIFO does not block, a device is not touched), to hand to another process that then opens what it refers
     * to through its own {@code /proc/self/fd} (what jcni's plugin client does with {@code CNI_NETNS}).
     *
     * @throws KernelException naming the path: NOT_FOUND if nothing is there
     */
    public static Descriptor openPath(Path path) {
        try {
            return new Descriptor(Syscalls.open(path.toString(), LibcH.O_PATH, 0));
        } catch (NetlinkException e) {
            throw new KernelException(e.operation(), e.errno(), null, e);
        }
    }

    /** The descriptor's number in this process. */
    public int fd() {
        if (closed.get()) {
            throw new IllegalStateException("descriptor " + fd + " is closed");
        }
        return fd;
    }

    /** {@code /proc/self/fd/N}: opening it opens the very file this descriptor refers to, wherever it lives. */
    public Path procPath() {
        return Path.of("/proc/self/fd/" + fd());
    }

    /** The file systems {@link #fileSystem()} tells apart (linux/magic.h). */
    public enum FileSystem {
        PROC, SYSFS, NSFS, OTHER
    }

    /**
     * The file system the descriptor's file is on ({@code fstatfs}): what a descriptor another process handed over
     * must be checked for before it is read, since its kind alone does not say where it comes from (procfs files are
     * regular files; a pipe or {@code /dev/zero} handed over where {@code /proc/self/mountinfo} was expected would
     * block or never end).
     */
    public FileSystem fileSystem() {
        long magic = Syscalls.fstatfsType(fd(), "fd " + fd);
        if (magic == LibcH.PROC_SUPER_MAGIC) {
            return FileSystem.PROC;
        }
        if (magic == LibcH.SYSFS_MAGIC) {
            return FileSystem.SYSFS;
        }
        if (magic == LibcH.NSFS_MAGIC) {
            return FileSystem.NSFS;
        }
        return FileSystem.OTHER;
    }

    public boolean isOpen() {
        return !closed.get();
    }

    /** Closes the descriptor. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            SocketCalls.close(fd);
        }
    }

    @Override
    public String toString() {
        return "fd " + fd + (closed.get() ? " (closed)" : "");
    }
}
