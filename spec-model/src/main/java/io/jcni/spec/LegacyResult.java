package io.jcni.spec;

import java.net.Inet4Address;
import java.util.Objects;

/**
 * A success result of version 0.1.0 or 0.2.0: at most one IPv4 ({@code ip4}) and one IPv6 ({@code ip6}) address, each
 * with its gateway and routes, and DNS. There are no interfaces in these versions.
 *
 * @param cniVersion 0.1.0 or 0.2.0
 * @param ip4        the IPv4 configuration, or null
 * @param ip6        the IPv6 configuration, or null
 * @param dns        DNS settings ({@link Dns#EMPTY} when none)
 */
public record LegacyResult(CniVersion cniVersion, LegacyIpConfig ip4, LegacyIpConfig ip6, Dns dns)
        implements CniResult {

    public LegacyResult {
        Objects.requireNonNull(cniVersion, "cniVersion");
        if (!cniVersion.hasLegacyResult() || !cniVersion.isSupported()) {
            throw new IllegalArgumentException("LegacyResult is for versions 0.1.0 and 0.2.0, not " + cniVersion);
        }
        if (ip4 != null && !(ip4.ip().address() instanceof Inet4Address)) {
            throw new IllegalArgumentException("ip4 holds an IPv6 address: " + ip4.ip());
        }
        if (ip6 != null && ip6.ip().address() instanceof Inet4Address) {
            throw new IllegalArgumentException("ip6 holds an IPv4 address: " + ip6.ip());
        }
        dns = dns == null ? Dns.EMPTY : dns;
    }
}
