package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Route operations against the kernel, read back through our API and {@code ip -j route}. */
class RouteOpsTest {
    private TestNamespace t;
    private Link v0;
    private Link v1;

    private static InetAddress ip(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
        v0 = t.vethPair("v0", "v1");
        v1 = t.nl.link("v1");
        t.nl.addAddress(Cidrs.address(v0.index(), "10.0.0.1/24"));
        t.nl.addAddress(Cidrs.address(v1.index(), "10.0.1.1/24"));
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00::1/64").flags(AddressFlag.NODAD));
        t.nl.addAddress(Cidrs.address(v1.index(), "fd01::1/64").flags(AddressFlag.NODAD));
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    private Route ours(Family family, int table, String dst) {
        return t.nl.routes(family, table).stream().filter(r -> Cidrs.of(r).equals(dst)).findFirst()
                .orElseThrow(() -> new AssertionError("no route to " + dst + " in table " + table));
    }

    private JsonNode ipRoute(String family, String table, String dst) {
        for (JsonNode r : t.ip(family, "route", "show", "table", table)) {
            if (r.get("dst").asText().equals(dst)) {
                return r;
            }
        }
        throw new AssertionError("ip shows no route to " + dst);
    }

    @Test
    void ipv4RouteWithEveryAttribute() {
        Route r = Cidrs.route("10.5.0.0/16").via(ip("10.0.0.2")).dev(v0.index()).metric(7).table(100)
                .src(ip("10.0.0.1")).mtu(1300).advmss(1200);
        t.nl.addRoute(r);
        Route back = ours(Family.V4, 100, Cidrs.canonical("10.5.0.0/16"));
        assertThat(back).isEqualTo(r.scope(Scope.UNIVERSE));
        JsonNode ip = ipRoute("-4", "100", "10.5.0.0/16");
        assertThat(ip.get("gateway").asText()).isEqualTo("10.0.0.2");
        assertThat(ip.get("dev").asText()).isEqualTo("v0");
        assertThat(ip.get("metric").asInt()).isEqualTo(7);
        assertThat(ip.get("prefsrc").asText()).isEqualTo("10.0.0.1");
        assertThat(ip.has("protocol")).as("ip omits the default, proto boot").isFalse();
        assertThat(ip.get("metrics").get(0).get("mtu").asInt()).isEqualTo(1300);
        assertThat(ip.get("metrics").get(0).get("advmss").asInt()).isEqualTo(1200);
        assertThat(t.nl.routes(Family.V4)).extracting(x -> Cidrs.of(x))
                .doesNotContain(Cidrs.canonical("10.5.0.0/16"));
    }

    @Test
    void deviceRouteGetsLinkScopeAsWithIp() {
        t.nl.addRoute(Cidrs.route("192.168.7.0/24").dev(v0.index()));
        assertThat(ours(Family.V4, Route.TABLE_MAIN, Cidrs.canonical("192.168.7.0/24")).scope()).isEqualTo(Scope.LINK);
        assertThat(ipRoute("-4", "main", "192.168.7.0/24").get("scope").asText()).isEqualTo("link");
    }

    @Test
    void explicitScopeAndTableAbove255() {
        t.nl.addRoute(Cidrs.route("10.6.0.0/16").dev(v0.index()).scope(Scope.HOST).table(1000));
        Route back = ours(Family.V4, 1000, Cidrs.canonical("10.6.0.0/16"));
        assertThat(back.scope()).isEqualTo(Scope.HOST);
        assertThat(back.table()).isEqualTo(1000);
        assertThat(ipRoute("-4", "1000", "10.6.0.0/16").get("scope").asText()).isEqualTo("host");
    }

    @Test
    void ipv6RouteWithMetricMtuAndSource() {
        Route r = Cidrs.route("fd05::/48").via(ip("fd00::2")).dev(v0.index()).metric(300)
                .src(ip("fd00::1")).mtu(1400);
        t.nl.addRoute(r);
        Route back = ours(Family.V6, Route.TABLE_MAIN, Cidrs.canonical("fd05::/48"));
        assertThat(back.gateway()).isEqualTo(ip("fd00::2"));
        assertThat(back.outIndex()).isEqualTo(v0.index());
        assertThat(back.metric()).isEqualTo(300);
        assertThat(back.source()).isEqualTo(ip("fd00::1"));
        assertThat(back.mtu()).isEqualTo(1400);
        JsonNode ip = ipRoute("-6", "main", "fd05::/48");
        assertThat(ip.get("gateway").asText()).isEqualTo("fd00::2");
        assertThat(ip.get("metric").asInt()).isEqualTo(300);
        assertThat(ip.get("prefsrc").asText()).isEqualTo("fd00::1");
        assertThat(ip.get("metrics").get(0).get("mtu").asInt()).isEqualTo(1400);
    }

    @Test
    void defaultRoutesForBothFamilies() {
        t.nl.addRoute(Route.defaultVia(ip("10.0.0.254")));
        t.nl.addRoute(Route.defaultVia(ip("fd00::fe")).dev(v0.index()));
        Route v4 = ours(Family.V4, Route.TABLE_MAIN, Cidrs.canonical("0.0.0.0/0"));
        assertThat(v4.isDefault()).isTrue();
        assertThat(v4.gateway()).isEqualTo(ip("10.0.0.254"));
        assertThat(v4.outIndex()).as("kernel resolved the device").isEqualTo(v0.index());
        assertThat(ours(Family.V6, Route.TABLE_MAIN, Cidrs.canonical("::/0")).gateway()).isEqualTo(ip("fd00::fe"));
        assertThat(ipRoute("-4", "main", "default").get("gateway").asText()).isEqualTo("10.0.0.254");
        assertThat(ipRoute("-6", "main", "default").get("gateway").asText()).isEqualTo("fd00::fe");
    }

    @Test
    void ecmpMultipathForBothFamilies() {
        t.nl.addRoute(Cidrs.route("10.7.0.0/16").multipath(List.of(
                NextHop.via(ip("10.0.0.2"), v0.index()).weight(2), NextHop.via(ip("10.0.1.2"), v1.index()))));
        t.nl.addRoute(Cidrs.route("fd07::/64").multipath(List.of(
                NextHop.via(ip("fd00::2"), v0.index()).weight(3), NextHop.via(ip("fd01::2"), v1.index()))));
        Route v4 = ours(Family.V4, Route.TABLE_MAIN, Cidrs.canonical("10.7.0.0/16"));
        assertThat(v4.nextHops()).extracting(NextHop::gateway, NextHop::index, NextHop::weight).containsExactly(
                org.assertj.core.groups.Tuple.tuple(ip("10.0.0.2"), v0.index(), 2),
                org.assertj.core.groups.Tuple.tuple(ip("10.0.1.2"), v1.index(), 1));
        Route v6 = ours(Family.V6, Route.TABLE_MAIN, Cidrs.canonical("fd07::/64"));
        assertThat(v6.nextHops()).extracting(NextHop::gateway, NextHop::weight).containsExactly(
                org.assertj.core.groups.Tuple.tuple(ip("fd00::2"), 3), org.assertj.core.groups.Tuple.tuple(ip("fd01::2"), 1));
        JsonNode ip4 = ipRoute("-4", "main", "10.7.0.0/16").get("nexthops");
        assertThat(ip4.get(0).get("gateway").asText()).isEqualTo("10.0.0.2");
        assertThat(ip4.get(0).get("weight").asInt()).isEqualTo(2);
        assertThat(ip4.get(1).get("dev").asText()).isEqualTo("v1");
        JsonNode ip6 = ipRoute("-6", "main", "fd07::/64").get("nexthops");
        assertThat(ip6).hasSize(2);
        assertThat(ip6.get(0).get("weight").asInt()).isEqualTo(3);
    }

    @Test
    void replaceChangesTheGatewayAndAddOfAnExistingOneIsExists() {
        Route r = Cidrs.route("10.8.0.0/16").via(ip("10.0.0.2"));
        t.nl.addRoute(r);
        assertThatThrownBy(() -> t.nl.addRoute(r)).isInstanceOfSatisfying(NetlinkException.class, e -> {
            assertThat(e.isExists()).isTrue();
            assertThat(e.getMessage()).startsWith("RTM_NEWROUTE 10.8.0.0/16 via 10.0.0.2: EEXIST (File exists)");
        });
        t.nl.replaceRoute(r.via(ip("10.0.1.2")));
        assertThat(ours(Family.V4, Route.TABLE_MAIN, Cidrs.canonical("10.8.0.0/16")).gateway())
                .isEqualTo(ip("10.0.1.2"));
        assertThat(ipRoute("-4", "main", "10.8.0.0/16").get("gateway").asText()).isEqualTo("10.0.1.2");
        assertThat(t.nl.routes(Family.V4)).filteredOn(x -> Cidrs.of(x).equals(Cidrs.canonical("10.8.0.0/16")))
                .hasSize(1);
    }

    @Test
    void deleteMatchesAnyProtocolAndScopeAndReportsMissingAsNotFound() {
        t.nl.addRoute(Cidrs.route("10.9.0.0/16").via(ip("10.0.0.2")).metric(5));
        t.nl.addRoute(Cidrs.route("fd09::/64").via(ip("fd00::2")));
        t.nl.deleteRoute(Cidrs.route("10.9.0.0/16").metric(5));
        t.nl.deleteRoute(Cidrs.route("fd09::/64"));
        // a route the kernel made (proto kernel, scope link) can be deleted with a plain request too
        t.nl.deleteRoute(Cidrs.route("10.0.1.0/24").dev(v1.index()));
        assertThat(t.nl.routes(Family.V4)).extracting(x -> Cidrs.of(x))
                .doesNotContain(Cidrs.canonical("10.9.0.0/16"), Cidrs.canonical("10.0.1.0/24"));
        assertThat(t.ip("-4", "route", "show")).extracting(j -> j.get("dst").asText())
                .containsExactly("10.0.0.0/24");
        assertThatThrownBy(() -> t.nl.deleteRoute(Cidrs.route("10.9.0.0/16")))
                .isInstanceOfSatisfying(NetlinkException.class, e -> assertThat(e.isNotFound()).isTrue());
        assertThatThrownBy(() -> t.nl.deleteRoute(Cidrs.route("fd09::/64")))
                .isInstanceOfSatisfying(NetlinkException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void listsLikeIpInMainAndAllTables() {
        t.nl.addRoute(Cidrs.route("10.10.0.0/16").via(ip("10.0.0.2")).table(200));
        List<Route> main = t.nl.routes(Family.V4);
        JsonNode ipMain = t.ip("-4", "route", "show");
        assertThat(main).hasSize(ipMain.size());
        for (JsonNode j : ipMain) {
            String dst = j.get("dst").asText();
            assertThat(main).anyMatch(r -> dst.equals("default") ? r.isDefault()
                    : Cidrs.of(r).equals(Cidrs.canonical(dst.contains("/") ? dst : dst + "/32")));
        }
        List<Route> all = t.nl.routes(Family.V4, 0);
        assertThat(all).hasSize(t.ip("-4", "route", "show", "table", "all").size());
        assertThat(all).anyMatch(r -> r.table() == Route.TABLE_LOCAL && r.type() == Route.TYPE_LOCAL);
        assertThat(all).anyMatch(r -> r.table() == 200);
        assertThat(t.nl.routes(null, 200)).extracting(x -> Cidrs.of(x))
                .containsExactly(Cidrs.canonical("10.10.0.0/16"));
    }

    @Test
    void hostBitsInADestinationAreTheKernelsToReject() {
        assertThatThrownBy(() -> t.nl.addRoute(Cidrs.route("10.11.0.5/16").dev(v0.index())))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.kind()).isEqualTo(NetlinkException.Kind.INVALID);
                    assertThat(e.extAck()).isEqualTo("Invalid prefix for given prefix length");
                });
        t.nl.addRoute(Cidrs.route("10.11.0.0/16").dev(v0.index()));
        assertThat(ipRoute("-4", "main", "10.11.0.0/16").get("dev").asText()).isEqualTo("v0");
    }

    @Test
    void routeGetAnswersAsIpRouteGet() {
        t.nl.addRoute(Cidrs.route("10.20.0.0/16").via(ip("10.0.1.2")));
        for (String dst : List.of("10.20.9.9", "10.0.0.7", "fd01::5")) {
            Route ours = t.nl.routeGet(ip(dst));
            JsonNode ip = t.ip("route", "get", dst).get(0);
            assertThat(ours.destination()).isEqualTo(ip(dst));
            assertThat(ours.destinationLength()).isEqualTo(ip(dst).getAddress().length * 8);
            assertThat(t.nl.link(ours.outIndex()).name()).as(dst).isEqualTo(ip.get("dev").asText());
        }
        assertThat(t.nl.link(t.nl.routeGet(ip("10.20.9.9")).outIndex()).name()).isEqualTo("v1");
        assertThat(t.nl.routeGet(ip("10.20.9.9")).gateway()).isEqualTo(ip("10.0.1.2"));
        assertThatThrownBy(() -> t.nl.routeGet(ip("192.0.2.1"))).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.operation()).isEqualTo("RTM_GETROUTE get 192.0.2.1"));
    }
}
