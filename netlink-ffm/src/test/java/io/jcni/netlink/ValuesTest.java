package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The API's value types: addresses as {@link InetAddress} and a prefix length (the module reads no IP text), requests
 * printed as {@code ip} prints them for error messages (addresses in {@link InetAddress#getHostAddress()} form),
 * validation with clear messages.
 */
class ValuesTest {

    @Test
    void addressesAndRoutesCarryAnInetAddressAndAPrefixLengthOfItsFamily() {
        Address a = Address.of(3, Cidrs.ip("10.1.2.3"), 24);
        assertThat(a.address()).isEqualTo(Cidrs.ip("10.1.2.3"));
        assertThat(a.prefixLength()).isEqualTo(24);
        assertThat(a.family()).isEqualTo(Family.V4);
        assertThat(Address.of(3, Cidrs.ip("fd00::1"), 128).family()).isEqualTo(Family.V6);
        Route byDefault = Route.defaultVia(Cidrs.ip("fd00::1"));
        assertThat(byDefault.isDefault()).isTrue();
        assertThat(byDefault.destination()).isEqualTo(Cidrs.ip("::")).isEqualTo(Family.V6.any());
        assertThat(Route.defaultVia(Cidrs.ip("10.0.0.1")).destination()).isEqualTo(Family.V4.any());
        assertThat(Family.V4.bits()).isEqualTo(32);
        assertThat(Family.V6.bits()).isEqualTo(128);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.1.2.3/33", "fd00::1/129", "10.1.2.3/-1", "::/-1"})
    void prefixLengthsOutsideTheFamilyAreRejected(String cidr) {
        assertThatThrownBy(() -> Cidrs.address(1, cidr)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix length");
        assertThatThrownBy(() -> Cidrs.route(cidr)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix length");
    }

    @Test
    void macAddressesParseFormatAndCompareByValue() {
        MacAddress m = MacAddress.parse("02:AA:bb:0c:00:ff");
        assertThat(m.toString()).isEqualTo("02:aa:bb:0c:00:ff");
        assertThat(m).isEqualTo(MacAddress.parse("02:aa:bb:0c:00:ff")).hasSameHashCodeAs(
                MacAddress.parse("02:aa:bb:0c:00:ff"));
        byte[] bytes = m.bytes();
        bytes[0] = 0;
        assertThat(m.toString()).as("immutable").startsWith("02:");
        for (String bad : List.of("", "02:aa", "02:aa:bb:cc:dd:eg", "02-aa-bb-cc-dd-ee", "02:aa:bb:cc:dd:eee")) {
            if (bad.equals("02:aa")) {
                assertThat(MacAddress.parse(bad).bytes()).hasSize(2); // other link types have other lengths
            } else {
                assertThatThrownBy(() -> MacAddress.parse(bad)).isInstanceOf(IllegalArgumentException.class);
            }
        }
    }

    @Test
    void scopesPrintLikeIp() {
        assertThat(Scope.UNIVERSE).hasToString("global");
        assertThat(Scope.of(253)).isSameAs(Scope.LINK).hasToString("link");
        assertThat(Scope.of(100)).hasToString("100");
        assertThatThrownBy(() -> new Scope(256)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void linkNamesFollowTheKernelsRules() {
        assertThat(LinkAttrs.checkName("eth0.100")).isEqualTo("eth0.100");
        assertThat(LinkAttrs.checkName("a23456789012345")).hasSize(15);
        for (String bad : List.of("", "a234567890123456", ".", "..", "a/b", "a:b", "a b")) {
            assertThatThrownBy(() -> LinkAttrs.named(bad)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void requestsPrintLikeIpForErrorMessages() {
        Address a = Cidrs.address(3, "fd00::2/64").flags(AddressFlag.NODAD, AddressFlag.NOPREFIXROUTE)
                .scope(Scope.LINK);
        assertThat(a).hasToString("fd00:0:0:0:0:0:0:2/64 dev 3 scope link nodad noprefixroute");
        Route r = Cidrs.route("10.0.0.0/8").via(InetAddress.ofLiteral("10.1.0.1")).dev(3).metric(100)
                .table(7);
        assertThat(r).hasToString("10.0.0.0/8 via 10.1.0.1 dev 3 table 7 metric 100");
        assertThat(Route.defaultVia(InetAddress.ofLiteral("fd00::1"))).hasToString("default via fd00:0:0:0:0:0:0:1");
        assertThatThrownBy(() -> Route.to(Family.V4.any(), 0).via(InetAddress.ofLiteral("fd00::1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not of the family");
    }

    @Test
    void flagSetsRoundTripThroughBits() {
        EnumSet<AddressFlag> all = EnumSet.allOf(AddressFlag.class);
        assertThat(AddressFlag.of(AddressFlag.bits(all))).isEqualTo(all);
        assertThat(AddressFlag.of(0x42)).containsExactlyInAnyOrder(AddressFlag.NODAD, AddressFlag.TENTATIVE);
        assertThat(IpvlanFlag.of(0)).isEqualTo(IpvlanFlag.BRIDGE);
        assertThat(NeighborState.of(0x80)).isEqualTo(NeighborState.PERMANENT);
        assertThat(OperState.of(6)).isEqualTo(OperState.UP);
        assertThat(OperState.of(99)).isEqualTo(OperState.UNKNOWN);
    }
}
