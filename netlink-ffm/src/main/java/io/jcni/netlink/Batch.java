package io.jcni.netlink;

/**
 * Changes queued to be sent together: {@link #execute()} writes them into as few datagrams as possible (one system
 * call per up to 64 requests) instead of one request and one reply per change.
 *
 * <p>Not a transaction. The kernel applies the requests in order, each on its own: a failed request does not stop
 * the ones after it and does not undo the ones before it. Every request has its own sequence number and
 * acknowledgement, and {@link BatchResult} says, per request, whether it was applied.
 *
 * <p>Encoding happens when a method is called (bad arguments throw then); nothing is sent before {@link #execute()}.
 * Not thread-safe; a batch can be executed once, then it is empty and may be reused.
 */
public interface Batch extends NetlinkOps {

    /** Requests queued. */
    int size();

    /**
     * Sends every queued request and waits for all the kernel's answers. Failures of individual requests are in the
     * result, not thrown.
     *
     * @throws NetlinkException if the requests could not be sent or the answers not received (then requests of the
     *     batch may or may not have been applied)
     */
    BatchResult execute();
}
