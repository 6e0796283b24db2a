package io.jcni.netlink.internal.wire;

import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_FLAGS;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_LEN;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_PID;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_SEQ;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;
import static io.jcni.netlink.internal.wire.Offsets.RTATTR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.RTA_LEN;
import static io.jcni.netlink.internal.wire.Offsets.RTA_TYPE;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Builds netlink messages back to back in a reusable, growing heap buffer: {@code nlmsghdr}, a fixed family header,
 * then attributes ({@code rtattr}: length, type, payload padded to 4 bytes), possibly nested. Several messages may be
 * written before sending them in one datagram (a batch). Byte order is the host's, as netlink requires, except where an
 * attribute says otherwise.
 *
 * <p>Lengths: {@code rta_len} counts header and payload without the trailing padding; {@code nlmsg_len} counts the
 * whole message. Every region handed out is zeroed (the kernel rejects non-zero padding fields in strict mode).
 */
public final class MessageWriter {
    private ByteBuffer buf;
    private int pos;
    private int messageStart = -1;

    public MessageWriter(int initialCapacity) {
        buf = ByteBuffer.allocate(initialCapacity).order(ByteOrder.nativeOrder());
    }

    /** Forgets every message written so far. */
    public void clear() {
        pos = 0;
        messageStart = -1;
    }

    /** Drops everything from {@code position} on, including a message begun there. */
    public void truncate(int position) {
        if (position < 0 || position > pos) {
            throw new IllegalArgumentException("position " + position + " outside [0, " + pos + "]");
        }
        pos = position;
        messageStart = -1;
    }

    /** Bytes written so far (all messages, padded). */
    public int position() {
        return pos;
    }

    /** The backing array; valid until the next write. */
    public byte[] array() {
        return buf.array();
    }

    /** Read access for tests and for mapping an extended-ACK offset back to an attribute. */
    public ByteBuffer buffer() {
        return buf;
    }

    /** Starts a message: writes its header with {@code nlmsg_pid} 0 (the kernel fills in the sender); returns its offset. */
    public int begin(int type, int flags, int seq) {
        if (messageStart >= 0) {
            throw new IllegalStateException("message at " + messageStart + " not ended");
        }
        messageStart = pos;
        int at = reserve(NLMSGHDR_SIZE);
        buf.putShort(at + NLMSG_TYPE, (short) type);
        buf.putShort(at + NLMSG_FLAGS, (short) flags);
        buf.putInt(at + NLMSG_SEQ, seq);
        buf.putInt(at + NLMSG_PID, 0);
        return at;
    }

    /** Ends the current message, setting {@code nlmsg_len}; returns the message's offset. */
    public int end() {
        int start = messageStart;
        buf.putInt(start + NLMSG_LEN, pos - start);
        messageStart = -1;
        return start;
    }

    /** Rewrites the sequence number of the message at {@code messageOffset}. */
    public void setSeq(int messageOffset, int seq) {
        buf.putInt(messageOffset + NLMSG_SEQ, seq);
    }

    /** Reserves {@code size} zeroed bytes (padded to 4) for a fixed header; returns their offset. */
    public int reserve(int size) {
        int padded = align(size);
        ensure(padded);
        int at = pos;
        Arrays.fill(buf.array(), at, at + padded, (byte) 0);
        pos += padded;
        return at;
    }

    public void putU8(int at, int value) {
        buf.put(at, (byte) value);
    }

    public void putU16(int at, int value) {
        buf.putShort(at, (short) value);
    }

    public void putU32(int at, int value) {
        buf.putInt(at, value);
    }

    /** Writes a 2-byte big-endian value at {@code at} (e.g. {@code nfgenmsg.res_id}). */
    public void putU16be(int at, int value) {
        buf.put(at, (byte) (value >>> 8));
        buf.put(at + 1, (byte) value);
    }

    /**
     * Appends {@code length} bytes of whole, already encoded messages (e.g. a queue's requests into a transaction's
     * datagram). No message may be open.
     */
    public void append(byte[] messages, int offset, int length) {
        if (messageStart >= 0) {
            throw new IllegalStateException("message at " + messageStart + " not ended");
        }
        ensure(length);
        buf.put(pos, messages, offset, length);
        pos += length;
    }

    /** An attribute with a 1-byte payload. */
    public void u8(int type, int value) {
        int at = attr(type, 1);
        buf.put(at, (byte) value);
    }

    /** An attribute with a 2-byte host-order payload. */
    public void u16(int type, int value) {
        int at = attr(type, 2);
        buf.putShort(at, (short) value);
    }

    /** An attribute with a 2-byte big-endian payload (e.g. a VLAN protocol). */
    public void u16be(int type, int value) {
        int at = attr(type, 2);
        buf.put(at, (byte) (value >>> 8));
        buf.put(at + 1, (byte) value);
    }

    /** An attribute with a 4-byte host-order payload. */
    public void u32(int type, int value) {
        int at = attr(type, 4);
        buf.putInt(at, value);
    }

    /** An attribute with a 4-byte big-endian payload (nf_tables sends every u32 attribute this way). */
    public void u32be(int type, int value) {
        int at = attr(type, 4);
        buf.put(at, (byte) (value >>> 24));
        buf.put(at + 1, (byte) (value >>> 16));
        buf.put(at + 2, (byte) (value >>> 8));
        buf.put(at + 3, (byte) value);
    }

    /** An attribute with an 8-byte big-endian payload (nf_tables handles, counters). */
    public void u64be(int type, long value) {
        int at = attr(type, 8);
        for (int i = 0; i < 8; i++) {
            buf.put(at + i, (byte) (value >>> (56 - 8 * i)));
        }
    }

    /** A NUL-terminated string attribute. */
    public void string(int type, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        int at = attr(type, bytes.length + 1);
        buf.put(at, bytes);
    }

    /** An attribute carrying raw bytes. */
    public void bytes(int type, byte[] value) {
        int at = attr(type, value.length);
        buf.put(at, value);
    }

    /** An IPv4 or IPv6 address attribute (network byte order, 4 or 16 bytes). */
    public void address(int type, InetAddress value) {
        bytes(type, value.getAddress());
    }

    /** An attribute without payload. */
    public void flag(int type) {
        attr(type, 0);
    }

    /** Starts a nested attribute; returns its offset for {@link #endNest(int)}. */
    public int nest(int type) {
        int at = reserve(RTATTR_SIZE);
        buf.putShort(at + RTA_TYPE, (short) type);
        return at;
    }

    /**
     * Starts a nested attribute with {@code NLA_F_NESTED} set in its type, as nf_tables clients (libnftnl) write them;
     * the kernel accepts nests with and without the flag. Ends with {@link #endNest(int)}.
     */
    public int nestFlagged(int type) {
        return nest(type | NetlinkH.NLA_F_NESTED);
    }

    /** Ends the nested attribute started at {@code at}: its length covers everything written since. */
    public void endNest(int at) {
        buf.putShort(at + RTA_LEN, (short) (pos - at));
    }

    /** Writes an attribute header, reserves the zeroed, padded payload, returns the payload offset. */
    private int attr(int type, int payload) {
        int len = RTATTR_SIZE + payload;
        if (len > 0xffff) {
            throw new IllegalArgumentException("attribute " + type + " too large: " + payload + " bytes");
        }
        int at = reserve(len);
        buf.putShort(at + RTA_LEN, (short) len);
        buf.putShort(at + RTA_TYPE, (short) type);
        return at + RTATTR_SIZE;
    }

    private void ensure(int more) {
        int need = pos + more;
        if (need > buf.capacity()) {
            int capacity = Math.max(need, buf.capacity() * 2);
            ByteBuffer next = ByteBuffer.allocate(capacity).order(ByteOrder.nativeOrder());
            next.put(0, buf, 0, pos);
            buf = next;
        }
    }

    /** {@code NLMSG_ALIGN}/{@code RTA_ALIGN}: rounds up to 4. */
    public static int align(int n) {
        return (n + NetlinkH.NLMSG_ALIGNTO - 1) & ~(NetlinkH.NLMSG_ALIGNTO - 1);
    }
}
