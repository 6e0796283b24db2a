package io.jcni.plugins.internal.pkg.ip;

import static io.jcni.plugins.testing.Addresses.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.Route;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link DefaultRoutes}: the default {@code master} of macvlan, ipvlan and vlan. */
class DefaultRoutesTest {
    private Worlds w;

    @BeforeEach
    void world() throws Exception {
        w = Worlds.create();
        w.host.nl().addVeth(LinkAttrs.named("uplink0").up(true), LinkAttrs.named("peer0"));
        w.host.nl().addVeth(LinkAttrs.named("uplink1").up(true), LinkAttrs.named("peer1"));
        w.host.nl().setUp(w.host.nl().link("peer0").index());
        w.host.nl().setUp(w.host.nl().link("peer1").index());
    }

    @AfterEach
    void close() {
        if (w != null) {
            w.close();
        }
    }

    int index(String name) {
        return w.host.nl().link(name).index();
    }

    @Test
    void theIpv4DefaultRoutesLinkWins() throws Exception {
        w.host.nl().addAddress(index("uplink1"), ip("192.0.2.2"), 24);
        w.host.nl().addAddress(index("uplink0"), ip("fd00:9::2"), 64);
        w.host.nl().addRoute(Route.defaultVia(ip("fd00:9::1")).dev(index("uplink0")));
        w.host.nl().addRoute(Route.defaultVia(ip("192.0.2.1")).dev(index("uplink1")));
        assertThat(DefaultRoutes.interfaceName(w.host)).isEqualTo("uplink1");
    }

    @Test
    void anIpv6OnlyHostUsesItsIpv6DefaultRoute() throws Exception {
        w.host.nl().addAddress(index("uplink0"), ip("fd00:9::2"), 64);
        w.host.nl().addRoute(Route.defaultVia(ip("fd00:9::1")).dev(index("uplink0")));
        assertThat(DefaultRoutes.interfaceName(w.host)).isEqualTo("uplink0");
    }

    @Test
    void noDefaultRouteIsAConfigurationErrorAskingForMaster() {
        assertThatThrownBy(() -> DefaultRoutes.interfaceName(w.host)).isInstanceOf(CniException.class)
                .satisfies(ChecksTest.msg("no default route interface found"))
                .satisfies(e -> assertThat(((CniException) e).code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG))
                .satisfies(e -> assertThat(((CniException) e).error().details()).contains("set \"master\""));
    }
}
