package io.jcni.netlink.nft;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * An element of a set ({@code key}), a map ({@code key : data}) or a verdict map ({@code key : verdict}):
 * {@code nft add element FAMILY TABLE SET { ELEMENT }}. Keys and data are bytes as {@link NamedSet#key(Object...)}
 * and {@link NamedSet#data(Object)} encode them.
 *
 * @param data a map element's data, else null
 * @param verdict a verdict map element's verdict, else null
 */
public record SetElement(byte[] key, byte[] data, Verdict verdict) {
    public SetElement {
        key = Registers.data(key);
        if (data != null) {
            data = Registers.data(data);
        }
        if (data != null && verdict != null) {
            throw new IllegalArgumentException("an element maps to data or to a verdict, not both");
        }
    }

    /** A set element. */
    public static SetElement of(byte[] key) {
        return new SetElement(key, null, null);
    }

    /** A map element: {@code key : data}. */
    public static SetElement mapping(byte[] key, byte[] data) {
        return new SetElement(key, Objects.requireNonNull(data, "data"), null);
    }

    /** A verdict map element: {@code key : verdict}. */
    public static SetElement mapping(byte[] key, Verdict verdict) {
        return new SetElement(key, null, Objects.requireNonNull(verdict, "verdict"));
    }

    @Override
    public byte[] key() {
        return key.clone();
    }

    @Override
    public byte[] data() {
        return data == null ? null : data.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SetElement e && Arrays.equals(e.key, key) && Arrays.equals(e.data, data)
                && Objects.equals(e.verdict, verdict);
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(key) * 31 + Arrays.hashCode(data)) * 31 + Objects.hashCode(verdict);
    }

    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        String k = hex.formatHex(key);
        return data != null ? k + " : " + hex.formatHex(data) : verdict != null ? k + " : " + verdict : k;
    }
}
