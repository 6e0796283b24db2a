package io.jcni.spec;

import java.util.Objects;

/**
 * A failure that maps to a CNI error result: the {@link CniError} says which well-known code applies, its message names
 * the offending field or variable (e.g. {@code ipam.ranges[0][0].subnet: invalid CIDR "10.0.0.0/33"}).
 *
 * <p>Checked on purpose: every parse, decode and validation in this module declares it, and none lets an unchecked
 * exception escape on bad input. {@link #getMessage()} is the error's {@link CniError#message()} ("msg; details").
 */
public final class CniException extends Exception {
    private static final long serialVersionUID = 1L;

    private final transient CniError error;

    public CniException(CniError error) {
        super(Objects.requireNonNull(error, "error").message());
        this.error = error;
    }

    public CniException(int code, String msg) {
        this(new CniError(code, msg));
    }

    public CniException(int code, String msg, String details) {
        this(new CniError(code, msg, details));
    }

    public CniException(int code, String msg, Throwable cause) {
        this(new CniError(code, msg));
        initCause(cause);
    }

    /** The error result this failure corresponds to. */
    public CniError error() {
        return error;
    }

    /** Shorthand for {@code error().code()}. */
    public int code() {
        return error.code();
    }
}
