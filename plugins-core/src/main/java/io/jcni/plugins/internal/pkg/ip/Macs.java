package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.MacAddress;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;

/**
 * MAC addresses from configurations ({@code mac}, {@code hwaddr}, CNI_ARGS {@code MAC}, the {@code mac} capability),
 * in the 6-byte forms Go's {@code net.ParseMAC} accepts: {@code c2:b0:57:49:47:f1}, {@code c2-b0-57-49-47-f1},
 * {@code c2b0.5749.47f1}, hex digits in either case. Refusals are code 7 naming the field.
 */
public final class Macs {
    private Macs() {
    }

    /** Any 6-byte address (to find a device by its MAC). */
    public static MacAddress parse(String text, String field) throws CniException {
        byte[] bytes = bytes(text);
        if (bytes == null) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, field + ": invalid MAC address \"" + text + "\"",
                    "expected six hex bytes such as c2:b0:57:49:47:f1");
        }
        return new MacAddress(bytes);
    }

    /**
     * An address to give an interface: unicast and not all-zero, which the kernel would refuse (EADDRNOTAVAIL) only
     * after other changes were made.
     */
    public static MacAddress parseUnicast(String text, String field) throws CniException {
        MacAddress mac = parse(text, field);
        byte[] bytes = mac.bytes();
        if ((bytes[0] & 1) != 0) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, field + ": \"" + text
                    + "\" is a multicast address", "an interface needs a unicast MAC (lowest bit of the first byte 0)");
        }
        boolean zero = true;
        for (byte b : bytes) {
            zero &= b == 0;
        }
        if (zero) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, field + ": \"" + text
                    + "\" is the all-zero address");
        }
        return mac;
    }

    /** The six bytes of {@code text}, or null if it is none of the accepted forms. */
    static byte[] bytes(String text) {
        byte[] bytes = new byte[6];
        if (text.length() == 17) {
            char separator = text.charAt(2);
            if (separator != ':' && separator != '-') {
                return null;
            }
            for (int i = 0; i < 6; i++) {
                if (i > 0 && text.charAt(3 * i - 1) != separator) {
                    return null;
                }
                int value = hexByte(text, 3 * i);
                if (value < 0) {
                    return null;
                }
                bytes[i] = (byte) value;
            }
            return bytes;
        }
        if (text.length() == 14 && text.charAt(4) == '.' && text.charAt(9) == '.') {
            for (int i = 0; i < 6; i++) {
                int value = hexByte(text, 5 * (i / 2) + 2 * (i % 2));
                if (value < 0) {
                    return null;
                }
                bytes[i] = (byte) value;
            }
            return bytes;
        }
        return null;
    }

    private static int hexByte(String text, int at) {
        int high = Character.digit(text.charAt(at), 16);
        int low = Character.digit(text.charAt(at + 1), 16);
        return high < 0 || low < 0 ? -1 : high << 4 | low;
    }
}
