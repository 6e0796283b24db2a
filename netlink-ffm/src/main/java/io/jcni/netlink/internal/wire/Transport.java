package io.jcni.netlink.internal.wire;

import java.nio.ByteBuffer;

/**
 * One netlink socket as the wire layer sees it: datagrams out, datagrams in. Implemented over libc by
 * {@code internal.ffm.NetlinkSocket} and by replaying fakes in tests. Not thread-safe: {@link Channel} serializes use.
 */
public interface Transport extends AutoCloseable {

    /** The port id the kernel bound this socket to ({@code nl_pid} of {@code getsockname}); replies carry it. */
    int portId();

    /** Sends {@code data[offset, offset+length)} to the kernel as one datagram (one system call). */
    void send(byte[] data, int offset, int length);

    /**
     * Receives the next datagram sent by the kernel (datagrams from any other sender are dropped) into
     * {@link #receiveBuffer()} and returns its full length. A result larger than the buffer's capacity means the
     * datagram was truncated and its tail is lost: the caller grows the buffer and repeats its request. With
     * {@code wait} false, returns -1 at once when nothing is queued (used to drain replies of an abandoned request).
     */
    int receive(boolean wait);

    /** The receive buffer, native byte order, valid until the next {@link #receive()} or growth. */
    ByteBuffer receiveBuffer();

    /** Replaces the receive buffer by one of at least {@code minCapacity} bytes. */
    void growReceiveBuffer(int minCapacity);

    /**
     * Makes the socket's kernel buffers hold at least one datagram of {@code sendBytes} out and {@code receiveBytes}
     * of replies queued in (what a large transaction needs: the kernel refuses a datagram beyond the send buffer and
     * drops acknowledgements beyond the receive buffer). Never shrinks them; best effort where not permitted.
     */
    default void reserve(int sendBytes, int receiveBytes) {
    }

    /** Closes the socket and frees its memory. Idempotent. */
    @Override
    void close();
}
