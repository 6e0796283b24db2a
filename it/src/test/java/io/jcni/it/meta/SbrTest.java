package io.jcni.it.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sbr in a multi-homed container. The test host routes between two bridges and a client: the container's {@code eth0}
 * is on bridge A (its default route), {@code eth1} on bridge B with sbr chained; the client reaches the container's
 * eth1 address through the host. With sbr the replies leave through eth1, where the requests came in; without it
 * (the control) through eth0, the default route. Go libcni runs jcni's plugins; jcni's runtime runs Go's sbr (Debian's
 * 1.1.1) in the same scenario, and both leave the same rules and tables in the container.
 */
class SbrTest {
    private static final String TAG = "sbr";
    private static final String CLIENT = "10.218.3.2";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns client;
    private String bridgeA;
    private String bridgeB;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeDistPlugins("bridge", "host-local", "sbr");
        Prerequisites.assumeCommand("ping");
        host = TestHost.create(TAG);
        bridgeA = Names.link(TAG);
        bridgeB = Names.link(TAG);
        client = host.container();
        String hostEnd = Names.link(TAG);
        host.exec("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", "eth0", "netns", client.name())
                .requireSuccess();
        host.exec("ip", "addr", "add", "10.218.3.1/24", "dev", hostEnd).requireSuccess();
        host.exec("ip", "link", "set", hostEnd, "up").requireSuccess();
        client.exec("ip", "addr", "add", CLIENT + "/24", "dev", "eth0").requireSuccess();
        client.exec("ip", "link", "set", "eth0", "up").requireSuccess();
        client.exec("ip", "route", "add", "default", "via", "10.218.3.1").requireSuccess();
    }

    String ipam(int subnet) {
        return Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.218." + subnet + ".0/24"));
    }

    /** Network A: eth0's, the container's default route. */
    Path networkA() throws Exception {
        return write("a.conflist", Conflists.list("1.0.0", "jcni-sbr-a", Conflists.bridge(bridgeA,
                ",\"isDefaultGateway\":true", ipam(1))));
    }

    /** Network B: eth1's, with sbr chained ({@code sbrKeys} null: without). */
    String networkB(String sbrKeys) {
        List<String> plugins = new ArrayList<>(List.of(Conflists.bridge(bridgeB, ",\"isGateway\":true", ipam(2))));
        if (sbrKeys != null) {
            plugins.add("{\"type\":\"sbr\"" + sbrKeys + "}");
        }
        return Conflists.list("1.0.0", "jcni-sbr-b", plugins.toArray(String[]::new));
    }

    Path write(String name, String json) throws Exception {
        return Files.writeString(tmp.resolve(name), json);
    }

    LibcniDriver jcni() {
        return host.libcni(List.of(Locations.distCniBin(), Locations.referencePlugins()), tmp.resolve("cache"));
    }

    /** A container on both networks through Go libcni and jcni's plugins; returns eth1's address. */
    String attachWithJcni(TestNetns container, String id, String sbrKeys) throws Exception {
        LibcniDriver driver = jcni();
        driver.add(networkA(), container.path(), Attachment.of(id, "eth0")).answer();
        JsonNode b = driver.add(write("b-" + id + ".conflist", networkB(sbrKeys)), container.path(),
                Attachment.of(id, "eth1")).answer();
        return b.path("ips").get(0).path("address").asText().split("/")[0];
    }

    /** Packets {@code dev} in {@code netns} has sent, from {@code ip -s -j link}. */
    static long txPackets(TestNetns netns, String dev) {
        JsonNode link = Json.parse(netns.exec("ip", "-s", "-j", "link", "show", "dev", dev).requireSuccess()
                .stdout()).get(0);
        return link.path("stats64").path("tx").path("packets").asLong();
    }

    /** 20 pings from the client to {@code address}; how many packets eth0 and eth1 of the container sent meanwhile. */
    long[] repliesPerInterface(TestNetns container, String address) {
        long eth0 = txPackets(container, "eth0");
        long eth1 = txPackets(container, "eth1");
        ProcessResult ping = client.exec("ping", "-c", "20", "-i", "0.05", "-W", "2", address);
        assertThat(ping.succeeded()).as("ping %s: %s", address, ping.describe()).isTrue();
        assertThat(ping.stdout()).contains("20 received");
        return new long[] {txPackets(container, "eth0") - eth0, txPackets(container, "eth1") - eth1};
    }

    @Test
    void repliesLeaveThroughTheInterfaceTheRequestCameInOn() throws Exception {
        TestNetns routed = host.container();
        String routedAddress = attachWithJcni(routed, "sbr-on", "");
        TestNetns control = host.container();
        String controlAddress = attachWithJcni(control, "sbr-off", null);

        long[] withSbr = repliesPerInterface(routed, routedAddress);
        long[] without = repliesPerInterface(control, controlAddress);
        System.out.println("sbr: packets sent by eth0/eth1 while answering 20 pings to eth1: with sbr " + withSbr[0]
                + "/" + withSbr[1] + ", without " + without[0] + "/" + without[1]);
        assertThat(withSbr[1]).as("with sbr, the replies leave through eth1").isGreaterThanOrEqualTo(20);
        assertThat(withSbr[0]).as("and not through eth0").isLessThan(5);
        assertThat(without[0]).as("control: without sbr, through eth0 (the default route)").isGreaterThanOrEqualTo(20);
        assertThat(without[1]).isLessThan(5);

        List<String> rules = rules(routed);
        assertThat(rules).contains("32765 from " + routedAddress + " lookup 100");
        assertThat(routes(routed, "100")).contains("default via 10.218.2.1 dev eth1",
                "10.218.2.0/24 dev eth1 proto kernel scope link src " + routedAddress);
        assertThat(routes(routed, "main")).noneMatch(r -> r.contains("dev eth1"));

        LibcniDriver driver = jcni();
        Path b = tmp.resolve("b-sbr-on.conflist");
        // The list's CHECK fails at the bridge, which looks for eth1's prefix route in the main table that sbr
        // emptied: Go's bridge 1.1.1 followed by Go's sbr fails in the same words. sbr's own CHECK passes.
        DriverOutcome listCheck = driver.check(b, routed.path(), Attachment.of("sbr-on", "eth1"));
        assertThat(listCheck.cniError().path("msg").asText())
                .isEqualTo("Failed to find Gateway 10.218.2.1 for interface eth1");
        JsonNode cached = driver.cachedResult(b, Attachment.of("sbr-on", "eth1")).answer();
        String sbrConf = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-sbr-b\",\"type\":\"sbr\",\"prevResult\":"
                + cached + "}";
        CniExec sbr = CniExec.of(Locations.distPlugin("sbr"), List.of(Locations.distCniBin())).inNetns(host.name());
        assertThat(sbr.check(sbrConf, routed.path(), "sbr-on", "eth1").succeeded()).isTrue();
        routed.exec("ip", "rule", "del", "from", routedAddress, "lookup", "100").requireSuccess();
        assertThat(sbr.check(sbrConf, routed.path(), "sbr-on", "eth1").msg())
                .isEqualTo("no rule from " + routedAddress + "/32 in " + routed.path());
        routed.exec("ip", "rule", "add", "from", routedAddress, "lookup", "100", "pref", "32765").requireSuccess();
        assertThat(driver.del(b, routed.path(), Attachment.of("sbr-on", "eth1")).answer()).isEmpty();
        assertThat(rules(routed)).noneMatch(r -> r.contains(routedAddress));
        assertThat(driver.del(b, routed.path(), Attachment.of("sbr-on", "eth1")).answer()).isEmpty();
    }

    /**
     * jcni's sbr run by Go libcni and Go's sbr run by jcni's runtime, each after jcni's bridge in its own container on
     * the same networks: the same rules and the same tables (the containers' own addresses aside), and the same
     * routing of replies.
     */
    @Test
    void goAndJcniSbrLeaveTheSameRulesAndTables() throws Exception {
        Prerequisites.assumeReferencePlugins("sbr");
        TestNetns ours = host.container();
        String ourAddress = attachWithJcni(ours, "sbr-jcni", "");

        TestNetns theirs = host.container();
        jcni().add(networkA(), theirs.path(), Attachment.of("sbr-go", "eth0")).answer();
        Path mixed = PluginDirs.of(tmp.resolve("go-sbr-bin"), Locations.distPlugin("bridge"),
                Locations.distPlugin("host-local"), Locations.referencePlugin("sbr"));
        CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(host.runtimeCniPath(tmp.resolve("host-bin"),
                List.of(mixed))).withCacheDir(tmp.resolve("rt-cache")));
        NetworkConfigList list = CniJson.decodeNetworkConfigList(networkB("").getBytes(StandardCharsets.UTF_8));
        RuntimeConf rt = new RuntimeConf("sbr-go", theirs.path().toString(), "eth1");
        Result result = (Result) runtime.addNetworkList(list, rt);
        String theirAddress = result.ips().get(0).address().address().getHostAddress();

        String mine = routingState(ours, ourAddress);
        assertThat(routingState(theirs, theirAddress)).as("Go's sbr (below) against jcni's (above)")
                .isEqualTo(mine);
        assertThat(mine).contains("rule 32765 from ETH1 lookup 100").contains("table 100");
        long[] goReplies = repliesPerInterface(theirs, theirAddress);
        assertThat(goReplies[1]).as("Go's sbr: replies through eth1").isGreaterThanOrEqualTo(20);

        runtime.delNetworkList(list, rt);
        assertThat(rules(theirs)).noneMatch(r -> r.contains(theirAddress));
    }

    /** {@code table}: a rule to that table only, the main table untouched (Go's 1.6.0+, not in Debian's 1.1.1). */
    @Test
    void withTableOnlyTheRuleIsAdded() throws Exception {
        TestNetns container = host.container();
        String address = attachWithJcni(container, "sbr-table", ",\"table\":5000");
        assertThat(rules(container)).contains("32765 from " + address + " lookup 5000");
        assertThat(routes(container, "main")).contains("10.218.2.0/24 dev eth1 proto kernel scope link src "
                + address);
        jcni().del(tmp.resolve("b-sbr-table.conflist"), container.path(), Attachment.of("sbr-table", "eth1"))
                .answer();
        assertThat(rules(container)).noneMatch(r -> r.contains(address));
    }

    @Test
    void versionThroughLibcni() {
        assertThat(jcni().version("sbr").answer().path("supportedVersions").toString())
                .isEqualTo("[\"0.1.0\",\"0.2.0\",\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]");
    }

    /** {@code ip -j rule} (IPv4) as {@code PRIORITY from SRC[/LEN] lookup TABLE} lines ({@code ip} omits a host length). */
    static List<String> rules(TestNetns netns) {
        return rules(netns, "-4");
    }

    static List<String> rules(TestNetns netns, String family) {
        List<String> rules = new ArrayList<>();
        for (JsonNode r : Json.parse(netns.exec("ip", family, "-j", "rule", "show").requireSuccess().stdout())) {
            rules.add(r.path("priority").asText() + " from " + r.path("src").asText()
                    + (r.has("srclen") ? "/" + r.path("srclen").asText() : "") + " lookup " + r.path("table").asText());
        }
        return rules;
    }

    /** {@code ip -j route show table TABLE} (IPv4) as {@code ip} prints the routes, sorted. */
    static List<String> routes(TestNetns netns, String table) {
        return routes(netns, "-4", table);
    }

    static List<String> routes(TestNetns netns, String family, String table) {
        ProcessResult shown = netns.exec("ip", family, "-j", "route", "show", "table", table);
        if (!shown.succeeded()) {
            return List.of();
        }
        List<String> routes = new ArrayList<>();
        for (JsonNode r : Json.parse(shown.stdout())) {
            StringBuilder s = new StringBuilder(r.path("dst").asText());
            for (String key : List.of("gateway", "dev", "protocol", "scope", "prefsrc", "metric", "pref")) {
                if (r.has(key)) {
                    String name = switch (key) {
                        case "gateway" -> "via";
                        case "protocol" -> "proto";
                        case "prefsrc" -> "src";
                        default -> key;
                    };
                    s.append(' ').append(name).append(' ').append(r.path(key).asText());
                }
            }
            if (r.has("table")) {
                s.append(" table ").append(r.path("table").asText());
            }
            routes.add(s.toString());
        }
        return routes.stream().sorted().toList();
    }

    /**
     * Everything sbr decides, both families: the rules, and the routes of every table but local (whose entries are
     * the kernel's for the addresses), the container's addresses written ETH0 and ETH1.
     */
    static String routingState(TestNetns netns, String eth1) {
        String eth0 = Json.parse(netns.exec("ip", "-4", "-j", "addr", "show", "dev", "eth0").requireSuccess().stdout())
                .get(0).path("addr_info").get(0).path("local").asText();
        StringBuilder s = new StringBuilder();
        for (String family : List.of("-4", "-6")) {
            rules(netns, family).forEach(r -> s.append("rule ").append(r).append('\n'));
            routes(netns, family, "all").stream().filter(r -> !r.endsWith("table local"))
                    .forEach(r -> s.append("route ").append(r).append('\n'));
        }
        return s.toString().replace(eth1, "ETH1").replace(eth0, "ETH0");
    }
}
