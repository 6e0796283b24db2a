package io.jcni.runtime;

import io.jcni.spec.CniException;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The capability arguments a runtime passes to the plugins of a sandbox's networks (CNI's CONVENTIONS.md, "well-known
 * capabilities"), typed. A plugin gets, as {@code runtimeConfig}, those its configuration enables
 * ({@code "capabilities": {"portMappings": true}}); the others are not sent to it.
 *
 * <p>Serialized with the keys of CONVENTIONS.md, camelCase ({@code hostPort}, {@code ingressRate}, {@code subnet},
 * {@code servers}), as the spec's examples and the reference plugins' JSON tags spell them. go-cni's capability structs
 * have no JSON tags, so containerd sends Go's field names ({@code HostPort}, {@code IngressRate}); Go's plugins and
 * jcni's match keys in any case and read both.
 *
 * <p>Immutable; build with {@link #NONE} and the {@code with...} methods, or through {@link Sandbox}'s. Values are
 * checked when they are made: a port out of range, an unknown protocol or a negative rate is an
 * {@link IllegalArgumentException} (the caller's bug, not a plugin's failure).
 *
 * @param portMappings {@code portMappings}: ports published on the node (portmap)
 * @param bandwidth    {@code bandwidth}: traffic shaping (bandwidth), or null
 * @param ipRanges     {@code ipRanges}: address ranges for IPAM, a list of range sets (host-local's {@code ranges})
 * @param dns          {@code dns}: resolver settings for the sandbox, or null
 * @param ips          {@code ips}: addresses requested for the sandbox, with their prefix lengths (host-local, static)
 * @param mac          {@code mac}: the hardware address for the sandbox's interface (tuning, bridge), or ""
 * @param cgroupPath   {@code cgroupPath}: the sandbox's cgroup, for plugins that classify its traffic, or ""
 * @param others       any other capability by name, as JSON (e.g. {@code infinibandGUID}, {@code deviceID},
 *                     {@code aliases}); a name here replaces the typed one of the same name
 */
public record Capabilities(List<PortMapping> portMappings, Bandwidth bandwidth, List<List<IpRange>> ipRanges, Dns dns,
        List<IpPrefix> ips, String mac, String cgroupPath, JsonObject others) {

    /** No capability arguments. */
    public static final Capabilities NONE = new Capabilities(List.of(), null, List.of(), null, List.of(), "", "",
            JsonObject.EMPTY);

    /** The capability names of CONVENTIONS.md that this record types. */
    public static final String PORT_MAPPINGS = "portMappings";
    public static final String BANDWIDTH = "bandwidth";
    public static final String IP_RANGES = "ipRanges";
    public static final String DNS = "dns";
    public static final String IPS = "ips";
    public static final String MAC = "mac";
    public static final String CGROUP_PATH = "cgroupPath";

    private static final Pattern MAC_TEXT = Pattern.compile("[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}"
            + "|[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){19}");

    public Capabilities {
        portMappings = List.copyOf(portMappings);
        List<List<IpRange>> sets = new ArrayList<>(ipRanges.size());
        for (List<IpRange> set : ipRanges) {
            if (set.isEmpty()) {
                throw new IllegalArgumentException("ipRanges: a range set must hold at least one range");
            }
            sets.add(List.copyOf(set));
        }
        ipRanges = List.copyOf(sets);
        ips = List.copyOf(ips);
        mac = mac == null ? "" : mac;
        if (!mac.isEmpty() && !MAC_TEXT.matcher(mac).matches()) {
            throw new IllegalArgumentException("mac: not a hardware address (six or twenty hex octets separated by "
                    + "':'): " + mac);
        }
        cgroupPath = cgroupPath == null ? "" : cgroupPath;
        others = others == null ? JsonObject.EMPTY : others;
    }

    /**
     * One published port ({@code portMappings[]}): {@code {"hostPort":8080,"containerPort":80,"protocol":"tcp"}}, with
     * {@code "hostIP"} when one is given.
     *
     * @param hostPort      the node's port, 1-65535
     * @param containerPort the sandbox's port, 1-65535
     * @param protocol      {@code tcp}, {@code udp} or {@code sctp} (any case; sent in lower case)
     * @param hostIp        the node's address the port is published on, or null for all of them
     */
    public record PortMapping(int hostPort, int containerPort, String protocol, InetAddress hostIp) {
        public PortMapping {
            if (hostPort < 1 || hostPort > 65535 || containerPort < 1 || containerPort > 65535) {
                throw new IllegalArgumentException("port mapping " + hostPort + ":" + containerPort
                        + ": ports are 1-65535");
            }
            protocol = Objects.requireNonNull(protocol, "protocol").toLowerCase(Locale.ROOT);
            if (!protocol.equals("tcp") && !protocol.equals("udp") && !protocol.equals("sctp")) {
                throw new IllegalArgumentException("port mapping " + hostPort + ":" + containerPort
                        + ": protocol must be tcp, udp or sctp, not \"" + protocol + "\"");
            }
        }

        /** A mapping on every address of the node. */
        public PortMapping(int hostPort, int containerPort, String protocol) {
            this(hostPort, containerPort, protocol, null);
        }

        JsonObject toJson() {
            JsonObject json = JsonObject.of("hostPort", hostPort, "containerPort", containerPort, "protocol",
                    protocol);
            return hostIp == null ? json : json.with("hostIP", Json.of(IpText.format(hostIp)));
        }
    }

    /**
     * Traffic shaping ({@code bandwidth}): rates in bits per second, bursts in bits, 0 for "not limited", as the
     * bandwidth plugin reads them. Ingress is traffic to the sandbox, egress from it.
     */
    public record Bandwidth(long ingressRate, long ingressBurst, long egressRate, long egressBurst) {
        public Bandwidth {
            if (ingressRate < 0 || ingressBurst < 0 || egressRate < 0 || egressBurst < 0) {
                throw new IllegalArgumentException("bandwidth: rates and bursts must not be negative");
            }
        }

        JsonObject toJson() {
            return JsonObject.of("ingressRate", ingressRate, "ingressBurst", ingressBurst, "egressRate", egressRate,
                    "egressBurst", egressBurst);
        }
    }

    /**
     * One address range for IPAM ({@code ipRanges[][]}, host-local's range): {@code subnet}, and optionally
     * {@code rangeStart}, {@code rangeEnd} and {@code gateway} (null when not set, then left out).
     */
    public record IpRange(IpPrefix subnet, InetAddress rangeStart, InetAddress rangeEnd, InetAddress gateway) {
        public IpRange {
            Objects.requireNonNull(subnet, "subnet");
        }

        /**
         * The whole subnet, e.g. {@code IpRange.of("10.22.0.0/16")}.
         *
         * @throws CniException code 7 if {@code subnet} is not a CIDR
         */
        public static IpRange of(String subnet) throws CniException {
            return new IpRange(IpPrefix.parse(subnet, "ipRanges.subnet"), null, null, null);
        }

        JsonObject toJson() {
            Map<String, Json> members = new LinkedHashMap<>();
            members.put("subnet", Json.of(subnet.toString()));
            if (rangeStart != null) {
                members.put("rangeStart", Json.of(IpText.format(rangeStart)));
            }
            if (rangeEnd != null) {
                members.put("rangeEnd", Json.of(IpText.format(rangeEnd)));
            }
            if (gateway != null) {
                members.put("gateway", Json.of(IpText.format(gateway)));
            }
            return JsonObject.of(members);
        }
    }

    /**
     * Resolver settings for the sandbox ({@code dns}): {@code servers}, {@code searches}, {@code options}. Not the
     * result's {@link io.jcni.spec.Dns}, whose keys differ ({@code nameservers}, {@code search}).
     */
    public record Dns(List<String> servers, List<String> searches, List<String> options) {
        public Dns {
            servers = List.copyOf(servers);
            searches = List.copyOf(searches);
            options = List.copyOf(options);
        }

        JsonObject toJson() {
            return JsonObject.of("servers", strings(servers), "searches", strings(searches), "options",
                    strings(options));
        }
    }

    public Capabilities withPortMappings(List<PortMapping> mappings) {
        return new Capabilities(mappings, bandwidth, ipRanges, dns, ips, mac, cgroupPath, others);
    }

    public Capabilities withBandwidth(Bandwidth limits) {
        return new Capabilities(portMappings, limits, ipRanges, dns, ips, mac, cgroupPath, others);
    }

    /** Range sets for IPAM, e.g. {@code List.of(List.of(IpRange.of("10.22.0.0/16")))}. */
    public Capabilities withIpRanges(List<List<IpRange>> rangeSets) {
        return new Capabilities(portMappings, bandwidth, rangeSets, dns, ips, mac, cgroupPath, others);
    }

    public Capabilities withDns(Dns settings) {
        return new Capabilities(portMappings, bandwidth, ipRanges, settings, ips, mac, cgroupPath, others);
    }

    public Capabilities withIps(List<IpPrefix> addresses) {
        return new Capabilities(portMappings, bandwidth, ipRanges, dns, addresses, mac, cgroupPath, others);
    }

    public Capabilities withMac(String address) {
        return new Capabilities(portMappings, bandwidth, ipRanges, dns, ips, address, cgroupPath, others);
    }

    public Capabilities withCgroupPath(String path) {
        return new Capabilities(portMappings, bandwidth, ipRanges, dns, ips, mac, path, others);
    }

    /** Any capability by name, its value as JSON; replaces a typed one of the same name. */
    public Capabilities with(String name, Json value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        return new Capabilities(portMappings, bandwidth, ipRanges, dns, ips, mac, cgroupPath, others.with(name, value));
    }

    /**
     * The capability arguments as {@link RuntimeConf#capabilityArgs()} holds them: each set capability under its
     * CONVENTIONS.md name (empty lists, null and "" are not set), in the order of this record's components, then
     * {@link #others()}.
     */
    public JsonObject toJson() {
        Map<String, Json> members = new LinkedHashMap<>();
        if (!portMappings.isEmpty()) {
            List<Json> list = new ArrayList<>(portMappings.size());
            for (PortMapping mapping : portMappings) {
                list.add(mapping.toJson());
            }
            members.put(PORT_MAPPINGS, new JsonArray(list));
        }
        if (bandwidth != null) {
            members.put(BANDWIDTH, bandwidth.toJson());
        }
        if (!ipRanges.isEmpty()) {
            List<Json> sets = new ArrayList<>(ipRanges.size());
            for (List<IpRange> set : ipRanges) {
                List<Json> ranges = new ArrayList<>(set.size());
                for (IpRange range : set) {
                    ranges.add(range.toJson());
                }
                sets.add(new JsonArray(ranges));
            }
            members.put(IP_RANGES, new JsonArray(sets));
        }
        if (dns != null) {
            members.put(DNS, dns.toJson());
        }
        if (!ips.isEmpty()) {
            List<String> texts = new ArrayList<>(ips.size());
            for (IpPrefix ip : ips) {
                texts.add(ip.toString());
            }
            members.put(IPS, strings(texts));
        }
        if (!mac.isEmpty()) {
            members.put(MAC, Json.of(mac));
        }
        if (!cgroupPath.isEmpty()) {
            members.put(CGROUP_PATH, Json.of(cgroupPath));
        }
        members.putAll(others.members());
        return JsonObject.of(members);
    }

    private static JsonArray strings(List<String> values) {
        List<Json> elements = new ArrayList<>(values.size());
        for (String value : values) {
            elements.add(Json.of(value));
        }
        return new JsonArray(elements);
    }
}
