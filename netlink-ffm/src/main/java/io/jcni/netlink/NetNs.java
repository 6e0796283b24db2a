package io.jcni.netlink;

import io.jcni.netlink.internal.ffm.Syscalls;
import io.jcni.netlink.internal.ns.NamespaceThreads;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.LibcH;
import io.jcni.netlink.sys.Descriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A network namespace, held by an open file descriptor: it cannot disappear while this object is open, and no bind
 * mount is needed (an anonymous namespace from {@link #create()} lives as long as something refers to it).
 *
 * <p>Namespace switching is confined to dedicated platform threads (see {@link #call}); nothing in this module ever
 * switches a caller's thread. To talk to the namespace, open a handle: {@link Netlink#open(NetNs)}.
 */
public final class NetNs implements AutoCloseable {

    /** A namespace's identity: the nsfs device and inode, as in {@code stat -L /proc/self/ns/net}. */
    public record Id(long device, long inode) {
        /** {@code net:[inode]}, as {@code readlink /proc/self/ns/net} prints it. */
        @Override
        public String toString() {
            return "net:[" + inode + "]";
        }
    }

    /** Code to run inside a namespace ({@link #call}); may throw {@code E}. */
    @FunctionalInterface
    public interface Task<T, E extends Exception> {
        T run() throws E;
    }

    private final int fd;
    private final String path;
    private final AtomicBoolean closed = new AtomicBoolean();

    private NetNs(int fd, String path) {
        this.fd = fd;
        this.path = path;
    }

    /**
     * Opens the namespace at {@code path}: a bind mount such as {@code /run/netns/NAME} (what {@code ip netns add}
     * and container runtimes create, the {@code CNI_NETNS} of a CNI call) or {@code /proc/PID/ns/net}.
     *
     * <p>The path comes from input, so it is checked before anything is opened for real: it is resolved with
     * {@code O_PATH} (following links, as {@code /proc/PID/ns/net} is one, but without opening the file: a FIFO
     * cannot block, a device or socket is never touched), must be on nsfs ({@code fstatfs}, {@code NSFS_MAGIC}), and
     * only then is that same file opened, through {@code /proc/self/fd}, so nothing can be swapped in between (Go's
     * {@code ns.GetNS} checks the path with {@code statfs} and opens it afterwards).
     *
     * @throws NetlinkException NOT_FOUND if the path does not exist, INVALID if it is not a network namespace
     */
    public static NetNs open(Path path) {
        String p = path.toString();
        return check(Syscalls.open(p, LibcH.O_PATH, 0), p);
    }

    /**
     * Opens the namespace that {@code descriptor} refers to, with exactly the checks of {@link #open(Path)}: a file
     * another process opened (e.g. with {@code O_PATH}) and handed over with {@code SCM_RIGHTS}, as jcni's plugin
     * client does with {@code CNI_NETNS}. It is reached through {@code /proc/self/fd}, so it works across mount
     * namespaces and nothing at any path can be swapped in. Messages name {@code shownAs} (the path the other process
     * opened). The descriptor stays open and owned by the caller; the namespace gets a descriptor of its own.
     *
     * @throws NetlinkException INVALID if it is not a network namespace
     */
    public static NetNs openDescriptor(Descriptor descriptor, Path shownAs) {
        String p = shownAs.toString();
        int located;
        try {
            located = Syscalls.open(descriptor.procPath().toString(), LibcH.O_PATH, 0);
        } catch (NetlinkException e) {
            throw new NetlinkException("open netns " + p, NetlinkException.Kind.OTHER,
                    "cannot reopen the descriptor handed over (is /proc mounted?): " + e.getMessage(), e);
        }
        return check(located, p);
    }

    /** The checks of {@link #open(Path)} on {@code located}, an {@code O_PATH} descriptor this call closes. */
    private static NetNs check(int located, String p) {
        int fd;
        try {
            long magic = Syscalls.fstatfsType(located, p);
            if (magic != LibcH.NSFS_MAGIC) {
                throw new NetlinkException("open netns " + p, Errno.EINVAL, "not a namespace file ("
                        + kindOf(located) + ")", null);
            }
            try {
                fd = Syscalls.open("/proc/self/fd/" + located, LibcH.O_RDONLY, 0);
            } catch (NetlinkException e) {
                // Not NOT_FOUND: the namespace exists (we hold it); /proc is what is missing.
                throw new NetlinkException("open netns " + p, NetlinkException.Kind.OTHER,
                        "cannot reopen it through /proc/self/fd (is /proc mounted?): " + e.getMessage(), e);
            }
        } finally {
            Syscalls.close(located);
        }
        try {
            int type = Syscalls.ioctl(fd, LibcH.NS_GET_NSTYPE, p);
            if (type != LibcH.CLONE_NEWNET) {
                throw new NetlinkException("open netns " + p, Errno.EINVAL, "a namespace of another type", null);
            }
        } catch (NetlinkException e) {
            Syscalls.close(fd);
            if (e.errno() == Errno.ENOTTY) {
                throw new NetlinkException("open netns " + p, Errno.EINVAL, "not a namespace file", e);
            }
            throw e;
        }
        return new NetNs(fd, p);
    }

    /** What {@code fd} (an {@code O_PATH} descriptor) refers to, for the error message: "a FIFO", "a directory"... */
    private static String kindOf(int fd) {
        try {
            // stat through the descriptor's /proc link: the file is examined, not opened.
            int mode = (Integer) Files.getAttribute(Path.of("/proc/self/fd/" + fd), "unix:mode");
            return switch (mode & 0170000) {
                case 0010000 -> "a FIFO";
                case 0020000 -> "a character device";
                case 0040000 -> "a directory";
                case 0060000 -> "a block device";
                case 0100000 -> "a regular file";
                case 0140000 -> "a socket";
                default -> "file mode " + Integer.toOctalString(mode);
            };
        } catch (IOException | RuntimeException e) {
            return "of unknown kind";
        }
    }

    /**
     * The network namespace of the calling thread ({@code /proc/thread-self/ns/net}). For a virtual thread that is
     * its carrier's, the process's own namespace unless something switched a carrier.
     */
    public static NetNs current() {
        return open(Path.of("/proc/thread-self/ns/net"));
    }

    /**
     * A new, empty network namespace ({@code unshare(CLONE_NEWNET)} on a dedicated thread, which then switches back).
     * It has only a loopback link, down. Nothing is mounted: it disappears once this object is closed and no link,
     * socket or process holds it.
     */
    public static NetNs create() {
        int fd = NamespaceThreads.createNetns();
        return new NetNs(fd, "/proc/" + ProcessHandle.current().pid() + "/fd/" + fd);
    }

    /**
     * The open descriptor (for {@code IFLA_NET_NS_FD}, {@code setns}, or a child process). Valid until {@link #close()}.
     *
     * @throws NetlinkException if closed
     */
    public int fd() {
        if (closed.get()) {
            throw new NetlinkException("netns " + path, Errno.EBADF, "closed", null);
        }
        return fd;
    }

    /** The path it was opened from; for {@link #create()}d namespaces {@code /proc/<pid>/fd/<fd>}. */
    public Path path() {
        return Path.of(path);
    }

    /** The namespace's identity (device and inode of its nsfs file). */
    public Id id() {
        try {
            Map<String, Object> attrs = Files.readAttributes(Path.of("/proc/self/fd/" + fd()), "unix:dev,ino");
            return new Id((Long) attrs.get("dev"), (Long) attrs.get("ino"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new NetlinkException("stat netns " + path, Errno.EIO, e.getMessage(), e);
        }
    }

    /** Whether {@code other} is the same namespace (same device and inode), even if opened from another path. */
    public boolean isSame(NetNs other) {
        return id().equals(other.id());
    }

    /**
     * Runs {@code task} inside this namespace, on a dedicated platform thread that switches in and back (never on
     * the calling thread, which just waits), and returns its result or rethrows its exception. Like Go's
     * {@code ns.Do}: sockets the task opens stay in this namespace, {@code /proc/sys/net} shows this namespace's
     * values. The task must not start threads (they would stay inside) and must not depend on thread-locals.
     */
    public <T, E extends Exception> T call(Task<T, E> task) throws E {
        return NamespaceThreads.call(fd(), path, task);
    }

    /** Closes the descriptor. Handles opened for this namespace keep working. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            Syscalls.close(fd);
        }
    }

    @Override
    public String toString() {
        return "netns " + path;
    }
}
