package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.IpRoute;
import io.jcni.it.support.KernelState;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.NetlinkView;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetNs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's bridge, exec'd by Go libcni (jcni's launchers first in CNI_PATH, Debian's reference plugins after: the
 * host-local that serves it is jcni's once it ships, Go's until then) in a test host of its own, with containers of
 * its own. Every effect is read back twice, through jcni's netlink layer and through {@code ip -j}, on the host side
 * from the test host; CHECK passes, then fails once the state is broken on purpose; DEL removes the veth and the
 * reservation; DEL again succeeds.
 */
class BridgeTest {
    static final String NETWORK = "jcni-net-br";

    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
    }

    /** host-local in the test's data dir: 10.216.{n}.0/24, and fd16:{n}::/64 if {@code v6}; routes as JSON objects. */
    static String hostLocal(Path dataDir, int n, boolean v6, String routes) {
        List<String> subnets = new ArrayList<>(List.of("10.216." + n + ".0/24"));
        if (v6) {
            subnets.add("fd16:" + n + "::/64");
        }
        return Conflists.hostLocal(dataDir, subnets, routes.isEmpty() ? new String[0] : new String[] {routes});
    }

    static String conflist(String version, String bridge, String keys, String ipam) {
        return Conflists.list(version, NETWORK, Conflists.bridge(bridge, keys, ipam));
    }

    static String cniMsg(DriverOutcome outcome) {
        JsonNode cni = outcome.cniError();
        return cni.isMissingNode() ? outcome.error() : cni.path("msg").asText();
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void addReadsBackInBothReadersThenCheckBreaksAndDelCleansUp(String version) throws Exception {
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("br.conflist", conflist(version, bridge,
                ",\"isDefaultGateway\":true,\"mtu\":1400,\"hairpinMode\":true",
                hostLocal(world.dataDir(), 1, true, "{\"dst\":\"10.9.0.0/16\"}")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment attachment = Attachment.of("br-" + version.replace('.', '-'), "eth0");
        assertThat(world.host.kernel().sysctl("net/ipv4/ip_forward")).as("before ADD").isEqualTo("0");
        assertThat(world.host.kernel().sysctl("net/ipv6/conf/all/forwarding")).as("before ADD").isEqualTo("0");

        JsonNode result = driver.add(conf, netns.path(), attachment).answer();

        // ---- the result
        JsonNode ifs = result.path("interfaces");
        assertThat(ifs).hasSize(3);
        assertThat(ifs.get(0).path("name").asText()).isEqualTo(bridge);
        String hostVeth = ifs.get(1).path("name").asText();
        assertThat(hostVeth).matches("veth[0-9a-f]{8}");
        assertThat(ifs.get(2).path("name").asText()).isEqualTo("eth0");
        assertThat(ifs.get(2).path("sandbox").asText()).isEqualTo(netns.path().toString());
        assertThat(result.path("ips")).extracting(ip -> ip.path("interface").asInt() + " "
                + ip.path("address").asText() + " " + ip.path("gateway").asText())
                .containsExactly("2 10.216.1.2/24 10.216.1.1", "2 fd16:1::2/64 fd16:1::1");
        assertThat(result.path("routes")).extracting(r -> r.path("dst").asText() + " " + r.path("gw").asText())
                .containsExactly("10.9.0.0/16 ", "0.0.0.0/0 10.216.1.1", "::/0 fd16:1::1");
        assertThat(world.reservations(NETWORK)).containsExactly("10.216.1.2", "fd16:1::2");

        // ---- the kernel, through jcni's netlink layer
        try (NetlinkView host = world.hostView(); NetlinkView inside = NetlinkView.of(netns)) {
            Link br = host.requireLink(bridge);
            assertThat(br.info()).isInstanceOf(LinkInfo.Bridge.class);
            assertThat(br.isUp()).isTrue();
            assertThat(br.address().toString()).isEqualTo(ifs.get(0).path("mac").asText());
            assertThat(host.addresses(bridge, null)).containsExactlyInAnyOrder("10.216.1.1/24", "fd16:1::1/64");
            Link port = host.requireLink(hostVeth);
            assertThat(port.info()).isInstanceOf(LinkInfo.Veth.class);
            assertThat(port.masterIndex()).isEqualTo(br.index());
            assertThat(port.bridgePort().hairpin()).isTrue();
            assertThat(port.isUp()).isTrue();
            assertThat(port.mtu()).isEqualTo(1400);
            assertThat(port.address().toString()).isEqualTo(ifs.get(1).path("mac").asText());
            assertThat(host.sysctl("net/ipv6/conf/" + hostVeth + "/accept_ra")).isEqualTo("0");
            assertThat(host.sysctl("net/ipv6/conf/" + bridge + "/accept_ra")).isEqualTo("0");
            assertThat(host.sysctl("net/ipv4/ip_forward")).isEqualTo("1");
            assertThat(host.sysctl("net/ipv6/conf/all/forwarding")).isEqualTo("1");

            Link eth0 = inside.requireLink("eth0");
            assertThat(eth0.info()).isInstanceOf(LinkInfo.Veth.class);
            assertThat(eth0.parentIndex()).as("peer of the host end").isEqualTo(port.index());
            assertThat(eth0.isUp()).isTrue();
            assertThat(eth0.mtu()).isEqualTo(1400);
            assertThat(eth0.address().toString()).isEqualTo(ifs.get(2).path("mac").asText());
            assertThat(inside.addresses("eth0", null)).containsExactlyInAnyOrder("10.216.1.2/24", "fd16:1::2/64");
            assertThat(inside.routes(Family.V4)).contains("0.0.0.0/0 via 10.216.1.1 dev eth0",
                    "10.9.0.0/16 via 10.216.1.1 dev eth0", "10.216.1.0/24 dev eth0");
            assertThat(inside.routes(Family.V6)).contains("::/0 via fd16:1::1 dev eth0");
            assertThat(inside.sysctl("net/ipv6/conf/eth0/accept_dad")).isEqualTo("0");
            assertThat(inside.sysctl("net/ipv4/conf/eth0/arp_notify")).isEqualTo("1");
        }

        // ---- the same, through ip -j
        KernelState hostIp = world.host.kernel();
        IpLink portIp = hostIp.link(hostVeth).orElseThrow();
        assertThat(portIp.master()).isEqualTo(bridge);
        assertThat(portIp.kind()).isEqualTo("veth");
        assertThat(portIp.mtu()).isEqualTo(1400);
        assertThat(hostIp.addresses(bridge)).extracting(IpAddress::cidr).contains("10.216.1.1/24", "fd16:1::1/64");
        KernelState inside = netns.kernel();
        assertThat(inside.link("eth0").orElseThrow().up()).isTrue();
        assertThat(inside.addresses("eth0")).filteredOn(a -> a.scope().equals("global")).extracting(IpAddress::cidr)
                .containsExactlyInAnyOrder("10.216.1.2/24", "fd16:1::2/64");
        assertThat(inside.routes("eth0")).filteredOn(IpRoute::isDefault)
                .extracting(IpRoute::family, IpRoute::gateway)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("inet", "10.216.1.1"),
                        org.assertj.core.groups.Tuple.tuple("inet6", "fd16:1::1"));
        assertThat(inside.sysctl("net/ipv4/conf/eth0/arp_notify")).isEqualTo("1");

        // ---- CHECK passes, then fails on each broken piece, then passes again once repaired
        if (!version.equals("0.3.1")) {
            assertThat(driver.check(conf, netns.path(), attachment).answer()).isEmpty();

            netns.exec("ip", "route", "del", "default").requireSuccess();
            assertThat(cniMsg(driver.check(conf, netns.path(), attachment)))
                    .isEqualTo("Expected Route {Dst:0.0.0.0/0 GW:10.216.1.1} not found in routing table");
            netns.exec("ip", "route", "add", "default", "via", "10.216.1.1").requireSuccess();
            assertThat(driver.check(conf, netns.path(), attachment).succeeded()).isTrue();

            world.host.exec("ip", "link", "set", hostVeth, "nomaster").requireSuccess();
            assertThat(cniMsg(driver.check(conf, netns.path(), attachment)))
                    .isEqualTo("CNI veth created for bridge " + bridge + " was not found");
            world.host.exec("ip", "link", "set", hostVeth, "master", bridge).requireSuccess();
            assertThat(cniMsg(driver.check(conf, netns.path(), attachment))).as("a new port forgot hairpin")
                    .isEqualTo("Interface " + hostVeth + " hairpin mode false doesn't match configured true");
            world.host.exec("ip", "link", "set", hostVeth, "type", "bridge_slave", "hairpin", "on").requireSuccess();
            assertThat(driver.check(conf, netns.path(), attachment).succeeded()).isTrue();

            netns.exec("ip", "addr", "del", "fd16:1::2/64", "dev", "eth0").requireSuccess();
            assertThat(cniMsg(driver.check(conf, netns.path(), attachment)))
                    .isEqualTo("Failed to match addr fd16:1::2/64 on interface eth0");
        }

        // ---- DEL, and DEL again
        assertThat(driver.del(conf, netns.path(), attachment).answer()).isEmpty();
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.host.kernel().link(hostVeth)).isEmpty();
        assertThat(world.reservations(NETWORK)).isEmpty();
        assertThat(driver.del(conf, netns.path(), attachment).answer()).as("DEL repeated is DEL once").isEmpty();
        assertThat(world.host.kernel().link(bridge)).as("the bridge stays, as Go leaves it").isPresent();
    }

    @Test
    void twoNamespacesOnOneBridgeReachEachOther() throws Exception {
        TestNetns a = world.netns();
        TestNetns b = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("br.conflist", conflist("1.0.0", bridge, ",\"isGateway\":true",
                hostLocal(world.dataDir(), 2, true, "")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Prerequisites.assumeCommand("ping");
        JsonNode ra = driver.add(conf, a.path(), Attachment.of("ping-a", "eth0")).answer();
        // a holds a stale neighbour entry for the address b is about to get (as after an address is reused).
        a.exec("ip", "neigh", "replace", "10.216.2.3", "lladdr", "02:00:00:00:00:99", "dev", "eth0", "nud", "stale")
                .requireSuccess();
        JsonNode rb = driver.add(conf, b.path(), Attachment.of("ping-b", "eth0")).answer();
        String macB = rb.path("interfaces").get(2).path("mac").asText();
        // b's gratuitous ARP corrects it before any traffic flows (Go 1.1.1's announcement is lost here: see
        // GratuitousArp).
        assertThat(neighbour(a, "10.216.2.3")).contains(macB);
        String ipB = rb.path("ips").get(0).path("address").asText().replaceAll("/.*", "");
        String ip6B = rb.path("ips").get(1).path("address").asText().replaceAll("/.*", "");
        String ipA = ra.path("ips").get(0).path("address").asText().replaceAll("/.*", "");
        assertThat(ipA).isEqualTo("10.216.2.2");
        assertThat(ipB).isEqualTo("10.216.2.3");

        assertThat(a.exec("ping", "-c", "1", "-W", "2", ipB).succeeded()).as("a -> b over IPv4").isTrue();
        assertThat(b.exec("ping", "-c", "1", "-W", "2", ipA).succeeded()).as("b -> a over IPv4").isTrue();
        assertThat(a.exec("ping", "-6", "-c", "1", "-W", "2", ip6B).succeeded()).as("a -> b over IPv6").isTrue();

        driver.del(conf, a.path(), Attachment.of("ping-a", "eth0")).answer();
        driver.del(conf, b.path(), Attachment.of("ping-b", "eth0")).answer();
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    /** a's neighbour entry for {@code ip}, waiting up to a second for it to show a MAC other than the stale one. */
    static String neighbour(TestNetns netns, String ip) throws InterruptedException {
        String entry = "";
        for (int i = 0; i < 50; i++) {
            entry = netns.exec("ip", "neigh", "show", ip).stdout();
            if (!entry.contains("02:00:00:00:00:99")) {
                break;
            }
            Thread.sleep(20);
        }
        return entry;
    }

    @Test
    void layer2OnlyBringsTheContainerEndUpWithoutAddresses() throws Exception {
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("l2.conflist", conflist("1.0.0", bridge, ",\"portIsolation\":true", null));
        LibcniDriver driver = world.libcniWithJcni("cache");
        JsonNode result = driver.add(conf, netns.path(), Attachment.of("l2", "eth0")).answer();
        assertThat(result.path("ips").isMissingNode() || result.path("ips").isEmpty()).isTrue();
        assertThat(netns.kernel().link("eth0").orElseThrow().up()).isTrue();
        assertThat(netns.kernel().addresses("eth0")).noneMatch(a -> a.scope().equals("global"));
        String hostVeth = result.path("interfaces").get(1).path("name").asText();
        try (NetlinkView host = world.hostView()) {
            assertThat(host.requireLink(hostVeth).bridgePort().isolated()).as("portIsolation").isTrue();
            assertThat(host.requireLink(hostVeth).bridgePort().hairpin()).isFalse();
        }
        assertThat(world.host.exec("ip", "-d", "link", "show", hostVeth).requireSuccess().stdout())
                .contains("isolated on");
        assertThat(driver.check(conf, netns.path(), Attachment.of("l2", "eth0")).succeeded()).isTrue();
        driver.del(conf, netns.path(), Attachment.of("l2", "eth0")).answer();
        assertThat(world.host.kernel().link(hostVeth)).isEmpty();
    }

    @Test
    void disableContainerInterfaceLeavesTheContainerEndDown() throws Exception {
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("l2.conflist", conflist("1.0.0", bridge,
                ",\"disableContainerInterface\":true,\"promiscMode\":true", null));
        LibcniDriver driver = world.libcniWithJcni("cache");
        driver.add(conf, netns.path(), Attachment.of("down", "eth0")).answer();
        assertThat(netns.kernel().link("eth0").orElseThrow().up()).isFalse();
        try (NetlinkView host = world.hostView()) {
            assertThat(host.requireLink(bridge).isPromisc()).as("promiscMode").isTrue();
        }
        assertThat(world.host.kernel().link(bridge).orElseThrow().flags()).contains("PROMISC");
        assertThat(driver.check(conf, netns.path(), Attachment.of("down", "eth0")).succeeded()).isTrue();
        driver.del(conf, netns.path(), Attachment.of("down", "eth0")).answer();
    }

    @Test
    void theMacCapabilityAndCniArgsSetTheContainerMac() throws Exception {
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        String json = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"plugins\":[{\"type\":\"bridge\","
                + "\"bridge\":\"" + bridge + "\",\"capabilities\":{\"mac\":true},\"ipam\":"
                + hostLocal(world.dataDir(), 3, false, "") + "}]}";
        Path conf = world.write("mac.conflist", json);
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment viaCapability = Attachment.of("mac-cap", "eth0")
                .withCapabilityArgs("{\"mac\":\"0a:58:0a:d8:03:63\"}");
        JsonNode result = driver.add(conf, netns.path(), viaCapability).answer();
        assertThat(result.path("interfaces").get(2).path("mac").asText()).isEqualTo("0a:58:0a:d8:03:63");
        assertThat(netns.kernel().link("eth0").orElseThrow().mac()).isEqualTo("0a:58:0a:d8:03:63");
        driver.del(conf, netns.path(), viaCapability).answer();

        Attachment viaArgs = Attachment.of("mac-args", "eth1").withCniArgs("IgnoreUnknown=1;MAC=0a:58:0a:d8:03:64");
        driver.add(conf, netns.path(), viaArgs).answer();
        assertThat(netns.kernel().link("eth1").orElseThrow().mac()).isEqualTo("0a:58:0a:d8:03:64");
        driver.del(conf, netns.path(), viaArgs).answer();
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    @Test
    void delSucceedsAndReleasesIpamWhenTheNamespaceIsGone() throws Exception {
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("br.conflist", conflist("1.0.0", bridge, ",\"isGateway\":true",
                hostLocal(world.dataDir(), 4, false, "")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment attachment = Attachment.of("gone", "eth0");
        String hostVeth = driver.add(conf, netns.path(), attachment).answer().path("interfaces").get(1).path("name")
                .asText();
        Path path = netns.path();
        netns.close();
        // The kernel destroys the namespace (and the veth pair) asynchronously; DEL must succeed either way.
        assertThat(driver.del(conf, path, attachment).answer()).isEmpty();
        assertThat(world.reservations(NETWORK)).isEmpty();
        for (int i = 0; i < 100 && world.host.kernel().link(hostVeth).isPresent(); i++) {
            Thread.sleep(20);
        }
        assertThat(world.host.kernel().link(hostVeth)).isEmpty();
    }

    @Test
    void delRemovesTheHostEndWhenTheNamespaceFileIsGoneButTheNamespaceLives() throws Exception {
        TestNetns netns = world.netns();
        String bridge = world.bridge();
        Path conf = world.write("br.conflist", conflist("1.0.0", bridge, "",
                hostLocal(world.dataDir(), 5, false, "")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment attachment = Attachment.of("orphan", "eth0");
        String hostVeth = driver.add(conf, netns.path(), attachment).answer().path("interfaces").get(1).path("name")
                .asText();
        Path path = netns.path();
        // Hold the namespace by a descriptor, then remove its name: the veth pair survives the "gone" namespace.
        try (NetNs held = NetNs.open(path)) {
            netns.close();
            assertThat(world.host.kernel().link(hostVeth)).isPresent();
            assertThat(driver.del(conf, path, attachment).answer()).isEmpty();
            assertThat(world.host.kernel().link(hostVeth)).isEmpty();
            assertThat(world.reservations(NETWORK)).isEmpty();
            assertThat(held.fd()).isPositive();
        }
    }
}
