package io.jcni.netlink.internal.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;

/** A scripted kernel: records what is sent, answers each datagram with what {@link #responder} returns. */
final class FakeTransport implements Transport {
    static final int PORT_ID = 4242;

    final List<byte[]> sent = new ArrayList<>();
    final Deque<byte[]> queue = new ArrayDeque<>();
    Function<byte[], List<byte[]>> responder = request -> List.of();
    private ByteBuffer receiveBuffer;
    int grownTo;
    /** Thrown by the next receive, if set (e.g. ENOBUFS: the receive queue overflowed). */
    RuntimeException receiveFailure;
    boolean closed;

    FakeTransport(int receiveCapacity) {
        receiveBuffer = ByteBuffer.allocate(receiveCapacity).order(ByteOrder.nativeOrder());
    }

    FakeTransport() {
        this(32 << 10);
    }

    @Override
    public int portId() {
        return PORT_ID;
    }

    @Override
    public void send(byte[] data, int offset, int length) {
        byte[] copy = Arrays.copyOfRange(data, offset, offset + length);
        sent.add(copy);
        queue.addAll(responder.apply(copy));
    }

    @Override
    public int receive(boolean wait) {
        if (receiveFailure != null) {
            RuntimeException e = receiveFailure;
            receiveFailure = null;
            throw e;
        }
        byte[] next = queue.poll();
        if (next == null) {
            if (!wait) {
                return -1;
            }
            throw new AssertionError("the channel waits for a reply the script never sends");
        }
        receiveBuffer.clear();
        receiveBuffer.put(0, next, 0, Math.min(next.length, receiveBuffer.capacity()));
        return next.length;
    }

    @Override
    public ByteBuffer receiveBuffer() {
        return receiveBuffer;
    }

    @Override
    public void growReceiveBuffer(int minCapacity) {
        grownTo = minCapacity;
        receiveBuffer = ByteBuffer.allocate(minCapacity).order(ByteOrder.nativeOrder());
    }

    @Override
    public void close() {
        closed = true;
    }
}
