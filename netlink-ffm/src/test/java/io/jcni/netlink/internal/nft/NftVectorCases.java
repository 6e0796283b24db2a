package io.jcni.netlink.internal.nft;

import io.jcni.netlink.MacAddress;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.NamedSet;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.SetElement;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.netlink.nft.Verdict;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Each case is an {@code nft -f} script and the same changes made through {@link Transaction}: the requests must be
 * byte for byte what {@code nft} sends. The scripts cover every encoder: tables (with comment), regular and base chains
 * (nat, filter with drop policy, bridge), chain comments, every expression {@link Exprs} writes in the shapes the Go
 * plugins' nftables layouts use (portmap, ipMasq, macspoofchk, a firewall), sets, maps, verdict maps, concatenated
 * keys, elements, lookups and every delete.
 */
final class NftVectorCases {
    private NftVectorCases() {}

    record Case(String name, List<String> script, Consumer<Transaction> ours) {
    }

    private static final TableFamily IP = TableFamily.IP;
    private static final TableFamily IP6 = TableFamily.IP6;
    private static final TableFamily INET = TableFamily.INET;
    private static final TableFamily BRIDGE = TableFamily.BRIDGE;

    /**
     * A comment as long as {@code nft} takes (128 bytes), shaped like the Go ipMasq comment that Go truncates to that
     * length.
     */
    static final String LONGEST_COMMENT = ("0123456789abcdef-fedcba9876543210, net: a-long-network-name, if: eth0, id: "
            + "c".repeat(64)).substring(0, 128);

    static InetAddress ip(String text) {
        try {
            return InetAddress.getByName(text); // literals only: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static Rule rule(TableFamily f, String table, String chain, Exprs e, String comment) {
        return Rule.of(f, table, chain, e.toList(), comment);
    }

    static List<Case> all() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("table with comment", List.of(
                "add table ip cni_hostport { comment \"CNI portmap plugin\" ; }"),
                tx -> tx.addTable(new Table(IP, "cni_hostport", "CNI portmap plugin"))));
        cases.add(new Case("inet table, regular chain with comment", List.of(
                "add table inet cni_plugins_masquerade",
                "add chain inet cni_plugins_masquerade masq_checks { comment \"Masquerade traffic from certain IPs\" ; }"),
                tx -> {
                    tx.addTable(new Table(INET, "cni_plugins_masquerade", null));
                    tx.addChain(Chain.regular(INET, "cni_plugins_masquerade", "masq_checks")
                            .withComment("Masquerade traffic from certain IPs"));
                }));
        cases.add(new Case("portmap chains and rules", List.of(
                "add table ip t",
                "add chain ip t hostports",
                "add chain ip t hostports_all",
                "add chain ip t prerouting { type nat hook prerouting priority dstnat ; policy accept ; }",
                "add chain ip t output { type nat hook output priority -100 ; policy accept ; }",
                "add chain ip t masquerading { type nat hook postrouting priority srcnat ; policy accept ; }",
                "flush chain ip t hostports_all",
                "add rule ip t hostports_all jump hostports",
                "add rule ip t prerouting fib daddr type local jump hostports_all",
                "add rule ip t hostports ip daddr 10.0.0.1 tcp dport 8080 dnat to 10.88.0.5:80 comment \"ctr-1\"",
                "add rule ip t hostports udp dport 53 dnat to 10.88.0.5:5353 comment \"ctr-1\"",
                "add rule ip t hostports sctp dport 9 dnat to 10.88.0.5 comment \"ctr-1\"",
                "add rule ip t masquerading ip saddr 127.0.0.1 masquerade comment \"ctr-1\""),
                tx -> {
                    tx.addTable(new Table(IP, "t", null));
                    tx.addChain(Chain.regular(IP, "t", "hostports"));
                    tx.addChain(Chain.regular(IP, "t", "hostports_all"));
                    tx.addChain(Chain.base(IP, "t", "prerouting", Chain.Type.NAT, Chain.Hook.PREROUTING,
                            Chain.PRIORITY_DSTNAT, Chain.Policy.ACCEPT));
                    tx.addChain(Chain.base(IP, "t", "output", Chain.Type.NAT, Chain.Hook.OUTPUT,
                            Chain.PRIORITY_DSTNAT, Chain.Policy.ACCEPT));
                    tx.addChain(Chain.base(IP, "t", "masquerading", Chain.Type.NAT, Chain.Hook.POSTROUTING,
                            Chain.PRIORITY_SRCNAT, Chain.Policy.ACCEPT));
                    tx.flushChain(IP, "t", "hostports_all");
                    tx.addRule(rule(IP, "t", "hostports_all", Exprs.in(IP).jump("hostports"), null));
                    tx.addRule(rule(IP, "t", "prerouting", Exprs.in(IP).fibDaddrType(Exprs.RTN_LOCAL)
                            .jump("hostports_all"), null));
                    tx.addRule(rule(IP, "t", "hostports", Exprs.in(IP).daddr(ip("10.0.0.1")).dport(Exprs.TCP, 8080)
                            .dnat(ip("10.88.0.5"), 80), "ctr-1"));
                    tx.addRule(rule(IP, "t", "hostports", Exprs.in(IP).dport(Exprs.UDP, 53)
                            .dnat(ip("10.88.0.5"), 5353), "ctr-1"));
                    tx.addRule(rule(IP, "t", "hostports", Exprs.in(IP).dport(Exprs.SCTP, 9)
                            .dnat(ip("10.88.0.5"), 0), "ctr-1"));
                    tx.addRule(rule(IP, "t", "masquerading", Exprs.in(IP).saddr(ip("127.0.0.1")).masquerade(),
                            "ctr-1"));
                }));
        cases.add(new Case("portmap IPv6", List.of(
                "add table ip6 t",
                "add chain ip6 t prerouting { type nat hook prerouting priority dstnat ; policy accept ; }",
                "add chain ip6 t masquerading { type nat hook postrouting priority srcnat ; policy accept ; }",
                "add rule ip6 t prerouting ip6 daddr fd00::1 tcp dport 8080 dnat to [fd00::5]:80 comment \"c\"",
                "add rule ip6 t masquerading ip6 saddr ::/0 masquerade",
                "add rule ip6 t masquerading ip6 daddr fd00::/61 snat to fd00::1"),
                tx -> {
                    tx.addTable(new Table(IP6, "t", null));
                    tx.addChain(Chain.base(IP6, "t", "prerouting", Chain.Type.NAT, Chain.Hook.PREROUTING,
                            Chain.PRIORITY_DSTNAT, Chain.Policy.ACCEPT));
                    tx.addChain(Chain.base(IP6, "t", "masquerading", Chain.Type.NAT, Chain.Hook.POSTROUTING,
                            Chain.PRIORITY_SRCNAT, Chain.Policy.ACCEPT));
                    tx.addRule(rule(IP6, "t", "prerouting", Exprs.in(IP6).daddr(ip("fd00::1"))
                            .dport(Exprs.TCP, 8080).dnat(ip("fd00::5"), 80), "c"));
                    tx.addRule(rule(IP6, "t", "masquerading", Exprs.in(IP6).saddr(ip("::"), 0).masquerade(), null));
                    tx.addRule(rule(IP6, "t", "masquerading", Exprs.in(IP6).daddr(ip("fd00::"), 61)
                            .snat(ip("fd00::1"), 0), null));
                }));
        cases.add(new Case("ipMasq layout", List.of(
                "add table inet t",
                "add chain inet t masq_checks",
                "add chain inet t postrouting { type nat hook postrouting priority srcnat ; policy accept ; }",
                "flush chain inet t postrouting",
                "add rule inet t postrouting ip daddr == 224.0.0.0/4 return",
                "add rule inet t postrouting ip6 daddr == ff00::/8 return",
                "add rule inet t postrouting goto masq_checks",
                "add rule inet t masq_checks ip saddr == 10.88.0.5 ip daddr != 10.88.0.0/16 masquerade comment \"h\"",
                "add rule inet t masq_checks ip6 saddr == fd00::5 ip6 daddr != fd00::/64 masquerade comment \"h\"",
                "add rule inet t masq_checks ip saddr 10.1.2.3 ip daddr != 10.0.0.0/13 masquerade",
                "add rule inet t masq_checks ip saddr 10.88.0.6 ip daddr != 10.88.0.0/16 masquerade comment \""
                        + LONGEST_COMMENT + "\""),
                tx -> {
                    tx.addTable(new Table(INET, "t", null));
                    tx.addChain(Chain.regular(INET, "t", "masq_checks"));
                    tx.addChain(Chain.base(INET, "t", "postrouting", Chain.Type.NAT, Chain.Hook.POSTROUTING,
                            Chain.PRIORITY_SRCNAT, Chain.Policy.ACCEPT));
                    tx.flushChain(INET, "t", "postrouting");
                    tx.addRule(rule(INET, "t", "postrouting", Exprs.in(INET).daddr(ip("224.0.0.0"), 4).ret(), null));
                    tx.addRule(rule(INET, "t", "postrouting", Exprs.in(INET).daddr(ip("ff00::"), 8).ret(), null));
                    tx.addRule(rule(INET, "t", "postrouting", Exprs.in(INET).goTo("masq_checks"), null));
                    tx.addRule(rule(INET, "t", "masq_checks", Exprs.in(INET).saddr(ip("10.88.0.5"))
                            .notDaddr(ip("10.88.0.0"), 16).masquerade(), "h"));
                    tx.addRule(rule(INET, "t", "masq_checks", Exprs.in(INET).saddr(ip("fd00::5"))
                            .notDaddr(ip("fd00::"), 64).masquerade(), "h"));
                    tx.addRule(rule(INET, "t", "masq_checks", Exprs.in(INET).saddr(ip("10.1.2.3"))
                            .notDaddr(ip("10.0.0.0"), 13).masquerade(), null));
                    tx.addRule(rule(INET, "t", "masq_checks", Exprs.in(INET).saddr(ip("10.88.0.6"))
                            .notDaddr(ip("10.88.0.0"), 16).masquerade(), LONGEST_COMMENT));
                }));
        cases.add(new Case("firewall layout", List.of(
                "add table inet t",
                "add chain inet t forward { type filter hook forward priority filter ; policy drop ; }",
                "add chain inet t cni_forward",
                "add chain inet t cni_admin",
                "add rule inet t forward jump cni_forward",
                "insert rule inet t cni_forward jump cni_admin",
                "add rule inet t cni_forward ip daddr 10.88.0.5 ct state established,related accept",
                "add rule inet t cni_forward ip6 saddr fd00::5 accept",
                "add rule inet t cni_forward iifname \"cni0\" oifname != \"cni0\" drop",
                "add rule inet t cni_forward iifname != \"cni0\" oifname \"cni0\" counter drop",
                "add rule inet t cni_forward ct status dnat accept",
                "add rule inet t cni_forward ct state invalid,new,untracked drop",
                "add rule inet t cni_forward meta mark 0x2000 accept",
                "add rule inet t cni_forward ct mark 0x10 return",
                "add rule inet t cni_forward meta mark set 0x2000",
                "add rule inet t cni_forward ct mark set 0x5 continue",
                "add rule inet t cni_forward tcp sport 22 accept"),
                tx -> {
                    tx.addTable(new Table(INET, "t", null));
                    tx.addChain(Chain.base(INET, "t", "forward", Chain.Type.FILTER, Chain.Hook.FORWARD,
                            Chain.PRIORITY_FILTER, Chain.Policy.DROP));
                    tx.addChain(Chain.regular(INET, "t", "cni_forward"));
                    tx.addChain(Chain.regular(INET, "t", "cni_admin"));
                    tx.addRule(rule(INET, "t", "forward", Exprs.in(INET).jump("cni_forward"), null));
                    tx.insertRule(rule(INET, "t", "cni_forward", Exprs.in(INET).jump("cni_admin"), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).daddr(ip("10.88.0.5"))
                            .ctState(Exprs.CT_STATE_ESTABLISHED | Exprs.CT_STATE_RELATED).accept(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).saddr(ip("fd00::5")).accept(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).iifname("cni0").notOifname("cni0")
                            .drop(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).notIifname("cni0").oifname("cni0")
                            .counter().drop(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).ctStatus(Exprs.CT_STATUS_DNAT).accept(),
                            null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).ctState(Exprs.CT_STATE_INVALID
                            | Exprs.CT_STATE_NEW | Exprs.CT_STATE_UNTRACKED).drop(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).mark(0x2000).accept(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).ctMark(0x10).ret(), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).setMark(0x2000), null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).setCtMark(5).verdict(Verdict.CONTINUE),
                            null));
                    tx.addRule(rule(INET, "t", "cni_forward", Exprs.in(INET).sport(Exprs.TCP, 22).accept(), null));
                }));
        cases.add(new Case("macspoofchk layout", List.of(
                "add table bridge nat",
                "add chain bridge nat PREROUTING { type filter hook prerouting priority -300 ; policy accept ; }",
                "add chain bridge nat cni-br-iface-ref",
                "add chain bridge nat cni-br-iface-ref-mac",
                "flush chain bridge nat cni-br-iface-ref",
                "add rule bridge nat PREROUTING iifname \"veth1\" jump cni-br-iface-ref comment \"macspoofchk-ref\"",
                "add rule bridge nat cni-br-iface-ref jump cni-br-iface-ref-mac comment \"macspoofchk-ref\"",
                "add rule bridge nat cni-br-iface-ref-mac ether saddr 0a:58:0a:00:00:05 return",
                "add rule bridge nat cni-br-iface-ref-mac drop comment \"macspoofchk-ref\"",
                "add rule bridge nat cni-br-iface-ref-mac ip saddr 10.0.0.1 ether saddr != 0a:58:0a:00:00:06 drop"),
                tx -> {
                    tx.addTable(new Table(BRIDGE, "nat", null));
                    tx.addChain(Chain.base(BRIDGE, "nat", "PREROUTING", Chain.Type.FILTER, Chain.Hook.PREROUTING,
                            Chain.PRIORITY_BRIDGE_DSTNAT, Chain.Policy.ACCEPT));
                    tx.addChain(Chain.regular(BRIDGE, "nat", "cni-br-iface-ref"));
                    tx.addChain(Chain.regular(BRIDGE, "nat", "cni-br-iface-ref-mac"));
                    tx.flushChain(BRIDGE, "nat", "cni-br-iface-ref");
                    tx.addRule(rule(BRIDGE, "nat", "PREROUTING", Exprs.in(BRIDGE).iifname("veth1")
                            .jump("cni-br-iface-ref"), "macspoofchk-ref"));
                    tx.addRule(rule(BRIDGE, "nat", "cni-br-iface-ref", Exprs.in(BRIDGE).jump("cni-br-iface-ref-mac"),
                            "macspoofchk-ref"));
                    tx.addRule(rule(BRIDGE, "nat", "cni-br-iface-ref-mac", Exprs.in(BRIDGE)
                            .etherSaddr(MacAddress.parse("0a:58:0a:00:00:05")).ret(), null));
                    tx.addRule(rule(BRIDGE, "nat", "cni-br-iface-ref-mac", Exprs.in(BRIDGE).drop(),
                            "macspoofchk-ref"));
                    tx.addRule(rule(BRIDGE, "nat", "cni-br-iface-ref-mac", Exprs.in(BRIDGE).saddr(ip("10.0.0.1"))
                            .notEtherSaddr(MacAddress.parse("0a:58:0a:00:00:06")).drop(), null));
                }));
        cases.add(new Case("sets, maps and lookups", List.of(
                "add table inet t",
                "add chain inet t c",
                "add set inet t addrs { type ipv4_addr ; }",
                "add set inet t ports { type ipv4_addr . inet_proto . inet_service ; }",
                "add map inet t verdicts { type ipv4_addr : verdict ; }",
                "add map inet t dnat6 { type inet_service : ipv6_addr ; }",
                "add set inet t ifs { type ifname ; }",
                "add set inet t marks { type mark ; }",
                "add element inet t addrs { 10.0.0.1, 10.0.0.2 }",
                "add element inet t ports { 10.0.0.1 . tcp . 80 }",
                "add element inet t verdicts { 10.0.0.2 : jump c, 10.0.0.3 : drop }",
                "add element inet t dnat6 { 80 : fd00::5 }",
                "add element inet t ifs { \"eth0\" }",
                "add element inet t marks { 0x10 }",
                "add rule inet t c ip saddr @addrs accept",
                "add rule inet t c ip saddr != @addrs drop",
                "add rule inet t c ip saddr . meta l4proto . th dport @ports accept",
                "add rule inet t c ip daddr vmap @verdicts",
                "add rule inet t c iifname @ifs accept",
                "delete element inet t addrs { 10.0.0.2 }",
                "flush set inet t ifs",
                "delete set inet t marks"),
                tx -> {
                    tx.addTable(new Table(INET, "t", null));
                    tx.addChain(Chain.regular(INET, "t", "c"));
                    NamedSet addrs = NamedSet.set(INET, "t", "addrs", NamedSet.DataType.IPV4_ADDR);
                    NamedSet ports = NamedSet.set(INET, "t", "ports", NamedSet.DataType.IPV4_ADDR,
                            NamedSet.DataType.INET_PROTO, NamedSet.DataType.INET_SERVICE);
                    NamedSet verdicts = NamedSet.map(INET, "t", "verdicts", NamedSet.DataType.VERDICT,
                            NamedSet.DataType.IPV4_ADDR);
                    NamedSet dnat6 = NamedSet.map(INET, "t", "dnat6", NamedSet.DataType.IPV6_ADDR,
                            NamedSet.DataType.INET_SERVICE);
                    NamedSet ifs = NamedSet.set(INET, "t", "ifs", NamedSet.DataType.IFNAME);
                    NamedSet marks = NamedSet.set(INET, "t", "marks", NamedSet.DataType.MARK);
                    for (NamedSet s : List.of(addrs, ports, verdicts, dnat6, ifs, marks)) {
                        tx.addSet(s);
                    }
                    tx.addElements(INET, "t", "addrs", List.of(SetElement.of(addrs.key(ip("10.0.0.1"))),
                            SetElement.of(addrs.key(ip("10.0.0.2")))));
                    tx.addElements(INET, "t", "ports", List.of(SetElement.of(ports.key(ip("10.0.0.1"), 6, 80))));
                    tx.addElements(INET, "t", "verdicts", List.of(
                            SetElement.mapping(verdicts.key(ip("10.0.0.2")), Verdict.jump("c")),
                            SetElement.mapping(verdicts.key(ip("10.0.0.3")), Verdict.DROP)));
                    tx.addElements(INET, "t", "dnat6", List.of(SetElement.mapping(dnat6.key(80),
                            dnat6.data(ip("fd00::5")))));
                    tx.addElements(INET, "t", "ifs", List.of(SetElement.of(ifs.key("eth0"))));
                    tx.addElements(INET, "t", "marks", List.of(SetElement.of(marks.key(0x10))));
                    tx.addRule(rule(INET, "t", "c", Exprs.in(INET).inSet("addrs", Exprs.Field.IP_SADDR).accept(),
                            null));
                    tx.addRule(rule(INET, "t", "c", Exprs.in(INET).notInSet("addrs", Exprs.Field.IP_SADDR).drop(),
                            null));
                    tx.addRule(rule(INET, "t", "c", Exprs.in(INET).inSet("ports", Exprs.Field.IP_SADDR,
                            Exprs.Field.L4PROTO, Exprs.Field.TH_DPORT).accept(), null));
                    tx.addRule(rule(INET, "t", "c", Exprs.in(INET).vmap("verdicts", Exprs.Field.IP_DADDR), null));
                    tx.addRule(rule(INET, "t", "c", Exprs.in(INET).inSet("ifs", Exprs.Field.IIFNAME).accept(), null));
                    tx.deleteElements(INET, "t", "addrs", List.of(SetElement.of(addrs.key(ip("10.0.0.2")))));
                    tx.flushSet(INET, "t", "ifs");
                    tx.deleteSet(INET, "t", "marks");
                }));
        cases.add(new Case("deletes", List.of(
                "add table ip t",
                "add chain ip t c",
                "add rule ip t c counter",
                "delete rule ip t c handle 4",
                "delete chain ip t c",
                "delete table ip t"),
                tx -> {
                    tx.addTable(new Table(IP, "t", null));
                    tx.addChain(Chain.regular(IP, "t", "c"));
                    tx.addRule(rule(IP, "t", "c", Exprs.in(IP).counter(), null));
                    tx.deleteRule(IP, "t", "c", 4);
                    tx.deleteChain(IP, "t", "c");
                    tx.deleteTable(IP, "t");
                }));
        return cases;
    }
}
