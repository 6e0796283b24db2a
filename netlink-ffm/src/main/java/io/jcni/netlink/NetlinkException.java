package io.jcni.netlink;

/**
 * A failed netlink request (rtnetlink, nf_tables), or a namespace, socket or device call that serves one: the
 * {@link KernelException} of the handles, {@link NetNs} and {@link Netlink}, with the kernel's extended-ACK text.
 *
 * <p>The message reads like {@code RTM_NEWLINK veth0: EEXIST (File exists): <the kernel's extended-ACK text>}. Callers
 * branch on {@link #kind()} (or {@link #isNotFound()}, {@link #isExists()}), e.g. a CNI DEL ignores
 * {@link Kind#NOT_FOUND}. The errno and the kernel's text are kept separately for error details.
 */
public final class NetlinkException extends KernelException {
    private static final long serialVersionUID = 1L;

    private final String extAck;

    /**
     * A failure reported by the kernel or a system call.
     *
     * @param operation what was attempted, e.g. {@code "RTM_NEWLINK veth0"} or {@code "setns /run/netns/x"}
     * @param errno the positive errno
     * @param extAck the kernel's extended-ACK message, or {@code null}/empty when it sent none
     */
    public NetlinkException(String operation, int errno, String extAck) {
        super(message(operation, errno, extAck), operation, errno, kindOf(errno), null);
        this.extAck = extAck == null ? "" : extAck;
    }

    /** A failure without an errno (malformed reply, unavailable native access, ...), described by {@code detail}. */
    public NetlinkException(String operation, Kind kind, String detail, Throwable cause) {
        super(operation + ": " + detail, operation, 0, kind, cause);
        this.extAck = "";
    }

    /** As {@link #NetlinkException(String, Kind, String, Throwable)} with errno known. */
    public NetlinkException(String operation, int errno, String detail, Throwable cause) {
        super(message(operation, errno, detail), operation, errno, kindOf(errno), cause);
        this.extAck = "";
    }

    /** The kernel's extended-ACK message ({@code NLMSGERR_ATTR_MSG}), or {@code ""} when it sent none. */
    public String extAck() {
        return extAck;
    }
}
