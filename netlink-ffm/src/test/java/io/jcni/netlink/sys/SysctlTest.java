package io.jcni.netlink.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.Kernel;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.TestNamespace;
import org.junit.jupiter.api.Test;

/** Sysctls as a given namespace sees them, cross-checked with {@code ip netns exec ... sysctl}. */
class SysctlTest {

    @Test
    void writesInsideANamespaceWithoutTouchingTheHost() {
        try (TestNamespace t = TestNamespace.create()) {
            String host = Sysctl.read("net.ipv4.conf.all.forwarding");
            String flipped = host.equals("1") ? "0" : "1";
            Sysctl.write(t.ns, "net.ipv4.conf.all.forwarding", flipped);
            assertThat(Sysctl.read(t.ns, "net.ipv4.conf.all.forwarding")).isEqualTo(flipped);
            assertThat(Kernel.sh("ip", "netns", "exec", t.name, "sysctl", "-n", "net.ipv4.conf.all.forwarding")
                    .strip()).isEqualTo(flipped);
            assertThat(Sysctl.read("net.ipv4.conf.all.forwarding")).isEqualTo(host);
        }
    }

    @Test
    void perInterfaceKeysAndSlashFormForNamesWithDots() {
        try (TestNamespace t = TestNamespace.create()) {
            t.vethPair("v0.x", "v1");
            Sysctl.write(t.ns, "net/ipv6/conf/v0.x/accept_ra", "0");
            assertThat(Sysctl.read(t.ns, "net/ipv6/conf/v0.x/accept_ra")).isEqualTo("0");
            assertThat(Kernel.sh("ip", "netns", "exec", t.name, "cat", "/proc/sys/net/ipv6/conf/v0.x/accept_ra")
                    .strip()).isEqualTo("0");
            Sysctl.write(t.ns, "net.ipv4.conf.v1.arp_notify", "1");
            assertThat(Sysctl.read(t.ns, "net.ipv4.conf.v1.arp_notify")).isEqualTo("1");
        }
    }

    /** Regression: a first read of one byte (Files.readString on a size-0 file) made /proc/sys answer EOF after it. */
    @Test
    void readsMultiCharacterValuesWhole() {
        try (TestNamespace t = TestNamespace.create()) {
            String range = Sysctl.read(t.ns, "net.ipv4.ip_local_port_range");
            assertThat(range).matches("\\d+\\s+\\d+").isEqualTo(Kernel.sh("ip", "netns", "exec", t.name, "cat",
                    "/proc/sys/net/ipv4/ip_local_port_range").stripTrailing());
            Sysctl.write(t.ns, "net.ipv4.ip_default_ttl", "123");
            assertThat(Sysctl.read(t.ns, "net.ipv4.ip_default_ttl")).isEqualTo("123");
        }
    }

    @Test
    void reportsMissingKeysInvalidValuesAndKeysOutsideNet() {
        try (TestNamespace t = TestNamespace.create()) {
            assertThatThrownBy(() -> Sysctl.read(t.ns, "net.ipv4.conf.nosuchlink.forwarding"))
                    .isInstanceOfSatisfying(KernelException.class, e -> {
                        assertThat(e.isNotFound()).isTrue();
                        assertThat(e.getMessage()).isEqualTo(
                                "read sysctl net.ipv4.conf.nosuchlink.forwarding: ENOENT (No such file or directory)");
                    });
            assertThatThrownBy(() -> Sysctl.write(t.ns, "net.ipv4.ip_forward", "yes"))
                    .as("a sysctl failure is no netlink failure").isExactlyInstanceOf(KernelException.class)
                    .isInstanceOfSatisfying(KernelException.class,
                            e -> assertThat(e.kind()).isEqualTo(KernelException.Kind.INVALID));
        }
        assertThatThrownBy(() -> Sysctl.read("kernel.hostname")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Sysctl.read("net/../kernel/hostname")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Sysctl.read("net..ipv4")).isInstanceOf(IllegalArgumentException.class);
    }
}
