package io.jcni.plugins.internal.ipam.dhcp;

/** Why a DHCP exchange did not end with an ACK. The message is for the daemon's log and the CNI error. */
final class DhcpFailure extends Exception {
    private static final long serialVersionUID = 1L;

    /** What went wrong, for callers that branch. */
    enum Kind {
        /** No (matching) answer within the exchange's time. */
        TIMEOUT,
        /** The server answered DHCPNAK: the address is not the client's. */
        NAK,
        /** The lease's maintenance or the daemon was stopped meanwhile. */
        STOPPED,
        /** The link, its namespace or the socket failed (the link is gone, no permission, ...). */
        LINK
    }

    private final Kind kind;

    DhcpFailure(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    DhcpFailure(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    Kind kind() {
        return kind;
    }
}
