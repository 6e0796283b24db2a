package io.jcni.it.meta;

import static io.jcni.it.meta.PortmapWorld.HOST_V4;
import static io.jcni.it.meta.PortmapWorld.address;
import static io.jcni.it.meta.PortmapWorld.mapping;
import static io.jcni.it.meta.PortmapWorld.portmapPlugin;
import static io.jcni.it.meta.PortmapWorld.withPorts;
import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Attachment;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import java.net.InetAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CVE-2019-9946: portmap's rules must not override rules that are meant to decide first. Go's fix (0.7.5) appends
 * portmap's jump to the nat chains instead of inserting it on top, so a Kubernetes service rule for the same port (or
 * any rule an administrator put there) wins, and portmapped connections can be firewalled. Under nftables the rules of
 * other tables meet portmap's by hook priority; these tests put a "service" DNAT for a published port where kube-proxy
 * puts it (iptables-nft's {@code nat PREROUTING}, priority dstnat), before and after portmap's table exists, and a
 * firewall drop in the forward hook.
 */
class PortmapPrecedenceTest {
    static final String NETWORK = "jcni-pm-cve";

    @TempDir
    Path tmp;

    @AutoClose
    private PortmapWorld world;

    @BeforeEach
    void world() {
        world = new PortmapWorld(tmp);
        Prerequisites.assumeCommand("iptables");
    }

    /** A service DNAT of host port 8080 to {@code backend}:80, as kube-proxy writes one through iptables-nft. */
    void serviceRule(InetAddress backend) {
        world.host.exec("iptables", "-w", "-t", "nat", "-A", "PREROUTING", "-p", "tcp", "--dport", "8080", "-j",
                "DNAT", "--to-destination", backend.getHostAddress() + ":80").requireSuccess();
    }

    @Test
    void aServiceRuleAtDstnatWinsOverAHostPortWhicheverWasMadeFirst() throws Exception {
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(5, ""), portmapPlugin(""));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns backend = world.container();
        InetAddress backendIp = address(libcni.add(conf, backend.path(), Attachment.of("pm-backend", "eth0"))
                .answer(), false);

        // kube-proxy first (the usual order: the service exists when the pod with the host port starts)
        serviceRule(backendIp);
        TestNetns pod = world.container();
        Attachment hostPort = withPorts("pm-pod", mapping(8080, 80, "tcp", null), mapping(8081, 80, "tcp", null));
        libcni.add(conf, pod.path(), hostPort).answer();
        assertThat(Traffic.tcp(world.client, backend, HOST_V4, 8080, 80).reached())
                .as("the service rule decides first").isTrue();
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8080, 80).reached()).isFalse();
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8081, 80).reached())
                .as("a port no service claims is the pod's").isTrue();

        // portmap first: the service rule, made afterwards, still wins
        world.host.exec("iptables", "-w", "-t", "nat", "-F", "PREROUTING").requireSuccess();
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8080, 80).reached()).as("control").isTrue();
        world.host.exec("iptables", "-w", "-t", "nat", "-X").requireSuccess();
        world.host.exec("nft", "delete", "table", "ip", "nat").requireSuccess();
        serviceRule(backendIp);
        assertThat(Traffic.tcp(world.client, backend, HOST_V4, 8080, 80).reached()).isTrue();
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8080, 80).reached()).isFalse();

        assertThat(libcni.del(conf, pod.path(), hostPort).succeeded()).isTrue();
    }

    @Test
    void portmappedConnectionsCanBeFirewalledInTheForwardHook() throws Exception {
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(6, ""), portmapPlugin(""));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns pod = world.container();
        Attachment hostPort = withPorts("pm-fw", mapping(8080, 80, "tcp", null));
        InetAddress podIp = address(libcni.add(conf, pod.path(), hostPort).answer(), false);
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8080, 80).reached()).isTrue();

        world.host.exec("nft", "add table inet admin").requireSuccess();
        world.host.exec("nft", "add chain inet admin forward { type filter hook forward priority filter ; }")
                .requireSuccess();
        world.host.exec("nft", "add rule inet admin forward ip daddr " + podIp.getHostAddress()
                + " tcp dport 80 drop").requireSuccess();
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8080, 80).reached())
                .as("the firewall sees the translated connection and drops it").isFalse();
        world.host.exec("nft", "delete table inet admin").requireSuccess();
        assertThat(Traffic.tcp(world.client, pod, HOST_V4, 8080, 80).reached()).isTrue();
    }

    @Test
    void aSecondContainerClaimingAHostPortDoesNotTakeItFromTheFirst() throws Exception {
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(7, ""), portmapPlugin(""));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns first = world.container();
        TestNetns second = world.container();
        Attachment one = withPorts("pm-first", mapping(8080, 80, "tcp", null));
        Attachment two = withPorts("pm-second", mapping(8080, 80, "tcp", null));
        libcni.add(conf, first.path(), one).answer();
        libcni.add(conf, second.path(), two).answer();
        assertThat(Traffic.tcp(world.client, first, HOST_V4, 8080, 80).reached())
                .as("rules are appended: the first mapping of a port is matched first").isTrue();
        assertThat(libcni.del(conf, first.path(), one).succeeded()).isTrue();
        assertThat(Traffic.tcp(world.client, second, HOST_V4, 8080, 80).reached()).isTrue();
    }
}
