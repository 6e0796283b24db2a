package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The API's value types: parsing without DNS, formatting as ip does, validation with clear messages. */
class ValuesTest {

    @Test
    void prefixesParseFormatMaskAndContain() {
        IpPrefix p = IpPrefix.parse("10.1.2.3/24");
        assertThat(p.address()).isEqualTo(InetAddress.ofLiteral("10.1.2.3"));
        assertThat(p.prefixLength()).isEqualTo(24);
        assertThat(p.masked()).isEqualTo(IpPrefix.parse("10.1.2.0/24"));
        assertThat(p.contains(InetAddress.ofLiteral("10.1.2.200"))).isTrue();
        assertThat(p.contains(InetAddress.ofLiteral("10.1.3.1"))).isFalse();
        assertThat(p.contains(InetAddress.ofLiteral("::1"))).isFalse();
        assertThat(IpPrefix.parse("10.1.2.3")).isEqualTo(IpPrefix.parse("10.1.2.3/32"));
        assertThat(IpPrefix.parse("fd00:0:0:0:0:0:0:1/64").toString()).isEqualTo("fd00::1/64");
        assertThat(IpPrefix.parse("2001:db8:0:0:1:0:0:1/128").toString()).isEqualTo("2001:db8::1:0:0:1/128");
        assertThat(IpPrefix.parse("fe80::1:2/10").masked().toString()).isEqualTo("fe80::/10");
        assertThat(IpPrefix.parse("::/0")).isEqualTo(IpPrefix.DEFAULT_V6);
        assertThat(IpPrefix.parse("::ffff:1.2.3.4/128").family()).as("mapped stays IPv6").isEqualTo(Family.V6);
        assertThat(IpPrefix.parse("1:2:3:4:5:6:7:8/64").toString()).isEqualTo("1:2:3:4:5:6:7:8/64");
        assertThat(IpPrefix.parse("0.0.0.0/0").masked()).isEqualTo(IpPrefix.DEFAULT_V4);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.1.2.3/33", "fd00::1/129", "10.1.2.3/", "10.1.2.3/-1", "10.1.2.3/2x", "example.com/24",
        "10.1.2/24", "", "/24", "010.1.2.3/8", "10.1.2.256", "1.2.3.4.5"})
    void badPrefixesAreRejectedWithoutALookup(String text) {
        assertThatThrownBy(() -> IpPrefix.parse(text)).isInstanceOf(IllegalArgumentException.class);
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
        Address a = Address.of(3, IpPrefix.parse("fd00::2/64")).flags(AddressFlag.NODAD, AddressFlag.NOPREFIXROUTE)
                .scope(Scope.LINK);
        assertThat(a).hasToString("fd00::2/64 dev 3 scope link nodad noprefixroute");
        Route r = Route.to(IpPrefix.parse("10.0.0.0/8")).via(InetAddress.ofLiteral("10.1.0.1")).dev(3).metric(100)
                .table(7);
        assertThat(r).hasToString("10.0.0.0/8 via 10.1.0.1 dev 3 table 7 metric 100");
        assertThat(Route.defaultVia(InetAddress.ofLiteral("fd00::1"))).hasToString("default via fd00::1");
        assertThatThrownBy(() -> Route.to(IpPrefix.DEFAULT_V4).via(InetAddress.ofLiteral("fd00::1")))
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
