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
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.Traffic;
import io.jcni.it.support.Traffic.Seen;
import io.jcni.spec.IpText;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's "done when": Go libcni drives bridge (ipMasq, hairpinMode) → portmap → firewall, the chain of a stock
 * podman network, once with jcni's plugins and once with Debian's Go plugins (1.1.1, iptables), each in a test host
 * of its own, and jcni's pass every check Go's pass: TCP and UDP from another namespace through the published ports
 * (IPv4 and IPv6), hairpin (also from another container on the bridge), masquerade seen by a peer outside, two
 * containers whose rules stay separate, idempotent DEL, and no rule of theirs left afterwards. What each side reached
 * is compared as a whole, then checked against what it must be. CHECK passes on jcni's chain; Go 1.1.1's portmap
 * fails CHECK on every dual-stack attachment (it looks for the IPv4 rules in ip6tables), recorded here.
 */
class NetfilterChainTest {
    static final String NETWORK = "jcni-pm-chain";

    @TempDir
    Path tmp;

    @AutoClose
    private PortmapWorld ours;
    @AutoClose
    private PortmapWorld theirs;

    @BeforeEach
    void worlds() {
        Prerequisites.assumeCommand("iptables");
        ours = new PortmapWorld(tmp.resolve("jcni"));
        theirs = new PortmapWorld(tmp.resolve("go"));
    }

    /** The chain: bridge with ipMasq and hairpin, portmap, firewall (as podman writes it: backend ""). */
    static Path conflist(PortmapWorld world) throws Exception {
        return world.conflist("chain", NETWORK, world.bridgePlugin(9, ",\"ipMasq\":true"), portmapPlugin(""),
                "{\"type\":\"firewall\",\"backend\":\"\"}");
    }

    /** Two containers, each with its own published ports; everything they and the client reach, with sources seen. */
    static Map<String, String> exercise(PortmapWorld world, LibcniDriver libcni, Path conf) {
        TestNetns a = world.container();
        TestNetns b = world.container();
        Attachment first = withPorts("chain-a", mapping(8080, 80, "tcp", null), mapping(5353, 53, "udp", null));
        Attachment second = withPorts("chain-b", mapping(8081, 80, "tcp", null));
        JsonNode resultA = libcni.add(conf, a.path(), first).answer();
        JsonNode resultB = libcni.add(conf, b.path(), second).answer();
        world.awaitBridgeAddresses();
        Map<String, String> seen = new LinkedHashMap<>();
        seen.put("addresses", IpText.format(address(resultA, false)) + " " + IpText.format(address(resultB, false)));
        for (InetAddress host : new InetAddress[] {HOST_V4, HOST_V6}) {
            String f = host == HOST_V4 ? " v4" : " v6";
            seen.put("client tcp a" + f, show(Traffic.tcp(world.client, a, host, 8080, 80)));
            seen.put("client udp a" + f, show(Traffic.udp(world.client, a, host, 5353, 53)));
            seen.put("client tcp b" + f, show(Traffic.tcp(world.client, b, host, 8081, 80)));
            seen.put("b on a's port" + f, show(Traffic.tcp(world.client, b, host, 8080, 80)));
            seen.put("hairpin a" + f, show(Traffic.tcp(a, a, host, 8080, 80)));
            seen.put("b to a's published port" + f, show(Traffic.tcp(b, a, host, 8080, 80)));
        }
        seen.put("a out to the client v4", show(Traffic.tcp(a, world.client, CLIENT_V4, 7000, 7000)));
        seen.put("a out to the client v6", show(Traffic.tcp(a, world.client, CLIENT_V6, 7000, 7000)));
        seen.put("a udp out v4", show(Traffic.udp(a, world.client, CLIENT_V4, 7001, 7001)));
        seen.put("check a", check(libcni.check(conf, a.path(), first)));
        seen.put("check b", check(libcni.check(conf, b.path(), second)));

        seen.put("del a", check(libcni.del(conf, a.path(), first)));
        seen.put("b after del a", show(Traffic.tcp(world.client, b, HOST_V4, 8081, 80)));
        seen.put("a after del a", show(Traffic.tcp(world.client, a, HOST_V4, 8080, 80)));
        seen.put("check b after del a", check(libcni.check(conf, b.path(), second)));
        seen.put("del a again", check(libcni.del(conf, a.path(), first)));
        seen.put("del b", check(libcni.del(conf, b.path(), second)));
        seen.put("del b again", check(libcni.del(conf, b.path(), second)));
        String left = world.rulesetText();
        for (JsonNode result : List.of(resultA, resultB)) {
            for (boolean v6 : new boolean[] {false, true}) {
                String ip = IpText.format(address(result, v6));
                seen.put("rules left for " + (result == resultA ? "a" : "b") + (v6 ? " v6" : " v4"),
                        Boolean.toString(left.contains(ip + " ") || left.contains(ip + ":")
                                || left.contains("[" + ip + "]") || left.contains(ip + "/")));
            }
        }
        seen.put("rules left tagged", Boolean.toString(left.contains("chain-a") || left.contains("chain-b")));
        return seen;
    }

    static String show(Seen seen) {
        return seen.reached() ? "reached, from " + IpText.format(seen.peer()) : "unreachable";
    }

    static String check(DriverOutcome outcome) {
        return outcome.succeeded() ? "ok" : "failed: " + outcome.error();
    }

    @Test
    void jcnisBridgePortmapAndFirewallPassEveryCheckGosPass() throws Exception {
        Map<String, String> jcni = exercise(ours, ours.jcni("cache"), conflist(ours));
        Map<String, String> go = exercise(theirs, theirs.go("cache"), conflist(theirs));
        for (String check : List.of("check a", "check b", "check b after del a")) {
            assertThat(jcni.remove(check)).as(check).isEqualTo("ok");
            assertThat(go.remove(check)).as("Go 1.1.1's portmap checks a dual-stack attachment's IPv4 rules in"
                    + " ip6tables, and fails").startsWith("failed: could not check ipv6 dnat: rule [[-p tcp");
        }
        assertThat(jcni).isEqualTo(go);
        assertThat(jcni).containsEntry("addresses", "10.222.9.2 10.222.9.3")
                .containsEntry("client tcp a v4", "reached, from 172.31.250.2")
                .containsEntry("client udp a v6", "reached, from fd00:250::2")
                .containsEntry("client tcp b v6", "reached, from fd00:250::2")
                .containsEntry("b on a's port v4", "unreachable")
                .containsEntry("hairpin a v4", "reached, from 10.222.9.1")
                .containsEntry("hairpin a v6", "reached, from fd22:9::1")
                .containsEntry("b to a's published port v4", "reached, from 10.222.9.1")
                .containsEntry("a out to the client v4", "reached, from 172.31.250.1")
                .containsEntry("a out to the client v6", "reached, from fd00:250::1")
                .containsEntry("a udp out v4", "reached, from 172.31.250.1")
                .containsEntry("b after del a", "reached, from 172.31.250.2")
                .containsEntry("a after del a", "unreachable")
                .containsEntry("del a again", "ok").containsEntry("del b again", "ok")
                .containsEntry("rules left for a v4", "false").containsEntry("rules left for b v6", "false")
                .containsEntry("rules left tagged", "false");
    }
}
