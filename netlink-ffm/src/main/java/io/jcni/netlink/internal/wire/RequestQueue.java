package io.jcni.netlink.internal.wire;

import java.util.Arrays;

/**
 * Requests encoded back to back into one buffer as they are queued, with where each starts and the request itself (to
 * describe it if it fails). A queue is sent by a {@link Channel}: as a batch of independent requests
 * ({@link Channel#executeBatch}) or as one nfnetlink transaction ({@link Channel#transact}). Not thread-safe.
 */
public final class RequestQueue {
    private final MessageWriter writer;
    private int[] offsets;
    private Request[] requests;
    private int count;

    public RequestQueue(int capacity, int bufferBytes) {
        this.writer = new MessageWriter(bufferBytes);
        this.offsets = new int[Math.max(1, capacity)];
        this.requests = new Request[offsets.length];
    }

    /**
     * Encodes {@code request} now, as {@code NLM_F_REQUEST | NLM_F_ACK | request.flags()} with sequence number 0 (the
     * channel numbers messages when it sends them). A request that fails to encode (bad arguments) is not queued.
     */
    public void add(Request request) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
            requests = Arrays.copyOf(requests, count * 2);
        }
        int start = writer.position();
        try {
            writer.begin(request.type(), request.flags() | NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK, 0);
            request.encode(writer);
            writer.end();
        } catch (RuntimeException | Error e) {
            writer.truncate(start);
            throw e;
        }
        offsets[count] = start;
        requests[count] = request;
        count++;
    }

    public int size() {
        return count;
    }

    public Request request(int index) {
        return requests[index];
    }

    /** Where message {@code index} starts in {@link #writer()}. */
    public int offset(int index) {
        return offsets[index];
    }

    /** Where the messages from {@code index} on end: the next message's offset, or the end of the last one. */
    public int end(int index) {
        return index + 1 < count ? offsets[index + 1] : writer.position();
    }

    public MessageWriter writer() {
        return writer;
    }

    /** Forgets every request. */
    public void clear() {
        writer.clear();
        Arrays.fill(requests, 0, count, null);
        count = 0;
    }
}
