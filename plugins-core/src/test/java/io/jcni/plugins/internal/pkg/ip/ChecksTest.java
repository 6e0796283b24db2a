package io.jcni.plugins.internal.pkg.ip;

import static io.jcni.plugins.testing.Addresses.ip;
import static io.jcni.plugins.testing.Addresses.prefix;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.Route;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniException;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Result;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Checks} pass on what {@link IfaceConfig} configured and name what was broken afterwards. */
class ChecksTest {
    private Worlds w;
    private Result result;
    private String sandbox;

    @BeforeEach
    void world() throws Exception {
        w = Worlds.create();
        sandbox = w.containerNs.path().toString();
        w.container.nl().addVeth(LinkAttrs.named("eth0").address(MacAddress.parse("0a:00:00:00:00:05")),
                LinkAttrs.named("peer0").netns(w.hostNs));
        w.host.nl().setUp(w.host.nl().link("peer0").index());
        NetSysctls.containerInterface(w.container, "eth0", false);
        result = new Result(List.of(new Interface("eth0", "0A:00:00:00:00:05", sandbox)),
                List.of(new IpConfig(0, prefix("10.1.0.5/24"), ip("10.1.0.1")),
                        new IpConfig(0, prefix("fd00:1::5/64"), ip("fd00:1::1"))),
                List.of(new io.jcni.spec.Route(prefix("0.0.0.0/0"), null),
                        new io.jcni.spec.Route(prefix("10.9.0.0/16"), null),
                        new io.jcni.spec.Route(prefix("192.168.0.0/16"), ip("10.1.0.254"))),
                Dns.EMPTY);
        Worlds.add(r -> {
            IfaceConfig.configure(w.container, "eth0", result, r.rollback(), r.log());
            return null;
        }).ok();
    }

    @AfterEach
    void close() {
        if (w != null) {
            w.close();
        }
    }

    /** The CNI error's msg (the exception's message appends the details). */
    static org.assertj.core.api.ThrowingConsumer<Throwable> msg(String expected) {
        return e -> assertThat(((CniException) e).error().msg()).isEqualTo(expected);
    }

    void checkAll() throws CniException {
        Checks.containerVeth(w.container, PrevResults.containerInterface(result, "eth0", sandbox), "eth0", sandbox);
        Checks.interfaceIps(w.container, "eth0", result.ips());
        Checks.routes(w.container, result.routes(), Gateways.of(result.ips()));
    }

    @Test
    void passesOnWhatWasConfiguredIncludingRoutesWhoseGatewayCameFromTheAddresses() {
        assertThatCode(this::checkAll).doesNotThrowAnyException();
    }

    @Test
    void aMissingAddressIsNamed() {
        int eth0 = w.container.nl().link("eth0").index();
        w.container.nl().deleteAddress(eth0, ip("fd00:1::5"), 64);
        assertThatThrownBy(this::checkAll).isInstanceOf(CniException.class)
                .satisfies(msg("Failed to match addr fd00:1::5/64 on interface eth0"));
    }

    @Test
    void aMissingRouteIsNamed() {
        w.container.nl().deleteRoute(Prefixes.routeTo(prefix("192.168.0.0/16")));
        assertThatThrownBy(this::checkAll).isInstanceOf(CniException.class)
                .satisfies(msg("Expected Route {Dst:192.168.0.0/16 GW:10.1.0.254} not found in routing table"));
    }

    @Test
    void aRouteViaAnotherGatewayDoesNotCount() {
        w.container.nl().replaceRoute(Prefixes.routeTo(prefix("192.168.0.0/16"))
                .via(ip("10.1.0.253")).dev(w.container.nl().link("eth0").index()));
        assertThatThrownBy(this::checkAll).isInstanceOf(CniException.class)
                .hasMessageContaining("192.168.0.0/16");
    }

    @Test
    void aMissingDefaultRouteIsNamed() {
        w.container.nl().deleteRoute(Prefixes.routeTo(prefix("0.0.0.0/0")));
        assertThatThrownBy(this::checkAll).isInstanceOf(CniException.class)
                .satisfies(msg("Expected Route {Dst:0.0.0.0/0 GW:<nil>} not found in routing table"));
    }

    @Test
    void anotherMacIsNamed() {
        w.container.nl().setAddress(w.container.nl().link("eth0").index(), MacAddress.parse("0a:00:00:00:00:06"));
        assertThatThrownBy(this::checkAll).isInstanceOf(CniException.class)
                .satisfies(msg("Interface eth0 Mac 0A:00:00:00:00:05 doesn't match container Mac: 0a:00:00:00:00:06"));
    }

    @Test
    void aMissingInterfaceOrSandboxMismatchIsNamed() {
        w.container.nl().deleteLink("eth0");
        assertThatThrownBy(this::checkAll).isInstanceOf(CniException.class)
                .satisfies(msg("Container Interface name in prevResult: eth0 not found"));
        assertThatThrownBy(() -> Checks.containerVeth(w.container, Optional.empty(), "eth0", "/elsewhere"))
                .isInstanceOf(CniException.class)
                .satisfies(msg("Sandbox in prevResult doesn't match configured netns: /elsewhere"));
        assertThat(PrevResults.containerInterface(result, "eth0", "/elsewhere")).isEmpty();
    }

    @Test
    void anInterfaceThatIsNoVethIsRefused() throws Exception {
        w.container.nl().deleteLink("eth0");
        w.container.nl().addBridge(LinkAttrs.named("eth0"));
        assertThatThrownBy(() -> Checks.containerVeth(w.container,
                PrevResults.containerInterface(result, "eth0", sandbox), "eth0", sandbox))
                .isInstanceOf(CniException.class).satisfies(msg("Error: Container interface eth0 not of type veth"));
    }
}
