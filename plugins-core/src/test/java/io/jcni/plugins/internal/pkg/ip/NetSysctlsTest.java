package io.jcni.plugins.internal.pkg.ip;

import static io.jcni.plugins.testing.Addresses.ip;
import static io.jcni.plugins.testing.Addresses.prefix;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.IpConfig;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link NetSysctls} in fresh namespaces: Go's values, and the undo of what outlives a failed ADD. */
class NetSysctlsTest {
    static final List<IpConfig> V4 = List.of(new IpConfig(0, prefix("10.9.0.2/24"), ip("10.9.0.1")));
    static final List<IpConfig> DUAL_STACK = List.of(V4.get(0),
            new IpConfig(0, prefix("fd09::2/64"), ip("fd09::1")));

    private Worlds w;

    @BeforeEach
    void world() throws Exception {
        w = Worlds.create();
    }

    @AfterEach
    void close() {
        if (w != null) {
            w.close();
        }
    }

    String host(String key) {
        return Sysctl.read(w.hostNs, key);
    }

    @Test
    void forwardingIsEnabledPerFamilyAndRestoredWhenTheAddFails() throws Exception {
        Sysctl.write(w.hostNs, NetSysctls.IPV4_FORWARD, "0");
        Sysctl.write(w.hostNs, NetSysctls.IPV6_FORWARD, "0");
        Worlds.add(r -> {
            NetSysctls.enableForwarding(w.host, V4, r.rollback());
            return null;
        }).ok();
        assertThat(host(NetSysctls.IPV4_FORWARD)).isEqualTo("1");
        assertThat(host(NetSysctls.IPV6_FORWARD)).as("no IPv6 address, no IPv6 forwarding").isEqualTo("0");

        Sysctl.write(w.hostNs, NetSysctls.IPV4_FORWARD, "0");
        CniError error = Worlds.add(r -> {
            NetSysctls.enableForwarding(w.host, DUAL_STACK, r.rollback());
            assertThat(host(NetSysctls.IPV4_FORWARD)).isEqualTo("1");
            assertThat(host(NetSysctls.IPV6_FORWARD)).isEqualTo("1");
            throw new CniException(CniError.INTERNAL, "later failure");
        }).error();
        assertThat(error.msg()).isEqualTo("later failure");
        assertThat(host(NetSysctls.IPV4_FORWARD)).isEqualTo("0");
        assertThat(host(NetSysctls.IPV6_FORWARD)).isEqualTo("0");
    }

    @Test
    void forwardingAlreadyOnIsLeftOnWhenTheAddFails() throws Exception {
        Sysctl.write(w.hostNs, NetSysctls.IPV4_FORWARD, "1");
        Worlds.add(r -> {
            NetSysctls.enableForwarding(w.host, V4, r.rollback());
            throw new CniException(CniError.INTERNAL, "later failure");
        }).error();
        assertThat(host(NetSysctls.IPV4_FORWARD)).isEqualTo("1");
    }

    @Test
    void acceptRaOffOnAnExistingLinkIsRestoredWhenTheAddFails() throws Exception {
        w.host.nl().addBridge(LinkAttrs.named("br9"));
        Sysctl.write(w.hostNs, NetSysctls.acceptRa("br9"), "2");
        Worlds.add(r -> {
            NetSysctls.disableAcceptRa(w.host, "br9", r.rollback());
            assertThat(host(NetSysctls.acceptRa("br9"))).isEqualTo("0");
            throw new CniException(CniError.INTERNAL, "later failure");
        }).error();
        assertThat(host(NetSysctls.acceptRa("br9"))).isEqualTo("2");
        Worlds.add(r -> {
            NetSysctls.disableAcceptRa(w.host, "br9", r.rollback());
            return null;
        }).ok();
        assertThat(host(NetSysctls.acceptRa("br9"))).isEqualTo("0");
    }

    @Test
    void containerInterfaceGetsGosDadAndArpNotifySettings() throws Exception {
        w.container.nl().addVeth(LinkAttrs.named("eth0"), LinkAttrs.named("eth1"));
        NetSysctls.containerInterface(w.container, "eth0", false);
        NetSysctls.containerInterface(w.container, "eth1", true);
        assertThat(Sysctl.read(w.containerNs, "net/ipv6/conf/eth0/accept_dad")).isEqualTo("0");
        assertThat(Sysctl.read(w.containerNs, "net/ipv4/conf/eth0/arp_notify")).isEqualTo("1");
        assertThat(Sysctl.read(w.containerNs, "net/ipv6/conf/eth1/accept_dad")).isEqualTo("1");
        assertThat(Sysctl.read(w.containerNs, "net/ipv6/conf/eth1/enhanced_dad")).isEqualTo("1");
        assertThat(Sysctl.read(w.containerNs, "net/ipv4/conf/eth1/arp_notify")).isEqualTo("1");
    }
}
