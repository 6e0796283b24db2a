package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code macspoofchk} of jcni's bridge, exec'd by Go libcni in a test host: two containers on one bridge reach each
 * other; once the first one's interface takes another MAC (a spoofed source), its frames are dropped on the bridge and
 * nothing gets through, until the drop rule is removed by hand (so it is that rule that drops) or the MAC is
 * restored. Go's layout is read back with {@code nft -j list ruleset}; CHECK fails once a rule is gone; DEL removes
 * the attachment's chains and jump, DEL twice succeeds.
 */
class MacSpoofCheckTest {
    static final String NETWORK = "jcni-net-spoof";

    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
    }

    private List<JsonNode> natObjects(String kind) {
        return Traffic.nftObjects(world.host.netns(), kind).stream()
                .filter(o -> o.path("family").asText().equals("bridge") && o.path("table").asText().equals("nat"))
                .toList();
    }

    @Test
    void aSpoofedSourceMacIsDroppedAndTheContainersOwnPasses() throws Exception {
        Path conf = world.write("spoof.conflist", Conflists.list("1.0.0", NETWORK, Conflists.bridge(world.bridge(),
                ",\"isGateway\":true,\"macspoofchk\":true", BridgeTest.hostLocal(world.dataDir(), 50, false, ""))));
        LibcniDriver driver = world.libcniWithJcni("cache");
        TestNetns c1 = world.netns();
        TestNetns c2 = world.netns();
        Attachment a1 = Attachment.of("spoof-a", "eth0");
        Attachment a2 = Attachment.of("spoof-b", "eth0");
        JsonNode r1 = driver.add(conf, c1.path(), a1).answer();
        JsonNode r2 = driver.add(conf, c2.path(), a2).answer();
        String hostVeth = r1.path("interfaces").get(1).path("name").asText();
        String mac = r1.path("interfaces").get(2).path("mac").asText();
        InetAddress c2Address = InetAddress.getByName(r2.path("ips").get(0).path("address").asText().split("/")[0]);

        assertThat(Traffic.tcpSourceSeen(c1, c2, c2Address)).as("own MAC").isPresent();

        String ref = "spoof-a-eth0";
        assertThat(natObjects("chain")).extracting(c -> c.path("name").asText())
                .contains("PREROUTING", "cni-br-iface-" + ref, "cni-br-iface-" + ref + "-mac");
        assertThat(natObjects("chain")).filteredOn(c -> c.path("name").asText().equals("PREROUTING"))
                .singleElement().satisfies(c -> {
                    assertThat(c.path("hook").asText()).isEqualTo("prerouting");
                    assertThat(c.path("prio").asInt()).isEqualTo(-300);
                    assertThat(c.path("policy").asText()).isEqualTo("accept");
                });
        List<JsonNode> macRules = Traffic.nftRules(world.host.netns(), "bridge", "nat", "cni-br-iface-" + ref
                + "-mac");
        assertThat(macRules).hasSize(2).allSatisfy(r -> assertThat(r.path("comment").asText())
                .isEqualTo("macspoofchk-" + ref));
        assertThat(macRules.get(0).path("expr").toString()).contains("\"saddr\"", "\"" + mac + "\"", "\"return\"");
        assertThat(macRules.get(1).path("expr").toString()).contains("\"drop\"");
        assertThat(Traffic.nftRules(world.host.netns(), "bridge", "nat", "PREROUTING")).anySatisfy(r -> {
            assertThat(r.path("expr").toString()).contains("\"iifname\"", "\"" + hostVeth + "\"",
                    "cni-br-iface-" + ref);
            assertThat(r.path("comment").asText()).isEqualTo("macspoofchk-" + ref);
        });
        assertThat(driver.check(conf, c1.path(), a1).answer()).isEmpty();

        c1.exec("ip", "link", "set", "eth0", "address", "0a:58:0a:d8:32:99").requireSuccess();
        c1.exec("ip", "neigh", "flush", "all").requireSuccess();
        c2.exec("ip", "neigh", "flush", "all").requireSuccess();
        assertThat(Traffic.tcpSourceSeen(c1, c2, c2Address)).as("spoofed MAC").isEmpty();

        String drop = macRules.get(1).path("handle").asText();
        world.host.exec("nft", "delete", "rule", "bridge", "nat", "cni-br-iface-" + ref + "-mac", "handle", drop)
                .requireSuccess();
        assertThat(Traffic.tcpSourceSeen(c1, c2, c2Address)).as("spoofed MAC without the drop rule").isPresent();
        c1.exec("ip", "link", "set", "eth0", "address", mac).requireSuccess();
        assertThat(BridgeTest.cniMsg(driver.check(conf, c1.path(), a1)))
                .startsWith("macspoofchk: chain bridge nat cni-br-iface-" + ref + "-mac does not let only");

        assertThat(driver.del(conf, c1.path(), a1).answer()).isEmpty();
        assertThat(driver.del(conf, c1.path(), a1).answer()).as("DEL twice").isEmpty();
        assertThat(natObjects("chain")).extracting(c -> c.path("name").asText())
                .doesNotContain("cni-br-iface-" + ref, "cni-br-iface-" + ref + "-mac")
                .contains("cni-br-iface-spoof-b-eth0");
        assertThat(Traffic.nftRules(world.host.netns(), "bridge", "nat", "PREROUTING"))
                .noneMatch(r -> r.path("comment").asText().equals("macspoofchk-" + ref));
        assertThat(driver.check(conf, c2.path(), a2).answer()).as("the other attachment is intact").isEmpty();
        assertThat(driver.del(conf, c2.path(), a2).answer()).isEmpty();
        assertThat(Traffic.nftObjects(world.host.netns(), "rule")).isEmpty();
    }

    /**
     * Issue 23, item 10 and a shared-with-Go item: a container ID of 250 characters made the chain names longer than
     * nftables takes, and the ADD failed with a Java exception's class name in its message (code 999) after it had
     * made the bridge and the veth pair; an interface name with a double quote made {@code nft list ruleset}
     * impossible to load again (Go writes it all the same). Both are code 4 before anything is made.
     */
    @Test
    void namesMacspoofchkCannotCarryAreCode4BeforeAnythingIsMade() throws Exception {
        Path conf = world.write("spoof.conflist", Conflists.list("1.0.0", NETWORK, Conflists.bridge(world.bridge(),
                ",\"isGateway\":true,\"macspoofchk\":true", BridgeTest.hostLocal(world.dataDir(), 50, false, ""))));
        LibcniDriver driver = world.libcniWithJcni("cache");
        TestNetns c1 = world.netns();
        for (Attachment bad : List.of(Attachment.of("c".repeat(250), "eth0"), Attachment.of("quoted", "eth\"0"))) {
            DriverOutcome add = driver.add(conf, c1.path(), bad);
            assertThat(add.succeeded()).isFalse();
            assertThat(add.cniError().path("code").asInt()).as(add.process().describe()).isEqualTo(4);
            assertThat(add.cniError().path("msg").asText()).startsWith("macspoofchk: CNI_")
                    .doesNotContain("Exception");
        }
        assertThat(world.host.kernel().links()).as("no bridge, no veth").noneMatch(l -> l.name()
                .equals(world.bridge()) || l.name().startsWith("veth"));
        assertThat(Traffic.nftObjects(world.host.netns(), "chain")).isEmpty();
    }
}
