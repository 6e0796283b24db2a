package io.jcni.spec;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP address text in and out, the one place jcni reads and writes it: Go's {@code net.ParseIP} and
 * {@code net.IP.String} (Go 1.19, which built the reference plugins and libcni that jcni interoperates with), because
 * the same text names host-local's reservation files and fills every result. Never touches a resolver
 * ({@link InetAddress#getByName} would look up anything that is not a literal). Prefixes ({@code 10.1.0.5/16}) are
 * {@link IpPrefix}, which reads its address part here.
 *
 * <p>Accepted: dotted-quad IPv4 with decimal octets and no leading zeros ({@code 010.0.0.1} is refused, as Go 1.17+
 * refuses it); IPv6 with hex groups of at most 0xffff (leading zeros allowed), at most one {@code ::} standing for at
 * least one group, an optional trailing dotted IPv4 in place of the last two groups. Refused: zones ({@code %eth0}),
 * brackets, whitespace, signs. An IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) is the IPv4 address, as Go's
 * {@code To4()} and Java's {@link InetAddress#getByAddress(byte[])} both treat it: parsed to an {@link Inet4Address},
 * printed dotted.
 *
 * <p>Printed: IPv4 dotted; IPv6 in lower case, the first longest run of two or more zero groups as {@code ::}
 * (RFC 5952 but for Go's choice of the first run on a tie, which RFC 5952 shares).
 */
public final class IpText {
    private IpText() {
    }

    /** Parses an IP address literal; an invalid one is code 7 naming {@code field}. Never does a name lookup. */
    public static InetAddress parseAddress(String text, String field) throws CniException {
        return parseAddress(text, field, CniError.INVALID_NETWORK_CONFIG);
    }

    /** As {@link #parseAddress(String, String)}, errors carrying {@code code}. IPv4-mapped IPv6 yields IPv4. */
    public static InetAddress parseAddress(String text, String field, int code) throws CniException {
        byte[] bytes = parseBytes(text);
        if (bytes == null) {
            throw new CniException(code, field + ": invalid IP address \"" + text + "\"");
        }
        return toAddress(bytes);
    }

    /**
     * The 4 or 16 network-order bytes of {@code text} (4 for IPv4 and IPv4-mapped IPv6), or null if it is not an IP
     * literal Go would accept.
     */
    public static byte[] parseBytes(String text) {
        if (text == null) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '.') {
                return parseV4(text, 0, text.length());
            }
            if (c == ':') {
                byte[] v6 = parseV6(text);
                return v6 != null && isMapped(v6) ? lastFour(v6) : v6;
            }
        }
        return null;
    }

    /** The text of {@code address} as Go prints it ({@code 10.1.0.1}, {@code fd00::1}); {@code "<nil>"} for null. */
    public static String format(InetAddress address) {
        return address == null ? "<nil>" : format(address.getAddress());
    }

    /** The text of 4 or 16 network-order address bytes, as {@link #format(InetAddress)}. */
    public static String format(byte[] b) {
        if (b.length == 4) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
        }
        if (b.length != 16) {
            throw new IllegalArgumentException("an IP address has 4 or 16 bytes, not " + b.length);
        }
        if (isMapped(b)) {
            return format(lastFour(b));
        }
        int bestStart = -1;
        int bestEnd = -1;
        for (int i = 0; i < 16; i += 2) {
            int j = i;
            while (j < 16 && b[j] == 0 && b[j + 1] == 0) {
                j += 2;
            }
            if (j > i && j - i > bestEnd - bestStart) {
                bestStart = i;
                bestEnd = j;
                i = j;
            }
        }
        if (bestEnd - bestStart <= 2) {
            bestStart = -1;
            bestEnd = -1;
        }
        StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            if (i == bestStart) {
                text.append("::");
                i = bestEnd;
                if (i >= 16) {
                    break;
                }
            } else if (i > 0) {
                text.append(':');
            }
            text.append(Integer.toHexString(((b[i] & 0xff) << 8) | (b[i + 1] & 0xff)));
        }
        return text.toString();
    }

    /** True if {@code text} is written as IPv6 (contains a colon), whatever address it denotes. */
    static boolean isV6Text(String text) {
        return text.indexOf(':') >= 0;
    }

    /** True if the 16 bytes are in {@code ::ffff:0:0/96}. */
    static boolean isMapped(byte[] v6) {
        for (int i = 0; i < 10; i++) {
            if (v6[i] != 0) {
                return false;
            }
        }
        return v6[10] == (byte) 0xff && v6[11] == (byte) 0xff;
    }

    /** The address of 4 or 16 bytes, without host name or scope; 16 mapped bytes give the IPv4 address. */
    static InetAddress toAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException impossible) {
            throw new IllegalArgumentException("address must have 4 or 16 bytes", impossible);
        }
    }

    private static byte[] lastFour(byte[] v6) {
        byte[] v4 = new byte[4];
        System.arraycopy(v6, 12, v4, 0, 4);
        return v4;
    }

    /** Go's {@code parseIPv4} on {@code s[from, to)}: four decimal octets, no leading zeros, nothing else. */
    private static byte[] parseV4(String s, int from, int to) {
        byte[] out = new byte[4];
        int i = from;
        for (int octet = 0; octet < 4; octet++) {
            if (octet > 0) {
                if (i >= to || s.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
            int start = i;
            int value = 0;
            while (i < to && s.charAt(i) >= '0' && s.charAt(i) <= '9' && value <= 255) {
                value = value * 10 + (s.charAt(i) - '0');
                i++;
            }
            if (i == start || value > 255 || (i - start > 1 && s.charAt(start) == '0')) {
                return null;
            }
            out[octet] = (byte) value;
        }
        return i == to ? out : null;
    }

    /** Go's {@code parseIPv6}: 16 bytes, or null. */
    private static byte[] parseV6(String s) {
        byte[] out = new byte[16];
        int len = s.length();
        int ellipsis = -1; // byte index where "::" stands
        int at = 0;
        if (len >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
            ellipsis = 0;
            at = 2;
            if (at == len) {
                return out;
            }
        }
        int n = 0; // bytes written
        while (n < 16) {
            int start = at;
            int value = 0;
            while (at < len && hexDigit(s.charAt(at)) >= 0 && value <= 0xffff) {
                value = value * 16 + hexDigit(s.charAt(at));
                at++;
            }
            if (at == start || value > 0xffff) {
                return null;
            }
            if (at < len && s.charAt(at) == '.') {
                // A trailing dotted IPv4: in place of the last two groups, or after a "::".
                if ((ellipsis < 0 && n != 12) || n + 4 > 16) {
                    return null;
                }
                byte[] v4 = parseV4(s, start, len);
                if (v4 == null) {
                    return null;
                }
                System.arraycopy(v4, 0, out, n, 4);
                n += 4;
                at = len;
                break;
            }
            out[n++] = (byte) (value >> 8);
            out[n++] = (byte) value;
            if (at == len) {
                break;
            }
            if (s.charAt(at) != ':' || at + 1 == len) {
                return null;
            }
            at++;
            if (s.charAt(at) == ':') {
                if (ellipsis >= 0) {
                    return null;
                }
                ellipsis = n;
                at++;
                if (at == len) {
                    break;
                }
            }
        }
        if (at != len) {
            return null;
        }
        if (n < 16) {
            if (ellipsis < 0) {
                return null;
            }
            int tail = n - ellipsis;
            System.arraycopy(out, ellipsis, out, 16 - tail, tail);
            for (int k = ellipsis; k < 16 - tail; k++) {
                out[k] = 0;
            }
        } else if (ellipsis >= 0) {
            return null; // "::" must stand for at least one group
        }
        return out;
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }
}
