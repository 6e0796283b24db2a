package io.jcni.spec.internal;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP address text in and out, the way Go's {@code net.ParseIP} and {@code net.IP.String} treat it, without ever
 * touching a resolver ({@link InetAddress#getByName} would look up anything that is not a literal).
 *
 * <p>Accepted: dotted-quad IPv4 with 1-3 digit decimal octets and no leading zeros (Go 1.17+ rejects {@code 010.0.0.1});
 * IPv6 with 1-4 hex digits per group, at most one {@code ::}, an optional trailing dotted IPv4. Rejected: zones
 * ({@code %eth0}), brackets, whitespace. An IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}) becomes the IPv4 address,
 * as Go's {@code To4()} and Java's {@link InetAddress#getByAddress(byte[])} both treat it.
 */
public final class IpText {
    private IpText() {
    }

    /** The 4 or 16 address bytes of {@code text}, or null if it is not an IP literal. Mapped IPv6 yields 4 bytes. */
    public static byte[] parse(String text) {
        if (text == null || text.isEmpty() || text.length() > 45) {
            return null;
        }
        byte[] bytes = text.indexOf(':') >= 0 ? parseV6(text) : parseV4(text, 0, text.length());
        if (bytes != null && bytes.length == 16 && isMapped(bytes)) {
            byte[] v4 = new byte[4];
            System.arraycopy(bytes, 12, v4, 0, 4);
            return v4;
        }
        return bytes;
    }

    /** True if the 16 bytes are {@code ::ffff:0:0/96}. */
    public static boolean isMapped(byte[] v6) {
        for (int i = 0; i < 10; i++) {
            if (v6[i] != 0) {
                return false;
            }
        }
        return v6[10] == (byte) 0xff && v6[11] == (byte) 0xff;
    }

    /** True if {@code text} is written as IPv6 (contains a colon), whatever address it denotes. */
    public static boolean isV6Text(String text) {
        return text.indexOf(':') >= 0;
    }

    public static InetAddress toAddress(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException impossible) {
            throw new IllegalArgumentException("address must have 4 or 16 bytes", impossible);
        }
    }

    private static byte[] parseV4(String s, int from, int to) {
        byte[] out = new byte[4];
        int octet = 0;
        int i = from;
        while (octet < 4) {
            int start = i;
            int value = 0;
            while (i < to && i - start < 4 && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                value = value * 10 + (s.charAt(i) - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return null;
            }
            out[octet++] = (byte) value;
            if (octet < 4) {
                if (i >= to || s.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == to ? out : null;
    }

    private static byte[] parseV6(String s) {
        byte[] out = new byte[16];
        int n = 0; // bytes written
        int ellipsis = -1; // byte index where "::" stands
        int i = 0;
        int len = s.length();
        if (len >= 2 && s.charAt(0) == ':' && s.charAt(1) == ':') {
            ellipsis = 0;
            i = 2;
            if (i == len) {
                return out;
            }
        }
        while (n < 16) {
            int start = i;
            int value = 0;
            while (i < len && i - start < 5) {
                int digit = Character.digit(s.charAt(i), 16);
                if (digit < 0 || s.charAt(i) > 'f') {
                    break;
                }
                value = value * 16 + digit;
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 4) {
                return null;
            }
            if (i < len && s.charAt(i) == '.') {
                // Trailing dotted IPv4: must fit in the last 4 bytes and follow a "::" or six groups.
                if (ellipsis < 0 && n != 12) {
                    return null;
                }
                if (n + 4 > 16) {
                    return null;
                }
                byte[] v4 = parseV4(s, start, len);
                if (v4 == null) {
                    return null;
                }
                System.arraycopy(v4, 0, out, n, 4);
                n += 4;
                i = len;
                break;
            }
            out[n++] = (byte) (value >> 8);
            out[n++] = (byte) value;
            if (i == len) {
                break;
            }
            if (s.charAt(i) != ':' || i + 1 == len) {
                return null;
            }
            i++;
            if (s.charAt(i) == ':') {
                if (ellipsis >= 0) {
                    return null;
                }
                ellipsis = n;
                i++;
                if (i == len) {
                    break;
                }
            }
        }
        if (i != len) {
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

    /** Go's {@code net.IP.String()}: dotted IPv4; IPv6 in lower case with the first longest run (2+ groups) as "::". */
    public static String format(InetAddress address) {
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address || b.length == 4) {
            return (b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff);
        }
        if (isMapped(b)) {
            return (b[12] & 0xff) + "." + (b[13] & 0xff) + "." + (b[14] & 0xff) + "." + (b[15] & 0xff);
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
}
