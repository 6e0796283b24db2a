package io.jcni.netlink.internal.nft;

import java.nio.charset.StandardCharsets;

/**
 * User data of tables, chains, rules and sets ({@code NFTA_*_USERDATA}): opaque to the kernel, a list of TLVs to
 * libnftnl ({@code struct nftnl_udata}: type u8, length u8, value). {@code nft} keeps comments there, as TLV type 0
 * ({@code NFTNL_UDATA_TABLE_COMMENT}, {@code NFTNL_UDATA_CHAIN_COMMENT}, {@code NFTNL_UDATA_RULE_COMMENT}), the value
 * a NUL-terminated string; a set's key and data byte order as types 0 and 1 ({@code NFTNL_UDATA_SET_KEYBYTEORDER},
 * {@code NFTNL_UDATA_SET_DATABYTEORDER}, a host-order u32 of nftables' {@code enum byteorder}). These numbers are
 * libnftnl's ({@code <libnftnl/udata.h>}), not the kernel's, and are checked against {@code nft} by the vector tests.
 */
final class Udata {
    private Udata() {}

    static final int COMMENT = 0;
    static final int SET_KEYBYTEORDER = 0;
    static final int SET_DATABYTEORDER = 1;
    /** nftables' {@code enum byteorder}. */
    static final int BYTEORDER_INVALID = 0;
    static final int BYTEORDER_HOST_ENDIAN = 1;
    static final int BYTEORDER_BIG_ENDIAN = 2;

    /** The user data holding only {@code comment}. */
    static byte[] comment(String comment) {
        byte[] text = comment.getBytes(StandardCharsets.UTF_8);
        byte[] tlv = new byte[2 + text.length + 1];
        tlv[0] = COMMENT;
        tlv[1] = (byte) (text.length + 1);
        System.arraycopy(text, 0, tlv, 2, text.length);
        return tlv;
    }

    /** TLVs of u32 values in host order: {@code types[i]} holds {@code values[i]}. */
    static byte[] u32s(int[] types, int[] values) {
        byte[] out = new byte[types.length * 6];
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(out).order(java.nio.ByteOrder.nativeOrder());
        for (int i = 0; i < types.length; i++) {
            b.put((byte) types[i]).put((byte) 4).putInt(values[i]);
        }
        return out;
    }

    /** The comment in {@code udata}, or null: the first TLV of type 0 (every object type keeps its comment there). */
    static String comment(byte[] udata) {
        for (int i = 0; i + 2 <= udata.length; ) {
            int type = udata[i] & 0xff;
            int len = udata[i + 1] & 0xff;
            if (i + 2 + len > udata.length) {
                return null; // damaged: no comment rather than a wrong one
            }
            if (type == COMMENT) {
                int n = 0;
                while (n < len && udata[i + 2 + n] != 0) {
                    n++;
                }
                return new String(udata, i + 2, n, StandardCharsets.UTF_8);
            }
            i += 2 + len;
        }
        return null;
    }
}
