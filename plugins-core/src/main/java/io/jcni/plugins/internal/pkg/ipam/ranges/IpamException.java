package io.jcni.plugins.internal.pkg.ipam.ranges;

import java.io.Serial;

/**
 * A host-local allocation failure. The message is Go host-local's wording wherever Go has one, so that logs and error
 * results read the same with either implementation; {@link #reason()} lets the plugin choose the CNI error code.
 */
public final class IpamException extends Exception {

    @Serial
    private static final long serialVersionUID = 1L;

    /** What went wrong, for the plugin edge to map onto a CNI error code. */
    public enum Reason {
        /** A range or range set is invalid (Go: "invalid range set 0: ..."): a network-config error. */
        INVALID_RANGE,
        /** A container ID, interface name or network name the on-disk format cannot hold. */
        INVALID_ARGUMENT,
        /** A requested IP is outside every range set, taken, or a gateway. */
        REQUESTED_IP_UNAVAILABLE,
        /** The attachment already holds an address in the range set and the policy is {@link OnExisting#REJECT}. */
        DUPLICATE_ALLOCATION,
        /** Every address of a range set is reserved. */
        NO_ADDRESS_AVAILABLE,
        /** Reading or writing the data directory failed. */
        STORE_FAILURE,
        /** A shared store (etcd) cannot be reached or has no quorum now: worth a retry later (code 11). */
        STORE_UNAVAILABLE,
        /** A shared store refused the credentials or TLS identity the config names (code 7). */
        STORE_REFUSED,
        /** A shared store holds a record that is not one of ours (corrupted or foreign; code 100). */
        STORE_CORRUPT
    }

    /** The plugin-specific CNI code of {@link Reason#STORE_CORRUPT}: the store holds a record that cannot be read. */
    public static final int CORRUPT_STORE_CODE = 100;

    private final Reason reason;

    public IpamException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public IpamException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** The same reason with Go's context prefix, e.g. {@code "failed to allocate for range 0: " + message}. */
    public IpamException prefixed(String prefix) {
        return new IpamException(reason, prefix + getMessage(), this);
    }
}
