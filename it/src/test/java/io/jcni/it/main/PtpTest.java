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
import io.jcni.it.support.TestNetns;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetNs;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's ptp, exec'd by Go libcni in a test host of its own: the container's traffic all goes through the gateway,
 * which is the host end's address; the host routes to the container. Read back through netlink-ffm and {@code ip -j},
 * the host side from the test host; CHECK passes, then fails on broken state; DEL and DEL again; a failed ADD leaves
 * nothing.
 */
class PtpTest {
    static final String NETWORK = "jcni-net-ptp";

    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
    }

    static String conflist(String version, String keys, String ipam) {
        return Conflists.list(version, NETWORK, "{\"type\":\"ptp\"" + keys + ",\"ipam\":" + ipam + "}");
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void addReadsBackThenCheckBreaksAndDelCleansUp(String version) throws Exception {
        TestNetns netns = world.netns();
        Path conf = world.write("ptp.conflist", conflist(version, ",\"mtu\":1400",
                BridgeTest.hostLocal(world.dataDir(), 30, true, "{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"::/0\"}")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment attachment = Attachment.of("ptp-" + version.replace('.', '-'), "eth0");
        assertThat(world.host.kernel().sysctl("net/ipv4/ip_forward")).as("before ADD").isEqualTo("0");

        JsonNode result = driver.add(conf, netns.path(), attachment).answer();

        JsonNode ifs = result.path("interfaces");
        assertThat(ifs).hasSize(2);
        String hostVeth = ifs.get(0).path("name").asText();
        assertThat(hostVeth).matches("veth[0-9a-f]{8}");
        assertThat(ifs.get(0).path("sandbox").isMissingNode()).isTrue();
        assertThat(ifs.get(1).path("name").asText()).isEqualTo("eth0");
        assertThat(ifs.get(1).path("sandbox").asText()).isEqualTo(netns.path().toString());
        assertThat(result.path("ips")).extracting(ip -> ip.path("interface").asInt() + " "
                + ip.path("address").asText() + " " + ip.path("gateway").asText())
                .containsExactly("1 10.216.30.2/24 10.216.30.1", "1 fd16:30::2/64 fd16:30::1");

        try (NetlinkView host = world.hostView(); NetlinkView inside = NetlinkView.of(netns)) {
            Link port = host.requireLink(hostVeth);
            assertThat(port.info()).isInstanceOf(LinkInfo.Veth.class);
            assertThat(port.masterIndex()).isZero();
            assertThat(port.mtu()).isEqualTo(1400);
            assertThat(host.addresses(hostVeth, null)).containsExactlyInAnyOrder("10.216.30.1/32", "fd16:30::1/128");
            assertThat(host.routes(Family.V4)).contains("10.216.30.2/32 dev " + hostVeth);
            assertThat(host.routes(Family.V6)).contains("fd16:30::2/128 dev " + hostVeth);
            assertThat(host.sysctl("net/ipv6/conf/" + hostVeth + "/accept_ra")).isEqualTo("0");
            assertThat(host.sysctl("net/ipv4/ip_forward")).isEqualTo("1");

            Link eth0 = inside.requireLink("eth0");
            assertThat(eth0.parentIndex()).isEqualTo(port.index());
            assertThat(eth0.mtu()).isEqualTo(1400);
            assertThat(inside.addresses("eth0", null)).containsExactlyInAnyOrder("10.216.30.2/24", "fd16:30::2/64");
            assertThat(inside.routes(Family.V4)).containsExactlyInAnyOrder("0.0.0.0/0 via 10.216.30.1 dev eth0",
                    "10.216.30.0/24 via 10.216.30.1 dev eth0", "10.216.30.1/32 dev eth0");
            assertThat(inside.routes(Family.V6)).contains("::/0 via fd16:30::1 dev eth0",
                    "fd16:30::/64 via fd16:30::1 dev eth0", "fd16:30::1/128 dev eth0");
        }
        KernelState inside = netns.kernel();
        assertThat(inside.routes("eth0")).filteredOn(r -> r.family().equals("inet"))
                .extracting(IpRoute::dst, IpRoute::gateway, IpRoute::scope, IpRoute::prefsrc)
                .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple("default", "10.216.30.1", null, null),
                        org.assertj.core.groups.Tuple.tuple("10.216.30.0/24", "10.216.30.1", null, "10.216.30.2"),
                        org.assertj.core.groups.Tuple.tuple("10.216.30.1", null, "link", "10.216.30.2"));
        assertThat(world.host.kernel().addresses(hostVeth)).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.216.30.1/32");
        assertThat(world.host.kernel().routes(hostVeth)).filteredOn(r -> r.family().equals("inet"))
                .extracting(IpRoute::dst, IpRoute::scope)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("10.216.30.2", "host"));

        if (!version.equals("0.3.1")) {
            assertThat(driver.check(conf, netns.path(), attachment).answer()).isEmpty();
            netns.exec("ip", "route", "del", "10.216.30.0/24").requireSuccess();
            assertThat(msg(driver.check(conf, netns.path(), attachment)))
                    .isEqualTo("Failed to find Gateway 10.216.30.1 for interface eth0");
            netns.exec("ip", "route", "add", "10.216.30.0/24", "via", "10.216.30.1", "src", "10.216.30.2")
                    .requireSuccess();
            assertThat(driver.check(conf, netns.path(), attachment).succeeded()).isTrue();
            world.host.exec("ip", "addr", "del", "10.216.30.1/32", "dev", hostVeth).requireSuccess();
            assertThat(msg(driver.check(conf, netns.path(), attachment)))
                    .isEqualTo("ptp: host end " + hostVeth + " lacks the gateway address 10.216.30.1");
        }

        assertThat(driver.del(conf, netns.path(), attachment).answer()).isEmpty();
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.host.kernel().link(hostVeth)).isEmpty();
        assertThat(world.host.kernel().routes()).noneMatch(r -> r.dst().startsWith("10.216.30."));
        assertThat(world.reservations(NETWORK)).isEmpty();
        assertThat(driver.del(conf, netns.path(), attachment).answer()).as("DEL repeated is DEL once").isEmpty();
    }

    static String msg(DriverOutcome outcome) {
        return BridgeTest.cniMsg(outcome);
    }

    @Test
    void aFailureAfterIpamLeavesNoVethNoHostRouteNoReservation() throws Exception {
        TestNetns netns = world.netns();
        Path conf = world.write("ptp.conflist", conflist("1.0.0", "",
                BridgeTest.hostLocal(world.dataDir(), 31, false, "{\"dst\":\"10.50.0.0/16\",\"gw\":\"10.99.0.1\"}")));
        DriverOutcome outcome = world.libcniWithJcni("cache").add(conf, netns.path(), Attachment.of("bad", "eth0"));
        assertThat(msg(outcome)).startsWith("failed to add route '10.50.0.0/16 via 10.99.0.1 dev eth0'");
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.host.kernel().routes()).noneMatch(r -> r.dst().startsWith("10.216.31."));
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    @Test
    void anUnknownIpMasqBackendIsRefusedWithCode7BeforeAnything() throws Exception {
        TestNetns netns = world.netns();
        Path conf = world.write("ptp.conflist", conflist("1.0.0", ",\"ipMasq\":true,\"ipMasqBackend\":\"pf\"",
                BridgeTest.hostLocal(world.dataDir(), 32, false, "")));
        DriverOutcome outcome = world.libcniWithJcni("cache").add(conf, netns.path(), Attachment.of("masq", "eth0"));
        assertThat(outcome.cniError().path("code").asInt()).isEqualTo(7);
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    @Test
    void delRemovesTheHostEndWhenTheNamespaceFileIsGoneButTheNamespaceLives() throws Exception {
        TestNetns netns = world.netns();
        Path conf = world.write("ptp.conflist", conflist("1.0.0", "",
                BridgeTest.hostLocal(world.dataDir(), 33, false, "")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment attachment = Attachment.of("orphan", "eth0");
        String hostVeth = driver.add(conf, netns.path(), attachment).answer().path("interfaces").get(0)
                .path("name").asText();
        Path path = netns.path();
        try (NetNs held = NetNs.open(path)) {
            netns.close();
            assertThat(world.host.kernel().link(hostVeth)).isPresent();
            assertThat(driver.del(conf, path, attachment).answer()).isEmpty();
            assertThat(world.host.kernel().link(hostVeth)).isEmpty();
            assertThat(world.reservations(NETWORK)).isEmpty();
        }
    }
}
