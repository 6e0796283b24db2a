package io.jcni.plugins.internal.meta.sbr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Family;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import io.jcni.netlink.Rule;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.IpText;
import java.net.InetAddress;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * sbr against a real kernel: an anonymous "container" namespace with {@code eth0} (one end of a veth pair whose other
 * end stays there) holding 10.1.0.5/24 and a default route via 10.1.0.1, as a bridge plugin would leave it. Rules and
 * tables are read back through netlink-ffm; the it module reads them with {@code ip -j}, compares them with Go's sbr
 * and sends real traffic.
 */
class SbrPluginTest {
    private final Skel skel = PluginRegistry.skel("sbr");
    private NetNs container;
    private String path;

    @BeforeEach
    void containerWithAnAddressAndADefaultRoute() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates a network namespace");
        container = NetNs.create();
        path = container.path().toString();
        nl(nl -> {
            nl.addVeth(LinkAttrs.named("eth0").up(true), LinkAttrs.named("peer0"));
            nl.setUp(nl.link("peer0").index());
            int eth0 = nl.link("eth0").index();
            nl.addAddress(eth0, ip("10.1.0.5"), 24);
            nl.addRoute(Route.defaultVia(ip("10.1.0.1")).dev(eth0));
            return null;
        });
    }

    @AfterEach
    void close() {
        if (container != null) {
            container.close();
        }
    }

    static InetAddress ip(String text) {
        try {
            return IpText.parseAddress(text, "test");
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    <T> T nl(Function<NetlinkHandle, T> work) {
        try (NetlinkHandle nl = Netlink.open(container)) {
            return work.apply(nl);
        }
    }

    String conf(String keys, String ips) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"sbrnet\",\"type\":\"sbr\"" + keys + ",\"prevResult\":{"
                + "\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"veth1\"},{\"name\":\"eth0\",\"sandbox\":\""
                + path + "\"}],\"ips\":[" + ips + "]}}";
    }

    static final String ETH0_IP = "{\"address\":\"10.1.0.5/24\",\"gateway\":\"10.1.0.1\",\"interface\":1}";

    PluginCall.Outcome call(String command, String conf) {
        return PluginCall.of(command).netns(path).containerId("ctr-sbr").ifName("eth0").stdin(conf).run(skel);
    }

    /** Rules that are not the kernel's defaults, as {@code ip rule} prints them. */
    List<String> rules() {
        return nl(nl -> nl.rules(null).stream().filter(r -> r.source() != null).map(Rule::toString).toList());
    }

    /** The IPv4 routes of a table, as {@code ip route} prints them (dev as index). */
    List<String> routes(int table) {
        return nl(nl -> {
            try {
                return nl.routes(Family.V4, table).stream().map(r -> r.toString()).sorted().toList();
            } catch (io.jcni.netlink.NetlinkException e) {
                return List.of();
            }
        });
    }

    int eth0() {
        return nl(nl -> nl.link("eth0").index());
    }

    @Test
    void theAddressGetsARuleAndATableAndTheMainTableLosesTheInterfacesRoutes() throws Exception {
        String conf = conf("", ETH0_IP);
        call("ADD", conf).ok();

        int eth0 = eth0();
        assertThat(rules()).containsExactly("32765: inet from 10.1.0.5/32 lookup 100");
        assertThat(routes(100)).containsExactly("10.1.0.0/24 dev " + eth0 + " table 100 scope link src 10.1.0.5",
                "default via 10.1.0.1 dev " + eth0 + " table 100");
        List<Route> left = nl(nl -> nl.routes(null).stream().filter(r -> r.outIndex() == eth0).toList());
        assertThat(left).as("no route through eth0 is left in main, IPv6 link-local included").isEmpty();
        List<String> v6 = nl(nl -> nl.routes(Family.V6, 100).stream().map(r -> r.destination().getHostAddress()
                + "/" + r.destinationLength()).toList());
        assertThat(v6).as("Go copies fe80::/64 too").contains("fe80:0:0:0:0:0:0:0/64");

        call("CHECK", conf).ok();
        call("DEL", conf).ok();
        assertThat(rules()).isEmpty();
        call("DEL", conf).ok();
    }

    @Test
    void theFirstTableNoRuleUsesIsTakenAndEachAddressGetsItsOwn() throws Exception {
        nl(nl -> {
            nl.addRule(Rule.from(ip("192.0.2.9"), 32).table(100));
            nl.addRule(Rule.from(ip("192.0.2.10"), 32).table(102));
            nl.addAddress(nl.link("eth0").index(), ip("10.1.0.6"), 24);
            return null;
        });
        String second = "{\"address\":\"10.1.0.6/24\",\"interface\":1}";
        call("ADD", conf("", ETH0_IP + "," + second)).ok();
        assertThat(rules()).hasSize(4).anyMatch(r -> r.endsWith("from 10.1.0.5/32 lookup 101"))
                .anyMatch(r -> r.endsWith("from 10.1.0.6/32 lookup 103"));
        assertThat(routes(103)).as("no gateway of its own: the routes of main in its prefix")
                .containsExactly("10.1.0.0/24 dev " + eth0() + " table 103 scope link src 10.1.0.5",
                        "default via 10.1.0.1 dev " + eth0() + " table 103");
    }

    @Test
    void withTableOnlyRulesAreAddedAndRoutesStay() throws Exception {
        List<String> mainBefore = routes(Route.TABLE_MAIN);
        String conf = conf(",\"table\":4242", ETH0_IP);
        call("ADD", conf).ok();
        assertThat(rules()).containsExactly("32765: inet from 10.1.0.5/32 lookup 4242");
        assertThat(routes(Route.TABLE_MAIN)).isEqualTo(mainBefore);
        call("CHECK", conf).ok();
        assertThat(call("CHECK", conf(",\"table\":4243", ETH0_IP)).error().msg())
                .isEqualTo("no rule from 10.1.0.5/32 lookup 4243 in " + path);
        call("DEL", conf).ok();
        assertThat(rules()).isEmpty();
    }

    /**
     * The second address's gateway is not reachable, so its default route fails after the first address's rule,
     * table and the second's rule were made: all of it is undone, and the main table is as before.
     */
    @Test
    void aFailedAddRestoresTheMainTableAndRemovesRulesAndTables() throws Exception {
        List<String> mainBefore = routes(Route.TABLE_MAIN);
        String unreachable = "{\"address\":\"10.1.0.5/24\",\"gateway\":\"192.0.2.1\",\"interface\":1}";
        CniError error = call("ADD", conf("", ETH0_IP + "," + unreachable)).error();
        assertThat(error.msg()).startsWith("Failed to add default route to 192.0.2.1: RTM_NEWROUTE");
        assertThat(rules()).isEmpty();
        assertThat(routes(100)).isEmpty();
        assertThat(routes(101)).isEmpty();
        assertThat(routes(Route.TABLE_MAIN)).isEqualTo(mainBefore);
    }

    @Test
    void checkFailsWithoutTheRule() throws Exception {
        String conf = conf("", ETH0_IP);
        call("ADD", conf).ok();
        nl(nl -> {
            nl.deleteRule(Rule.from(ip("10.1.0.5"), 32).table(100));
            return null;
        });
        assertThat(call("CHECK", conf).error().msg()).isEqualTo("no rule from 10.1.0.5/32 in " + path);
    }

    @Test
    void configurationErrors() throws Exception {
        String noPrev = "{\"cniVersion\":\"1.0.0\",\"name\":\"sbrnet\",\"type\":\"sbr\"}";
        CniError chained = call("ADD", noPrev).error();
        assertThat(chained.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(chained.msg()).isEqualTo("This plugin must be called as chained plugin");
        CniError noIps = call("ADD", conf("", "")).error();
        assertThat(noIps.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(noIps.msg()).isEqualTo("No IP addresses supplied on interface: eth0");
        CniError table = call("ADD", conf(",\"table\":0", ETH0_IP)).error();
        assertThat(table.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(table.msg()).isEqualTo("table: 0 out of range 1-2147483647");
        assertThat(rules()).isEmpty();
        call("DEL", conf(",\"table\":0", ETH0_IP)).ok();
    }

    @Test
    void delOfAGoneNamespaceOrInterfaceIsSuccess() throws Exception {
        PluginCall.of("DEL").netns("/var/run/netns/jcni-sbr-gone").ifName("eth0").stdin(conf("", ETH0_IP)).run(skel)
                .ok();
        PluginCall.of("DEL").netns(path).ifName("eth9").stdin(conf("", ETH0_IP)).run(skel).ok();
    }
}
