package io.jcni.netlink;

import java.net.Inet4Address;
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

    /** Parses a numeric address literal (never a host name: no DNS). */
    static InetAddress parse(String text) {
        return InetAddress.ofLiteral(text);
    }
}
