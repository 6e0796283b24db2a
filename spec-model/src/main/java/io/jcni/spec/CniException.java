package io.jcni.spec;

import java.util.Objects;

/**
 * A failure that maps to a CNI error result: the {@link CniError} says which well-known code applies, its message names
 * the offending field or variable (e.g. {@code ipam.ranges[0][0].subnet: invalid CIDR "10.0.0.0/33"}).
 *
 * <p>The one root of the failures jcni's library reports, and unchecked, so that calls compose with lambdas, streams
 * and executors: every parse, decode and validation of this module throws it (and no other exception) on bad input,
 * and the runtime's {@code io.jcni.runtime.CniRuntimeException} extends it with the plugin that failed, its stderr and
 * whether it came from a plugin. Methods still list it in their {@code throws} clause where bad input can cause it;
 * catch it where a CNI error can be acted on or handed on. {@link #getMessage()} is the error's
 * {@link CniError#message()} ("msg; details") unless a subclass gives a fuller text.
 */
public class CniException extends RuntimeException {
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
        this(new CniError(code, msg), cause);
    }

    private CniException(CniError error, Throwable cause) {
        super(error.message(), cause);
        this.error = error;
    }

    /**
     * For subclasses whose message says more than the error's (the operation, the plugin): {@code message} is the
     * exception's text, {@code error} what to report as the CNI error.
     */
    protected CniException(String message, CniError error, Throwable cause) {
        super(message, cause);
        this.error = Objects.requireNonNull(error, "error");
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
