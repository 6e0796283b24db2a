package io.jcni.netlink.nft;

import java.util.Arrays;

/** Formatting of register data as {@code nft --debug=netlink} prints it: 4-byte groups, each a host-order hex word. */
final class Words {
    private Words() {}

    static String of(byte[] data) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.max(4, data.length); i += 4) {
            int word = 0;
            for (int j = 3; j >= 0; j--) { // little-endian host: byte i is the low byte
                int k = i + j;
                word = word << 8 | (k < data.length ? data[k] & 0xff : 0);
            }
            if (i > 0) {
                sb.append(' ');
            }
            sb.append("0x");
            String hex = Integer.toHexString(word);
            for (int pad = hex.length(); pad < 8; pad++) {
                sb.append('0');
            }
            sb.append(hex);
        }
        return sb.toString();
    }

    static byte[] copy(byte[] data, String what) {
        if (data == null) {
            throw new NullPointerException(what);
        }
        return Arrays.copyOf(data, data.length);
    }
}
