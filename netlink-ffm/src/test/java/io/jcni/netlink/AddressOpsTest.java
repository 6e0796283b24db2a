package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.netlink.sys.Sysctl;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Address operations against the kernel, read back through our API and {@code ip -j addr}. */
class AddressOpsTest {
    private TestNamespace t;
    private Link v0;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
        v0 = t.vethPair("v0", "v1");
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    private List<JsonNode> ipAddrs(String family) {
        JsonNode links = t.ip(family, "addr", "show", "dev", "v0");
        return links.isEmpty() ? List.of()
                : StreamSupport.stream(links.get(0).get("addr_info").spliterator(), false).toList();
    }

    private JsonNode ipAddr(String local) {
        return t.ip("addr", "show", "dev", "v0").get(0).get("addr_info").valueStream()
                .filter(a -> a.get("local").asText().equals(local)).findFirst().orElseThrow();
    }

    private Address ours(String local) {
        InetAddress a = InetAddress.ofLiteral(local);
        return t.nl.addresses(v0.index(), null).stream().filter(x -> x.address().equals(a)).findFirst()
                .orElseThrow();
    }

    @Test
    void addsIpv4WithComputedBroadcastLikeGoNetlink() {
        t.nl.addAddress(Cidrs.address(v0.index(), "10.1.2.3/24"));
        Address a = ours("10.1.2.3");
        assertThat(Cidrs.of(a)).isEqualTo(Cidrs.canonical("10.1.2.3/24"));
        assertThat(a.broadcast()).isEqualTo(InetAddress.ofLiteral("10.1.2.255"));
        assertThat(a.scope()).isEqualTo(Scope.UNIVERSE);
        assertThat(a.peer()).isNull();
        assertThat(a.label()).isEqualTo("v0");
        assertThat(a.validLifetime()).isEqualTo(Address.FOREVER);
        JsonNode ip = ipAddr("10.1.2.3");
        assertThat(ip.get("prefixlen").asInt()).isEqualTo(24);
        assertThat(ip.get("broadcast").asText()).isEqualTo("10.1.2.255");
        assertThat(ip.get("scope").asText()).isEqualTo("global");
        assertThat(ip.get("valid_life_time").asLong()).isEqualTo(Address.FOREVER);
    }

    @Test
    void addsIpv6WithNodadAndNoprefixroute() {
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00:1::5/64")
                .flags(AddressFlag.NODAD, AddressFlag.NOPREFIXROUTE));
        Address a = ours("fd00:1::5");
        assertThat(a.flags()).contains(AddressFlag.NODAD, AddressFlag.NOPREFIXROUTE, AddressFlag.PERMANENT)
                .doesNotContain(AddressFlag.TENTATIVE);
        assertThat(a.family()).isEqualTo(Family.V6);
        JsonNode ip = ipAddr("fd00:1::5");
        assertThat(ip.get("nodad").asBoolean()).isTrue();
        assertThat(ip.get("noprefixroute").asBoolean()).isTrue();
        assertThat(ip.get("prefixlen").asInt()).isEqualTo(64);
        assertThat(t.nl.routes(Family.V6)).extracting(x -> Cidrs.of(x))
                .doesNotContain(Cidrs.canonical("fd00:1::/64"));
    }

    @Test
    void ipv6WithoutNodadGetsItsPrefixRouteAndStartsTentative() {
        Sysctl.write(t.ns, "net.ipv6.conf.v0.dad_transmits", "1");
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00:2::5/64"));
        Address a = ours("fd00:2::5");
        assertThat(a.isTentative()).isTrue();
        assertThat(ipAddr("fd00:2::5").get("tentative").asBoolean()).isTrue();
        assertThat(t.nl.routes(Family.V6)).extracting(x -> Cidrs.of(x)).contains(Cidrs.canonical("fd00:2::/64"));
    }

    @Test
    void scopePeerAndLabel() {
        t.nl.addAddress(Cidrs.address(v0.index(), "10.0.1.1/32").peer(InetAddress.ofLiteral("10.0.1.2"))
                .scope(Scope.LINK).label("v0:x"));
        Address a = ours("10.0.1.1");
        assertThat(a.peer()).isEqualTo(InetAddress.ofLiteral("10.0.1.2"));
        assertThat(a.scope()).isEqualTo(Scope.LINK);
        assertThat(a.label()).isEqualTo("v0:x");
        assertThat(a.broadcast()).isNull();
        JsonNode ip = ipAddr("10.0.1.1");
        assertThat(ip.get("address").asText()).isEqualTo("10.0.1.2");
        assertThat(ip.get("scope").asText()).isEqualTo("link");
        assertThat(ip.get("label").asText()).isEqualTo("v0:x");
    }

    @Test
    void replaceUpdatesLifetimesAndAddOfAnExistingOneIsExists() {
        Address base = Cidrs.address(v0.index(), "10.3.0.1/16");
        t.nl.addAddress(base);
        assertThatThrownBy(() -> t.nl.addAddress(base)).isInstanceOfSatisfying(NetlinkException.class, e -> {
            assertThat(e.isExists()).isTrue();
            assertThat(e.getMessage()).isEqualTo("RTM_NEWADDR 10.3.0.1/16 dev " + v0.index()
                    + ": EEXIST (File exists): ipv4: Address already assigned");
            assertThat(e.extAck()).isEqualTo("ipv4: Address already assigned");
        });
        t.nl.replaceAddress(base.lifetimes(3600, 1800));
        Address a = ours("10.3.0.1");
        assertThat(a.validLifetime()).isBetween(3590L, 3600L);
        assertThat(a.preferredLifetime()).isBetween(1790L, 1800L);
        assertThat(ipAddr("10.3.0.1").get("valid_life_time").asLong()).isBetween(3590L, 3600L);
        assertThat(t.nl.addresses(v0.index(), Family.V4)).hasSize(1);
    }

    @Test
    void deletesAndReportsMissingAsNotFound() {
        t.nl.addAddress(Cidrs.address(v0.index(), "10.4.0.1/24"));
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00:4::1/64").flags(AddressFlag.NODAD));
        t.nl.deleteAddress(Cidrs.address(v0.index(), "10.4.0.1/24"));
        t.nl.deleteAddress(Cidrs.address(v0.index(), "fd00:4::1/64"));
        assertThat(t.nl.addresses(v0.index(), Family.V4)).isEmpty();
        assertThat(t.nl.addresses(v0.index(), Family.V6)).extracting(x -> x.address())
                .doesNotContain(InetAddress.ofLiteral("fd00:4::1"));
        assertThat(ipAddrs("-4")).isEmpty();
        assertThatThrownBy(() -> t.nl.deleteAddress(Cidrs.address(v0.index(), "10.4.0.1/24")))
                .isInstanceOfSatisfying(NetlinkException.class, e -> assertThat(e.isNotFound()).isTrue());
        assertThatThrownBy(() -> t.nl.deleteAddress(Cidrs.address(v0.index(), "fd00:4::1/64")))
                .isInstanceOfSatisfying(NetlinkException.class, e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void listsPerLinkAndFamilyLikeIp() {
        Link v1 = t.nl.link("v1");
        t.nl.addAddress(Cidrs.address(v0.index(), "10.5.0.1/24"));
        t.nl.addAddress(Cidrs.address(v1.index(), "10.5.0.2/24"));
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00:5::1/64").flags(AddressFlag.NODAD));
        assertThat(t.nl.addresses(v0.index(), Family.V4)).extracting(a -> Cidrs.of(a))
                .containsExactly(Cidrs.canonical("10.5.0.1/24"));
        assertThat(t.nl.addresses(v1.index(), Family.V4)).extracting(a -> Cidrs.of(a))
                .containsExactly(Cidrs.canonical("10.5.0.2/24"));
        assertThat(t.nl.addresses(Family.V4)).extracting(a -> Cidrs.of(a))
                .containsExactlyInAnyOrder(Cidrs.canonical("10.5.0.1/24"), Cidrs.canonical("10.5.0.2/24"));
        // Every address ip shows for v0 we show too, with the same prefix length and scope.
        List<Address> ours = t.nl.addresses(v0.index(), null);
        for (JsonNode ip : t.ip("addr", "show", "dev", "v0").get(0).get("addr_info")) {
            String p = Cidrs.canonical(ip.get("local").asText() + "/" + ip.get("prefixlen").asInt());
            assertThat(ours).filteredOn(a -> Cidrs.of(a).equals(p)).singleElement()
                    .extracting(a -> a.scope().toString()).isEqualTo(ip.get("scope").asText());
        }
        assertThat(ours).hasSize(t.ip("addr", "show", "dev", "v0").get(0).get("addr_info").size());
    }

    @Test
    void settleWaitsForDuplicateAddressDetection() {
        Sysctl.write(t.ns, "net.ipv6.conf.v0.dad_transmits", "1");
        Sysctl.write(t.ns, "net.ipv6.neigh.v0.retrans_time_ms", "200");
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00:6::1/64"));
        assertThat(ours("fd00:6::1").isTentative()).isTrue();
        t.nl.settleAddresses(v0.index(), Duration.ofSeconds(10));
        assertThat(t.nl.addresses(v0.index(), Family.V6)).noneMatch(Address::isTentative);
        assertThat(ipAddr("fd00:6::1").has("tentative")).isFalse();
    }

    @Test
    void settleTimesOutWhileStillTentative() {
        Sysctl.write(t.ns, "net.ipv6.conf.v0.dad_transmits", "50");
        Sysctl.write(t.ns, "net.ipv6.neigh.v0.retrans_time_ms", "1000");
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00:7::1/64"));
        assertThatThrownBy(() -> t.nl.settleAddresses(v0.index(), Duration.ofMillis(100)))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.errnoName()).isEqualTo("ETIMEDOUT");
                    assertThat(e.getMessage()).contains("fd00:7:0:0:0:0:0:1/64");
                });
    }

    @Test
    void settleReportsFailedDuplicateAddressDetection() {
        try (TestNamespace other = TestNamespace.create()) {
            t.nl.addVeth(LinkAttrs.named("dad0").up(true), LinkAttrs.named("dad1").netns(other.ns));
            Link peer = other.nl.link("dad1");
            other.nl.addAddress(Cidrs.address(peer.index(), "fd00:8::1/64").flags(AddressFlag.NODAD));
            other.nl.setUp(peer.index());
            Link dad0 = t.nl.link("dad0");
            Sysctl.write(t.ns, "net.ipv6.conf.dad0.dad_transmits", "1");
            Sysctl.write(t.ns, "net.ipv6.neigh.dad0.retrans_time_ms", "300");
            t.nl.addAddress(Cidrs.address(dad0.index(), "fd00:8::1/64"));
            assertThatThrownBy(() -> t.nl.settleAddresses(dad0.index(), Duration.ofSeconds(10)))
                    .isInstanceOfSatisfying(NetlinkException.class, e -> {
                        assertThat(e.errnoName()).isEqualTo("EADDRINUSE");
                        assertThat(e.getMessage())
                                .contains("duplicate address detection failed for fd00:8:0:0:0:0:0:1/64");
                    });
            assertThat(t.nl.addresses(dad0.index(), Family.V6)).filteredOn(Address::isDadFailed)
                    .extracting(a -> Cidrs.of(a)).containsExactly(Cidrs.canonical("fd00:8::1/64"));
            assertThat(t.ip("addr", "show", "dev", "dad0").get(0).get("addr_info").valueStream()
                    .filter(a -> a.get("local").asText().equals("fd00:8::1")).findFirst().orElseThrow()
                    .get("dadfailed").asBoolean()).isTrue();
        }
    }

    @Test
    void flagsOfReadBackAddressesAreImmutable() {
        t.nl.addAddress(Cidrs.address(v0.index(), "10.9.0.1/24"));
        Set<AddressFlag> flags = ours("10.9.0.1").flags();
        assertThatThrownBy(() -> flags.add(AddressFlag.NODAD)).isInstanceOf(UnsupportedOperationException.class);
    }
}
