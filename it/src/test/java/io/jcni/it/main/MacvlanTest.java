package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Locations;
import io.jcni.it.support.NetlinkView;
import io.jcni.it.support.Prerequisites;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacvlanMode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's macvlan launcher next to Debian's Go macvlan 1.1.1, each in its own {@link Topology} (the plugin runs in a
 * test "host" namespace whose veth end {@code mst0} is the master; the other end, in a peer namespace, is the
 * gateway). IPAM is Go's host-local with a data dir of the test's. Kernel state is read with {@code ip -j} and with
 * jcni's netlink layer; reachability is a TCP exchange between the container and the peer.
 */
class MacvlanTest {
    static final String TAG = "tun";
    static final String MASTER = "mst0";

    @TempDir
    Path tmp;

    @AutoClose
    private Topology ours;
    @AutoClose
    private Topology theirs;

    @BeforeEach
    void worlds() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeReferencePlugins("macvlan", "host-local");
        Prerequisites.assumeDistPlugins("macvlan");
        ours = Topology.create(TAG, MASTER);
        theirs = Topology.create(TAG, MASTER);
    }

    static CniExec ourMacvlan(Topology world) {
        return world.jcniPlugin("macvlan");
    }

    static CniExec goMacvlan(Topology world) {
        return world.goPlugin("macvlan");
    }

    String conf(String dataDir, String fields) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-mv\",\"type\":\"macvlan\"" + fields
                + ",\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"" + tmp.resolve(dataDir) + "\",\"ranges\":[[{"
                + "\"subnet\":\"10.77.1.0/24\",\"rangeStart\":\"10.77.1.10\",\"gateway\":\"10.77.1.1\"}]],"
                + "\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"10.88.0.0/16\",\"gw\":\"10.77.1.1\"}]},"
                + "\"dns\":{\"nameservers\":[\"10.77.1.53\"]}}";
    }

    static String noRoutes(String conf) {
        return conf.replace(",\"routes\":[{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"10.88.0.0/16\",\"gw\":\"10.77.1.1\"}]",
                "");
    }

    static String withPrev(String conf, JsonNode result) {
        return conf.substring(0, conf.length() - 1) + ",\"prevResult\":" + result + "}";
    }

    static List<String> allocations(Path dataDir) throws IOException {
        return HostLocalFiles.reservations(dataDir, "jcni-tun-mv");
    }

    @ParameterizedTest(name = "mode {0}")
    @ValueSource(strings = {"bridge", "private", "vepa", "passthru"})
    void sameResultAsGoKernelStateReachabilityCheckAndDel(String mode) throws Exception {
        String fields = ",\"master\":\"" + MASTER + "\",\"mode\":\"" + mode + "\",\"mtu\":1400";
        String ourConf = conf("data-ours", fields);
        String goConf = conf("data-go", fields);

        JsonNode result = ourMacvlan(ours).add(ourConf, ours.container.path(), "ctr-mv", "net1").result();
        JsonNode goResult = goMacvlan(theirs).add(goConf, theirs.container.path(), "ctr-mv", "net1").result();

        String ourMac = result.path("interfaces").get(0).path("mac").asText();
        String goMac = goResult.path("interfaces").get(0).path("mac").asText();
        assertThat(ours.normalized(result, ourMac)).isEqualTo(theirs.normalized(goResult, goMac));
        assertThat(result.path("ips").get(0).path("address").asText()).isEqualTo("10.77.1.10/24");
        assertThat(result.path("dns").path("nameservers").get(0).asText()).isEqualTo("10.77.1.53");

        IpLink net1 = ours.container.kernel().link("net1").orElseThrow();
        assertThat(net1.kind()).isEqualTo("macvlan");
        assertThat(net1.mac()).isEqualTo(ourMac);
        assertThat(net1.mtu()).isEqualTo(1400).isEqualTo(theirs.container.kernel().link("net1").orElseThrow().mtu());
        assertThat(net1.up()).isTrue();
        Link link = NetlinkView.findLink(ours.container, "net1").orElseThrow();
        Link master = NetlinkView.findLink(ours.host, MASTER).orElseThrow();
        assertThat(link.info()).isEqualTo(new LinkInfo.Macvlan("macvlan", MacvlanMode.valueOf(mode.toUpperCase(
                Locale.ROOT))));
        assertThat(link.parentIndex()).as("the master, in the host namespace").isEqualTo(master.index());
        assertThat(link.linkNetnsId()).as("the parent is in another namespace").isNotEqualTo(-1);
        assertThat(ours.container.kernel().addresses("net1")).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.77.1.10/24");
        assertThat(ours.container.kernel().routes("net1")).filteredOn(r -> r.family().equals("inet"))
                .extracting(r -> r.dst() + " via " + r.gateway())
                .containsExactlyInAnyOrder("default via 10.77.1.1", "10.88.0.0/16 via 10.77.1.1",
                        "10.77.1.0/24 via null")
                .containsExactlyInAnyOrderElementsOf(theirs.container.kernel().routes("net1").stream()
                        .filter(r -> r.family().equals("inet")).map(r -> r.dst() + " via " + r.gateway()).toList());
        assertThat(ours.container.kernel().sysctl("net/ipv4/conf/net1/arp_notify")).isEqualTo("1");
        assertThat(Topology.reaches(ours.container, ours.peer, Topology.PEER_ADDRESS)).isTrue();
        assertThat(NetlinkView.linkNames(ours.host)).as("nothing created on the host side")
                .containsExactly("lo", MASTER);
        assertThat(allocations(tmp.resolve("data-ours"))).containsExactly("10.77.1.10");

        CniExec.Outcome check = ourMacvlan(ours).check(withPrev(ourConf, result), ours.container.path(), "ctr-mv",
                "net1");
        assertThat(check.succeeded()).as(check.process().describe()).isTrue();
        ours.container.exec("ip", "addr", "del", "10.77.1.10/24", "dev", "net1").requireSuccess();
        CniExec.Outcome broken = ourMacvlan(ours).check(withPrev(ourConf, result), ours.container.path(), "ctr-mv",
                "net1");
        assertThat(broken.msg()).isEqualTo("Failed to match addr 10.77.1.10/24 on interface net1");

        ourMacvlan(ours).del(ourConf, ours.container.path(), "ctr-mv", "net1").result();
        assertThat(NetlinkView.linkNames(ours.container)).containsExactly("lo");
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        assertThat(NetlinkView.findLink(ours.host, MASTER)).isPresent();
        ourMacvlan(ours).del(ourConf, ours.container.path(), "ctr-mv", "net1").result();
        goMacvlan(theirs).del(goConf, theirs.container.path(), "ctr-mv", "net1").result();
    }

    @Test
    void checkFailsOnAnotherModeOrMacAsGoSaysIt() throws Exception {
        String fields = ",\"master\":\"" + MASTER + "\",\"mode\":\"bridge\"";
        String ourConf = conf("data-ours", fields);
        String goConf = conf("data-go", fields);
        JsonNode result = ourMacvlan(ours).add(ourConf, ours.container.path(), "ctr-mv", "net1").result();
        JsonNode goResult = goMacvlan(theirs).add(goConf, theirs.container.path(), "ctr-mv", "net1").result();

        String vepa = withPrev(ourConf.replace("\"bridge\"", "\"vepa\""), result);
        String goVepa = withPrev(goConf.replace("\"bridge\"", "\"vepa\""), goResult);
        assertThat(ourMacvlan(ours).check(vepa, ours.container.path(), "ctr-mv", "net1").msg())
                .isEqualTo("Container macvlan mode bridge does not match expected value: vepa")
                .isEqualTo(goMacvlan(theirs).check(goVepa, theirs.container.path(), "ctr-mv", "net1").msg());

        for (Topology world : List.of(ours, theirs)) {
            world.container.exec("ip", "link", "set", "net1", "address", "02:00:00:00:00:99").requireSuccess();
        }
        String ourMac = result.path("interfaces").get(0).path("mac").asText();
        assertThat(ourMacvlan(ours).check(withPrev(ourConf, result), ours.container.path(), "ctr-mv", "net1").msg())
                .isEqualTo("Interface net1 Mac " + ourMac + " doesn't match container Mac: 02:00:00:00:00:99");
        assertThat(goMacvlan(theirs).check(withPrev(goConf, goResult), theirs.container.path(), "ctr-mv", "net1")
                .msg()).startsWith("Interface net1 Mac ").endsWith(" doesn't match container Mac: 02:00:00:00:00:99");
    }

    @Test
    void theDefaultMasterIsTheHostsDefaultRouteInterface() throws Exception {
        ours.withHostDefaultRoute();
        theirs.withHostDefaultRoute();
        JsonNode result = ourMacvlan(ours).add(conf("data-ours", ""), ours.container.path(), "ctr-mv", "eth0")
                .result();
        goMacvlan(theirs).add(conf("data-go", ""), theirs.container.path(), "ctr-mv", "eth0").result();
        assertThat(NetlinkView.findLink(ours.container, "eth0").orElseThrow().parentIndex())
                .isEqualTo(NetlinkView.findLink(ours.host, MASTER).orElseThrow().index());
        assertThat(NetlinkView.findLink(theirs.container, "eth0").orElseThrow().info())
                .isEqualTo(NetlinkView.findLink(ours.container, "eth0").orElseThrow().info());
        assertThat(result.path("interfaces").get(0).path("name").asText()).isEqualTo("eth0");
        assertThat(Topology.reaches(ours.container, ours.peer, Topology.PEER_ADDRESS)).isTrue();
    }

    @Test
    void macFromConfigCniArgsAndCapabilityInGosOrder() throws Exception {
        // Three attachments in one container: without routes, which each would add again (EEXIST, in Go too).
        String fields = ",\"master\":\"" + MASTER + "\",\"mac\":\"02:00:00:00:00:01\"";
        for (Topology world : List.of(ours, theirs)) {
            CniExec exec = world == ours ? ourMacvlan(world) : goMacvlan(world);
            String data = world == ours ? "data-ours" : "data-go";
            exec.add(noRoutes(conf(data, fields)), world.container.path(), "c1", "net1").result();
            exec.call("ADD", noRoutes(conf(data, fields)), world.container.path(), "c2", "net2",
                    "IgnoreUnknown=1;MAC=02:00:00:00:00:02").result();
            exec.call("ADD", noRoutes(conf(data, fields + ",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\"}")),
                    world.container.path(), "c3", "net3", "IgnoreUnknown=1;MAC=02:00:00:00:00:02").result();
        }
        for (Topology world : List.of(ours, theirs)) {
            assertThat(world.container.kernel().link("net1").orElseThrow().mac()).isEqualTo("02:00:00:00:00:01");
            assertThat(world.container.kernel().link("net2").orElseThrow().mac()).isEqualTo("02:00:00:00:00:02");
            assertThat(world.container.kernel().link("net3").orElseThrow().mac()).isEqualTo("02:00:00:00:00:03");
        }
    }

    @Test
    void anAddThatFailsAfterIpamLeavesNoLinkAndNoAllocation() throws Exception {
        String unreachable = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-mv\",\"type\":\"macvlan\",\"master\":\""
                + MASTER + "\",\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"" + tmp.resolve("data-ours")
                + "\",\"ranges\":[[{\"subnet\":\"10.77.1.0/24\",\"rangeStart\":\"10.77.1.10\"}]],"
                + "\"routes\":[{\"dst\":\"10.99.0.0/16\",\"gw\":\"10.200.0.1\"}]}}";
        CniExec.Outcome failed = ourMacvlan(ours).add(unreachable, ours.container.path(), "ctr-mv", "net1");
        assertThat(failed.code()).isEqualTo(999);
        assertThat(failed.msg()).startsWith("failed to add route '10.99.0.0/16 via 10.200.0.1 dev net1'");
        assertThat(NetlinkView.linkNames(ours.container)).containsExactly("lo");
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        assertThat(failed.process().stderr()).doesNotContain("rollback step failed");

        for (String bad : List.of(",\"master\":\"" + MASTER + "\",\"mode\":\"bogus\"", ",\"master\":\"nope0\"",
                ",\"master\":\"" + MASTER + "\",\"mtu\":9000", ",\"master\":\"" + MASTER + "\",\"mac\":\"ff:00:00:00:00:01\"")) {
            CniExec.Outcome refused = ourMacvlan(ours).add(conf("data-ours", bad), ours.container.path(), "ctr-mv",
                    "net1");
            assertThat(refused.succeeded()).as(bad).isFalse();
            assertThat(NetlinkView.linkNames(ours.container)).as(bad).containsExactly("lo");
            assertThat(allocations(tmp.resolve("data-ours"))).as(bad).isEmpty();
        }
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly("lo", MASTER);
    }

    @Test
    void delAfterTheNamespaceIsGoneReleasesTheAddress() throws Exception {
        String conf = conf("data-ours", ",\"master\":\"" + MASTER + "\"");
        ourMacvlan(ours).add(conf, ours.container.path(), "ctr-mv", "net1").result();
        assertThat(allocations(tmp.resolve("data-ours"))).containsExactly("10.77.1.10");
        Path gone = ours.container.path();
        ours.container.close();
        ourMacvlan(ours).del(conf, gone, "ctr-mv", "net1").result();
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        ourMacvlan(ours).del(conf, null, "ctr-mv", "net1").result();
    }

    @Test
    void layer2OnlyWithoutIpamAsGo() throws Exception {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-mv\",\"type\":\"macvlan\",\"master\":\""
                + MASTER + "\",\"dns\":{\"nameservers\":[\"10.77.1.53\"]}}";
        JsonNode result = ourMacvlan(ours).add(conf, ours.container.path(), "ctr-mv", "net1").result();
        JsonNode goResult = goMacvlan(theirs).add(conf, theirs.container.path(), "ctr-mv", "net1").result();
        assertThat(ours.normalized(result, result.path("interfaces").get(0).path("mac").asText()))
                .isEqualTo(theirs.normalized(goResult, goResult.path("interfaces").get(0).path("mac").asText()));
        assertThat(ours.container.kernel().link("net1").orElseThrow().up()).isTrue();
        assertThat(ours.container.kernel().addresses("net1")).noneMatch(a -> a.family().equals("inet"));
        CniExec.Outcome check = ourMacvlan(ours).check(withPrev(conf, result), ours.container.path(), "ctr-mv",
                "net1");
        assertThat(check.succeeded()).as(check.process().describe()).isTrue();
    }

    @Test
    void gcAndStatusGoToIpam() throws Exception {
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"jcni-tun-mv\",\"type\":\"macvlan\",\"master\":\""
                + MASTER + "\",\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":\"10.77.1.20/24\"}]},"
                + "\"cni.dev/valid-attachments\":[]}";
        CniExec jcniOnly = CniExec.of(Locations.distPlugin("macvlan"), List.of(Locations.distCniBin()))
                .inNetns(ours.host.name());
        assertThat(jcniOnly.call("STATUS", conf, null, "", "").succeeded()).isTrue();
        assertThat(jcniOnly.call("GC", conf, null, "", "").succeeded()).isTrue();
        String missingIpam = conf.replace("\"static\"", "\"no-such-ipam\"");
        CniExec.Outcome status = jcniOnly.call("STATUS", missingIpam, null, "", "");
        assertThat(status.succeeded()).as("the IPAM plugin's failure is the plugin's").isFalse();
    }
}
