package io.jcni.netlink.internal.wire;

import static io.jcni.netlink.internal.wire.Offsets.NLMSGERR_ERROR;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGERR_MSG;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_LEN;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_PID;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_SEQ;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;

import io.jcni.netlink.NetlinkException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The request/reply engine over one {@link Transport}, shared by rtnetlink and nfnetlink: numbers requests, sends
 * them, and matches every reply to its request by sequence number, checking that it carries our port id (anything
 * else, such as a late reply of an abandoned request, is skipped).
 *
 * <ul>
 *   <li>Changes ({@link #execute}) carry {@code NLM_F_ACK}; the kernel answers each with {@code NLMSG_ERROR}, error 0
 *       meaning success.</li>
 *   <li>Batches ({@link #executeBatch}) put many independent changes in one datagram; see there.</li>
 *   <li>Transactions ({@link #transact}) frame changes with {@code NFNL_MSG_BATCH_BEGIN}/{@code END}: the kernel
 *       applies all of them or none; see there.</li>
 *   <li>Reads ({@link #dump}, {@link #get}) collect data messages until {@code NLMSG_DONE} (dumps) or the single reply.
 *       A dump any of whose messages carries {@code NLM_F_DUMP_INTR} (the kernel's tables changed while it was being
 *       produced) is discarded and repeated, as is a read whose datagram did not fit the receive buffer (the buffer
 *       grows first), up to {@value #MAX_READ_ATTEMPTS} times, an interrupted dump up to
 *       {@value #MAX_INTERRUPTED_DUMPS} times. After an interrupted dump the next attempt waits a random while first,
 *       growing with the interruptions ({@link #interruptedDumpPause}): writers that commit to one table at once (a
 *       burst of pods, each adding its port mappings) otherwise interrupt every attempt of a dump of it, which
 *       repeated at once only meets the next commit. Seen with 100 exec'd portmaps at once on 2 cores: 13 of them
 *       failed after 10 attempts.</li>
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
    /** Attempts of a dump that the kernel keeps interrupting (its table keeps changing) before giving up. */
    public static final int MAX_INTERRUPTED_DUMPS = 40;
    /**
     * Requests per datagram in a batch: the kernel queues one acknowledgement per request on our socket and drops any
     * that do not fit its receive buffer, so a batch is cut into chunks whose replies always fit.
     */
    public static final int BATCH_CHUNK = 64;
    /**
     * Messages per transaction. A transaction cannot be cut into chunks (it would no longer be all or nothing): it
     * goes to the kernel as one datagram, and the kernel queues all its acknowledgements before {@code sendto}
     * returns, each taking about 700 bytes of the socket's receive allowance. So a transaction beyond what the
     * socket's buffers hold by default (1 MiB each) first grows them to fit ({@link Transport#reserve}: {@value
     * #ACK_BYTES} bytes per acknowledgement, the datagram's size out), as {@code nft -f} does for a large file. This
     * bound keeps that growth to 64 MiB.
     */
    public static final int MAX_TRANSACTION_MESSAGES = 65536;
    /** Receive buffer reserved per acknowledgement of a transaction (its socket buffer cost, with a margin). */
    static final int ACK_BYTES = 1024;

    /** Decodes one data message (starting with its {@code nlmsghdr}); returns null to leave it out of the result. */
    public interface Decoder<T> {
        T decode(ByteBuffer buf, int offset, int length);
    }

    private final Transport transport;
    private final ReentrantLock lock = new ReentrantLock();
    /** Reads and transaction framing are written here. */
    private final MessageWriter writer = new MessageWriter(4096);
    /** The one request of {@link #execute}, reused. */
    private final RequestQueue single = new RequestQueue(1, 4096);
    private int seq;
    private boolean dirty;
    private boolean closed;

    public Channel(Transport transport) {
        this.transport = transport;
    }

    /** Sends one change ({@code NLM_F_REQUEST | NLM_F_ACK | flags}) and waits for its acknowledgement. */
    public void execute(Request request) {
        lock.lock();
        try {
            prepare();
            single.add(request); // empty: cleared after every exchange
            NetlinkException[] errors = awaitAcks(single, 0, 1, send(single, 0, 1));
            if (errors != null) {
                throw errors[0];
            }
        } finally {
            single.clear();
            lock.unlock();
        }
    }

    /**
     * Sends the queued requests, {@value #BATCH_CHUNK} per datagram, and returns one entry per request: null when the
     * kernel acknowledged it, else its error. The kernel applies the messages of a datagram in order and carries on
     * after a failure: this is not a transaction. A failure to send or receive at all is thrown; requests of chunks
     * already answered are then applied (the exception does not say which).
     */
    public NetlinkException[] executeBatch(RequestQueue queue) {
        int count = queue.size();
        NetlinkException[] result = new NetlinkException[count];
        lock.lock();
        try {
            prepare();
            for (int first = 0; first < count; first += BATCH_CHUNK) {
                int n = Math.min(BATCH_CHUNK, count - first);
                NetlinkException[] errors = awaitAcks(queue, first, n, send(queue, first, n));
                if (errors != null) {
                    System.arraycopy(errors, 0, result, first, n);
                }
            }
            return result;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Sends the queued nfnetlink requests as one transaction of {@code subsystem} ({@code NFNL_SUBSYS_NFTABLES}): one
     * datagram framed by {@code NFNL_MSG_BATCH_BEGIN} and {@code NFNL_MSG_BATCH_END}, every request with
     * {@code NLM_F_ACK}. The kernel applies all of it or, if any request fails, none of it; it then reports every
     * failing request, each matched here to its request by sequence number.
     *
     * <p>How replies are read: the kernel processes a netlink datagram inside our {@code sendto}, so when that returns
     * every reply (one acknowledgement or error per request, and an error addressed to the begin marker if the commit
     * itself failed) is already queued on our socket. They are read without waiting, as {@code nft} does (it polls
     * with a zero timeout), which also covers the kernel's paths that reject a malformed batch without a word.
     *
     * @throws NetlinkException naming the first failing request (the others suppressed), saying that nothing was
     *     applied; or, if the replies were lost (receive queue overflow), saying that the outcome is unknown
     */
    public void transact(RequestQueue queue, int subsystem) {
        int count = queue.size();
        if (count == 0) {
            return;
        }
        if (count > MAX_TRANSACTION_MESSAGES) {
            throw new IllegalArgumentException("a transaction holds at most " + MAX_TRANSACTION_MESSAGES
                    + " messages, not " + count);
        }
        lock.lock();
        try {
            prepare();
            int begin = seq + 1;
            seq += count + 2;
            writer.clear();
            batchMarker(NfnetlinkH.NFNL_MSG_BATCH_BEGIN, begin, subsystem);
            MessageWriter body = queue.writer();
            for (int i = 0; i < count; i++) {
                body.setSeq(queue.offset(i), begin + 1 + i);
            }
            writer.append(body.array(), queue.offset(0), body.position() - queue.offset(0));
            batchMarker(NfnetlinkH.NFNL_MSG_BATCH_END, begin + count + 1, subsystem);
            transport.reserve(writer.position() + 4096, (count + 2) * ACK_BYTES + (64 << 10));
            transport.send(writer.array(), 0, writer.position());
            dirty = true;
            TransactionReplies replies = new TransactionReplies(queue, begin);
            try {
                for (int n = transport.receive(false); n >= 0; n = transport.receive(false)) {
                    replies.read(n);
                }
            } catch (NetlinkException e) {
                if (e.errno() == Errno.ENOBUFS) {
                    throw new NetlinkException(replies.operation(), Errno.ENOBUFS,
                            "replies were lost; the transaction's outcome is unknown", e);
                }
                throw e;
            }
            dirty = false;
            replies.throwIfFailed();
        } finally {
            lock.unlock();
        }
    }

    private void batchMarker(int type, int markerSeq, int subsystem) {
        writer.begin(type, NetlinkH.NLM_F_REQUEST, markerSeq);
        int at = writer.reserve(Offsets.NFGENMSG_SIZE);
        writer.putU8(at + Offsets.NFGEN_FAMILY, 0);
        writer.putU8(at + Offsets.NFGENMSG_VERSION, NfnetlinkH.NFNETLINK_V0);
        writer.putU16be(at + Offsets.RES_ID, subsystem);
        writer.end();
    }

    /** The replies of one transaction, matched to its messages (begin marker, requests, end marker). */
    private final class TransactionReplies {
        private final RequestQueue queue;
        private final int begin;
        private final int portId = transport.portId();
        private NetlinkException[] errors;
        private NetlinkException commitError;
        private int answered;

        TransactionReplies(RequestQueue queue, int begin) {
            this.queue = queue;
            this.begin = begin;
        }

        String operation() {
            return "nf_tables transaction of " + queue.size() + " messages";
        }

        void read(int n) {
            ByteBuffer b = transport.receiveBuffer();
            if (n > b.capacity()) {
                transport.growReceiveBuffer(n);
                throw new NetlinkException(operation(), NetlinkException.Kind.OTHER, "a reply of " + n
                        + " bytes did not fit the receive buffer; the transaction's outcome is unknown", null);
            }
            int count = queue.size();
            for (int off = 0; off + NLMSGHDR_SIZE <= n; ) {
                int len = checkedLength(b, off, n, null, this);
                int index = b.getInt(off + NLMSG_SEQ) - begin - 1; // -1: begin marker, count: end marker
                if (b.getInt(off + NLMSG_PID) == portId && index >= -1 && index <= count
                        && Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) == NetlinkH.NLMSG_ERROR) {
                    int errno = -errorCode(b, off, len, null, this);
                    if (index < 0 || index == count) {
                        if (errno != 0 && commitError == null) {
                            commitError = new NetlinkException(operation() + ", nothing applied", errno,
                                    extAck(b, off, len, null, null, 0));
                        }
                    } else {
                        answered++;
                        if (errno != 0) {
                            if (errors == null) {
                                errors = new NetlinkException[count];
                            }
                            Request r = queue.request(index);
                            errors[index] = new NetlinkException(r.describe() + " (message " + (index + 1) + " of "
                                    + count + "; the transaction was not applied)", errno,
                                    extAck(b, off, len, r, queue.writer(), queue.offset(index)));
                        }
                    }
                }
                off += MessageWriter.align(len);
            }
        }

        void throwIfFailed() {
            NetlinkException first = null;
            if (errors != null) {
                for (NetlinkException e : errors) {
                    if (e == null) {
                        continue;
                    }
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (commitError != null) {
                if (first == null) {
                    first = commitError;
                } else {
                    first.addSuppressed(commitError);
                }
            }
            if (first != null) {
                throw first;
            }
            if (answered != queue.size()) {
                throw new NetlinkException(operation(), NetlinkException.Kind.OTHER, "the kernel answered "
                        + answered + " of " + queue.size() + " messages: it rejected the batch, nothing applied", null);
            }
        }
    }

    /** A dump ({@code NLM_F_REQUEST | NLM_F_DUMP}): every decoded, non-null message of a consistent snapshot. */
    public <T> List<T> dump(Request request, Decoder<T> decoder) {
        List<T> out = new ArrayList<>();
        read(request, NetlinkH.NLM_F_DUMP, decoder, out);
        return out;
    }

    /** A request answered by one data message (e.g. {@code RTM_GETLINK} by name); the kernel's error is thrown. */
    public <T> T get(Request request, Decoder<T> decoder) {
        List<T> out = new ArrayList<>(1);
        read(request, 0, decoder, out);
        if (out.isEmpty()) {
            throw new NetlinkException(request.describe(), NetlinkException.Kind.OTHER,
                    "the kernel sent no reply message", null);
        }
        return out.getFirst();
    }

    /** Numbers requests {@code [first, first + n)} of {@code queue}, sends them in one datagram; returns the first. */
    private int send(RequestQueue queue, int first, int n) {
        int firstSeq = seq + 1;
        MessageWriter w = queue.writer();
        for (int i = 0; i < n; i++) {
            w.setSeq(queue.offset(first + i), firstSeq + i);
        }
        seq += n;
        int from = queue.offset(first);
        transport.send(w.array(), from, queue.end(first + n - 1) - from);
        return firstSeq;
    }

    /**
     * Reads replies until each of the {@code n} requests of {@code queue} from {@code first}, numbered from
     * {@code firstSeq}, is acknowledged. Returns their errors by position in the window, or null when all succeeded.
     */
    private NetlinkException[] awaitAcks(RequestQueue queue, int first, int n, int firstSeq) {
        dirty = true;
        NetlinkException[] errors = null;
        int pending = n;
        int portId = transport.portId();
        while (pending > 0) {
            int received = transport.receive(true);
            ByteBuffer b = transport.receiveBuffer();
            if (received > b.capacity()) {
                transport.growReceiveBuffer(received);
                throw new NetlinkException(queue.request(first).describe(), NetlinkException.Kind.OTHER,
                        "an acknowledgement of " + received + " bytes did not fit the receive buffer", null);
            }
            for (int off = 0; off + NLMSGHDR_SIZE <= received; ) {
                int len = checkedLength(b, off, received, queue.request(first), null);
                int index = b.getInt(off + NLMSG_SEQ) - firstSeq;
                if (b.getInt(off + NLMSG_PID) == portId && Integer.compareUnsigned(index, n) < 0) {
                    Request request = queue.request(first + index);
                    int type = Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE));
                    if (type == NetlinkH.NLMSG_ERROR) {
                        int errno = -errorCode(b, off, len, request, null);
                        if (errno != 0) {
                            if (errors == null) {
                                errors = new NetlinkException[n];
                            }
                            errors[index] = new NetlinkException(request.describe(), errno,
                                    extAck(b, off, len, request, queue.writer(), queue.offset(first + index)));
                        }
                        pending--;
                    } else if (type == NetlinkH.NLMSG_OVERRUN) {
                        throw new NetlinkException(request.describe(), NetlinkException.Kind.OTHER,
                                "NLMSG_OVERRUN: the kernel lost data", null);
                    }
                }
                off += MessageWriter.align(len);
            }
        }
        dirty = false;
        return errors;
    }

    private <T> void read(Request request, int dumpFlags, Decoder<T> decoder, List<T> out) {
        lock.lock();
        try {
            for (int attempt = 1, interruptions = 0; ; attempt++) {
                prepare();
                out.clear();
                int s = ++seq;
                writer.clear();
                writer.begin(request.type(), NetlinkH.NLM_F_REQUEST | dumpFlags | request.flags(), s);
                request.encode(writer);
                writer.end();
                transport.send(writer.array(), 0, writer.position());
                if (awaitData(s, dumpFlags != 0, request, decoder, out)) {
                    return;
                }
                if (interruptedDump) {
                    if (++interruptions == MAX_INTERRUPTED_DUMPS) {
                        throw new NetlinkException(request.describe(), Errno.EINTR,
                                "the dump was interrupted by concurrent changes " + interruptions + " times", null);
                    }
                    LockSupport.parkNanos(interruptedDumpPause(interruptions));
                } else if (attempt - interruptions == MAX_READ_ATTEMPTS) {
                    throw new NetlinkException(request.describe(), NetlinkException.Kind.OTHER,
                            "the reply did not fit the receive buffer after " + MAX_READ_ATTEMPTS + " attempts", null);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * How long to wait before the next attempt of a dump after its {@code interruptions}-th interruption: a random
     * time between a quarter of a ceiling and the ceiling, which is 1 ms after the first and doubles up to 64 ms (all
     * {@value #MAX_INTERRUPTED_DUMPS} attempts: at most ~2.5 s in all). An interrupt of the thread ends the wait
     * early (the next attempt then runs; a cancelled call notices it there).
     */
    static long interruptedDumpPause(int interruptions) {
        long ceiling = 1_000_000L << Math.min(interruptions - 1, 6);
        return ThreadLocalRandom.current().nextLong(ceiling / 4, ceiling + 1);
    }

    /** Whether the last {@link #awaitData} saw NLM_F_DUMP_INTR. Guarded by {@link #lock}. */
    private boolean interruptedDump;

    /** Collects the reply to request {@code s}; false when it must be repeated (interrupted dump, truncation). */
    private <T> boolean awaitData(int s, boolean dump, Request request, Decoder<T> decoder, List<T> out) {
        dirty = true;
        boolean interrupted = false;
        interruptedDump = false;
        int portId = transport.portId();
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
                int len = checkedLength(b, off, n, request, null);
                if (b.getInt(off + NLMSG_SEQ) == s && b.getInt(off + NLMSG_PID) == portId) {
                    int type = Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE));
                    int flags = Short.toUnsignedInt(b.getShort(off + NLMSG_FLAGS));
                    if ((flags & NetlinkH.NLM_F_DUMP_INTR) != 0) {
                        interrupted = true;
                        interruptedDump = true;
                    }
                    switch (type) {
                        case NetlinkH.NLMSG_NOOP -> { }
                        case NetlinkH.NLMSG_ERROR, NetlinkH.NLMSG_DONE -> {
                            // DONE carries the dump's final error code (0 when it completed).
                            int errno = len >= NLMSGHDR_SIZE + 4 ? -errorCode(b, off, len, request, null) : 0;
                            dirty = false;
                            if (errno != 0) {
                                throw new NetlinkException(request.describe(), errno,
                                        extAck(b, off, len, request, writer, 0));
                            }
                            return !interrupted;
                        }
                        case NetlinkH.NLMSG_OVERRUN -> throw new NetlinkException(request.describe(),
                                NetlinkException.Kind.OTHER, "NLMSG_OVERRUN: the kernel lost data", null);
                        default -> {
                            T value;
                            try {
                                value = decoder.decode(b, off, len);
                            } catch (MalformedMessageException | IndexOutOfBoundsException | IllegalArgumentException e) {
                                throw new NetlinkException(request.describe(), NetlinkException.Kind.OTHER,
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

    /**
     * The length of the message at {@code off}, checked against the datagram's {@code n} bytes. A malformed one is
     * reported for {@code request}, or for the transaction {@code replies} read (the description is built only then:
     * formatting it for every reply would cost more than the exchange).
     */
    private static int checkedLength(ByteBuffer b, int off, int n, Request request, TransactionReplies replies) {
        int len = b.getInt(off + NLMSG_LEN);
        if (len < NLMSGHDR_SIZE || len > n - off) {
            throw new NetlinkException(operation(request, replies), NetlinkException.Kind.OTHER,
                    "malformed reply: nlmsg_len " + len + " at offset " + off + " of a " + n + "-byte datagram", null);
        }
        return len;
    }

    private static int errorCode(ByteBuffer b, int off, int len, Request request, TransactionReplies replies) {
        if (len < NLMSGHDR_SIZE + 4) {
            throw new NetlinkException(operation(request, replies), NetlinkException.Kind.OTHER,
                    "malformed reply: NLMSG_ERROR of " + len + " bytes", null);
        }
        return b.getInt(off + NLMSGHDR_SIZE + NLMSGERR_ERROR);
    }

    private static String operation(Request request, TransactionReplies replies) {
        return request != null ? request.describe() : replies.operation();
    }

    /**
     * The kernel's extended ACK of the error message at {@code off}: its text, and the attribute it blames (by the
     * offset into our request, named by {@link Request#attributeAt}). Null when it sent none.
     *
     * @param request the request answered, or null (then a blamed attribute is not named)
     * @param encoded the buffer holding the encoded request; its message starts at {@code requestOffset}
     */
    static String extAck(ByteBuffer b, int off, int len, Request request, MessageWriter encoded, int requestOffset) {
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
        if (offending >= NLMSGHDR_SIZE && request != null && encoded != null
                && requestOffset + offending + 4 <= encoded.position()) {
            sb.append(sb.isEmpty() ? "" : " ").append('(')
                    .append(request.attributeAt(encoded, requestOffset, offending)).append(')');
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
