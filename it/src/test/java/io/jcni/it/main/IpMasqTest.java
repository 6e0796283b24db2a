package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code ipMasq} of jcni's bridge and ptp, exec'd by Go libcni in a test host: a peer namespace on the host's uplink
 * ({@code 10.218.0.2}, {@code fd18::2}, with no route back to the containers) sees the host's address when a container
 * connects to it, over IPv4 and IPv6, and nothing gets through without the rule; a multicast datagram is not
 * masqueraded. The ruleset is read back with {@code nft -j list ruleset} in the test host (Go's layout), two
 * containers keep separate rules, DEL of one leaves the other's, DEL twice succeeds, CHECK fails on a rule removed by
 * hand, GC removes the rules of attachments not listed, and a failed chain ADD leaves nothing.
 */
class IpMasqTest {
    static final String NETWORK = "jcni-net-masq";
    static final String TABLE = "cni_plugins_masquerade";

    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;
    private TestNetns peer;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
        peer = world.host.container();
        world.host.exec("ip", "link", "add", "up0", "type", "veth", "peer", "name", "peer0", "netns", peer.name())
                .requireSuccess();
        world.host.exec("ip", "addr", "add", "10.218.0.1/24", "dev", "up0").requireSuccess();
        world.host.exec("ip", "addr", "add", "fd18::1/64", "dev", "up0", "nodad").requireSuccess();
        world.host.exec("ip", "link", "set", "up0", "up").requireSuccess();
        peer.exec("ip", "addr", "add", "10.218.0.2/24", "dev", "peer0").requireSuccess();
        peer.exec("ip", "addr", "add", "fd18::2/64", "dev", "peer0", "nodad").requireSuccess();
        peer.exec("ip", "link", "set", "peer0", "up").requireSuccess();
        peer.exec("ip", "link", "set", "lo", "up").requireSuccess();
    }

    static InetAddress ip(String text) throws Exception {
        return InetAddress.getByName(text);
    }

    private Path bridgeConf(int n, String extraKeys) throws Exception {
        return world.write("masq" + n + ".conflist", Conflists.list("1.0.0", NETWORK, Conflists.bridge(world.bridge(),
                ",\"isDefaultGateway\":true,\"ipMasq\":true,\"hairpinMode\":true" + extraKeys,
                BridgeTest.hostLocal(world.dataDir(), n, true, ""))));
    }

    private List<JsonNode> masqRules() {
        return Traffic.nftRules(world.host.netns(), "inet", TABLE, "masq_checks");
    }

    private static List<String> comments(List<JsonNode> rules) {
        return rules.stream().map(r -> r.path("comment").asText()).toList();
    }

    @Test
    void thePeerSeesTheHostsAddressOverIpv4AndIpv6AndTheRulesetIsGosLayout() throws Exception {
        Path conf = bridgeConf(40, "");
        LibcniDriver driver = world.libcniWithJcni("cache");
        TestNetns c1 = world.netns();
        Attachment a1 = Attachment.of("masq-one", "eth0");
        driver.add(conf, c1.path(), a1).answer();

        assertThat(Traffic.tcpSourceSeen(c1, peer, ip("10.218.0.2"))).contains(ip("10.218.0.1"));
        assertThat(Traffic.tcpSourceSeen(c1, peer, ip("fd18::2"))).contains(ip("fd18::1"));

        assertThat(Traffic.nftObjects(world.host.netns(), "table")).anySatisfy(t -> {
            assertThat(t.path("family").asText()).isEqualTo("inet");
            assertThat(t.path("name").asText()).isEqualTo(TABLE);
        });
        // nft 1.0.6 prints a table's comment in its text form only.
        assertThat(world.host.exec("nft", "list", "table", "inet", TABLE).requireSuccess().stdout())
                .contains("comment \"Masquerading for plugins from github.com/containernetworking/plugins\"",
                        "comment \"Masquerade traffic from certain IPs to any (non-multicast) IP outside their"
                                + " subnet\"");
        assertThat(Traffic.nftObjects(world.host.netns(), "chain")).filteredOn(c -> c.path("table").asText()
                .equals(TABLE)).anySatisfy(c -> {
                    assertThat(c.path("name").asText()).isEqualTo("postrouting");
                    assertThat(c.path("type").asText()).isEqualTo("nat");
                    assertThat(c.path("hook").asText()).isEqualTo("postrouting");
                    assertThat(c.path("prio").asInt()).isEqualTo(100);
                }).anySatisfy(c -> assertThat(c.path("name").asText()).isEqualTo("masq_checks"));
        String post = Traffic.nftRules(world.host.netns(), "inet", TABLE, "postrouting").toString();
        assertThat(post).contains("\"224.0.0.0\"", "\"len\":4", "\"ff00::\"", "\"len\":8", "{\"goto\":{\"target\":"
                + "\"masq_checks\"}}");
        List<JsonNode> rules = masqRules();
        assertThat(rules).hasSize(2);
        assertThat(rules.get(0).path("comment").asText()).matches("[0-9a-f]{16}-[0-9a-f]{16}, net: " + NETWORK
                + ", if: eth0, id: masq-one");
        assertThat(rules.get(0).path("expr").toString()).contains("\"saddr\"", "\"10.216.40.2\"", "\"!=\"",
                "\"prefix\":{\"addr\":\"10.216.40.0\",\"len\":24}", "\"masquerade\"");
        assertThat(rules.get(1).path("expr").toString()).contains("\"fd16:40::2\"", "\"fd16:40::\"",
                "\"masquerade\"");

        // Without the rule nothing gets back: the peer has no route to the containers.
        world.host.exec("nft", "flush", "chain", "inet", TABLE, "masq_checks").requireSuccess();
        assertThat(Traffic.tcpSourceSeen(c1, peer, ip("10.218.0.2"))).isEmpty();
        assertThat(driver.check(conf, c1.path(), a1).succeeded()).as("CHECK after the rules were flushed").isFalse();
        assertThat(driver.del(conf, c1.path(), a1).succeeded()).isTrue();
    }

    @Test
    void multicastIsNotMasqueradedButUnicastFromTheSameAddressIs() throws Exception {
        Path conf = bridgeConf(41, "");
        TestNetns c1 = world.netns();
        world.libcniWithJcni("cache").add(conf, c1.path(), Attachment.of("masq-mc", "eth0")).answer();
        // A datagram leaving the host with the container's source address, as a multicast proxy on the node would
        // send it: the postrouting chain decides, as for forwarded packets. (The host holds the address on lo for
        // this: Linux sends from a foreign address only with IP_TRANSPARENT, which Java's sockets cannot set.)
        InetAddress container = ip("10.216.41.2");
        world.host.exec("ip", "addr", "add", "10.216.41.2/32", "dev", "lo").requireSuccess();
        world.host.exec("ip", "route", "add", "239.0.0.0/8", "dev", "up0").requireSuccess();
        assertThat(Traffic.udpSourceSeen(world.host.netns(), container, null, peer, ip("10.218.0.2"), null))
                .as("unicast").contains(ip("10.218.0.1"));
        assertThat(Traffic.udpSourceSeen(world.host.netns(), container, "up0", peer, ip("239.7.7.7"), "peer0"))
                .as("multicast").contains(container);
        // The test can fail: without the multicast return, the same datagram is masqueraded.
        String handle = Traffic.nftRules(world.host.netns(), "inet", TABLE, "postrouting").getFirst()
                .path("handle").asText();
        world.host.exec("nft", "delete", "rule", "inet", TABLE, "postrouting", "handle", handle).requireSuccess();
        assertThat(Traffic.udpSourceSeen(world.host.netns(), container, "up0", peer, ip("239.7.7.8"), "peer0"))
                .as("multicast without the return rule").contains(ip("10.218.0.1"));
    }

    @Test
    void twoContainersKeepSeparateRulesDelIsIdempotentCheckFailsOnAMissingRuleAndGcCollects() throws Exception {
        Path conf = bridgeConf(42, "");
        LibcniDriver driver = world.libcniWithJcni("cache");
        TestNetns c1 = world.netns();
        TestNetns c2 = world.netns();
        Attachment a1 = Attachment.of("masq-a", "eth0");
        Attachment a2 = Attachment.of("masq-b", "eth0");
        driver.add(conf, c1.path(), a1).answer();
        String c2v6 = driver.add(conf, c2.path(), a2).answer().path("ips").get(1).path("address").asText();
        assertThat(comments(masqRules())).hasSize(4).filteredOn(c -> c.endsWith("id: masq-a")).hasSize(2);
        assertThat(driver.check(conf, c1.path(), a1).answer()).isEmpty();

        JsonNode a2v6 = masqRules().stream().filter(r -> r.path("comment").asText().endsWith("id: masq-b")
                && r.path("expr").toString().contains("fd16:42::")).findFirst().orElseThrow();
        world.host.exec("nft", "delete", "rule", "inet", TABLE, "masq_checks", "handle",
                a2v6.path("handle").asText()).requireSuccess();
        DriverOutcome broken = driver.check(conf, c2.path(), a2);
        assertThat(BridgeTest.cniMsg(broken)).isEqualTo("ipMasq: no masquerade rule for " + c2v6 + " in inet "
                + TABLE + " masq_checks");
        assertThat(driver.check(conf, c1.path(), a1).succeeded()).as("the other attachment is intact").isTrue();

        assertThat(driver.del(conf, c1.path(), a1).answer()).isEmpty();
        assertThat(driver.del(conf, c1.path(), a1).answer()).as("DEL twice").isEmpty();
        assertThat(comments(masqRules())).singleElement().asString().endsWith("id: masq-b");
        assertThat(Traffic.tcpSourceSeen(c2, peer, ip("10.218.0.2"))).contains(ip("10.218.0.1"));

        // GC through the plugin itself (Go libcni 1.1 has no GC): masq-b is not listed, so its rule goes.
        String gcConf = "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK + "\"," + Files.readString(conf)
                .replaceFirst("(?s).*\"plugins\":\\[\\{", "").replaceFirst("(?s)\\}\\]\\}\\s*$", "")
                + ",\"cni.dev/valid-attachments\":[{\"containerID\":\"masq-a\",\"ifname\":\"eth0\"}]}";
        CniExec bridge = CniExec.of(Locations.distPlugin("bridge"), List.of(Locations.distCniBin()))
                .inNetns(world.host.name());
        assertThat(bridge.call("GC", gcConf, null, "", "").succeeded()).isTrue();
        assertThat(masqRules()).isEmpty();
        assertThat(driver.del(conf, c2.path(), a2).answer()).isEmpty();
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.4.0", "1.0.0"})
    void ptpMasqueradesToo(String version) throws Exception {
        Path conf = world.write("ptp.conflist", Conflists.list(version, NETWORK, "{\"type\":\"ptp\",\"ipMasq\":true,"
                + "\"ipMasqBackend\":\"iptables\",\"ipam\":" + BridgeTest.hostLocal(world.dataDir(), 43, true,
                        "{\"dst\":\"0.0.0.0/0\"},{\"dst\":\"::/0\"}") + "}"));
        LibcniDriver driver = world.libcniWithJcni("cache");
        TestNetns c1 = world.netns();
        Attachment a1 = Attachment.of("masq-ptp", "eth0");
        driver.add(conf, c1.path(), a1).answer();
        assertThat(Traffic.tcpSourceSeen(c1, peer, ip("10.218.0.2"))).contains(ip("10.218.0.1"));
        // ptp puts the container's IPv6 gateway on the host end, where the kernel runs duplicate address detection
        // (as with Go's ptp, which settles only the container's side): until it ends, the container's packets find no
        // gateway. The probe waits for it (what this test checks is the masquerade, not how soon IPv6 is usable).
        world.host.awaitNoTentativeAddresses(Duration.ofSeconds(10));
        assertThat(Traffic.tcpSourceSeen(c1, peer, ip("fd18::2"))).contains(ip("fd18::1"));
        assertThat(comments(masqRules())).hasSize(2).allMatch(c -> c.endsWith("id: masq-ptp"));
        assertThat(driver.check(conf, c1.path(), a1).answer()).isEmpty();
        assertThat(driver.del(conf, c1.path(), a1).answer()).isEmpty();
        assertThat(driver.del(conf, c1.path(), a1).answer()).isEmpty();
        assertThat(masqRules()).isEmpty();
    }

    /**
     * A chain whose second plugin fails (firewall with an unknown ingress policy, refused before any side effect),
     * run by jcni's runtime, which rolls the chain back (libcni leaves that to its caller's DEL): the bridge's DEL
     * removes its masquerade rules and, being the last attachment, the table; no firewall table was ever made.
     */
    @Test
    void aFailedChainAddLeavesNoTableChainOrRule() throws Exception {
        String list = Conflists.list("1.0.0", NETWORK, Conflists.bridge(world.bridge(),
                ",\"isGateway\":true,\"ipMasq\":true", BridgeTest.hostLocal(world.dataDir(), 44, false, "")),
                "{\"type\":\"firewall\",\"ingressPolicy\":\"closed\"}");
        TestNetns c1 = world.netns();
        CniRuntime runtime = CniRuntime.create(world.runtimeOptions(List.of(Locations.distCniBin(),
                Locations.referencePlugins())).withCacheDir(tmp.resolve("rt-cache")));
        RuntimeConf rt = new RuntimeConf("masq-f", c1.path().toString(), "eth0");
        NetworkConfigList conf = CniJson.decodeNetworkConfigList(list.getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> runtime.addNetworkList(conf, rt)).isInstanceOfSatisfying(CniRuntimeException.class,
                e -> {
                    assertThat(e.code()).isEqualTo(7);
                    assertThat(e.error().msg()).isEqualTo("unknown ingress policy: \"closed\"");
                    assertThat(e.getSuppressed()).as("the rollback succeeded").isEmpty();
                });
        assertThat(Traffic.nftObjects(world.host.netns(), "table")).isEmpty();
        assertThat(world.reservations(NETWORK)).isEmpty();
        assertThat(c1.kernel().links()).extracting(l -> l.name()).containsExactly("lo");
    }
}
