package io.jcni.it.meta;

import static io.jcni.it.meta.PortmapWorld.CLIENT_V4;
import static io.jcni.it.meta.PortmapWorld.CLIENT_V6;
import static io.jcni.it.meta.PortmapWorld.HOST_V4;
import static io.jcni.it.meta.PortmapWorld.HOST_V6;
import static io.jcni.it.meta.PortmapWorld.address;
import static io.jcni.it.meta.PortmapWorld.mapping;
import static io.jcni.it.meta.PortmapWorld.portmapPlugin;
import static io.jcni.it.meta.PortmapWorld.withPorts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import io.jcni.it.support.Traffic.Seen;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jcni's portmap behind jcni's bridge, run by Go libcni in a test host, with real traffic: a client namespace on the
 * host's network connects to the host's published ports (TCP and UDP, IPv4 and IPv6) and is answered by servers in
 * the container; a container reaches its own published port through the host (hairpin); the host reaches it on
 * 127.0.0.1 (with {@code snat}). The rules are read back with {@code nft -j list ruleset} in the host.
 */
class PortmapTest {
    static final String NETWORK = "jcni-pm-net";

    @TempDir
    Path tmp;

    @AutoClose
    private PortmapWorld world;

    @BeforeEach
    void world() {
        world = new PortmapWorld(tmp);
    }

    static InetAddress ip(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    @Test
    void tcpAndUdpFromAnotherNamespaceReachTheContainerThroughPublishedPortsOverBothFamilies() throws Exception {
        world.host.exec("ip", "addr", "add", "172.31.250.3/24", "dev", "up0").requireSuccess();
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(1, ""), portmapPlugin(""));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns container = world.container();
        Attachment attachment = withPorts("pm-one", mapping(8080, 80, "tcp", null), mapping(5353, 53, "udp", null),
                mapping(8443, 443, "tcp", "172.31.250.1"), mapping(9443, 443, "tcp", "fd00:250::1"));
        JsonNode result = libcni.add(conf, container.path(), attachment).answer();
        world.awaitBridgeAddresses();

        for (InetAddress host : List.of(HOST_V4, HOST_V6)) {
            InetAddress clientAddress = host == HOST_V4 ? CLIENT_V4 : CLIENT_V6;
            Seen tcp = Traffic.tcp(world.client, container, host, 8080, 80);
            assertThat(tcp.reached()).as("tcp to %s:8080", host).isTrue();
            assertThat(tcp.peer()).as("a client outside is not masqueraded").isEqualTo(clientAddress);
            Seen udp = Traffic.udp(world.client, container, host, 5353, 53);
            assertThat(udp.reached()).as("udp to %s:5353", host).isTrue();
            assertThat(udp.peer()).isEqualTo(clientAddress);
        }
        assertThat(Traffic.tcp(world.client, container, HOST_V4, 8443, 443).reached()).isTrue();
        assertThat(Traffic.tcp(world.client, container, ip("172.31.250.3"), 8443, 443).reached())
                .as("a mapping with hostIP is published on that address only").isFalse();
        assertThat(Traffic.tcp(world.client, container, ip("172.31.250.3"), 8080, 80).reached())
                .as("one without, on every address of the host").isTrue();
        assertThat(Traffic.tcp(world.client, container, HOST_V6, 9443, 443).reached()).isTrue();
        assertThat(Traffic.tcp(world.client, container, HOST_V4, 9443, 443).reached())
                .as("an IPv6 hostIP publishes nothing over IPv4").isFalse();

        String tag = ", net: " + NETWORK + ", if: eth0, id: pm-one";
        assertThat(world.rulesCommented(tag)).containsExactlyInAnyOrder("ip hostports", "ip hostports",
                "ip hostports", "ip masquerading", "ip masquerading", "ip6 hostports", "ip6 hostports",
                "ip6 hostports", "ip6 masquerading");
        assertGosLayout(true);
        String text = world.rulesetText();
        InetAddress v4 = address(result, false);
        assertThat(text).contains("tcp dport 8080 dnat to " + v4.getHostAddress() + ":80 comment")
                .contains("ip daddr 172.31.250.1 tcp dport 8443 dnat to " + v4.getHostAddress() + ":443")
                .contains("ip6 daddr fd00:250::1 tcp dport 9443 dnat to [")
                .contains("ip saddr 127.0.0.1 ip daddr " + v4.getHostAddress() + " masquerade");

        assertThat(libcni.check(conf, container.path(), attachment).succeeded()).isTrue();
        assertThat(libcni.del(conf, container.path(), attachment).succeeded()).isTrue();
        assertThat(world.rulesCommented(tag)).isEmpty();
        assertThat(world.rulesetText()).as("the last attachment's DEL removes the tables").isBlank();
        assertThat(libcni.del(conf, container.path(), attachment).succeeded()).as("DEL again").isTrue();
        assertThat(Traffic.tcp(world.client, container, HOST_V4, 8080, 80).reached()).isFalse();
    }

    /**
     * The tables and chains of Go's nftables backend (entry chains one step after dstnat), in both families, as
     * {@code nft -j} lists them.
     */
    void assertGosLayout(boolean snat) {
        for (String family : List.of("ip", "ip6")) {
            assertThat(world.objects("table")).anySatisfy(t -> {
                assertThat(t.path("family").asText()).isEqualTo(family);
                assertThat(t.path("name").asText()).isEqualTo("cni_hostport");
            });
            assertThat(world.host.exec("nft", "list", "table", family, "cni_hostport").requireSuccess().stdout())
                    .as("nft -j does not print a table's comment").contains("comment \"CNI portmap plugin\"");
            List<JsonNode> chains = world.objects("chain").stream()
                    .filter(c -> c.path("family").asText().equals(family)
                            && c.path("table").asText().equals("cni_hostport")).toList();
            List<String> names = new ArrayList<>(List.of("hostports", "hostip_hostports", "hostports_all",
                    "prerouting_after_dstnat", "output_after_dstnat"));
            if (snat) {
                names.add("masquerading");
            }
            assertThat(chains).extracting(c -> c.path("name").asText()).containsExactlyInAnyOrderElementsOf(names);
            for (JsonNode c : chains) {
                switch (c.path("name").asText()) {
                    case "prerouting_after_dstnat", "output_after_dstnat" -> {
                        assertThat(c.path("type").asText()).isEqualTo("nat");
                        assertThat(c.path("hook").asText() + "_after_dstnat").isEqualTo(c.path("name").asText());
                        assertThat(c.path("prio").asInt()).as("after every NAT chain at dstnat (CVE-2019-9946)")
                                .isEqualTo(-99);
                    }
                    case "masquerading" -> {
                        assertThat(c.path("hook").asText()).isEqualTo("postrouting");
                        assertThat(c.path("prio").asInt()).isEqualTo(100);
                    }
                    default -> assertThat(c.has("hook")).isFalse();
                }
            }
        }
    }

    @Test
    void aContainerReachesItsOwnPublishedPortAndTheHostReachesItOnLocalhost() throws Exception {
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(2, ""), portmapPlugin(""));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns container = world.container();
        Attachment attachment = withPorts("pm-hairpin", mapping(8080, 80, "tcp", null), mapping(5353, 53, "udp", null));
        JsonNode result = libcni.add(conf, container.path(), attachment).answer();
        InetAddress gateway4 = ip("10.222.2.1");
        InetAddress gateway6 = ip("fd22:2::1");
        world.awaitBridgeAddresses();

        Seen hairpin = Traffic.tcp(container, container, HOST_V4, 8080, 80);
        assertThat(hairpin.reached()).as("hairpin over IPv4").isTrue();
        assertThat(hairpin.peer()).as("masqueraded, so the answer goes back through the host").isEqualTo(gateway4);
        assertThat(Traffic.udp(container, container, HOST_V4, 5353, 53).reached()).as("hairpin, udp").isTrue();
        Seen hairpin6 = Traffic.tcp(container, container, HOST_V6, 8080, 80);
        assertThat(hairpin6.reached()).as("hairpin over IPv6").isTrue();
        assertThat(hairpin6.peer()).isEqualTo(gateway6);
        assertThat(Traffic.tcp(container, container, gateway4, 8080, 80).reached())
                .as("through the gateway address too (any local address)").isTrue();

        Seen localhost = Traffic.tcp(world.host.netns(), container, ip("127.0.0.1"), 8080, 80);
        assertThat(localhost.reached()).as("the host on 127.0.0.1").isTrue();
        assertThat(localhost.peer()).isEqualTo(gateway4);
        assertThat(world.host.kernel().sysctl("net/ipv4/conf/" + world.bridge + "/route_localnet")).isEqualTo("1");
        assertThat(Traffic.tcp(world.host.netns(), container, HOST_V4, 8080, 80).reached())
                .as("the host on its own address").isTrue();

        assertThat(address(result, false)).isNotEqualTo(gateway4);
        assertThat(libcni.del(conf, container.path(), attachment).succeeded()).isTrue();
    }

    @Test
    void withoutSnatThereIsNoMasqueradeNoRouteLocalnetAndSoNoLocalhostAccess() throws Exception {
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(3, ""), portmapPlugin(",\"snat\":false"));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns container = world.container();
        Attachment attachment = withPorts("pm-nosnat", mapping(8080, 80, "tcp", null));
        libcni.add(conf, container.path(), attachment).answer();

        assertThat(Traffic.tcp(world.client, container, HOST_V4, 8080, 80).reached()).isTrue();
        assertThat(Traffic.tcp(world.host.netns(), container, ip("127.0.0.1"), 8080, 80).reached())
                .as("localhost access needs snat (masquerade and route_localnet), as in Go").isFalse();
        assertThat(world.host.kernel().sysctl("net/ipv4/conf/" + world.bridge + "/route_localnet")).isEqualTo("0");
        assertThat(world.rulesCommented("id: pm-nosnat")).containsExactlyInAnyOrder("ip hostports", "ip6 hostports");
        assertGosLayout(false);
        assertThat(libcni.check(conf, container.path(), attachment).succeeded()).isTrue();
        assertThat(libcni.del(conf, container.path(), attachment).succeeded()).isTrue();
    }

    @Test
    void twoContainersOnOneNetworkKeepSeparateRulesAndDelOfOneLeavesTheOther() throws Exception {
        Path conf = world.conflist("pm", NETWORK, world.bridgePlugin(4, ""), portmapPlugin(""));
        LibcniDriver libcni = world.jcni("cache");
        TestNetns a = world.container();
        TestNetns b = world.container();
        Attachment first = withPorts("pm-a", mapping(8080, 80, "tcp", null));
        Attachment second = withPorts("pm-b", mapping(8081, 80, "tcp", null), mapping(8082, 81, "udp", null));
        libcni.add(conf, a.path(), first).answer();
        libcni.add(conf, b.path(), second).answer();
        world.awaitBridgeAddresses();

        assertThat(Traffic.tcp(world.client, a, HOST_V4, 8080, 80).reached()).isTrue();
        assertThat(Traffic.tcp(world.client, b, HOST_V4, 8081, 80).reached()).isTrue();
        assertThat(Traffic.udp(world.client, b, HOST_V6, 8082, 81).reached()).isTrue();
        assertThat(Traffic.tcp(world.client, b, HOST_V4, 8080, 80).reached()).as("8080 is a's").isFalse();
        assertThat(world.rulesCommented("id: pm-a")).hasSize(2 + 3);
        assertThat(world.rulesCommented("id: pm-b")).hasSize(4 + 3);

        assertThat(libcni.del(conf, a.path(), first).succeeded()).isTrue();
        assertThat(world.rulesCommented("id: pm-a")).isEmpty();
        assertThat(world.rulesCommented("id: pm-b")).hasSize(4 + 3);
        assertGosLayout(true);
        assertThat(Traffic.tcp(world.client, b, HOST_V4, 8081, 80).reached()).isTrue();
        assertThat(Traffic.tcp(world.client, a, HOST_V4, 8080, 80).reached()).isFalse();
        assertThat(libcni.check(conf, b.path(), second).succeeded()).isTrue();

        world.host.exec("nft", "flush", "chain", "ip", "cni_hostport", "hostports").requireSuccess();
        assertThat(libcni.check(conf, b.path(), second).cniError().path("msg").asText())
                .isEqualTo("missing hostport rules in \"hostports\" chain");
        assertThat(libcni.del(conf, b.path(), second).succeeded()).isTrue();
        assertThat(world.rulesetText()).isBlank();
    }
}
