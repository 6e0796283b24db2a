package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Policy routing rules against the kernel, read back through our API and {@code ip -j rule}, with routes in the tables
 * they point to: what the sbr plugin needs (a rule per container address looking up a table of its own).
 */
class RuleOpsTest {
    private TestNamespace t;
    private Link v0;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
        v0 = t.vethPair("v0", "v1");
        t.nl.addAddress(v0.index(), Cidrs.ip("10.0.0.5"), 24);
        t.nl.addAddress(Cidrs.address(v0.index(), "fd00::5/64").flags(AddressFlag.NODAD));
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    private JsonNode ipRule(String family, int priority) {
        for (JsonNode r : t.ip(family, "rule", "show")) {
            if (r.get("priority").asInt() == priority) {
                return r;
            }
        }
        throw new AssertionError("ip shows no rule with priority " + priority);
    }

    @Test
    void defaultRulesAreReadAsIpShowsThem() {
        List<Rule> v4 = t.nl.rules(Family.V4);
        assertThat(v4).containsExactly(Rule.of(Family.V4).priority(0).table(Route.TABLE_LOCAL),
                Rule.of(Family.V4).priority(32766), Rule.of(Family.V4).priority(32767).table(253));
        assertThat(t.nl.rules(Family.V6)).extracting(Rule::priority).containsExactly(0, 32766);
        assertThat(t.nl.rules(null)).hasSize(v4.size() + t.nl.rules(Family.V6).size());
        JsonNode ip = t.ip("-4", "rule", "show");
        assertThat(ip).hasSize(v4.size());
    }

    @Test
    void sourceRuleWithTableAbove255AndItsDefaultRoute() {
        Rule rule = Rule.from(Cidrs.ip("10.0.0.5"), 32).table(1000).priority(1000);
        t.nl.addRule(rule);
        Route viaGateway = Route.defaultVia(InetAddress.ofLiteral("10.0.0.1")).dev(v0.index()).table(1000);
        t.nl.addRoute(viaGateway);

        assertThat(t.nl.rules(Family.V4)).contains(rule);
        JsonNode ip = ipRule("-4", 1000);
        assertThat(ip.get("src").asText()).isEqualTo("10.0.0.5");
        assertThat(ip.get("table").asText()).isEqualTo("1000");
        assertThat(t.nl.routes(Family.V4, 1000)).extracting(Cidrs::of, Route::gateway)
                .containsExactly(tuple("0.0.0.0/0", InetAddress.ofLiteral("10.0.0.1")));
        assertThat(t.ip("-4", "route", "show", "table", "1000").get(0).get("gateway").asText())
                .isEqualTo("10.0.0.1");
        assertThat(t.nl.routes(Family.V4)).extracting(Cidrs::of).doesNotContain("0.0.0.0/0");

        t.nl.deleteRule(rule);
        assertThat(t.nl.rules(Family.V4)).doesNotContain(rule);
        assertThatThrownBy(() -> t.nl.deleteRule(rule)).isInstanceOfSatisfying(NetlinkException.class, e -> {
            assertThat(e.isNotFound()).as(e.getMessage()).isTrue();
            assertThat(e.getMessage()).startsWith("RTM_DELRULE 1000: inet from 10.0.0.5/32 lookup 1000");
        });
    }

    /** What sbr does with the routes of the container's interface: read them, move them to a table of their own. */
    @Test
    void linkRoutesAreCopiedToAnotherTableAndRemovedFromMainAsSbrDoes() {
        String v4Net = Cidrs.canonical("10.0.0.0/24");
        String v6Net = Cidrs.canonical("fd00::/64");
        List<Route> linkRoutes = t.nl.routes(null).stream().filter(r -> r.outIndex() == v0.index())
                .filter(r -> Cidrs.of(r).equals(v4Net) || Cidrs.of(r).equals(v6Net)).toList();
        assertThat(linkRoutes).hasSize(2);
        for (Route r : linkRoutes) {
            t.nl.replaceRoute(r.table(1001).flags(0));
        }
        for (Route r : linkRoutes) {
            t.nl.deleteRoute(r);
        }
        assertThat(t.nl.routes(null)).extracting(Cidrs::of).doesNotContain(v4Net, v6Net);
        List<Route> moved = t.nl.routes(null, 1001);
        assertThat(moved).extracting(Cidrs::of).containsExactlyInAnyOrder(v4Net, v6Net);
        Route v4 = moved.stream().filter(r -> r.family() == Family.V4).findFirst().orElseThrow();
        assertThat(v4.source()).isEqualTo(InetAddress.ofLiteral("10.0.0.5"));
        assertThat(v4.scope()).isEqualTo(Scope.LINK);
        assertThat(v4.protocol()).isEqualTo(Route.PROTOCOL_KERNEL);
        JsonNode ip = t.ip("-4", "route", "show", "table", "1001").get(0);
        assertThat(ip.get("dst").asText()).isEqualTo("10.0.0.0/24");
        assertThat(ip.get("prefsrc").asText()).isEqualTo("10.0.0.5");
        assertThat(t.ip("-6", "route", "show", "table", "1001").get(0).get("dst").asText()).isEqualTo("fd00::/64");
    }

    @Test
    void ipv6RuleWithEverySelectorAndKernelChosenPriority() {
        Rule rule = Rule.from(Cidrs.ip("fd00::5"), 128).to(Cidrs.ip("fd01::"), 64).iif("v0").oif("v1")
                .table(100);
        t.nl.addRule(rule);
        Rule back = t.nl.rules(Family.V6).stream().filter(r -> r.table() == 100).findFirst().orElseThrow();
        assertThat(back.priority()).as("one below main's 32766").isEqualTo(32765);
        assertThat(back).isEqualTo(rule.priority(32765));
        JsonNode ip = ipRule("-6", 32765);
        assertThat(ip.get("src").asText()).isEqualTo("fd00::5");
        assertThat(ip.get("dst").asText()).isEqualTo("fd01::");
        assertThat(ip.get("dstlen").asInt()).isEqualTo(64);
        assertThat(ip.get("iif").asText()).isEqualTo("v0");
        assertThat(ip.get("oif").asText()).isEqualTo("v1");
        assertThat(ip.get("table").asText()).isEqualTo("100");
        // a delete with the priority left open matches it
        t.nl.deleteRule(rule);
        assertThat(t.nl.rules(Family.V6)).extracting(Rule::table).doesNotContain(100);
    }

    @Test
    void invertedAndBlackholeRules() {
        t.nl.addRule(Rule.from(Cidrs.ip("10.9.0.0"), 16).invert(true).table(50).priority(500));
        t.nl.addRule(Rule.of(Family.V4).to(Cidrs.ip("192.0.2.0"), 24).action(Rule.ACTION_BLACKHOLE)
                .priority(501));
        List<Rule> rules = new ArrayList<>(t.nl.rules(Family.V4));
        assertThat(rules).contains(Rule.from(Cidrs.ip("10.9.0.0"), 16).invert(true).table(50).priority(500),
                new Rule(Family.V4, 501, 0, null, 0, Cidrs.ip("192.0.2.0"), 24, null, null, Rule.ACTION_BLACKHOLE,
                        false));
        assertThat(ipRule("-4", 500).has("not")).isTrue();
        assertThat(ipRule("-4", 501).get("action").asText()).isEqualTo("blackhole");
        assertThatThrownBy(() -> t.nl.addRule(Rule.from(Cidrs.ip("10.9.0.0"), 16).invert(true).table(50)
                .priority(500))).isInstanceOfSatisfying(NetlinkException.class,
                        e -> assertThat(e.isExists()).as(e.getMessage()).isTrue());
    }
}
