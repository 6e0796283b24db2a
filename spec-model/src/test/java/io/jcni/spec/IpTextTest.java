package io.jcni.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** IP address text as Go reads and prints it: the names of host-local's files and the text of every result. */
class IpTextTest {

    /** Expected values printed by Go 1.19's net.ParseIP(s).String() (the Go that built Debian's host-local 1.1.1). */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "nil", value = {
        "10.1.2.3, 10.1.2.3",
        "0.0.0.0, 0.0.0.0",
        "255.255.255.255, 255.255.255.255",
        "fd00::2, fd00::2",
        "FD00:0:0:0:0:0:0:2, fd00::2",
        "2001:db8:0:0:1:0:0:1, 2001:db8::1:0:0:1",
        "2001:db8:0:1:1:1:1:1, 2001:db8:0:1:1:1:1:1",
        "::, ::",
        "::1, ::1",
        "1::, 1::",
        "::ffff:10.1.2.3, 10.1.2.3",
        "::10.1.2.3, ::a01:203",
        "1:2:3:4:5:6:1.2.3.4, 1:2:3:4:5:6:102:304",
        "0:0:1:0:0:0:1:0, 0:0:1::1:0",
        "fe80::0001, fe80::1",
        "00000001::, 1::",
        "2001:DB8::A:B, 2001:db8::a:b",
        "1:2:3:4:5:6:7::, 1:2:3:4:5:6:7:0",
        "::ffff:0:0, 0.0.0.0",
        "64:ff9b::1.2.3.4, 64:ff9b::102:304",
        "1:0:0:2:0:0:0:3, 1:0:0:2::3",
        "::0:0:0, ::",
        "010.0.0.1, nil",
        "1.2.3, nil",
        "1.2.3.4.5, nil",
        "256.1.1.1, nil",
        "fe80::1%eth0, nil",
        ":::, nil",
        "1:2:3:4:5:6:7:8:9, nil",
        "1::2::3, nil",
        "abc, nil",
        "::1:2:3:4:5:6:7:8, nil",
        "1:2:3:4:5:6:7:8::, nil",
        "1.2.3.4:5, nil",
        "::1.2.3, nil",
        "1:2:3:4:5:6:7:1.2.3.4, nil",
        "0.0.0.00, nil",
        "1.2.3.04, nil",
        "12345::, nil",
        "'', nil",
    })
    void parsesAndPrintsLikeGo(String in, String goString) {
        byte[] bytes = IpText.parseBytes(in);
        assertThat(bytes == null ? null : IpText.format(bytes)).isEqualTo(goString);
        if (bytes != null) {
            assertThat(IpText.format(IpText.parseBytes(goString))).as("Go's text reads back").isEqualTo(goString);
        }
    }

    @Test
    void ipv4MappedIsIpv4AndZonesAreRefused() throws CniException {
        assertThat(IpText.parseAddress("::ffff:192.0.2.7", "gw")).isInstanceOf(Inet4Address.class);
        assertThat(IpText.format(IpText.parseAddress("::ffff:192.0.2.7", "gw"))).isEqualTo("192.0.2.7");
        assertThatThrownBy(() -> IpText.parseAddress("fe80::1%eth0", "gw"))
                .isInstanceOfSatisfying(CniException.class, e -> assertThat(e.code()).isEqualTo(7))
                .hasMessage("gw: invalid IP address \"fe80::1%eth0\"");
    }

    @Test
    void printsAnInetAddressOfEitherFamilyAndNull() throws Exception {
        assertThat(IpText.format(InetAddress.getByAddress(new byte[] {10, 0, 0, 1}))).isEqualTo("10.0.0.1");
        byte[] v6 = new byte[16];
        v6[0] = (byte) 0xfd;
        v6[15] = 1;
        assertThat(IpText.format(InetAddress.getByAddress(v6))).isEqualTo("fd00::1");
        assertThat(IpText.format((InetAddress) null)).isEqualTo("<nil>");
        assertThatThrownBy(() -> IpText.format(new byte[5])).isInstanceOf(IllegalArgumentException.class);
    }
}
