package io.jcni.netlink.sys;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.internal.wire.Errno;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Network sysctls ({@code /proc/sys/net/...}) as a given namespace sees them: {@code sysctl net.ipv4.ip_forward}.
 *
 * <p>Which namespace a {@code /proc/sys/net} file shows is decided when it is opened, by the opening thread's
 * namespace. So the variants taking a {@link NetNs} open (and read or write) the file on a thread inside it
 * ({@link NetNs#call}); the others use the calling thread's namespace.
 *
 * <p>Keys: {@code net.ipv4.conf.eth0.forwarding} (dots) or {@code net/ipv4/conf/eth0.100/forwarding} (slashes, needed
 * when an interface name contains a dot). Only keys under {@code net} are accepted.
 *
 * <p>Failures are {@link KernelException}s naming the key, e.g. {@code write sysctl net.ipv4.ip_forward=yes: EINVAL
 * (Invalid argument)}: {@link KernelException.Kind#NOT_FOUND} for a key this kernel or namespace does not have (no
 * IPv6, a link that is gone), {@code PERMISSION_DENIED}, {@code INVALID} for a value the kernel refuses. The
 * variants taking a {@link NetNs} also throw its {@link io.jcni.netlink.NetlinkException} (a KernelException) when the
 * namespace cannot be entered.
 */
public final class Sysctl {
    private Sysctl() {}

    /** The largest value read: sysctl handlers produce at most a page per read. */
    private static final int MAX_VALUE_BYTES = 4096;

    /**
     * {@code sysctl -n KEY} in the calling thread's namespace; the value without its trailing newline.
     *
     * <p>Read in one call with a page-sized buffer: most sysctl handlers answer a read at a non-zero offset with
     * end-of-file, so a reader that takes one byte first (as {@code Files.readString} does on files reporting size 0)
     * would get only that byte.
     */
    public static String read(String key) {
        Path path = path(key);
        try (InputStream in = Files.newInputStream(path)) {
            byte[] buf = new byte[MAX_VALUE_BYTES];
            int n = Math.max(0, in.read(buf));
            String value = new String(buf, 0, n, StandardCharsets.UTF_8);
            return value.endsWith("\n") ? value.substring(0, value.length() - 1) : value;
        } catch (IOException e) {
            throw failure("read sysctl " + key, e);
        }
    }

    /** {@code sysctl -w KEY=VALUE} in the calling thread's namespace (one write, as the kernel's parsers expect). */
    public static void write(String key, String value) {
        Path path = path(key);
        try {
            Files.write(path, value.getBytes(StandardCharsets.UTF_8), StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw failure("write sysctl " + key + "=" + value, e);
        }
    }

    /** {@code ip netns exec NS sysctl -n KEY}. */
    public static String read(NetNs netns, String key) {
        path(key);
        return netns.call(new Read(key));
    }

    /** {@code ip netns exec NS sysctl -w KEY=VALUE}. */
    public static void write(NetNs netns, String key, String value) {
        path(key);
        netns.call(new Write(key, value));
    }

    /** {@link #read(String)} on the namespace's thread (a named class: no lambdas on the plugin start-up path). */
    private record Read(String key) implements NetNs.Task<String, RuntimeException> {
        @Override
        public String run() {
            return read(key);
        }
    }

    /** {@link #write(String, String)} on the namespace's thread. */
    private record Write(String key, String value) implements NetNs.Task<Void, RuntimeException> {
        @Override
        public Void run() {
            write(key, value);
            return null;
        }
    }

    /**
     * The file of {@code key} under {@code /proc/sys}.
     *
     * @throws IllegalArgumentException if the key is not under {@code net} or has empty, {@code .} or {@code ..}
     *     components
     */
    static Path path(String key) {
        String relative = key.indexOf('/') >= 0 ? key : key.replace('.', '/');
        String[] parts = relative.split("/", -1);
        if (parts.length < 2 || !parts[0].equals("net")) {
            throw new IllegalArgumentException("sysctl key must be under net: " + key);
        }
        for (String part : parts) {
            if (part.isEmpty() || part.equals(".") || part.equals("..") || part.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("invalid sysctl key: " + key);
            }
        }
        return Path.of("/proc/sys", relative);
    }

    private static KernelException failure(String what, IOException e) {
        int errno;
        if (e instanceof NoSuchFileException) {
            errno = Errno.ENOENT;
        } else if (e instanceof AccessDeniedException) {
            errno = Errno.EACCES;
        } else if (e instanceof FileSystemException x && x.getReason() != null) {
            errno = Errno.byMessage(x.getReason());
        } else {
            errno = Errno.byMessage(e.getMessage());
        }
        return errno == 0
                ? new KernelException(what, KernelException.Kind.OTHER, String.valueOf(e.getMessage()), e)
                : new KernelException(what, errno, null, e);
    }
}
