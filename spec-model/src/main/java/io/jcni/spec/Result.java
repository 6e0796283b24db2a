package io.jcni.spec;

import java.util.List;
import java.util.Objects;

/**
 * A success result of version 0.3.0, 0.3.1, 0.4.0, 1.0.0 or 1.1.0: the interfaces, IPs, routes and DNS an attachment
 * set up. What each version puts on the wire:
 * <ul>
 * <li>0.3.x/0.4.0: interfaces (name, mac, sandbox), ips with {@code version}, routes (dst, gw), dns;</li>
 * <li>1.0.0: as 0.4.0 without {@code version} on ips;</li>
 * <li>1.1.0: adds interface {@code mtu}, {@code socketPath}, {@code pciID} and route {@code mtu}, {@code advmss},
 * {@code priority}, {@code table}, {@code scope}.</li>
 * </ul>
 * A result holds only what its version defines: the constructor drops the 1.1.0 fields from a result of an older
 * version. (libcni shares its Route and 1.x Interface types across versions, so it prints the 1.1.0 route fields in
 * 0.4.0 output and keeps all of them in 1.0.0; jcni follows the spec's per-version schemas.)
 *
 * @param cniVersion 0.3.0 or later
 * @param interfaces interfaces created, host side included
 * @param ips        IPs assigned
 * @param routes     routes created
 * @param dns        DNS settings ({@link Dns#EMPTY} when none)
 */
public record Result(CniVersion cniVersion, List<Interface> interfaces, List<IpConfig> ips, List<Route> routes,
                     Dns dns) implements CniResult {

    public Result {
        Objects.requireNonNull(cniVersion, "cniVersion");
        if (cniVersion.hasLegacyResult() || !cniVersion.isSupported()) {
            throw new IllegalArgumentException("Result is for versions 0.3.0 to 1.1.0, not " + cniVersion
                    + " (0.1.0/0.2.0 results are LegacyResult)");
        }
        boolean v110 = cniVersion.atLeast(CniVersion.V1_1_0);
        interfaces = interfaces == null ? List.of()
                : v110 ? List.copyOf(interfaces) : Interface.withoutV110Fields(interfaces);
        ips = ips == null ? List.of() : List.copyOf(ips);
        routes = routes == null ? List.of()
                : v110 ? List.copyOf(routes) : Route.withoutV110Fields(routes);
        dns = dns == null ? Dns.EMPTY : dns;
    }

    /** A result of the newest version ({@link CniVersion#LATEST}), as a plugin builds it before the SDK converts. */
    public Result(List<Interface> interfaces, List<IpConfig> ips, List<Route> routes, Dns dns) {
        this(CniVersion.LATEST, interfaces, ips, routes, dns);
    }

    /** Any result in the newest version's shape (libcni's {@code NewResultFromResult}); code 1 never happens here. */
    public static Result from(CniResult result) throws CniException {
        return (Result) result.convertTo(CniVersion.LATEST);
    }

    /** This result with different interfaces (e.g. a chained plugin adding its own). */
    public Result withInterfaces(List<Interface> newInterfaces) {
        return new Result(cniVersion, newInterfaces, ips, routes, dns);
    }

    /** This result with different IPs. */
    public Result withIps(List<IpConfig> newIps) {
        return new Result(cniVersion, interfaces, newIps, routes, dns);
    }

    /** This result with different routes. */
    public Result withRoutes(List<Route> newRoutes) {
        return new Result(cniVersion, interfaces, ips, newRoutes, dns);
    }

    /** This result with different DNS settings. */
    public Result withDns(Dns newDns) {
        return new Result(cniVersion, interfaces, ips, routes, newDns);
    }
}
