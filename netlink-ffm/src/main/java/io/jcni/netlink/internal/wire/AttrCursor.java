package io.jcni.netlink.internal.wire;

import static io.jcni.netlink.internal.wire.Offsets.RTATTR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.RTA_LEN;
import static io.jcni.netlink.internal.wire.Offsets.RTA_TYPE;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Walks the attributes ({@code rtattr}/{@code nlattr}) in {@code [start, end)} of a buffer without allocating:
 * {@code while (c.next()) switch (c.type()) ...}. Bounds are checked on every step; a malformed attribute ends the walk
 * with {@link MalformedMessageException} rather than an index exception.
 */
public final class AttrCursor {
    private final ByteBuffer buf;
    private int next;
    private final int end;
    private int type;
    private int payload;
    private int payloadLength;

    public AttrCursor(ByteBuffer buf, int start, int end) {
        if (start < 0 || end > buf.limit() || start > end) {
            throw new MalformedMessageException("attributes [" + start + ", " + end + ") outside " + buf.limit());
        }
        this.buf = buf;
        this.next = start;
        this.end = end;
    }

    /** Advances to the next attribute; false at the end. A trailing fragment shorter than a header is ignored. */
    public boolean next() {
        if (next + RTATTR_SIZE > end) {
            return false;
        }
        int len = Short.toUnsignedInt(buf.getShort(next + RTA_LEN));
        if (len < RTATTR_SIZE || next + len > end) {
            throw new MalformedMessageException("attribute length " + len + " at offset " + next + " exceeds " + end);
        }
        type = Short.toUnsignedInt(buf.getShort(next + RTA_TYPE)) & NetlinkH.NLA_TYPE_MASK;
        payload = next + RTATTR_SIZE;
        payloadLength = len - RTATTR_SIZE;
        next += MessageWriter.align(len);
        return true;
    }

    /** The buffer walked. */
    public ByteBuffer buffer() {
        return buf;
    }

    /** The current attribute's type, flags ({@code NLA_F_NESTED}, {@code NLA_F_NET_BYTEORDER}) masked off. */
    public int type() {
        return type;
    }

    public int payloadOffset() {
        return payload;
    }

    public int payloadLength() {
        return payloadLength;
    }

    /** A cursor over the current attribute's payload as nested attributes. */
    public AttrCursor nested() {
        return new AttrCursor(buf, payload, payload + payloadLength);
    }

    public int u8() {
        need(1);
        return Byte.toUnsignedInt(buf.get(payload));
    }

    public int u16() {
        need(2);
        return Short.toUnsignedInt(buf.getShort(payload));
    }

    /** A 2-byte big-endian payload. */
    public int u16be() {
        need(2);
        return (Byte.toUnsignedInt(buf.get(payload)) << 8) | Byte.toUnsignedInt(buf.get(payload + 1));
    }

    public int u32() {
        need(4);
        return buf.getInt(payload);
    }

    /** A 4-byte big-endian payload (nf_tables' u32 attributes). */
    public int u32be() {
        need(4);
        return (Byte.toUnsignedInt(buf.get(payload)) << 24) | (Byte.toUnsignedInt(buf.get(payload + 1)) << 16)
                | (Byte.toUnsignedInt(buf.get(payload + 2)) << 8) | Byte.toUnsignedInt(buf.get(payload + 3));
    }

    /** An 8-byte big-endian payload (nf_tables' handles and counters). */
    public long u64be() {
        need(8);
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | Byte.toUnsignedInt(buf.get(payload + i));
        }
        return v;
    }

    /** A 4-byte signed payload (e.g. {@code IFLA_LINK_NETNSID}). */
    public int s32() {
        return u32();
    }

    /** A string payload up to its first NUL (or the payload's end). */
    public String string() {
        int n = 0;
        while (n < payloadLength && buf.get(payload + n) != 0) {
            n++;
        }
        byte[] bytes = new byte[n];
        buf.get(payload, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    public byte[] bytes() {
        byte[] bytes = new byte[payloadLength];
        buf.get(payload, bytes);
        return bytes;
    }

    /** A 4- or 16-byte address payload. */
    public InetAddress address() {
        if (payloadLength != 4 && payloadLength != 16) {
            throw new MalformedMessageException("address attribute " + type + " has " + payloadLength + " bytes");
        }
        try {
            // Inet6Address keeps an IPv4-mapped IPv6 address IPv6 (InetAddress.getByAddress would turn it into IPv4)
            return payloadLength == 4 ? InetAddress.getByAddress(bytes()) : Inet6Address.getByAddress(null, bytes(), -1);
        } catch (UnknownHostException e) {
            throw new MalformedMessageException("address attribute " + type + ": " + e.getMessage());
        }
    }

    private void need(int n) {
        if (payloadLength < n) {
            throw new MalformedMessageException("attribute " + type + " has " + payloadLength + " bytes, needs " + n);
        }
    }
}
