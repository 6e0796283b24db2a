package io.jcni.plugins.internal.pkg.ipam.ranges;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** host-local's 128-bit address arithmetic; its text is spec-model's {@code IpText} (tested there). */
class IpAddressTest {

    @Test
    void roundTripsThroughTextBytesAndInetAddress() throws Exception {
        Random rnd = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            IpAddress ip = switch (i % 3) {
                case 0 -> IpAddress.v4(rnd.nextInt());
                // Sparse groups make zero runs (and their ties) common.
                case 1 -> IpAddress.v6(sparse(rnd), sparse(rnd));
                default -> IpAddress.v6(rnd.nextLong(), rnd.nextLong());
            };
            assertThat(IpAddress.parse(ip.toString())).contains(ip);
            assertThat(IpAddress.ofBytes(ip.toBytes())).contains(ip);
            assertThat(IpAddress.of(ip.toInetAddress())).isEqualTo(ip);
            // Java prints IPv6 uncompressed; both must name the same address.
            assertThat(IpAddress.of(InetAddress.ofLiteral(ip.toInetAddress().getHostAddress()))).isEqualTo(ip);
        }
    }

    private static long sparse(Random rnd) {
        long v = 0;
        for (int g = 0; g < 4; g++) {
            v = (v << 16) | (rnd.nextInt(3) == 0 ? rnd.nextInt(0x10000) : 0);
        }
        return v;
    }

    @Test
    void arithmeticCarriesAcross64Bits() {
        IpAddress a = IpAddress.parse("2001:db8::ffff:ffff:ffff:ffff").orElseThrow();
        assertThat(a.next().toString()).isEqualTo("2001:db8:0:1::");
        assertThat(IpAddress.distance(a, a.next())).isEqualTo(1);
        assertThat(IpAddress.distance(IpAddress.parse("::").orElseThrow(), a)).isEqualTo(Long.MAX_VALUE);
        assertThat(IpAddress.parse("10.0.0.255").orElseThrow().next().toString()).isEqualTo("10.0.1.0");
        assertThat(IpAddress.parse("10.1.2.3").orElseThrow().masked(16).toString()).isEqualTo("10.1.0.0");
        assertThat(IpAddress.parse("10.1.2.3").orElseThrow().lastInPrefix(16).toString()).isEqualTo("10.1.255.255");
        assertThat(IpAddress.parse("fd00::1:2:3").orElseThrow().lastInPrefix(112).toString()).isEqualTo("fd00::1:2:ffff");
        assertThat(IpAddress.parse("fd00::1:2:3").orElseThrow().masked(72).toString()).isEqualTo("fd00::");
    }

    @Test
    void ordersV4BeforeV6ThenNumerically() {
        assertThat(IpAddress.parse("255.255.255.255").orElseThrow())
                .isLessThan(IpAddress.parse("::").orElseThrow());
        assertThat(IpAddress.parse("10.0.0.9").orElseThrow()).isLessThan(IpAddress.parse("10.0.0.10").orElseThrow());
        assertThat(IpAddress.parse("8000::").orElseThrow()).isGreaterThan(IpAddress.parse("7fff::").orElseThrow());
    }
}
