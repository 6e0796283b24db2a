package io.jcni.netlink.internal.wire;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds kernel-style replies for tests, byte by byte from {@code <linux/netlink.h>} (independent of
 * {@link MessageWriter}): header {@code len u32, type u16, flags u16, seq u32, pid u32}, {@code nlmsgerr}, TLVs.
 */
final class Replies {
    private Replies() {}

    static byte[] message(int type, int flags, int seq, int pid, byte[] payload) {
        int len = 16 + payload.length;
        ByteBuffer b = ByteBuffer.allocate((len + 3) & ~3).order(ByteOrder.nativeOrder());
        b.putInt(len).putShort((short) type).putShort((short) flags).putInt(seq).putInt(pid).put(payload);
        return b.array();
    }

    static byte[] attr(int type, byte[] payload) {
        int len = 4 + payload.length;
        ByteBuffer b = ByteBuffer.allocate((len + 3) & ~3).order(ByteOrder.nativeOrder());
        b.putShort((short) len).putShort((short) type).put(payload);
        return b.array();
    }

    static byte[] u32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.nativeOrder()).putInt(v).array();
    }

    static byte[] cstring(String s) {
        byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return java.util.Arrays.copyOf(bytes, bytes.length + 1);
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** An acknowledgement (error 0) of {@code seq}, capped as with {@code NETLINK_CAP_ACK}. */
    static byte[] ack(int seq) {
        return error(seq, FakeTransport.PORT_ID, 0, new byte[0]);
    }

    /** {@code NLMSG_ERROR} with {@code -errno}, the echoed header (capped) and, if any, extended-ACK TLVs. */
    static byte[] error(int seq, int pid, int errno, byte[] tlvs) {
        ByteBuffer e = ByteBuffer.allocate(20).order(ByteOrder.nativeOrder());
        e.putInt(-errno).putInt(16).putShort((short) 0).putShort((short) 0).putInt(seq).putInt(0);
        int flags = NetlinkH.NLM_F_CAPPED | (tlvs.length > 0 ? NetlinkH.NLM_F_ACK_TLVS : 0);
        return message(NetlinkH.NLMSG_ERROR, flags, seq, pid, concat(e.array(), tlvs));
    }

    static byte[] done(int seq, int flags) {
        return message(NetlinkH.NLMSG_DONE, NetlinkH.NLM_F_MULTI | flags, seq, FakeTransport.PORT_ID, u32(0));
    }

    /** A data message of {@code type} whose payload is four bytes holding {@code marker}, in a dump. */
    static byte[] data(int type, int seq, int flags, int marker) {
        return message(type, NetlinkH.NLM_F_MULTI | flags, seq, FakeTransport.PORT_ID, u32(marker));
    }

    /** The sequence numbers of the messages in a sent datagram. */
    static List<Integer> seqs(byte[] datagram) {
        ByteBuffer b = ByteBuffer.wrap(datagram).order(ByteOrder.nativeOrder());
        List<Integer> out = new ArrayList<>();
        for (int off = 0; off + 16 <= datagram.length; ) {
            int len = b.getInt(off);
            out.add(b.getInt(off + 8));
            off += (len + 3) & ~3;
        }
        return out;
    }

    static int seq(byte[] datagram) {
        return seqs(datagram).getFirst();
    }
}
