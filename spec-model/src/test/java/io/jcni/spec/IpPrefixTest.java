package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class IpPrefixTest {

    @ParameterizedTest
    @CsvSource({
            "10.1.0.5/16, 10.1.0.5/16, 10.1.0.0/16",
            "0.0.0.0/0, 0.0.0.0/0, 0.0.0.0/0",
            "192.168.1.255/32, 192.168.1.255/32, 192.168.1.255/32",
            "10.0.0.1/024, 10.0.0.1/24, 10.0.0.0/24",
            "2001:DB8::5/64, 2001:db8::5/64, 2001:db8::/64",
            "::/0, ::/0, ::/0",
            "::1/128, ::1/128, ::1/128",
            "fe80:0:0:0:0:0:0:1/10, fe80::1/10, fe80::/10",
            "2001:db8:0:1:0:0:0:1/64, 2001:db8:0:1::1/64, 2001:db8:0:1::/64",
            "2001:0:0:1:0:0:0:1/64, 2001:0:0:1::1/64, 2001:0:0:1::/64",
            "2001:db8:1:2:3:4:5:6/128, 2001:db8:1:2:3:4:5:6/128, 2001:db8:1:2:3:4:5:6/128",
            "1:0:2:3:4:5:6:7/128, 1:0:2:3:4:5:6:7/128, 1:0:2:3:4:5:6:7/128",
            "::ffff:10.1.2.3/120, 10.1.2.3/24, 10.1.2.0/24",
            "::ffff:a01:203/128, 10.1.2.3/32, 10.1.2.3/32",
            "::ffff:10.1.2.3/96, 10.1.2.3/0, 0.0.0.0/0",
            "::1.2.3.4/128, ::102:304/128, ::102:304/128"})
    void parsesAndPrintsLikeLibcniKeepingHostBits(String text, String printed, String network) throws CniException {
        IpPrefix prefix = IpPrefix.parse(text, "address");
        assertThat(prefix.toString()).isEqualTo(printed);
        assertThat(prefix.masked().toString()).isEqualTo(network);
    }

    @Test
    void ipv4MappedIpv6IsIpv4AsGoTo4Says() throws CniException {
        IpPrefix prefix = IpPrefix.parse("::ffff:192.0.2.7/120", "ips[0].address");
        assertThat(prefix.isIpv4()).isTrue();
        assertThat(prefix.address()).isInstanceOf(Inet4Address.class);
        assertThat(prefix.prefixLength()).isEqualTo(24);
        assertThat(IpText.parseAddress("::ffff:192.0.2.7", "gw")).isInstanceOf(Inet4Address.class);
        assertThat(IpText.format(IpText.parseAddress("::ffff:192.0.2.7", "gw"))).isEqualTo("192.0.2.7");
    }

    @Test
    void ipv4MappedPrefixShorterThan96IsRejectedBecauseGoWouldPrintADifferentNetwork() {
        assertThatThrownBy(() -> IpPrefix.parse("::ffff:10.1.2.3/64", "routes[0].dst"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessage("""
                        routes[0].dst: invalid CIDR "::ffff:10.1.2.3/64"; \
                        an IPv4-mapped IPv6 prefix must be /96 or longer to denote an IPv4 network""");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.0/33", "10.0.0.0", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0/8",
            "010.0.0.0/8", "256.0.0.0/8", "10.0.0.0/8/8", "::/129", "1::2::3/64", "2001:db8::g/64",
            "fe80::1%eth0/64", "[::1]/128", "12345::/16", "1:2:3:4:5:6:7:8:9/64", "::1:2:3:4:5:6:7:8/64",
            "1:2:3:4:5:6:7/64", "1.2.3.4::/64", "::ffff:1.2.3/120", " 10.0.0.0/8", "10.0.0.0/8 ", "/8",
            "localhost/8", "10.0.0.0/1000", "１0.0.0.0/8"})
    void invalidCidrsAreRejectedNamingTheField(String text) {
        assertThatThrownBy(() -> IpPrefix.parse(text, "ipam.ranges[0][0].subnet"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessageStartingWith("ipam.ranges[0][0].subnet: invalid CIDR \"" + text + "\"");
    }

    @Test
    void errorCodeIsTheCallersChoice() {
        assertThatThrownBy(() -> IpPrefix.parse("10.0.0.0/33", "ips[0].address", CniError.DECODING_FAILURE))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(6))
                .hasMessage("ips[0].address: invalid CIDR \"10.0.0.0/33\"");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", "example.com", "::g", ":::", "1:",
            ":1", "fe80::1%1", "0x1.2.3.4", "1.2.3.4 "})
    void invalidAddressesAreRejectedWithoutAnyNameLookup(String text) {
        assertThatThrownBy(() -> IpText.parseAddress(text, "gateway"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessage("gateway: invalid IP address \"" + text + "\"");
    }

    @ParameterizedTest
    @CsvSource({"::, ::", "1::, 1::", "::1, ::1", "1:2:3:4:5:6:7::, 1:2:3:4:5:6:7:0", "0:0:1:0:0:0:1:0, 0:0:1::1:0",
            "1:0:0:2:0:0:0:3, 1:0:0:2::3", "1:0:0:2:0:0:3:4, 1::2:0:0:3:4", "2001:DB8::A, 2001:db8::a",
            "1:2:3:4:5:6:1.2.3.4, 1:2:3:4:5:6:102:304", "::ffff:0:0, 0.0.0.0"})
    void formatsIpv6TheWayGoDoes(String text, String printed) throws CniException {
        assertThat(IpText.format(IpText.parseAddress(text, "x"))).isEqualTo(printed);
    }

    @Test
    void containsAndFamily() throws Exception {
        IpPrefix v6 = IpPrefix.parse("2001:db8::/32", "x");
        assertThat(v6.isIpv4()).isFalse();
        assertThat(v6.bits()).isEqualTo(128);
        assertThat(v6.address()).isInstanceOf(Inet6Address.class);
        assertThat(v6.contains(IpText.parseAddress("2001:db8:ffff::1", "x"))).isTrue();
        assertThat(v6.contains(IpText.parseAddress("2001:db9::1", "x"))).isFalse();
        IpPrefix v4 = IpPrefix.parse("10.1.0.5/16", "x");
        assertThat(v4.contains(InetAddress.getByAddress(new byte[] {10, 1, (byte) 200, 1}))).isTrue();
        assertThat(v4.contains(IpText.parseAddress("::ffff:10.1.9.9", "x"))).isTrue();
        assertThat(v4.contains(IpText.parseAddress("::a01:909", "x"))).isFalse();
    }

    @Test
    void constructorRejectsOutOfRangeLengthsAndNormalizesMappedAddresses() throws Exception {
        assertThatThrownBy(() -> new IpPrefix(InetAddress.getByAddress(new byte[4]), 33))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xff;
        mapped[11] = (byte) 0xff;
        mapped[15] = 1;
        IpPrefix prefix = new IpPrefix(Inet6Address.getByAddress(null, mapped, -1), 32);
        assertThat(prefix.toString()).isEqualTo("0.0.0.1/32");
    }
}
