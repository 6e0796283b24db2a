package io.jcni.plugins.internal.ipam.hostlocal;

import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.ip;
import static io.jcni.plugins.internal.ipam.hostlocal.Fixtures.prefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpRange;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException.Reason;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Defaults and checks of ranges and range sets; messages as Debian's Go host-local 1.1.1 prints them. */
class RangeValidationTest {

    private static RangeSpec spec(String subnet, String start, String end, String gateway) {
        return new RangeSpec(prefix(subnet), start == null ? null : ip(start), end == null ? null : ip(end),
                gateway == null ? null : ip(gateway));
    }

    private static List<RangeSpec> one(String subnet) {
        return List.of(RangeSpec.of(prefix(subnet)));
    }

    @Test
    void defaultsAreNetworkPlusOneToBroadcastMinusOneForIpv4AndTheLastAddressForIpv6() throws Exception {
        IpRange v4 = IpRange.canonical(RangeSpec.of(prefix("10.1.0.0/16")));
        assertThat(v4).hasToString("10.1.0.1-10.1.255.254");
        assertThat(v4.gateway()).hasToString("10.1.0.1");
        assertThat(v4.size()).isEqualTo(65534);
        IpRange v6 = IpRange.canonical(RangeSpec.of(prefix("fd00::/120")));
        assertThat(v6).hasToString("fd00::1-fd00::ff");
        assertThat(v6.gateway()).hasToString("fd00::1");
        IpRange big = IpRange.canonical(RangeSpec.of(prefix("2001:db8::/64")));
        assertThat(big.size()).isEqualTo(Long.MAX_VALUE);
        IpRange explicit = IpRange.canonical(spec("10.1.0.0/24", "10.1.0.100", "10.1.0.200", "10.1.0.254"));
        assertThat(explicit).isEqualTo(new IpRange(prefix("10.1.0.0/24"), ip("10.1.0.100"), ip("10.1.0.200"),
                ip("10.1.0.254")));
        assertThat(explicit.contains(ip("10.1.0.100"))).isTrue();
        assertThat(explicit.contains(ip("10.1.0.201"))).isFalse();
        assertThat(explicit.contains(ip("::ffff:10.1.0.150"))).isTrue();
    }

    @Test
    void rangeErrorsReadAsGos() {
        assertInvalid(one("10.0.0.0/31"), "Network 10.0.0.0/31 too small to allocate from");
        assertInvalid(one("fd00::/127"), "Network fd00::/127 too small to allocate from");
        assertInvalid(one("10.0.0.1/24"),
                "Network has host bits set. For a subnet mask of length 24 the network address is 10.0.0.0");
        assertInvalid(List.of(spec("10.0.0.0/24", "10.0.1.5", null, null)),
                "RangeStart 10.0.1.5 not in network 10.0.0.0/24");
        assertInvalid(List.of(spec("10.0.0.0/24", "10.0.0.50", "10.0.0.40", null)),
                "RangeStart 10.0.0.50 not in network 10.0.0.0/24");
        assertInvalid(List.of(spec("10.0.0.0/24", null, "10.0.0.0", null)),
                "RangeEnd 10.0.0.0 not in network 10.0.0.0/24");
        assertInvalid(List.of(spec("10.0.0.0/24", "fd00::1", null, null)),
                "RangeStart fd00::1 not in network 10.0.0.0/24");
        // Checked by newer upstream releases; 1.1.1 let it through into the result.
        assertInvalid(List.of(spec("10.0.0.0/24", null, null, "10.9.9.9")), "gateway 10.9.9.9 not in network 10.0.0.0/24");
    }

    @Test
    void rangeSetErrorsReadAsGos() {
        assertInvalid(List.of(RangeSpec.of(prefix("10.0.0.0/24")), RangeSpec.of(prefix("10.0.0.0/25"))),
                "subnets 10.0.0.1-10.0.0.254 and 10.0.0.1-10.0.0.126 overlap");
        assertInvalid(List.of(RangeSpec.of(prefix("10.0.0.0/24")), RangeSpec.of(prefix("fd00::/64"))),
                "mixed address families");
        assertInvalid(List.of(), "empty range set");
    }

    @Test
    void configLevelErrorsNameTheRangeSet() throws Exception {
        assertThatThrownBy(() -> RangeSet.canonicalAll(List.of(one("10.0.0.0/24"), one("10.0.1.0/31"))))
                .hasMessage("invalid range set 1: Network 10.0.1.0/31 too small to allocate from")
                .extracting(e -> ((IpamException) e).reason()).isEqualTo(Reason.INVALID_RANGE);
        assertThatThrownBy(() -> RangeSet.canonicalAll(List.of(one("10.0.0.0/24"), one("10.0.0.128/25"))))
                .hasMessage("range set 0 overlaps with 1");
        assertThatThrownBy(() -> RangeSet.canonicalAll(List.of(List.of())))
                .hasMessage("invalid range set 0: empty range set");
        assertThatThrownBy(() -> RangeSet.canonicalAll(List.of())).hasMessage("no IP ranges specified");
        // Different families never overlap; a range set prints as Go prints it.
        List<RangeSet> ok = RangeSet.canonicalAll(List.of(
                List.of(RangeSpec.of(prefix("10.0.0.0/24")), RangeSpec.of(prefix("10.0.2.0/24"))), one("fd00::/64")));
        assertThat(ok.getFirst()).hasToString("10.0.0.1-10.0.0.254,10.0.2.1-10.0.2.254");
        assertThat(ok.get(1).isV6()).isTrue();
    }

    private static void assertInvalid(List<RangeSpec> specs, String message) {
        assertThatThrownBy(() -> RangeSet.canonical(specs))
                .isInstanceOf(IpamException.class)
                .hasMessage(message)
                .extracting(e -> ((IpamException) e).reason()).isEqualTo(Reason.INVALID_RANGE);
    }
}
