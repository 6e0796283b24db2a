package io.jcni.plugins.internal.pkg.ipam.ranges;

import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniVersion;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.PluginConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The configuration every range-based IPAM plugin reads as Go's host-local reads it: the range sets ({@code
 * runtimeConfig.ipRanges}, the legacy top-level {@code subnet}, {@code ranges}), the requested addresses (CNI_ARGS
 * {@code IP}, {@code args.cni.ips}, {@code runtimeConfig.ips}), their canonical form, and the mapping of an {@link
 * IpamException} onto a CNI error. host-local and cluster-ipam read their ranges through here, so the two differ only
 * in their store ({@link IpamStore}).
 */
public final class RangeConfig {
    private RangeConfig() {
    }

    /** The specific addresses asked for, in Go's order: CNI_ARGS {@code IP}, {@code args.cni.ips}, the capability. */
    public static List<IpAddress> requested(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        List<IpAddress> requested = new ArrayList<>();
        CniArgs args = request.cniArgs().requireKnown(List.of("IP"));
        Optional<String> ipArg = args.get("IP");
        if (ipArg.isPresent() && !ipArg.get().isEmpty()) {
            requested.add(requestedIp(ipArg.get(), "CNI_ARGS IP", CniError.INVALID_ENVIRONMENT_VARIABLES));
        }
        Optional<ConfigNode> argsNode = config.node().object("args");
        if (argsNode.isPresent()) {
            Optional<ConfigNode> cni = argsNode.get().object("cni");
            if (cni.isPresent()) {
                addRequested(requested, cni.get(), "ips");
            }
        }
        Optional<ConfigNode> runtime = config.node().object("runtimeConfig");
        if (runtime.isPresent()) {
            addRequested(requested, runtime.get(), "ips");
        }
        return List.copyOf(requested);
    }

    /**
     * The range sets as written: {@code runtimeConfig.ipRanges} first, then the legacy single range of {@code ipam}
     * ({@code subnet}, ...), then {@code ipam.ranges}. None at all is code 7 ("no IP ranges specified").
     */
    public static List<List<RangeSpec>> rangeSets(PluginConfig config, ConfigNode ipam) throws CniException {
        Optional<ConfigNode> runtime = config.node().object("runtimeConfig");
        List<List<RangeSpec>> sets = new ArrayList<>();
        if (runtime.isPresent()) {
            for (ConfigNode set : runtime.get().array("ipRanges")) {
                sets.add(rangeSet(set));
            }
        }
        Optional<ConfigNode> legacySubnet = ipam.field("subnet");
        if (legacySubnet.isPresent()) {
            sets.add(List.of(range(ipam)));
        }
        for (ConfigNode set : ipam.array("ranges")) {
            sets.add(rangeSet(set));
        }
        if (sets.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "no IP ranges specified");
        }
        return List.copyOf(sets);
    }

    /** The canonical range sets: Go's checks, and at most one address per family before 0.3.0. */
    public static List<RangeSet> canonical(List<List<RangeSpec>> rangeSets, CniVersion version)
            throws CniException {
        List<RangeSet> sets;
        try {
            sets = RangeSet.canonicalAll(rangeSets);
        } catch (IpamException e) {
            throw failure(e);
        }
        int v4 = 0;
        int v6 = 0;
        for (RangeSet set : sets) {
            if (set.isV6()) {
                v6++;
            } else {
                v4++;
            }
        }
        if ((v4 > 1 || v6 > 1) && version.before(CniVersion.V0_3_0)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "CNI version " + version + " does not support more than 1 address per family");
        }
        return sets;
    }

    /**
     * The CNI error of a store failure: 7 for configuration (ranges, names, overlaps), 5 for a store that failed, 11
     * for a store that is unreachable for now, 100 for a store holding a record that cannot be read; allocation
     * failures (no address left, requested address taken) are 999 with Go's messages.
     */
    public static CniException failure(IpamException e) {
        int code = switch (e.reason()) {
            case INVALID_RANGE, INVALID_ARGUMENT, STORE_REFUSED -> CniError.INVALID_NETWORK_CONFIG;
            case STORE_FAILURE -> CniError.IO_FAILURE;
            case STORE_UNAVAILABLE -> CniError.TRY_AGAIN_LATER;
            case STORE_CORRUPT -> IpamException.CORRUPT_STORE_CODE;
            default -> CniError.INTERNAL;
        };
        return new CniException(code, e.getMessage());
    }

    private static void addRequested(List<IpAddress> requested, ConfigNode parent, String key) throws CniException {
        List<String> ips = parent.stringList(key);
        for (int i = 0; i < ips.size(); i++) {
            requested.add(requestedIp(ips.get(i), parent.path() + "." + key + "[" + i + "]",
                    CniError.INVALID_NETWORK_CONFIG));
        }
    }

    /** An address as Go's {@code ip.IP} reads it: {@code 10.1.0.5} or {@code 10.1.0.5/24} (the address counts). */
    private static IpAddress requestedIp(String text, String field, int code) throws CniException {
        if (text.indexOf('/') >= 0) {
            return IpAddress.of(IpPrefix.parse(text, field, code).address());
        }
        try {
            return IpAddress.of(IpText.parseAddress(text, field, code));
        } catch (CniException e) {
            throw new CniException(code, "cannot understand ip: " + e.error().msg());
        }
    }

    private static List<RangeSpec> rangeSet(ConfigNode set) throws CniException {
        List<RangeSpec> ranges = new ArrayList<>();
        for (ConfigNode range : set.elements()) {
            ranges.add(range(range));
        }
        return List.copyOf(ranges);
    }

    private static RangeSpec range(ConfigNode node) throws CniException {
        node.asObject();
        IpPrefix subnet = node.requireField("subnet").asPrefix();
        return new RangeSpec(subnet, address(node, "rangeStart"), address(node, "rangeEnd"), address(node, "gateway"));
    }

    private static IpAddress address(ConfigNode node, String key) throws CniException {
        Optional<java.net.InetAddress> ip = node.ip(key);
        return ip.isEmpty() ? null : IpAddress.of(ip.get());
    }
}
