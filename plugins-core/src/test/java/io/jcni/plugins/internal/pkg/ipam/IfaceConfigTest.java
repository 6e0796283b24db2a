package io.jcni.plugins.internal.pkg.ipam;

import static io.jcni.plugins.testing.Addresses.ip;
import static io.jcni.plugins.testing.Addresses.prefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.Address;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.Route;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.internal.pkg.ip.NetSysctls;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link IfaceConfig}: an IPAM result applied to a veth end in a fresh namespace, read back through netlink. */
class IfaceConfigTest {
    private Worlds w;

    @BeforeEach
    void world() throws Exception {
        w = Worlds.create();
        // eth0 in the container, its peer up in the "host" so that eth0 gets a carrier (IPv6 needs it to settle).
        w.container.nl().addVeth(LinkAttrs.named("eth0"), LinkAttrs.named("peer0").netns(w.hostNs));
        w.host.nl().setUp(w.host.nl().link("peer0").index());
        NetSysctls.containerInterface(w.container, "eth0", false);
    }

    @AfterEach
    void close() {
        if (w != null) {
            w.close();
        }
    }

    Result dualStack() throws CniException {
        return new Result(List.of(new Interface("eth0", "", w.containerNs.path().toString())),
                List.of(new IpConfig(0, prefix("10.1.0.5/24"), ip("10.1.0.1")),
                        new IpConfig(0, prefix("fd00:1::5/64"), ip("fd00:1::1"))),
                List.of(new io.jcni.spec.Route(prefix("0.0.0.0/0"), null),
                        new io.jcni.spec.Route(prefix("10.9.0.0/16"), null),
                        new io.jcni.spec.Route(prefix("192.168.0.0/16"), ip("10.1.0.254")),
                        new io.jcni.spec.Route(prefix("::/0"), null)),
                Dns.EMPTY);
    }

    static String describe(Route r) {
        return Prefixes.destination(r) + " via " + (r.gateway() == null ? "-" : IpText.format(r.gateway()));
    }

    @Test
    void addressesLinkUpAndRoutesWithTheFamilysGatewayAsGoConfiguresThem() throws Exception {
        Sysctl.write(w.containerNs, "net/ipv6/conf/lo/disable_ipv6", "1");
        Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", dualStack(), r.rollback(), r.log());
            return null;
        }).ok();

        Link eth0 = w.container.nl().link("eth0");
        assertThat(eth0.isUp()).isTrue();
        assertThat(w.container.nl().addresses(eth0.index(), null)).extracting(a -> Prefixes.of(a).toString())
                .contains("10.1.0.5/24", "fd00:1::5/64");
        // The configured address has settled; the kernel's link-local one may appear (tentative) only after the
        // settle, when the link's carrier is processed: Go's SettleAddresses has the same window.
        assertThat(w.container.nl().addresses(eth0.index(), Family.V6))
                .filteredOn(a -> !a.address().isLinkLocalAddress()).isNotEmpty()
                .noneMatch(Address::isTentative);
        assertThat(w.container.nl().routes(Family.V4)).extracting(IfaceConfigTest::describe)
                .contains("0.0.0.0/0 via 10.1.0.1", "10.9.0.0/16 via 10.1.0.1", "192.168.0.0/16 via 10.1.0.254");
        assertThat(w.container.nl().routes(Family.V6)).extracting(IfaceConfigTest::describe)
                .contains("::/0 via fd00:1::1");
        assertThat(Sysctl.read(w.containerNs, "net/ipv6/conf/lo/disable_ipv6")).as("IPv6 enabled for lo")
                .isEqualTo("0");
    }

    @Test
    void aFailedAddRestoresDisableIpv6OnLo() throws Exception {
        Sysctl.write(w.containerNs, "net/ipv6/conf/lo/disable_ipv6", "1");
        CniError error = Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", dualStack(), r.rollback(), r.log());
            throw new CniException(CniError.INTERNAL, "later failure");
        }).error();
        assertThat(error.msg()).isEqualTo("later failure");
        assertThat(Sysctl.read(w.containerNs, "net/ipv6/conf/lo/disable_ipv6")).isEqualTo("1");
    }

    @Test
    void anUnreachableGatewayNamesTheRouteAndTheKernelsReason() throws Exception {
        Result result = new Result(List.of(new Interface("eth0", "", "")),
                List.of(new IpConfig(0, prefix("10.1.0.5/24"), null)),
                List.of(new io.jcni.spec.Route(prefix("10.50.0.0/16"), ip("10.99.0.1"))), Dns.EMPTY);
        CniError error = Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", result, r.rollback(), r.log());
            return null;
        }).error();
        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).startsWith("failed to add route '10.50.0.0/16 via 10.99.0.1 dev eth0': RTM_NEWROUTE")
                .contains("ENETUNREACH");
    }

    @Test
    void anIndexNamingAnotherInterfaceIsRefusedAsInGo() throws Exception {
        Result result = new Result(List.of(new Interface("eth0", "", ""), new Interface("other", "", "")),
                List.of(new IpConfig(1, prefix("10.1.0.5/24"), null)), List.of(), Dns.EMPTY);
        CniError error = Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", result, r.rollback(), r.log());
            return null;
        }).error();
        assertThat(error.msg()).isEqualTo("failed to add IP addr 10.1.0.5/24 to \"eth0\": invalid interface index 1");
        assertThat(w.container.nl().addresses(w.container.nl().link("eth0").index(), Family.V4)).isEmpty();
    }

    @Test
    void noInterfacesIsAnError() throws Exception {
        Result result = new Result(List.of(), List.of(), List.of(), Dns.EMPTY);
        CniError error = Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", result, r.rollback(), r.log());
            return null;
        }).error();
        assertThat(error.msg()).isEqualTo("no interfaces to configure");
    }

    @Test
    void entriesWithoutAnInterfaceIndexAreSkippedAsInGo() throws Exception {
        Result result = new Result(List.of(new Interface("eth0", "", "")),
                List.of(new IpConfig(null, prefix("10.1.0.5/24"), null), new IpConfig(0, prefix("10.2.0.5/24"), null)),
                List.of(), Dns.EMPTY);
        Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", result, r.rollback(), r.log());
            return null;
        }).ok();
        assertThat(w.container.nl().addresses(w.container.nl().link("eth0").index(), Family.V4))
                .extracting(a -> Prefixes.of(a).toString()).containsExactly("10.2.0.5/24");
    }
}
