package io.jcni.plugins.internal.pkg.ipam;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Route;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Configuration fields the IPAM plugins share, decoded as Go's {@code types.Route} and {@code types.DNS} decode. */
public final class IpamFields {
    private IpamFields() {
    }

    /** The {@code ipam} object; Go's IPAM plugins fail with "IPAM config missing 'ipam' key" without it. */
    public static ConfigNode ipam(PluginConfig config) throws CniException {
        Optional<ConfigNode> ipam = config.node().object("ipam");
        if (ipam.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "IPAM config missing 'ipam' key");
        }
        return ipam.get();
    }

    /**
     * {@code routes}: {@code dst} (required CIDR), {@code gw}, and the 1.1.0 attributes {@code mtu}, {@code advmss},
     * {@code priority}, {@code table}, {@code scope} (the result drops those for older versions).
     */
    public static List<Route> routes(ConfigNode parent) throws CniException {
        List<Route> routes = new ArrayList<>();
        for (ConfigNode route : parent.array("routes")) {
            route.asObject();
            IpPrefix dst = route.requireField("dst").asPrefix();
            InetAddress gw = route.ip("gw").orElse(null);
            routes.add(new Route(dst, gw, intField(route, "mtu", 0), intField(route, "advmss", 0),
                    intField(route, "priority", 0), intOrNull(route, "table", Integer.MAX_VALUE),
                    intOrNull(route, "scope", 255)));
        }
        return List.copyOf(routes);
    }

    /** {@code dns}: {@code nameservers}, {@code domain}, {@code search}, {@code options}; empty when absent. */
    public static Dns dns(ConfigNode parent) throws CniException {
        Optional<ConfigNode> dns = parent.object("dns");
        if (dns.isEmpty()) {
            return Dns.EMPTY;
        }
        ConfigNode node = dns.get();
        return new Dns(node.stringList("nameservers"), node.string("domain").orElse(""), node.stringList("search"),
                node.stringList("options"));
    }

    private static int intField(ConfigNode node, String key, int absent) throws CniException {
        Optional<Long> value = node.integer(key, 0, Integer.MAX_VALUE);
        return value.isEmpty() ? absent : value.get().intValue();
    }

    private static Integer intOrNull(ConfigNode node, String key, int max) throws CniException {
        Optional<Long> value = node.integer(key, 0, max);
        return value.isEmpty() ? null : Integer.valueOf(value.get().intValue());
    }
}
