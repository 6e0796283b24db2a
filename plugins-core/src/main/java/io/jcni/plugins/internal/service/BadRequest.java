package io.jcni.plugins.internal.service;

/** A request the service refuses before running anything: its message is the error the client prints. */
final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    private final boolean probe;

    BadRequest(String message) {
        this(message, false);
    }

    /** @param probe a connection that ended before sending anything (a health check): not worth a log line */
    BadRequest(String message, boolean probe) {
        super(message);
        this.probe = probe;
    }

    boolean probe() {
        return probe;
    }
}
