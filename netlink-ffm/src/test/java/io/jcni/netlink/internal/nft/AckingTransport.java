package io.jcni.netlink.internal.nft;

import io.jcni.netlink.internal.wire.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/**
 * A kernel that accepts everything: records each datagram sent and queues an acknowledgement (error 0, capped) for
 * every message that asks for one, as the kernel does before {@code sendto} returns.
 */
final class AckingTransport implements Transport {
    static final int PORT_ID = 777;

    final List<byte[]> sent = new ArrayList<>();
    private final Deque<byte[]> queue = new ArrayDeque<>();
    private final ByteBuffer receive = ByteBuffer.allocate(1 << 16).order(ByteOrder.nativeOrder());

    @Override
    public int portId() {
        return PORT_ID;
    }

    @Override
    public void send(byte[] data, int offset, int length) {
        byte[] d = Arrays.copyOfRange(data, offset, offset + length);
        sent.add(d);
        ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.nativeOrder());
        for (int off = 0; off + 16 <= d.length; off += (b.getInt(off) + 3) & ~3) {
            if ((b.getShort(off + 6) & 4) != 0) {
                ByteBuffer ack = ByteBuffer.allocate(36).order(ByteOrder.nativeOrder());
                ack.putInt(36).putShort((short) 2).putShort((short) 0x100).putInt(b.getInt(off + 8)).putInt(PORT_ID);
                ack.putInt(0).put(d, off, 16);
                queue.add(ack.array());
            }
        }
    }

    @Override
    public int receive(boolean wait) {
        byte[] next = queue.poll();
        if (next == null) {
            if (wait) {
                throw new AssertionError("waiting for a reply that will never come");
            }
            return -1;
        }
        receive.clear();
        receive.put(0, next);
        return next.length;
    }

    @Override
    public ByteBuffer receiveBuffer() {
        return receive;
    }

    @Override
    public void growReceiveBuffer(int minCapacity) {
        throw new AssertionError("acks fit");
    }

    @Override
    public void close() {
    }

    /** The messages of the last datagram sent: type, flags and the bytes after each nlmsghdr. */
    List<MnlDump.Message> lastMessages() {
        byte[] d = sent.getLast();
        ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.nativeOrder());
        List<MnlDump.Message> out = new ArrayList<>();
        for (int off = 0; off + 16 <= d.length; ) {
            int len = b.getInt(off);
            int padded = (len + 3) & ~3;
            out.add(new MnlDump.Message(Short.toUnsignedInt(b.getShort(off + 4)),
                    Short.toUnsignedInt(b.getShort(off + 6)), Arrays.copyOfRange(d, off + 16, off + padded)));
            off += padded;
        }
        return out;
    }
}
