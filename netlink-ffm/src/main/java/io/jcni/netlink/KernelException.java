package io.jcni.netlink;

import io.jcni.netlink.internal.wire.Errno;

/**
 * A request the kernel refused or a system call that failed: this module's exception, thrown by
 * {@link io.jcni.netlink.sys.Sysctl} and {@link io.jcni.netlink.sys.FileLocks} as it is and by the netlink handles,
 * namespaces and sockets as its subclass {@link NetlinkException} (which adds the kernel's extended ACK). Code that
 * does not care which catches this type.
 *
 * <p>The message reads like {@code write sysctl net/ipv4/ip_forward=1: EACCES (Permission denied)}: the operation,
 * the errno's name and text, and a detail when there is one. Callers branch on {@link #kind()} (or
 * {@link #isNotFound()}, {@link #isExists()}); the errno is kept for error details.
 */
public sealed class KernelException extends RuntimeException permits NetlinkException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, coarsely, for callers that branch. */
    public enum Kind {
        /** The object is not there: ENOENT, ENODEV, ESRCH, ENXIO, EADDRNOTAVAIL (address to delete is absent). */
        NOT_FOUND,
        /** The object already exists: EEXIST. */
        EXISTS,
        /** EPERM, EACCES. */
        PERMISSION_DENIED,
        /** The kernel lacks the feature (EOPNOTSUPP, e.g. an unknown link type; EAFNOSUPPORT, ENOSYS). */
        NOT_SUPPORTED,
        /** The kernel rejected an argument: EINVAL, ERANGE. */
        INVALID,
        /** EBUSY. */
        BUSY,
        /** This process cannot use the native layer at all (native access not granted, unsupported platform). */
        UNAVAILABLE,
        /** Anything else, including malformed or unexpected replies (errno 0 or EBADMSG/EPROTO). */
        OTHER
    }

    private final String operation;
    private final int errno;
    private final Kind kind;

    /**
     * A failure with an errno, e.g. a sysctl I/O error.
     *
     * @param operation what was attempted, e.g. {@code "read sysctl net.ipv4.ip_forward"} or {@code "flock /x/lock"}
     * @param errno the positive errno
     * @param detail more about it, or {@code null}/empty
     */
    public KernelException(String operation, int errno, String detail, Throwable cause) {
        this(message(operation, errno, detail), operation, errno, kindOf(errno), cause);
    }

    /** A failure without an errno (interrupted, unavailable native access, ...), described by {@code detail}. */
    public KernelException(String operation, Kind kind, String detail, Throwable cause) {
        this(operation + ": " + detail, operation, 0, kind, cause);
    }

    /** For {@link NetlinkException}, which words its message itself. */
    KernelException(String message, String operation, int errno, Kind kind, Throwable cause) {
        super(message, cause);
        this.operation = operation;
        this.errno = errno;
        this.kind = kind;
    }

    /** {@code OPERATION: ENAME (strerror text)}, then {@code : DETAIL} when there is one. */
    static String message(String operation, int errno, String detail) {
        String base = operation + ": " + Errno.name(errno) + " (" + Errno.message(errno) + ")";
        return detail == null || detail.isEmpty() ? base : base + ": " + detail;
    }

    static Kind kindOf(int errno) {
        return switch (errno) {
            case Errno.ENOENT, Errno.ENODEV, Errno.ESRCH, Errno.ENXIO, Errno.EADDRNOTAVAIL -> Kind.NOT_FOUND;
            case Errno.EEXIST -> Kind.EXISTS;
            case Errno.EPERM, Errno.EACCES -> Kind.PERMISSION_DENIED;
            case Errno.EOPNOTSUPP, Errno.EAFNOSUPPORT, Errno.EPROTONOSUPPORT, Errno.ENOSYS -> Kind.NOT_SUPPORTED;
            case Errno.EINVAL, Errno.ERANGE -> Kind.INVALID;
            case Errno.EBUSY -> Kind.BUSY;
            default -> Kind.OTHER;
        };
    }

    /** What was attempted: a request and its subject ({@code "RTM_NEWADDR 10.0.0.2/24 dev 3"}) or a call. */
    public String operation() {
        return operation;
    }

    /** The positive errno, or 0 when the failure did not come with one. */
    public int errno() {
        return errno;
    }

    /** The errno's C name ({@code "EEXIST"}), or {@code ""} when {@link #errno()} is 0. */
    public String errnoName() {
        return errno == 0 ? "" : Errno.name(errno);
    }

    public Kind kind() {
        return kind;
    }

    public boolean isNotFound() {
        return kind == Kind.NOT_FOUND;
    }

    public boolean isExists() {
        return kind == Kind.EXISTS;
    }
}
