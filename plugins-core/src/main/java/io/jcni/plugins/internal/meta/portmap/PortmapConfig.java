package io.jcni.plugins.internal.meta.portmap;

import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * portmap's configuration, read in Go's order (its {@code parseConfig}): the keys, {@code snat} (default true),
 * {@code markMasqBit} (default 13, 0-31) and {@code externalSetMarkChain} (not both), the backend and its options,
 * the port mappings, then the container's addresses from {@code prevResult}.
 *
 * <p>What jcni does with each key, nftables being its only backend:
 * <ul>
 *   <li>{@code backend}: absent or {@code "nftables"}; {@code "iptables"} is code 2 (jcni writes no iptables rules),
 *   anything else code 7 as Go's {@code unrecognized backend}.</li>
 *   <li>{@code snat}: hairpin and localhost connections are masqueraded, and {@code route_localnet} is set on the
 *   host interface routing to the container; {@code masqAll} (Go 1.9) masquerades every connection to a published
 *   port (see {@link HostportTable}).</li>
 *   <li>{@code markMasqBit}: checked as Go checks it, then unused, as in Go's nftables backend: nftables masquerades
 *   hairpin and localhost traffic by address, not by a mark bit.</li>
 *   <li>{@code externalSetMarkChain}: an iptables chain; code 2, as Go refuses it under nftables.</li>
 *   <li>{@code conditionsV4}/{@code conditionsV6}: see {@link Conditions}; iptables conditions are code 2.</li>
 * </ul>
 *
 * @param masqAll masquerade every connection to the container through a published port (Go 1.9's
 *     {@code masqAll}), not only those from its own subnet and from 127.0.0.1
 * @param containerV4 the container's IPv4 address to forward to, or null
 * @param containerV6 the container's IPv6 address, or null
 * @param subnetV4 the prefix {@code containerV4} came with in the result ({@code 10.88.0.5/16}), or null
 * @param subnetV6 the same for {@code containerV6}
 * @param prevResult the previous plugin's result, passed on by ADD; null when the configuration has none
 */
record PortmapConfig(String network, boolean snat, boolean masqAll, int markMasqBit, Conditions conditionsV4,
        Conditions conditionsV6, List<PortMapping> mappings, InetAddress containerV4, InetAddress containerV6,
        IpPrefix subnetV4, IpPrefix subnetV6, CniResult prevResult) {

    /** Go's {@code DefaultMarkBit}: Kubernetes uses 14 and 15, Calico 20-31. */
    static final int DEFAULT_MARK_BIT = 13;

    /** ADD and CHECK: everything, the container's addresses included. */
    static PortmapConfig load(CniRequest request) throws CniException {
        ConfigNode root = request.config().node();
        boolean snat = root.bool("snat").orElse(true);
        boolean masqAll = root.bool("masqAll").orElse(false);
        Optional<Long> markBit = root.integer("markMasqBit", Long.MIN_VALUE, Long.MAX_VALUE);
        boolean externalChain = root.string("externalSetMarkChain").isPresent();
        if (markBit.isPresent() && externalChain) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "Cannot specify externalSetMarkChain and markMasqBit");
        }
        int bit = (int) Math.max(-1, Math.min(32, markBit.orElse((long) DEFAULT_MARK_BIT)));
        if (bit < 0 || bit > 31) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "MasqMarkBit must be between 0 and 31");
        }
        List<String> v4 = root.stringList("conditionsV4");
        List<String> v6 = root.stringList("conditionsV6");
        requireNftables(root, externalChain, v4, v6);
        List<PortMapping> mappings = mappings(root);
        Conditions conditionsV4 = Conditions.parse("conditionsV4", v4, false);
        Conditions conditionsV6 = Conditions.parse("conditionsV6", v6, true);

        Optional<Result> previous = PrevResults.find(request);
        IpPrefix ipv4 = null;
        IpPrefix ipv6 = null;
        if (previous.isPresent()) {
            Result result = previous.get();
            for (IpConfig ip : result.ips()) {
                boolean isV4 = ip.address().address() instanceof Inet4Address;
                if (isV4 ? ipv4 != null : ipv6 != null) {
                    continue;
                }
                if (ip.interfaceIndex() != null && !isSandboxInterface(result, ip.interfaceIndex(),
                        request.ifName())) {
                    continue;
                }
                if (isV4) {
                    ipv4 = ip.address();
                } else {
                    ipv6 = ip.address();
                }
            }
            for (PortMapping m : mappings) {
                requireFamily(m, ipv4, ipv6);
            }
        }
        return new PortmapConfig(request.config().name(), snat, masqAll, bit, conditionsV4, conditionsV6, mappings,
                ipv4 == null ? null : ipv4.address(), ipv6 == null ? null : ipv6.address(),
                ipv4 == null ? null : ipv4.masked(), ipv6 == null ? null : ipv6.masked(),
                request.config().prevResult().orElse(null));
    }

    /**
     * Go skips an address whose {@code interface} is a known interface other than CNI_IFNAME in the sandbox (an
     * index out of range does not count as known).
     */
    private static boolean isSandboxInterface(Result result, int index, String ifName) {
        if (index < 0 || index >= result.interfaces().size()) {
            return true;
        }
        Interface i = result.interfaces().get(index);
        return i.name().equals(ifName) && !i.sandbox().isEmpty();
    }

    /**
     * The backend and the keys only iptables can honour (Go's {@code ensureBackend}, with nftables as the only
     * backend there is).
     */
    private static void requireNftables(ConfigNode root, boolean externalChain, List<String> v4, List<String> v6)
            throws CniException {
        Optional<String> backend = root.string("backend");
        if (backend.isPresent() && backend.get().equals("iptables")) {
            throw new CniException(CniError.UNSUPPORTED_FIELD, "backend: \"iptables\" is not supported",
                    "jcni's portmap writes nftables rules over netlink and never iptables rules; remove the key or"
                            + " set it to \"nftables\" (the rules do the same)");
        }
        if (backend.isPresent() && !backend.get().equals("nftables")) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "unrecognized backend \"" + backend.get()
                    + "\"");
        }
        List<String> iptablesOnly = new ArrayList<>();
        if (externalChain) {
            iptablesOnly.add("externalSetMarkChain");
        }
        if (Conditions.areIptables(v4)) {
            iptablesOnly.add("conditionsV4");
        }
        if (Conditions.areIptables(v6)) {
            iptablesOnly.add("conditionsV6");
        }
        if (!iptablesOnly.isEmpty()) {
            throw new CniException(CniError.UNSUPPORTED_FIELD, "nftables backend was requested but configuration"
                    + " contains iptables-specific options " + iptablesOnly, "jcni's portmap programs nftables"
                    + " only: externalSetMarkChain names an iptables chain that would mark packets for masquerading"
                    + " (nftables masquerades hairpin and localhost traffic by address instead), and iptables"
                    + " conditions are iptables match arguments; remove them, or write the conditions in nft's"
                    + " syntax");
        }
    }

    private static List<PortMapping> mappings(ConfigNode root) throws CniException {
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        if (runtime.isEmpty()) {
            return List.of();
        }
        List<PortMapping> mappings = new ArrayList<>();
        for (ConfigNode entry : runtime.get().array("portMappings")) {
            mappings.add(PortMapping.decode(entry));
        }
        return List.copyOf(mappings);
    }

    /**
     * A mapping limited to a host address must have a container address of the same family to go to. Go drops it
     * silently (the port is then published nowhere); jcni refuses the configuration.
     */
    private static void requireFamily(PortMapping m, IpPrefix ipv4, IpPrefix ipv6) throws CniException {
        if (m.hostIp() == null) {
            return;
        }
        boolean v4 = m.hostIp() instanceof Inet4Address;
        if ((v4 ? ipv4 : ipv6) == null) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, m.path() + ".hostIP: "
                    + IpText.format(m.hostIp()) + " is an " + (v4 ? "IPv4" : "IPv6") + " address, and the container"
                    + " has no " + (v4 ? "IPv4" : "IPv6") + " address to forward " + m.describe() + " to",
                    "a port mapping's hostIP must be of a family the container has an address of");
        }
    }

    /** DEL: whether the configuration asks for port mappings at all (Go's DEL does nothing otherwise). */
    static boolean hasMappings(CniRequest request) throws CniException {
        Optional<ConfigNode> runtime = request.config().node().object("runtimeConfig");
        return runtime.isPresent() && !runtime.get().array("portMappings").isEmpty();
    }

    /** The container's address of the family, or null. */
    InetAddress container(boolean ipv6) {
        return ipv6 ? containerV6 : containerV4;
    }

    /** The container's subnet of a family (its address's prefix in the result), or null. */
    IpPrefix subnet(boolean ipv6) {
        return ipv6 ? subnetV6 : subnetV4;
    }

    Conditions conditions(boolean ipv6) {
        return ipv6 ? conditionsV6 : conditionsV4;
    }
}
