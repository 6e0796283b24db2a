package io.jcni.netlink;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * A link-layer address ({@code IFLA_ADDRESS}, {@code NDA_LLADDR}): 6 bytes for Ethernet, other lengths for other
 * link types. Immutable; printed {@code 02:42:ac:11:00:02}.
 */
public record MacAddress(byte[] bytes) {
    public MacAddress {
        if (bytes.length == 0 || bytes.length > 32) {
            throw new IllegalArgumentException("a link-layer address has 1-32 bytes: " + bytes.length);
        }
        bytes = bytes.clone();
    }

    /**
     * Parses colon-separated hex bytes ({@code 02:42:ac:11:00:02}).
     *
     * @throws IllegalArgumentException if {@code text} is not of that form
     */
    public static MacAddress parse(String text) {
        String[] parts = text.split(":", -1);
        byte[] b = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 2 || Character.digit(p.charAt(0), 16) < 0
                    || Character.digit(p.charAt(p.length() - 1), 16) < 0) {
                throw new IllegalArgumentException("not a link-layer address: " + text);
            }
            b[i] = (byte) Integer.parseInt(p, 16);
        }
        return new MacAddress(b);
    }

    /** A copy of the bytes. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MacAddress m && Arrays.equals(bytes, m.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return HexFormat.ofDelimiter(":").formatHex(bytes);
    }
}
