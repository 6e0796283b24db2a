package io.jcni.plugins.internal.meta.portmap;

import io.jcni.netlink.nft.Exprs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.IpText;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Optional;

/**
 * One entry of the {@code portMappings} runtime capability (CNI's CONVENTIONS.md): traffic to {@code hostPort} (on
 * {@code hostIP} only, when given) goes to the container's {@code containerPort}.
 *
 * @param path where the entry is in the configuration ({@code runtimeConfig.portMappings[1]}), for errors
 * @param protocol {@code tcp}, {@code udp} or {@code sctp}, lower case
 * @param hostIp the host address the mapping is limited to, or null for all of them; an unspecified address
 *     ({@code 0.0.0.0}, {@code ::}) limits it to its family only, as in Go's nftables backend
 */
record PortMapping(String path, int hostPort, int containerPort, String protocol, InetAddress hostIp) {

    /**
     * Decodes an entry. Port numbers as Go checks them ({@code Invalid host port number: 0}), and above 65535 too
     * (Go hands those to nft, which refuses them); the protocol case-insensitively (Kubernetes says {@code TCP}).
     */
    static PortMapping decode(ConfigNode entry) throws CniException {
        int containerPort = port(entry, "containerPort", "Invalid container port number: ");
        int hostPort = port(entry, "hostPort", "Invalid host port number: ");
        String protocol = entry.string("protocol").orElse("").toLowerCase(Locale.ROOT);
        if (!protocol.equals("tcp") && !protocol.equals("udp") && !protocol.equals("sctp")) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, entry.path() + ".protocol: unknown protocol \""
                    + entry.string("protocol").orElse("") + "\"", "portmap forwards tcp, udp and sctp");
        }
        Optional<String> hostIp = entry.string("hostIP");
        InetAddress address = null;
        if (hostIp.isPresent() && !hostIp.get().isEmpty()) {
            address = IpText.parseAddress(hostIp.get(), entry.path() + ".hostIP");
        }
        return new PortMapping(entry.path(), hostPort, containerPort, protocol, address);
    }

    private static int port(ConfigNode entry, String key, String message) throws CniException {
        long port = entry.integer(key, Long.MIN_VALUE, Long.MAX_VALUE).orElse(0L);
        if (port <= 0 || port > 65535) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, message + port,
                    entry.path() + "." + key + " must be 1-65535");
        }
        return (int) port;
    }

    /** The nf_tables number of {@link #protocol}. */
    int protocolNumber() {
        switch (protocol) {
            case "udp":
                return Exprs.UDP;
            case "sctp":
                return Exprs.SCTP;
            default:
                return Exprs.TCP;
        }
    }

    /** Whether this mapping applies to the table of {@code ipv6}'s family: no host address, or one of it. */
    boolean appliesTo(boolean ipv6) {
        return hostIp == null || (hostIp instanceof Inet4Address) != ipv6;
    }

    /** Whether the rule matches the destination address: a host address that is not the unspecified one. */
    boolean matchesHostIp() {
        return hostIp != null && !hostIp.isAnyLocalAddress();
    }

    /** {@code tcp dport 8080 -> 80 (hostIP 192.0.2.1)}, for messages. */
    String describe() {
        return protocol + " " + hostPort + " -> " + containerPort + (hostIp == null ? ""
                : " (hostIP " + IpText.format(hostIp) + ")");
    }
}
