package io.jcni.it.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The firewall plugin chained after bridge ({@code ipMasq}, {@code hairpinMode}), as podman writes it
 * ({@code {"type":"firewall","backend":""}}), driven by Go libcni in a test host with a peer on its uplink: once with
 * jcni's bridge and firewall, once with Debian's Go bridge and firewall (1.1.1, which writes iptables rules; the
 * checks compare behaviour, not rule text). Both pass the same checks: the peer sees the host's address, CHECK
 * passes, a drop in the administrator's chain cuts exactly that container off, DEL of one container leaves the
 * other's rules, DEL twice succeeds, CHECK fails once a rule is removed by hand, and with
 * {@code ingressPolicy: same-bridge} two bridges cannot reach each other while both reach the peer. jcni alone: bad
 * input gets the right code and leaves no table, GC removes rules of attachments not listed.
 */
class FirewallTest {
    static final String TAG = "fw";
    static final String NETWORK = "jcni-net-fw";
    static final InetAddress PEER = address("10.218.0.2");
    static final InetAddress HOST = address("10.218.0.1");

    @TempDir
    Path tmp;

    private TestHost host;
    private TestNetns peer;

    static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        host = TestHost.create(TAG);
        peer = host.container();
        host.exec("ip", "link", "add", "up0", "type", "veth", "peer", "name", "peer0", "netns", peer.name())
                .requireSuccess();
        host.exec("ip", "addr", "add", "10.218.0.1/24", "dev", "up0").requireSuccess();
        host.exec("ip", "link", "set", "up0", "up").requireSuccess();
        peer.exec("ip", "addr", "add", "10.218.0.2/24", "dev", "peer0").requireSuccess();
        peer.exec("ip", "link", "set", "peer0", "up").requireSuccess();
    }

    @AfterEach
    void close() {
        if (host != null) {
            host.close();
        }
    }

    private LibcniDriver driver(String impl) {
        if (impl.equals("jcni")) {
            Prerequisites.assumeDistPlugins("bridge", "firewall");
            return host.libcni(List.of(Locations.distCniBin(), Locations.referencePlugins()), tmp.resolve("cache"));
        }
        Prerequisites.assumeReferencePlugins("bridge", "firewall", "host-local");
        Prerequisites.assumeCommand("iptables");
        return host.libcni(List.of(Locations.referencePlugins()), tmp.resolve("cache"));
    }

    private Path conflist(String network, String bridge, int subnet, String firewallKeys) throws Exception {
        String ipam = Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.216." + subnet + ".0/24"));
        return Files.writeString(tmp.resolve(network + ".conflist"), Conflists.list("1.0.0", network,
                Conflists.bridge(bridge, ",\"isDefaultGateway\":true,\"ipMasq\":true,\"hairpinMode\":true", ipam),
                "{\"type\":\"firewall\",\"backend\":\"\"" + firewallKeys + "}"));
    }

    private static String ip(JsonNode result) {
        return result.path("ips").get(0).path("address").asText().split("/")[0];
    }

    /** A drop of {@code ip}'s traffic in the administrator's chain (Go: iptables' CNI-ADMIN; jcni: its table's). */
    private void adminDrop(String impl, String ip, boolean add) {
        if (impl.equals("go")) {
            host.exec("iptables", "-w", add ? "-I" : "-D", "CNI-ADMIN", "-s", ip + "/32", "-j", "DROP")
                    .requireSuccess();
        } else if (add) {
            host.exec("nft", "insert", "rule", "inet", "jcni_firewall", "CNI-ADMIN", "ip", "saddr", ip, "drop")
                    .requireSuccess();
        } else {
            host.exec("nft", "flush", "chain", "inet", "jcni_firewall", "CNI-ADMIN").requireSuccess();
        }
    }

    /** Removes the rule that lets {@code ip}'s own traffic through (Go: {@code -s IP -j ACCEPT}). */
    private void removeOutgoingRule(String impl, String ip) {
        if (impl.equals("go")) {
            host.exec("iptables", "-w", "-D", "CNI-FORWARD", "-s", ip + "/32", "-j", "ACCEPT").requireSuccess();
            return;
        }
        for (JsonNode rule : Traffic.nftRules(host.netns(), "inet", "jcni_firewall", "CNI-FORWARD")) {
            String expr = rule.path("expr").toString();
            if (expr.contains("\"saddr\"") && expr.contains("\"" + ip + "\"")) {
                host.exec("nft", "delete", "rule", "inet", "jcni_firewall", "CNI-FORWARD", "handle",
                        rule.path("handle").asText()).requireSuccess();
                return;
            }
        }
        throw new AssertionError("no rule for " + ip);
    }

    /** Whether any firewall rule of the test host still names {@code ip} (iptables' and nftables' text). */
    private boolean rulesMention(String ip) {
        String nft = host.exec("nft", "list", "ruleset").requireSuccess().stdout();
        return nft.lines().filter(l -> !l.contains("masquerade")).anyMatch(l -> l.contains(ip + " ")
                || l.endsWith(ip));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jcni", "go"})
    void bridgeThenFirewallAsPodmanWritesIt(String impl) throws Exception {
        LibcniDriver driver = driver(impl);
        Path conf = conflist(NETWORK, Names.link(TAG), 60, "");
        TestNetns c1 = host.container();
        TestNetns c2 = host.container();
        Attachment a1 = Attachment.of("fw-one", "eth0");
        Attachment a2 = Attachment.of("fw-two", "eth0");
        String ip1 = ip(driver.add(conf, c1.path(), a1).answer());
        String ip2 = ip(driver.add(conf, c2.path(), a2).answer());

        assertThat(Traffic.tcpSourceSeen(c1, peer, PEER)).as("c1 through masquerade").contains(HOST);
        assertThat(Traffic.tcpSourceSeen(c2, peer, PEER)).as("c2 through masquerade").contains(HOST);
        assertThat(driver.check(conf, c1.path(), a1).succeeded()).as("CHECK").isTrue();

        adminDrop(impl, ip1, true);
        assertThat(Traffic.tcpSourceSeen(c1, peer, PEER)).as("c1 dropped by the admin chain").isEmpty();
        assertThat(Traffic.tcpSourceSeen(c2, peer, PEER)).as("c2 unaffected").contains(HOST);
        adminDrop(impl, ip1, false);
        assertThat(Traffic.tcpSourceSeen(c1, peer, PEER)).as("c1 again").contains(HOST);

        assertThat(driver.del(conf, c1.path(), a1).succeeded()).isTrue();
        assertThat(driver.del(conf, c1.path(), a1).succeeded()).as("DEL twice").isTrue();
        assertThat(rulesMention(ip1)).as("rules naming " + ip1).isFalse();
        assertThat(rulesMention(ip2)).as("rules naming " + ip2).isTrue();
        assertThat(driver.check(conf, c2.path(), a2).succeeded()).as("CHECK of the other").isTrue();
        assertThat(Traffic.tcpSourceSeen(c2, peer, PEER)).contains(HOST);

        removeOutgoingRule(impl, ip2);
        DriverOutcome broken = driver.check(conf, c2.path(), a2);
        assertThat(broken.succeeded()).as("CHECK after a rule was removed by hand").isFalse();
        assertThat(broken.cniError().path("msg").asText()).contains("rule").contains("not found");

        assertThat(driver.del(conf, c2.path(), a2).succeeded()).isTrue();
        assertThat(rulesMention(ip2)).isFalse();
        if (impl.equals("jcni")) {
            assertThat(Traffic.nftRules(host.netns(), "inet", "jcni_firewall", "CNI-FORWARD"))
                    .extracting(r -> r.path("comment").asText())
                    .containsExactly("CNI firewall plugin admin overrides");
            assertThat(Traffic.nftObjects(host.netns(), "table")).noneMatch(t -> t.path("name").asText()
                    .equals("cni_plugins_masquerade"));
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"jcni", "go"})
    void sameBridgeIsolatesBridgesFromEachOtherButNotFromThePeer(String impl) throws Exception {
        LibcniDriver driver = driver(impl);
        String keys = ",\"ingressPolicy\":\"same-bridge\"";
        Path confA = conflist("jcni-net-fwa", Names.link(TAG), 61, keys);
        Path confB = conflist("jcni-net-fwb", Names.link(TAG), 62, keys);
        TestNetns ca = host.container();
        TestNetns ca2 = host.container();
        TestNetns cb = host.container();
        Attachment a = Attachment.of("fw-a", "eth0");
        Attachment a2 = Attachment.of("fw-a2", "eth0");
        Attachment b = Attachment.of("fw-b", "eth0");
        driver.add(confA, ca.path(), a).answer();
        String ipA2 = ip(driver.add(confA, ca2.path(), a2).answer());
        String ipB = ip(driver.add(confB, cb.path(), b).answer());

        assertThat(Traffic.tcpSourceSeen(ca, cb, address(ipB))).as("bridge A to bridge B").isEmpty();
        assertThat(Traffic.tcpSourceSeen(cb, ca2, address(ipA2))).as("bridge B to bridge A").isEmpty();
        assertThat(Traffic.tcpSourceSeen(ca, ca2, address(ipA2))).as("within bridge A").isPresent();
        assertThat(Traffic.tcpSourceSeen(ca, peer, PEER)).as("A to the peer").contains(HOST);
        assertThat(Traffic.tcpSourceSeen(cb, peer, PEER)).as("B to the peer").contains(HOST);

        assertThat(driver.del(confA, ca.path(), a).succeeded()).isTrue();
        assertThat(driver.del(confA, ca2.path(), a2).succeeded()).isTrue();
        assertThat(driver.del(confB, cb.path(), b).succeeded()).isTrue();
    }

    private CniExec firewall() {
        Prerequisites.assumeDistPlugins("firewall");
        return CniExec.of(Locations.distPlugin("firewall"), List.of(Locations.distCniBin())).inNetns(host.name());
    }

    @Test
    void badInputGetsTheRightCodeAndLeavesNoTable() throws Exception {
        TestNetns c1 = host.container();
        String prev = ",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"br0\"}],\"ips\":"
                + "[{\"address\":\"10.216.63.2/24\"}]}";
        String base = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"firewall\"";
        CniExec.Outcome missing = firewall().add(base + "}", c1.path(), "fw-bad", "eth0");
        assertThat(missing.code()).isEqualTo(999);
        assertThat(missing.msg()).isEqualTo("missing prevResult from earlier plugin");
        CniExec.Outcome spaces = firewall().add(base + ",\"iptablesAdminChainName\":\"MY ADMIN\"" + prev + "}",
                c1.path(), "fw-bad", "eth0");
        assertThat(spaces.code()).isEqualTo(7);
        CniExec.Outcome quotes = firewall().add(base + ",\"iptablesAdminChainName\":\"A\\\"B\"" + prev + "}",
                c1.path(), "fw-bad", "eth0");
        assertThat(quotes.code()).isEqualTo(7);
        CniExec.Outcome policy = firewall().add(base + ",\"ingressPolicy\":\"bogus\"" + prev + "}", c1.path(),
                "fw-bad", "eth0");
        assertThat(policy.code()).isEqualTo(7);
        assertThat(policy.msg()).isEqualTo("unknown ingress policy: \"bogus\"");
        CniExec.Outcome firewalld = firewall().add(base + ",\"backend\":\"firewalld\"" + prev + "}", c1.path(),
                "fw-bad", "eth0");
        assertThat(firewalld.code()).isEqualTo(2);
        assertThat(Traffic.nftObjects(host.netns(), "table")).isEmpty();
        assertThat(missing.process().stdout() + spaces.process().stdout()).doesNotContain("Exception", "\tat ");
    }

    @Test
    void gcRemovesTheRulesOfAttachmentsNotListed() throws Exception {
        TestNetns c1 = host.container();
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK + "\",\"type\":\"firewall\"%s}";
        for (String id : List.of("fw-gc-1", "fw-gc-2")) {
            String prev = ",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"ips\":[{\"address\":\"10.216.64."
                    + (id.endsWith("1") ? 2 : 3) + "/24\"}]}";
            assertThat(firewall().add(conf.formatted(prev), c1.path(), id, "eth0").succeeded()).isTrue();
        }
        assertThat(Traffic.nftRules(host.netns(), "inet", "jcni_firewall", "CNI-FORWARD")).hasSize(5);
        CniExec.Outcome noList = firewall().call("GC", conf.formatted(""), null, "", "");
        assertThat(noList.code()).isEqualTo(7);
        assertThat(firewall().call("GC", conf.formatted(",\"cni.dev/valid-attachments\":[{\"containerID\":"
                + "\"fw-gc-2\",\"ifname\":\"eth0\"}]"), null, "", "").succeeded()).isTrue();
        assertThat(Traffic.nftRules(host.netns(), "inet", "jcni_firewall", "CNI-FORWARD"))
                .extracting(r -> r.path("comment").asText()).hasSize(3)
                .contains("CNI firewall plugin admin overrides").allMatch(c -> !c.endsWith("id: fw-gc-1"));
        assertThat(firewall().call("STATUS", conf.formatted(""), null, "", "").succeeded()).isTrue();
        assertThat(firewall().del(conf.formatted(""), c1.path(), "fw-gc-2", "eth0").succeeded()).isTrue();
    }
}
