package io.jcni.spec.internal;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.IpConfig;
import io.jcni.spec.LegacyIpConfig;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.util.ArrayList;
import java.util.List;

/**
 * Result conversion between every pair of versions, with the outcome of libcni's {@code GetAsVersion}:
 * <ul>
 * <li>same version: the same object;</li>
 * <li>0.1.0 &lt;-&gt; 0.2.0: a copy;</li>
 * <li>0.1.0/0.2.0 up to 0.3.0+: {@code ip4} then {@code ip6} become {@code ips} (no interface index), their routes
 * are concatenated in that order, there are no interfaces;</li>
 * <li>0.3.0+ to 0.3.0+: a copy; going below 1.1.0 drops what 1.1.0 added (interface mtu/socketPath/pciID, route
 * mtu/advmss/priority/table/scope), going up synthesizes nothing ({@code version} on ips is derived from the address
 * when 0.3.x/0.4.0 is printed);</li>
 * <li>0.3.0+ down to 0.1.0/0.2.0: the first IPv4 and the first IPv6 address become {@code ip4}/{@code ip6} with their
 * gateways, every route goes to the family of its destination if that family has an address and is dropped
 * otherwise, interfaces and interface indexes are dropped; with no address at all the conversion fails with
 * libcni's "cannot convert: no valid IP addresses".</li>
 * </ul>
 * Where jcni differs: libcni keeps the 1.1.0 route fields in 0.3.x/0.4.0 and every 1.1.0 field in 1.0.0 (its types
 * are shared), jcni drops them because those versions' schemas do not define them. Failures are code 1 (libcni's
 * plugins would report them as 999, "internal").
 */
public final class ResultConverter {
    private ResultConverter() {
    }

    public static CniResult convert(CniResult from, CniVersion target) throws CniException {
        if (!target.isSupported()) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION,
                    "no converter for CNI result version " + from.cniVersion() + " to " + target);
        }
        if (from.cniVersion().equals(target)) {
            return from;
        }
        // instanceof rather than a pattern switch, which would cost an invokedynamic bootstrap at plugin start-up.
        if (from instanceof LegacyResult legacy) {
            return target.hasLegacyResult() ? new LegacyResult(target, legacy.ip4(), legacy.ip6(), legacy.dns())
                    : upFromLegacy(legacy, target);
        }
        Result result = (Result) from;
        return target.hasLegacyResult() ? downToLegacy(result, target)
                : new Result(target, result.interfaces(), result.ips(), result.routes(), result.dns());
    }

    private static Result upFromLegacy(LegacyResult legacy, CniVersion target) {
        List<IpConfig> ips = new ArrayList<>(2);
        List<Route> routes = new ArrayList<>();
        for (LegacyIpConfig ip : new LegacyIpConfig[] {legacy.ip4(), legacy.ip6()}) {
            if (ip != null) {
                ips.add(new IpConfig(null, ip.ip(), ip.gateway()));
                routes.addAll(ip.routes());
            }
        }
        return new Result(target, List.of(), ips, routes, legacy.dns());
    }

    private static LegacyResult downToLegacy(Result result, CniVersion target) throws CniException {
        IpConfig ip4 = null;
        IpConfig ip6 = null;
        for (IpConfig ip : result.ips()) {
            if (ip.isIpv4() && ip4 == null) {
                ip4 = ip;
            } else if (!ip.isIpv4() && ip6 == null) {
                ip6 = ip;
            }
        }
        if (ip4 == null && ip6 == null) {
            throw new CniException(CniError.INCOMPATIBLE_CNI_VERSION, "cannot convert: no valid IP addresses",
                    "a " + target + " result needs an IPv4 or IPv6 address; converting from " + result.cniVersion());
        }
        List<Route> routes4 = new ArrayList<>();
        List<Route> routes6 = new ArrayList<>();
        for (Route route : result.routes()) {
            if (route.dst().isIpv4()) {
                if (ip4 != null) {
                    routes4.add(route.withoutV110Fields());
                }
            } else if (ip6 != null) {
                routes6.add(route.withoutV110Fields());
            }
        }
        return new LegacyResult(target, ip4 == null ? null : new LegacyIpConfig(ip4.address(), ip4.gateway(), routes4),
                ip6 == null ? null : new LegacyIpConfig(ip6.address(), ip6.gateway(), routes6), result.dns());
    }
}
