package io.jcni.plugins.internal.pkg.ns;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.internal.pkg.ns.Namespace.SysctlWrite;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Namespace}: opening container namespaces by path and sysctl exchanges inside one. */
class NamespaceTest {
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

    @Test
    void exchangeReturnsPreviousValuesAndSkipsUnchangedAndMissingOptionalKeys() {
        Sysctl.write(w.containerNs, "net/ipv4/ip_forward", "0");
        Sysctl.write(w.hostNs, "net/ipv4/ip_forward", "0");
        List<String> previous = w.container.exchangeSysctls(List.of(
                new SysctlWrite("net/ipv4/ip_forward", "1", true),
                new SysctlWrite("net/ipv4/conf/lo/arp_notify", "0", true),
                new SysctlWrite("net/ipv6/conf/nosuchlink/accept_ra", "0", false)));
        assertThat(previous).isEqualTo(Arrays.asList("0", null, null));
        assertThat(Sysctl.read(w.containerNs, "net/ipv4/ip_forward")).isEqualTo("1");
        assertThat(Sysctl.read(w.hostNs, "net/ipv4/ip_forward")).as("another namespace's value").isEqualTo("0");
    }

    @Test
    void exchangeIsAllOrNothingWhenARequiredKeyIsMissing() {
        Sysctl.write(w.containerNs, "net/ipv4/ip_forward", "0");
        assertThatThrownBy(() -> w.container.exchangeSysctls(List.of(
                new SysctlWrite("net/ipv4/ip_forward", "1", true),
                new SysctlWrite("net/ipv6/conf/nosuchlink/accept_ra", "0", true))))
                .isExactlyInstanceOf(KernelException.class).hasMessageContaining("nosuchlink");
        assertThat(Sysctl.read(w.containerNs, "net/ipv4/ip_forward")).as("restored").isEqualTo("0");
    }

    @Test
    void aMissingContainerPathIsEmptyForDelAndCode8ForAdd() throws Exception {
        assertThat(Namespace.containerIfPresent("/var/run/netns/jcni-net-does-not-exist")).isEmpty();
        assertThat(Namespace.containerIfPresent("")).isEmpty();
        assertThatThrownBy(() -> Namespace.container("/var/run/netns/jcni-net-does-not-exist"))
                .isInstanceOf(CniException.class)
                .satisfies(e -> assertThat(((CniException) e).code()).isEqualTo(CniError.INVALID_NETNS))
                .hasMessageContaining("failed to open netns \"/var/run/netns/jcni-net-does-not-exist\"");
    }

    @Test
    void aFileThatIsNoNetworkNamespaceIsCode8() {
        assertThatThrownBy(() -> Namespace.containerIfPresent("/proc/self/ns/uts"))
                .isInstanceOf(CniException.class)
                .satisfies(e -> assertThat(((CniException) e).code()).isEqualTo(CniError.INVALID_NETNS))
                .hasMessageContaining("/proc/self/ns/uts");
        assertThatThrownBy(() -> Namespace.containerIfPresent("/etc/hostname"))
                .isInstanceOf(CniException.class)
                .satisfies(e -> assertThat(((CniException) e).code()).isEqualTo(CniError.INVALID_NETNS));
    }

    @Test
    void aContainerOpenedByPathReopensAfterClose() throws Exception {
        String path = "/proc/" + ProcessHandle.current().pid() + "/fd/" + w.containerNs.fd();
        Namespace ns = Namespace.container(path);
        int lo = ns.nl().link("lo").index();
        ns.close();
        try (Namespace again = ns.reopen()) {
            assertThat(again.nl().link("lo").index()).isEqualTo(lo);
            assertThat(again.netns().isSame(w.containerNs)).isTrue();
            assertThat(again.isHost()).isFalse();
        }
        assertThat(Namespace.host().isHost()).isTrue();
    }
}
