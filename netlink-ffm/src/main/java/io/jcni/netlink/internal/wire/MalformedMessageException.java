package io.jcni.netlink.internal.wire;

/**
 * A reply that does not parse (bad lengths, short payloads). Internal: {@link Channel} turns it into a
 * {@link io.jcni.netlink.NetlinkException} naming the request, so it never reaches callers.
 */
public final class MalformedMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message);
    }
}
