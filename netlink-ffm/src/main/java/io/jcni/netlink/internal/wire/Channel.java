package io.jcni.netlink.internal.wire;

import static io.jcni.netlink.internal.wire.Offsets.NLMSGERR_ERROR;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGERR_MSG;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_LEN;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_PID;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_SEQ;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;
import static io.jcni.netlink.internal.wire.Offsets.RTA_TYPE;

import io.jcni.netlink.NetlinkException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * The request/reply engine over one {@link Transport}: numbers requests, sends them, and reads replies until each
 * request is answered, checking that every reply carries our port id and a sequence number we are waiting for
 * (anything else, such as a late reply of an abandoned request, is skipped).
 *
 * <ul>
 *   <li>Changes ({@link #execute}) carry {@code NLM_F_ACK}; the kernel answers each with {@code NLMSG_ERROR}, error 0
 *       meaning success.</li>
 *   <li>Reads ({@link #dump}, {@link #get}) collect data messages until {@code NLMSG_DONE} (dumps) or the single reply.
 *       A dump any of whose messages carries {@code NLM_F_DUMP_INTR} (the kernel's tables changed while it was being
 *       produced) is discarded and repeated, as is a read whose datagram did not fit the receive buffer (the buffer
 *       grows first), up to {@value #MAX_READ_ATTEMPTS} times.</li>
 *   <li>Batches ({@link #executeBatch}) put many changes in one datagram; see there.</li>
 * </ul>
 *
 * <p>Errors become {@link NetlinkException}s with the request's description, errno and the kernel's extended-ACK
 * message ({@code NETLINK_EXT_ACK}; acknowledgements are capped with {@code NETLINK_CAP_ACK} so the kernel does not echo
 * our request back). Thread-safe: one exchange at a time, under a lock. If an exchange ends abnormally, replies still
 * queued are drained before the next one (a socket runs one dump at a time; a new one would fail with EBUSY).
 */
public final class Channel implements AutoCloseable {
    /** Attempts of a read before giving up on a table that keeps changing. */
    public static final int MAX_READ_ATTEMPTS = 10;
    /**
     * Requests per datagram in a batch: the kernel queues one acknowledgement per request on our socket and drops any
     * that do not fit its receive buffer, so a batch is cut into chunks whose replies always fit.
     */
    public static final int BATCH_CHUNK = 64;

    /** Writes a request's family header and attributes after the {@code nlmsghdr} written by the channel. */
    @FunctionalInterface
    public interface Encoder {
        void encode(MessageWriter w);
    }

    /** Decodes one data message (starting with its {@code nlmsghdr}); returns null to leave it out of the result. */
    @FunctionalInterface
    public interface Decoder<T> {
        T decode(ByteBuffer buf, int offset, int length);
    }

    private final Transport transport;
    private final ReentrantLock lock = new ReentrantLock();
    private final MessageWriter writer = new MessageWriter(4096);
    private final int[] singleOffset = {0};
    private NetlinkException[] errors = new NetlinkException[BATCH_CHUNK];
    private int seq;
    private boolean dirty;
    private boolean closed;

    public Channel(Transport transport) {
        this.transport = transport;
    }

    /** Sends one change ({@code NLM_F_REQUEST | NLM_F_ACK | flags}) and waits for its acknowledgement. */
    public void execute(int type, int flags, Object subject, Encoder encoder) {
        lock.lock();
        try {
            prepare();
            int s = ++seq;
            writer.clear();
            writer.begin(type, flags | NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK, s);
            encoder.encode(writer);
            writer.end();
            transport.send(writer.array(), 0, writer.position());
            errors[0] = null;
            awaitAcks(s, 1, true, writer, singleOffset, 0, i -> describe(type, subject));
            NetlinkException e = errors[0];
            if (e != null) {
                errors[0] = null;
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** A dump ({@code NLM_F_REQUEST | NLM_F_DUMP}): every decoded, non-null message of a consistent snapshot. */
    public <T> List<T> dump(int type, Object subject, Encoder encoder, Decoder<T> decoder) {
        List<T> out = new ArrayList<>();
        read(type, NetlinkH.NLM_F_DUMP, subject, encoder, decoder, out);
        return out;
    }

    /** A request answered by one data message (e.g. {@code RTM_GETLINK} by name); the kernel's error is thrown. */
    public <T> T get(int type, Object subject, Encoder encoder, Decoder<T> decoder) {
        List<T> out = new ArrayList<>(1);
        read(type, 0, subject, encoder, decoder, out);
        if (out.isEmpty()) {
            throw new NetlinkException(describe(type, subject), NetlinkException.Kind.OTHER,
                    "the kernel sent no reply message", null);
        }
        return out.getFirst();
    }

    /**
     * Sends the {@code count} messages a batch wrote into {@code batch} (message {@code i} starts at
     * {@code offsets[i]}, flags already include {@code NLM_F_REQUEST | NLM_F_ACK}), {@value #BATCH_CHUNK} per
     * datagram, rewriting their sequence numbers; returns one entry per message: null when the kernel acknowledged
     * it, else its error. The kernel applies the messages of a datagram in order and carries on after a failure: this
     * is not a transaction. A failure to send or receive at all is thrown; messages of chunks already answered are
     * then applied (the exception does not say which).
     */
    public NetlinkException[] executeBatch(MessageWriter batch, int[] offsets, int count, IntFunction<String> describe) {
        NetlinkException[] result = new NetlinkException[count];
        lock.lock();
        try {
            prepare();
            for (int first = 0; first < count; first += BATCH_CHUNK) {
                int n = Math.min(BATCH_CHUNK, count - first);
                int firstSeq = seq + 1;
                for (int i = 0; i < n; i++) {
                    batch.setSeq(offsets[first + i], firstSeq + i);
                }
                seq += n;
                int from = offsets[first];
                int to = first + n < count ? offsets[first + n] : batch.position();
                transport.send(batch.array(), from, to - from);
                Arrays.fill(errors, 0, n, null);
                int base = first;
                awaitAcks(firstSeq, n, true, batch, offsets, first, i -> describe.apply(base + i));
                System.arraycopy(errors, 0, result, first, n);
                Arrays.fill(errors, 0, n, null);
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads replies until the window {@code [firstSeq, firstSeq + count)} is answered, recording errors in
     * {@link #errors}. With {@code ackEach}, every request is acknowledged; otherwise only the last one is, and an
     * earlier request that fails is reported before it (the kernel answers in order).
     */
    private void awaitAcks(int firstSeq, int count, boolean ackEach, MessageWriter request, int[] offsets, int base,
            IntFunction<String> describe) {
        dirty = true;
        int pending = ackEach ? count : 1;
        int portId = transport.portId();
        while (pending > 0) {
            int n = transport.receive(true);
            ByteBuffer b = transport.receiveBuffer();
            if (n > b.capacity()) {
                transport.growReceiveBuffer(n);
                throw new NetlinkException(describe.apply(0), NetlinkException.Kind.OTHER,
                        "an acknowledgement of " + n + " bytes did not fit the receive buffer", null);
            }
            for (int off = 0; off + NLMSGHDR_SIZE <= n; ) {
                int len = checkedLength(b, off, n, describe, 0);
                int index = b.getInt(off + NLMSG_SEQ) - firstSeq;
                if (b.getInt(off + NLMSG_PID) == portId && Integer.compareUnsigned(index, count) < 0) {
                    int type = Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE));
                    if (type == NetlinkH.NLMSG_ERROR) {
                        int errno = -errorCode(b, off, len, describe, index);
                        if (errno != 0) {
                            errors[index] = new NetlinkException(describe.apply(index), errno,
                                    extAck(b, off, len, request, offsets[base + index]));
                        }
                        if (ackEach || index == count - 1) {
                            pending--;
                        }
                    } else if (type == NetlinkH.NLMSG_OVERRUN) {
                        throw new NetlinkException(describe.apply(index), NetlinkException.Kind.OTHER,
                                "NLMSG_OVERRUN: the kernel lost data", null);
                    }
                }
                off += MessageWriter.align(len);
            }
        }
        dirty = false;
    }

    private <T> void read(int type, int dumpFlags, Object subject, Encoder encoder, Decoder<T> decoder, List<T> out) {
        lock.lock();
        try {
            for (int attempt = 1; ; attempt++) {
                prepare();
                out.clear();
                int s = ++seq;
                writer.clear();
                writer.begin(type, NetlinkH.NLM_F_REQUEST | dumpFlags, s);
                encoder.encode(writer);
                writer.end();
                transport.send(writer.array(), 0, writer.position());
                if (awaitData(s, dumpFlags != 0, type, subject, decoder, out)) {
                    return;
                }
                if (attempt == MAX_READ_ATTEMPTS) {
                    throw new NetlinkException(describe(type, subject), Errno.EINTR,
                            "the dump was interrupted by concurrent changes " + attempt + " times", null);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Collects the reply to request {@code s}; false when it must be repeated (interrupted dump, truncation). */
    private <T> boolean awaitData(int s, boolean dump, int requestType, Object subject, Decoder<T> decoder,
            List<T> out) {
        dirty = true;
        boolean interrupted = false;
        int portId = transport.portId();
        IntFunction<String> describe = i -> describe(requestType, subject);
        while (true) {
            int n = transport.receive(true);
            ByteBuffer b = transport.receiveBuffer();
            if (n > b.capacity()) {
                boolean ours = b.getInt(NLMSG_SEQ) == s;
                transport.growReceiveBuffer(n);
                if (ours) {
                    return false; // lost part of our reply: drain (prepare) and ask again with the bigger buffer
                }
                continue;
            }
            for (int off = 0; off + NLMSGHDR_SIZE <= n; ) {
                int len = checkedLength(b, off, n, describe, 0);
                if (b.getInt(off + NLMSG_SEQ) == s && b.getInt(off + NLMSG_PID) == portId) {
                    int type = Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE));
                    int flags = Short.toUnsignedInt(b.getShort(off + NLMSG_FLAGS));
                    if ((flags & NetlinkH.NLM_F_DUMP_INTR) != 0) {
                        interrupted = true;
                    }
                    switch (type) {
                        case NetlinkH.NLMSG_NOOP -> { }
                        case NetlinkH.NLMSG_ERROR, NetlinkH.NLMSG_DONE -> {
                            // DONE carries the dump's final error code (0 when it completed).
                            int errno = len >= NLMSGHDR_SIZE + 4 ? -errorCode(b, off, len, describe, 0) : 0;
                            dirty = false;
                            if (errno != 0) {
                                throw new NetlinkException(describe.apply(0), errno,
                                        extAck(b, off, len, writer, 0));
                            }
                            return !interrupted;
                        }
                        case NetlinkH.NLMSG_OVERRUN -> throw new NetlinkException(describe.apply(0),
                                NetlinkException.Kind.OTHER, "NLMSG_OVERRUN: the kernel lost data", null);
                        default -> {
                            T value;
                            try {
                                value = decoder.decode(b, off, len);
                            } catch (MalformedMessageException | IndexOutOfBoundsException | IllegalArgumentException e) {
                                throw new NetlinkException(describe.apply(0), NetlinkException.Kind.OTHER,
                                        "malformed " + MessageTypes.name(type) + " reply: " + e.getMessage(), e);
                            }
                            if (value != null) {
                                out.add(value);
                            }
                            if (!dump) {
                                dirty = false;
                                return true;
                            }
                        }
                    }
                }
                off += MessageWriter.align(len);
            }
        }
    }

    private static int checkedLength(ByteBuffer b, int off, int n, IntFunction<String> describe, int index) {
        int len = b.getInt(off + NLMSG_LEN);
        if (len < NLMSGHDR_SIZE || len > n - off) {
            throw new NetlinkException(describe.apply(index), NetlinkException.Kind.OTHER,
                    "malformed reply: nlmsg_len " + len + " at offset " + off + " of a " + n + "-byte datagram", null);
        }
        return len;
    }

    private static int errorCode(ByteBuffer b, int off, int len, IntFunction<String> describe, int index) {
        if (len < NLMSGHDR_SIZE + 4) {
            throw new NetlinkException(describe.apply(index), NetlinkException.Kind.OTHER,
                    "malformed reply: NLMSG_ERROR of " + len + " bytes", null);
        }
        return b.getInt(off + NLMSGHDR_SIZE + NLMSGERR_ERROR);
    }

    /**
     * The kernel's extended ACK of the error message at {@code off}: its text, and the attribute it blames (by the
     * offset into our request, resolved to the attribute type we sent there). Null when it sent none.
     */
    static String extAck(ByteBuffer b, int off, int len, MessageWriter request, int requestOffset) {
        int flags = Short.toUnsignedInt(b.getShort(off + NLMSG_FLAGS));
        if ((flags & NetlinkH.NLM_F_ACK_TLVS) == 0) {
            return null;
        }
        int type = Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE));
        int tlvs;
        if (type == NetlinkH.NLMSG_DONE) {
            tlvs = off + NLMSGHDR_SIZE + 4;
        } else {
            int echoed = off + NLMSGHDR_SIZE + NLMSGERR_MSG;
            if (echoed + NLMSGHDR_SIZE > off + len) {
                return null;
            }
            int echoedLength = b.getInt(echoed + NLMSG_LEN);
            tlvs = echoed + ((flags & NetlinkH.NLM_F_CAPPED) != 0 ? NLMSGHDR_SIZE : MessageWriter.align(echoedLength));
        }
        if (tlvs > off + len) {
            return null;
        }
        String text = null;
        int offending = -1;
        int missing = -1;
        try {
            AttrCursor c = new AttrCursor(b, tlvs, off + len);
            while (c.next()) {
                switch (c.type()) {
                    case NetlinkH.NLMSGERR_ATTR_MSG -> text = c.string();
                    case NetlinkH.NLMSGERR_ATTR_OFFS -> offending = c.u32();
                    case NetlinkH.NLMSGERR_ATTR_MISS_TYPE -> missing = c.u32();
                    default -> { }
                }
            }
        } catch (MalformedMessageException e) {
            // keep what was parsed; a broken TLV must not hide the errno
        }
        StringBuilder sb = new StringBuilder(text == null ? "" : text);
        if (offending >= NLMSGHDR_SIZE && request != null
                && requestOffset + offending + 4 <= request.position()) {
            int attrType = Short.toUnsignedInt(request.buffer().getShort(requestOffset + offending + RTA_TYPE))
                    & NetlinkH.NLA_TYPE_MASK;
            sb.append(sb.isEmpty() ? "" : " ").append("(attribute type ").append(attrType)
                    .append(" at offset ").append(offending).append(')');
        }
        if (missing >= 0) {
            sb.append(sb.isEmpty() ? "" : " ").append("(missing attribute type ").append(missing).append(')');
        }
        return sb.isEmpty() ? null : sb.toString();
    }

    private void prepare() {
        if (closed) {
            throw new NetlinkException("netlink handle", NetlinkException.Kind.OTHER, "closed", null);
        }
        if (dirty) {
            while (transport.receive(false) >= 0) {
                // replies of an exchange that ended abnormally
            }
            dirty = false;
        }
    }

    /** {@code "RTM_NEWLINK veth0 type veth"}: the type's C name and the subject (a {@code Supplier} is called). */
    public static String describe(int type, Object subject) {
        String name = MessageTypes.name(type);
        Object s = subject instanceof Supplier<?> supplier ? supplier.get() : subject;
        return s == null ? name : name + " " + s;
    }

    /** Closes the transport; later requests fail. Waits for an exchange in progress on another thread. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                transport.close();
            }
        } finally {
            lock.unlock();
        }
    }
}
