package io.jcni.plugins.internal.ipam.cluster;

import java.io.Serial;

/**
 * A failure talking to etcd. {@link #kind()} is what the plugin edge maps onto a CNI error code: only {@link
 * Kind#UNAVAILABLE} is worth a retry later (code 11).
 */
final class EtcdException extends Exception {

    @Serial
    private static final long serialVersionUID = 1L;

    /** What went wrong. */
    enum Kind {
        /** No endpoint answered in time, or the cluster has no quorum / leader: try again later. */
        UNAVAILABLE,
        /** etcd refused the credentials or the permission: a retry cannot help. */
        AUTH,
        /** etcd answered with an error this client does not expect, or with a body it cannot read. */
        PROTOCOL,
        /** A key holds a value that is not a record of this plugin (a corrupted or foreign key). */
        CORRUPT,
        /** The TLS or credentials files cannot be read. */
        CONFIG,
        /**
         * A write names a lease that no longer exists (it expired between its grant and the write): the write did not
         * happen, and a retry with a new lease can succeed.
         */
        LEASE_NOT_FOUND,
        /**
         * A write sent with a short budget ({@link EtcdClient#txnOrSlow}) got no answer within it: it may still be
         * applied later (its compares decide), the endpoint is not counted as failing, and the caller reads before it
         * writes again.
         */
        SLOW
    }

    private final Kind kind;

    EtcdException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    EtcdException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    Kind kind() {
        return kind;
    }
}
