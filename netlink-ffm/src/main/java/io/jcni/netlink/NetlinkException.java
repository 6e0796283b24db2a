package io.jcni.netlink;

import io.jcni.netlink.internal.wire.Errno;

/**
 * The one exception of this module: a failed kernel request, system call or namespace/sysctl operation.
 *
 * <p>The message reads like {@code RTM_NEWLINK veth0: EEXIST (File exists): <the kernel's extended-ACK text>}. Callers
 * branch on {@link #kind()} (or {@link #isNotFound()}, {@link #isExists()}), e.g. a CNI DEL ignores
 * {@link Kind#NOT_FOUND}. The errno and the kernel's text are kept separately for error details.
 */
public final class NetlinkException extends RuntimeException {
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
    private final String extAck;
    private final Kind kind;

    /**
     * A failure reported by the kernel or a system call.
     *
     * @param operation what was attempted, e.g. {@code "RTM_NEWLINK veth0"} or {@code "setns /run/netns/x"}
     * @param errno the positive errno
     * @param extAck the kernel's extended-ACK message, or {@code null}/empty when it sent none
     */
    public NetlinkException(String operation, int errno, String extAck) {
        super(format(operation, errno, extAck));
        this.operation = operation;
        this.errno = errno;
        this.extAck = extAck == null ? "" : extAck;
        this.kind = kindOf(errno);
    }

    /** A failure without an errno (malformed reply, unavailable native access, ...), described by {@code detail}. */
    public NetlinkException(String operation, Kind kind, String detail, Throwable cause) {
        super(operation + ": " + detail, cause);
        this.operation = operation;
        this.errno = 0;
        this.extAck = "";
        this.kind = kind;
    }

    /** As {@link #NetlinkException(String, Kind, String, Throwable)} with errno known, e.g. a sysctl I/O error. */
    public NetlinkException(String operation, int errno, String detail, Throwable cause) {
        super(operation + ": " + Errno.name(errno) + " (" + Errno.message(errno) + ")"
                + (detail == null || detail.isEmpty() ? "" : ": " + detail), cause);
        this.operation = operation;
        this.errno = errno;
        this.extAck = "";
        this.kind = kindOf(errno);
    }

    private static String format(String operation, int errno, String extAck) {
        String base = operation + ": " + Errno.name(errno) + " (" + Errno.message(errno) + ")";
        return extAck == null || extAck.isEmpty() ? base : base + ": " + extAck;
    }

    private static Kind kindOf(int errno) {
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

    /** What was attempted: the request type and its subject ({@code "RTM_NEWADDR 10.0.0.2/24 dev 3"}) or the call. */
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

    /** The kernel's extended-ACK message ({@code NLMSGERR_ATTR_MSG}), or {@code ""} when it sent none. */
    public String extAck() {
        return extAck;
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
