package io.jcni.plugins.internal.pkg.ip;

import static io.jcni.plugins.testing.Addresses.ip;
import static io.jcni.plugins.testing.Addresses.prefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.Address;
import io.jcni.netlink.Route;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Result;
import java.net.Inet6Address;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The helpers that need no kernel: prevResult lookups, gateways, prefixes, sysctl keys. */
class SmallHelpersTest {

    @Test
    void prevResultLookupsMatchNameAndSandboxAsGoDoes() throws Exception {
        Result result = new Result(List.of(new Interface("cni0", "aa:bb:cc:dd:ee:01", ""),
                new Interface("veth1234abcd", "aa:bb:cc:dd:ee:02", ""),
                new Interface("eth0", "aa:bb:cc:dd:ee:03", "/var/run/netns/a"),
                new Interface("eth0", "aa:bb:cc:dd:ee:04", "/var/run/netns/b")), List.of(), List.of(), Dns.EMPTY);
        assertThat(PrevResults.containerInterface(result, "eth0", "/var/run/netns/b")).get()
                .extracting(Interface::mac).isEqualTo("aa:bb:cc:dd:ee:04");
        assertThat(PrevResults.containerInterface(result, "eth1", "/var/run/netns/a")).isEmpty();
        assertThat(PrevResults.hostInterface(result, "cni0")).get().extracting(Interface::mac)
                .isEqualTo("aa:bb:cc:dd:ee:01");
        assertThat(PrevResults.hostInterface(result, "eth0")).as("container interfaces are not host ones").isEmpty();
        assertThat(PrevResults.indexOf(result.interfaces(), "eth0", "/var/run/netns/a")).isEqualTo(2);
        assertThat(PrevResults.indexOf(result.interfaces(), "nope", "")).isEqualTo(-1);
    }

    @Test
    void routesWithoutGatewayUseTheFirstGatewayOfTheirFamily() throws Exception {
        var gateways = Gateways.of(List.of(new IpConfig(0, prefix("10.1.0.5/24"), null),
                new IpConfig(0, prefix("10.2.0.5/24"), ip("10.2.0.1")),
                new IpConfig(0, prefix("10.3.0.5/24"), ip("10.3.0.1")),
                new IpConfig(0, prefix("fd00::5/64"), ip("fd00::1"))));
        assertThat(gateways.v4()).isEqualTo(ip("10.2.0.1"));
        assertThat(gateways.v6()).isEqualTo(ip("fd00::1"));
        assertThat(gateways.forDestination(prefix("0.0.0.0/0"))).isEqualTo(ip("10.2.0.1"));
        assertThat(gateways.forDestination(prefix("::/0"))).isEqualTo(ip("fd00::1"));
        assertThat(Gateways.of(List.of()).forDestination(prefix("::/0"))).isNull();
    }

    @Test
    void prefixesCrossTheNetlinkEdgeAsAnAddressAndALength() throws Exception {
        Route route = Prefixes.routeTo(prefix("10.1.2.3/16"));
        assertThat(route.destination()).as("routes take the network").isEqualTo(ip("10.1.0.0"));
        assertThat(route.destinationLength()).isEqualTo(16);
        assertThat(Prefixes.destination(route)).isEqualTo(prefix("10.1.0.0/16"));
        assertThat(Prefixes.hostRoute(ip("fd00::5")).destinationLength()).isEqualTo(128);
        Address kernel = Address.of(3, ip("10.1.2.3"), 16);
        assertThat(Prefixes.of(kernel)).as("host bits kept").isEqualTo(prefix("10.1.2.3/16"));
        Address mapped = Address.of(3, Inet6Address.getByAddress(null, new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1,
            10, 1, 2, 3}, -1), 120);
        assertThat(Prefixes.of(mapped)).as("IPv4-mapped, as Go's IPNet reads it").isEqualTo(prefix("10.1.2.3/24"));
    }

    @Test
    void sysctlKeysUseSlashesSoDottedInterfaceNamesWork() {
        assertThat(NetSysctls.acceptRa("eth0.100")).isEqualTo("net/ipv6/conf/eth0.100/accept_ra");
        assertThat(NetSysctls.disableIpv6("lo")).isEqualTo("net/ipv6/conf/lo/disable_ipv6");
    }
}
