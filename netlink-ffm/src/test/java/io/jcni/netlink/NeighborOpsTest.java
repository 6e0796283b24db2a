package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Neighbour operations against the kernel, read back through our API and {@code ip -j neigh}. */
class NeighborOpsTest {
    private TestNamespace t;
    private Link v0;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
        v0 = t.vethPair("v0", "v1");
        t.nl.addAddress(Cidrs.address(v0.index(), "10.0.0.1/24"));
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00::1/64").flags(AddressFlag.NODAD));
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    private JsonNode ipNeigh(String dst) {
        return t.ip("neigh", "show", "dev", "v0").valueStream().filter(n -> n.get("dst").asText().equals(dst))
                .findFirst().orElseThrow(() -> new AssertionError("ip shows no neighbour " + dst));
    }

    @Test
    void addsListsReplacesAndDeletesBothFamilies() {
        MacAddress mac = MacAddress.parse("02:00:00:00:00:09");
        Neighbor n4 = Neighbor.permanent(v0.index(), InetAddress.ofLiteral("10.0.0.9"), mac);
        Neighbor n6 = Neighbor.permanent(v0.index(), InetAddress.ofLiteral("fd00::9"), mac);
        t.nl.addNeighbor(n4);
        t.nl.addNeighbor(n6);
        assertThat(t.nl.neighbors(Family.V4, v0.index())).containsExactly(n4);
        assertThat(t.nl.neighbors(Family.V6, v0.index())).contains(n6);
        assertThat(t.nl.neighbors(null, 0)).contains(n4, n6);
        JsonNode ip4 = ipNeigh("10.0.0.9");
        assertThat(ip4.get("lladdr").asText()).isEqualTo("02:00:00:00:00:09");
        assertThat(ip4.get("state").get(0).asText()).isEqualTo("PERMANENT");
        assertThat(ipNeigh("fd00::9").get("lladdr").asText()).isEqualTo("02:00:00:00:00:09");

        assertThatThrownBy(() -> t.nl.addNeighbor(n4)).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.isExists()).isTrue());
        MacAddress other = MacAddress.parse("02:00:00:00:00:0a");
        t.nl.replaceNeighbor(new Neighbor(v0.index(), n4.address(), other, NeighborState.STALE, 0));
        assertThat(t.nl.neighbors(Family.V4, v0.index())).singleElement().satisfies(n -> {
            assertThat(n.mac()).isEqualTo(other);
            assertThat(n.state()).isEqualTo(NeighborState.STALE);
        });
        assertThat(ipNeigh("10.0.0.9").get("state").get(0).asText()).isEqualTo("STALE");

        t.nl.deleteNeighbor(v0.index(), n4.address());
        t.nl.deleteNeighbor(v0.index(), n6.address());
        assertThat(t.nl.neighbors(Family.V4, v0.index())).isEmpty();
        assertThat(t.ip("-4", "neigh", "show", "dev", "v0")).isEmpty();
        assertThatThrownBy(() -> t.nl.deleteNeighbor(v0.index(), n4.address()))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.isNotFound()).isTrue();
                    assertThat(e.getMessage()).startsWith("RTM_DELNEIGH 10.0.0.9 dev " + v0.index() + ": ENOENT");
                });
    }

    @Test
    void filtersByLink() {
        Link v1 = t.nl.link("v1");
        t.nl.addAddress(Cidrs.address(v1.index(), "10.0.1.1/24"));
        MacAddress mac = MacAddress.parse("02:00:00:00:00:01");
        t.nl.addNeighbor(Neighbor.permanent(v0.index(), InetAddress.ofLiteral("10.0.0.7"), mac));
        t.nl.addNeighbor(Neighbor.permanent(v1.index(), InetAddress.ofLiteral("10.0.1.7"), mac));
        assertThat(t.nl.neighbors(Family.V4, v1.index())).extracting(Neighbor::address)
                .containsExactly(InetAddress.ofLiteral("10.0.1.7"));
        assertThat(t.nl.neighbors(Family.V4, 0)).extracting(Neighbor::address)
                .containsExactlyInAnyOrder(InetAddress.ofLiteral("10.0.0.7"), InetAddress.ofLiteral("10.0.1.7"));
    }
}
