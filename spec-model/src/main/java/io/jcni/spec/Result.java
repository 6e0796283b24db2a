package io.jcni.spec;

import java.util.ArrayList;
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

    /**
     * Any result in the newest version's shape (libcni's {@code NewResultFromResult}): converting up never fails, so
     * nothing is declared.
     */
    public static Result from(CniResult result) {
        if (result instanceof Result modern && modern.cniVersion().equals(CniVersion.LATEST)) {
            return modern;
        }
        try {
            return (Result) result.convertTo(CniVersion.LATEST);
        } catch (CniException e) {
            throw new IllegalStateException("a " + result.cniVersion() + " result did not convert up", e);
        }
    }

    /**
     * What this result holds that the spec does not allow but libcni 1.1.2 passes on: each {@code ips[i].interface}
     * that is not an index of {@code interfaces}, e.g. {@code ips[0].interface: -1 is not an index of interfaces (1
     * entry)}. Empty for a consistent result. jcni's runtime passes such a result on with a warning, as Go runtimes pass
     * it on; jcni's plugin skeleton refuses to print one (code 999: a bug of the plugin).
     */
    public List<String> interfaceIndexProblems() {
        List<String> problems = null;
        for (int i = 0; i < ips.size(); i++) {
            Integer index = ips.get(i).interfaceIndex();
            if (index != null && (index < 0 || index >= interfaces.size())) {
                if (problems == null) {
                    problems = new ArrayList<>(2);
                }
                problems.add("ips[" + i + "].interface: " + index + " is not an index of interfaces ("
                        + interfaces.size() + (interfaces.size() == 1 ? " entry)" : " entries)"));
            }
        }
        return problems == null ? List.of() : List.copyOf(problems);
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
