package io.jcni.plugins.internal.meta.tuning;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;

/**
 * The sysctl keys tuning accepts, reduced to one canonical form: the path under {@code /proc/sys} with slashes
 * ({@code net/ipv4/conf/eth0.100/arp_filter}).
 *
 * <p>Keys come in the dot form Go's tuning takes ({@code net.ipv4.conf.IFNAME.arp_filter}: every dot becomes a slash)
 * or, when they contain a slash, in the slash form {@code sysctl(8)} also accepts (needed for interface names with a
 * dot). The first {@code IFNAME} is replaced by CNI_IFNAME after that conversion, as Go does, so a dotted interface
 * name survives. The result must stay under {@code net/}: empty, {@code .} and {@code ..} components, a NUL, or any
 * other subtree are refused (code 7). Go cleans the path and checks the prefix, so it accepts {@code net/../net/x};
 * jcni refuses every {@code ..}. Symbolic links are checked later, inside the namespace
 * ({@link TuningPlugin}).
 */
final class SysctlKeys {
    static final String IFNAME = "IFNAME";

    private SysctlKeys() {
    }

    /**
     * The canonical form of {@code key} for interface {@code ifName}.
     *
     * @throws CniException code 7 naming the key and the rule it breaks
     */
    static String canonical(String key, String ifName) throws CniException {
        String path = key.indexOf('/') >= 0 ? key : key.replace('.', '/');
        int at = path.indexOf(IFNAME);
        if (at >= 0) {
            path = path.substring(0, at) + ifName + path.substring(at + IFNAME.length());
        }
        String[] parts = path.split("/", -1);
        if (parts.length < 2 || !parts[0].equals("net")) {
            throw invalid(key, "only keys under net (/proc/sys/net) may be set");
        }
        for (String part : parts) {
            if (part.isEmpty() || part.equals(".") || part.equals("..") || part.indexOf('\0') >= 0) {
                throw invalid(key, "empty, \".\" and \"..\" components are not allowed");
            }
        }
        return path;
    }

    static CniException invalid(String key, String why) {
        return new CniException(CniError.INVALID_NETWORK_CONFIG, "invalid net sysctl key: \"" + key + "\"", why);
    }
}
