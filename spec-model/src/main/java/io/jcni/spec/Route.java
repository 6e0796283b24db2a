package io.jcni.spec;

import java.net.InetAddress;
import java.util.List;
import java.util.Objects;

/**
 * A route in a result or an IPAM configuration. Zero {@code mtu}, {@code advmss} and {@code priority} mean "absent"
 * (libcni omits them); {@code table} and {@code scope} are absent when null, since 0 is a meaningful value for both.
 *
 * @param dst      the destination, host bits kept as written
 * @param gw       the next hop, or null (then a gateway from {@code ips} may be used)
 * @param mtu      route MTU, or 0 (1.1.0)
 * @param advmss   advertised MSS, or 0 (1.1.0)
 * @param priority route priority (metric), or 0 (1.1.0)
 * @param table    routing table, or null (1.1.0)
 * @param scope    route scope (0 universe, 253 link, 254 host), or null (1.1.0)
 */
public record Route(IpPrefix dst, InetAddress gw, int mtu, int advmss, int priority, Integer table, Integer scope) {
    public Route {
        Objects.requireNonNull(dst, "dst");
        if (gw != null) {
            gw = IpPrefix.normalize(gw);
        }
        if (mtu < 0 || advmss < 0 || priority < 0 || (table != null && table < 0)
                || (scope != null && (scope < 0 || scope > 255))) {
            throw new IllegalArgumentException("route attribute out of range: " + mtu + "/" + advmss + "/" + priority
                    + "/" + table + "/" + scope);
        }
    }

    /** A route with the fields every version has. */
    public Route(IpPrefix dst, InetAddress gw) {
        this(dst, gw, 0, 0, 0, null, null);
    }

    /** {@code routes} without the attributes 1.1.0 added (a loop, not a stream: this runs at plugin start-up). */
    static List<Route> withoutV110Fields(List<Route> routes) {
        Route[] stripped = new Route[routes.size()];
        for (int i = 0; i < stripped.length; i++) {
            stripped[i] = routes.get(i).withoutV110Fields();
        }
        return List.of(stripped);
    }

    /** The addresses as CNI prints them: {@code Route[dst=0.0.0.0/0, gw=10.1.0.1, mtu=0, ...]}. */
    @Override
    public String toString() {
        return "Route[dst=" + dst + ", gw=" + (gw == null ? "null" : IpText.format(gw)) + ", mtu=" + mtu + ", advmss="
                + advmss + ", priority=" + priority + ", table=" + table + ", scope=" + scope + "]";
    }

    /** This route without the attributes 1.1.0 added. */
    public Route withoutV110Fields() {
        return mtu == 0 && advmss == 0 && priority == 0 && table == null && scope == null ? this : new Route(dst, gw);
    }
}
