package io.jcni.netlink.nft;

import io.jcni.netlink.internal.wire.NfTablesH;

/** Register numbers and register data, checked where expressions are made. */
final class Registers {
    private Registers() {}

    /** Bytes of data one expression can hold: the four 16-byte registers together. */
    static final int MAX_DATA = NfTablesH.NFT_REG_SIZE * 4;

    /** A register: 0 (verdict), 1-4 (16-byte), 8-23 (4-byte). */
    static void check(int reg) {
        boolean ok = (reg >= NfTablesH.NFT_REG_VERDICT && reg <= NfTablesH.NFT_REG_4)
                || (reg >= NfTablesH.NFT_REG32_00 && reg <= NfTablesH.NFT_REG32_15);
        if (!ok) {
            throw new IllegalArgumentException("no such nf_tables register: " + reg);
        }
    }

    /** A copy of register data: 1 to {@value #MAX_DATA} bytes. */
    static byte[] data(byte[] data) {
        byte[] copy = Words.copy(data, "data");
        if (copy.length == 0 || copy.length > MAX_DATA) {
            throw new IllegalArgumentException("register data must have 1-" + MAX_DATA + " bytes, not " + copy.length);
        }
        return copy;
    }

    static void appendNonZero(StringBuilder sb, String name, int reg) {
        if (reg != 0) {
            sb.append(' ').append(name).append(" reg ").append(reg);
        }
    }
}
