package io.jcni.netlink;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;

/** Address text without DNS: RFC 5952 for IPv6 ({@code fe80::1}), dotted quad for IPv4. */
final class Inet {
    private Inet() {}

    static String format(InetAddress address) {
        if (address == null) {
            return "null";
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return address.getHostAddress();
        }
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (!sb.isEmpty() && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }

    /**
     * Parses a numeric address literal, never a host name (no DNS): IPv4 only as a dotted quad of decimal numbers
     * without leading zeros (not the legacy {@code 10.1} or octal forms {@link InetAddress#ofLiteral} accepts), IPv6
     * in any RFC 4291 form; an IPv4-mapped IPv6 literal stays IPv6.
     *
     * @throws IllegalArgumentException if {@code text} is no such literal
     */
    static InetAddress parse(String text) {
        if (text.indexOf(':') >= 0) {
            InetAddress a = Inet6Address.ofLiteral(text);
            if (a instanceof Inet4Address v4) {
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(v4.getAddress(), 0, mapped, 12, 4);
                return IpPrefix.byAddress(mapped);
            }
            return a;
        }
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("not an IPv4 dotted quad: " + text);
        }
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 3 || (p.length() > 1 && p.charAt(0) == '0')
                    || !p.chars().allMatch(c -> c >= '0' && c <= '9') || Integer.parseInt(p) > 255) {
                throw new IllegalArgumentException("not an IPv4 dotted quad: " + text);
            }
            b[i] = (byte) Integer.parseInt(p);
        }
        return IpPrefix.byAddress(b);
    }
}
