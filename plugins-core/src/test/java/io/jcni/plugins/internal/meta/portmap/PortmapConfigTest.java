package io.jcni.plugins.internal.meta.portmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.plugins.internal.pkg.nft.AttachmentComment;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * portmap's configuration and the rules it writes, without a kernel: every refusal here happens before the plugin
 * opens an nftables handle (these calls run in the test JVM's own namespace, which they must never change; the
 * {@code it} module runs the plugin against the kernel in test hosts). The rules are compared with what
 * {@link Exprs} writes for the statements of Go's nftables backend.
 */
class PortmapConfigTest {
    static final String PREV = """
            ,"prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"/x"}],\
            "ips":[{"interface":0,"address":"10.88.0.5/16","gateway":"10.88.0.1"}]}""";
    static final String PREV_DUAL = """
            ,"prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"cni0"},{"name":"eth0","sandbox":"/x"}],\
            "ips":[{"interface":0,"address":"10.99.0.1/16"},{"interface":1,"address":"10.88.0.5/16"},\
            {"interface":1,"address":"10.88.0.6/16"},{"interface":1,"address":"fd88::5/64"}]}""";

    static Skel skel() {
        return Skel.of("portmap", new PortmapPlugin(), CniVersion.SUPPORTED);
    }

    static String conf(String fields, String mappings, String prev) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"pm\",\"type\":\"portmap\"" + fields
                + ",\"runtimeConfig\":{\"portMappings\":[" + mappings + "]}" + prev + "}";
    }

    static final String TCP_8080 = "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}";

    static CniError error(String command, String conf) throws CniException {
        return PluginCall.of(command).stdin(conf).run(skel()).error();
    }

    static InetAddress ip(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"icmp\"}|7|"
                + "runtimeConfig.portMappings[0].protocol: unknown protocol \"icmp\"",
        "{\"hostPort\":8080,\"containerPort\":80}|7|runtimeConfig.portMappings[0].protocol: unknown protocol \"\"",
        "{\"hostPort\":0,\"containerPort\":80,\"protocol\":\"tcp\"}|7|Invalid host port number: 0",
        "{\"hostPort\":65536,\"containerPort\":80,\"protocol\":\"tcp\"}|7|Invalid host port number: 65536",
        "{\"hostPort\":-1,\"containerPort\":80,\"protocol\":\"tcp\"}|7|Invalid host port number: -1",
        "{\"hostPort\":8080,\"containerPort\":0,\"protocol\":\"tcp\"}|7|Invalid container port number: 0",
        "{\"hostPort\":8080,\"containerPort\":70000,\"protocol\":\"udp\"}|7|Invalid container port number: 70000",
        "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\",\"hostIP\":\"2001:db8::1\"}|7|"
                + "runtimeConfig.portMappings[0].hostIP: 2001:db8::1 is an IPv6 address, and the container has no"
                + " IPv6 address to forward tcp 8080 -> 80 (hostIP 2001:db8::1) to",
        "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\",\"hostIP\":\"::\"}|7|"
                + "runtimeConfig.portMappings[0].hostIP: :: is an IPv6 address, and the container has no IPv6"
                + " address to forward tcp 8080 -> 80 (hostIP ::) to",
        "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\",\"hostIP\":\"10.0.0.300\"}|7|",
        "{\"hostPort\":8080.5,\"containerPort\":80,\"protocol\":\"tcp\"}|6|",
        "{\"hostPort\":\"8080\",\"containerPort\":80,\"protocol\":\"tcp\"}|6|",
    })
    void badMappingsAreRefusedBeforeAnyRuleIsWritten(String mapping, int code, String msg) throws Exception {
        for (String command : List.of("ADD", "CHECK")) {
            CniError e = error(command, conf("", TCP_8080 + "," + mapping, PREV));
            assertThat(e.code()).as(command).isEqualTo(code);
            if (msg != null) {
                assertThat(e.msg()).as(command).isEqualTo(msg.replace("[0]", "[1]"));
            }
        }
    }

    @Test
    void withoutPrevResultAddAndCheckAreRefusedWithGosTexts() throws Exception {
        CniError add = error("ADD", conf("", TCP_8080, ""));
        assertThat(add.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(add.msg()).isEqualTo("must be called as chained plugin");
        CniError check = error("CHECK", conf("", TCP_8080, ""));
        assertThat(check.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(check.msg()).isEqualTo("Required prevResult missing");
    }

    @Test
    void withoutMappingsAddPassesPrevResultOnAndTouchesNothing() throws Exception {
        String out = PluginCall.of("ADD").stdin(conf("", "", PREV)).run(skel()).ok().stdout();
        assertThat(out).contains("\"address\": \"10.88.0.5/16\"").contains("\"sandbox\": \"/x\"");
        String noRuntimeConfig = "{\"cniVersion\":\"1.0.0\",\"name\":\"pm\",\"type\":\"portmap\"" + PREV + "}";
        assertThat(PluginCall.of("ADD").stdin(noRuntimeConfig).run(skel()).ok().stdout()).isEqualTo(out);
        assertThat(PluginCall.of("DEL").stdin(noRuntimeConfig).run(skel()).ok().stdout()).isEmpty();
        assertThat(PluginCall.of("CHECK").stdin(noRuntimeConfig).run(skel()).status()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        ",\"backend\":\"iptables\"|2|backend: \"iptables\" is not supported",
        ",\"backend\":\"ebpf\"|7|unrecognized backend \"ebpf\"",
        ",\"externalSetMarkChain\":\"KUBE-MARK-MASQ\"|2|nftables backend was requested but configuration contains"
                + " iptables-specific options [externalSetMarkChain]",
        ",\"externalSetMarkChain\":\"my chain\"|2|nftables backend was requested but configuration contains"
                + " iptables-specific options [externalSetMarkChain]",
        ",\"externalSetMarkChain\":\"x\\\"; flush ruleset; \\\"\"|2|nftables backend was requested but configuration"
                + " contains iptables-specific options [externalSetMarkChain]",
        ",\"externalSetMarkChain\":\"KUBE-MARK-MASQ\",\"markMasqBit\":14|7|"
                + "Cannot specify externalSetMarkChain and markMasqBit",
        ",\"markMasqBit\":32|7|MasqMarkBit must be between 0 and 31",
        ",\"markMasqBit\":-1|7|MasqMarkBit must be between 0 and 31",
        ",\"conditionsV4\":[\"-d\",\"10.0.0.1\"]|2|nftables backend was requested but configuration contains"
                + " iptables-specific options [conditionsV4]",
        ",\"conditionsV6\":[\"!\",\"-s\",\"fd00::/8\"]|2|nftables backend was requested but configuration contains"
                + " iptables-specific options [conditionsV6]",
        ",\"conditionsV4\":[\"ct state new\"]|2|conditionsV4: \"ct\" is not supported",
        ",\"conditionsV4\":[\"tcp dport 80\"]|2|conditionsV4: \"tcp\" is not supported",
        ",\"conditionsV4\":[\"ip saddr { 10.0.0.1, 10.0.0.2 }\"]|2|conditionsV4: \"ip saddr {\" is not supported",
        ",\"conditionsV4\":[\"ip protocol tcp\"]|2|conditionsV4: \"ip protocol\" is not supported",
        ",\"conditionsV4\":[\"ip saddr 10.0.0.1-10.0.0.9\"]|2|conditionsV4: \"ip saddr 10.0.0.1-10.0.0.9\" is not"
                + " supported",
        ",\"conditionsV4\":[\"iifname \\\"eth*\\\"\"]|2|conditionsV4: interface wildcard \"eth*\" is not supported",
        ",\"conditionsV4\":[\"jump \\\"my chain\\\"\"]|2|conditionsV4: \"jump\" is not supported",
        ",\"conditionsV4\":[\"ip saddr 10.0.0.1; flush ruleset\"]|7|",
        ",\"conditionsV4\":[\"iifname \\\"eth0\\\" ; flush ruleset\"]|2|conditionsV4: \";\" is not supported",
        ",\"conditionsV4\":[\"iifname \\\"eth0\"]|7|",
        ",\"conditionsV4\":[\"iifname \\\"a b\\\"c\"]|7|",
        ",\"conditionsV4\":[\"ip saddr\"]|7|conditionsV4: \"ip saddr\" ends in the middle of a match",
        ",\"conditionsV4\":[\"ip6 saddr fd00::1\"]|7|",
        ",\"conditionsV4\":[\"ip saddr fd00::1\"]|7|conditionsV4: fd00::1 is not an IPv4 address",
        ",\"conditionsV6\":[\"ip daddr 10.0.0.1\"]|7|",
        ",\"conditionsV4\":[\"iifname thisnameistoolong\"]|7|conditionsV4: invalid interface name"
                + " \"thisnameistoolong\"",
    })
    void optionsOnlyIptablesHonoursAndConditionsBeyondWhatJcniReadsAreRefused(String fields, int code, String msg)
            throws Exception {
        CniError e = error("ADD", conf(fields, TCP_8080, PREV));
        assertThat(e.code()).isEqualTo(code);
        if (msg != null) {
            assertThat(e.msg()).isEqualTo(msg);
        }
    }

    @Test
    void theContainersAddressesAreTheFirstOfEachFamilyOnCniIfnameInTheSandbox() throws Exception {
        String hostsV6 = PREV_DUAL.replace("{\"interface\":1,\"address\":\"fd88::5/64\"}",
                "{\"interface\":0,\"address\":\"fd88::5/64\"}");
        assertThat(hostsV6).isNotEqualTo(PREV_DUAL);
        CniError e = error("ADD", conf("", "{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\",\"hostIP\":"
                + "\"fd00::1\"}", hostsV6));
        assertThat(e.msg()).as("the IPv6 address is on the host's interface").contains("has no IPv6 address");
    }

    static PortmapConfig load(String conf) throws CniException {
        PortmapConfig[] loaded = new PortmapConfig[1];
        PluginCall.of("CHECK").stdin(conf).run(Skel.of("portmap", new LoadOnly(loaded), CniVersion.SUPPORTED)).ok();
        return loaded[0];
    }

    /** A plugin whose CHECK loads the configuration and stops there. */
    record LoadOnly(PortmapConfig[] into) implements CniPlugin {
        @Override
        public CniResult add(CniRequest request) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void del(CniRequest request) {
        }

        @Override
        public void check(CniRequest request) throws CniException {
            into[0] = PortmapConfig.load(request);
        }
    }

    @Test
    void dualStackConfigurationHasGosDefaultsAndBothAddresses() throws Exception {
        PortmapConfig c = load(conf("", TCP_8080 + ",{\"hostPort\":53,\"containerPort\":5353,\"protocol\":\"UDP\","
                + "\"hostIP\":\"0.0.0.0\"}", PREV_DUAL));
        assertThat(c.snat()).isTrue();
        assertThat(c.markMasqBit()).isEqualTo(13);
        assertThat(c.containerV4()).isEqualTo(ip("10.88.0.5"));
        assertThat(c.containerV6()).isEqualTo(ip("fd88::5"));
        assertThat(c.mappings()).hasSize(2);
        assertThat(c.mappings().get(1).protocol()).isEqualTo("udp");
        assertThat(c.mappings().get(1).appliesTo(false)).isTrue();
        assertThat(c.mappings().get(1).appliesTo(true)).as("0.0.0.0 is IPv4's, as Go reads it").isFalse();
        assertThat(c.mappings().get(1).matchesHostIp()).isFalse();
        assertThat(c.network()).isEqualTo("pm");
    }

    /**
     * The rules of Go's nftables backend's test ({@code portmap_nftables_test.go}), statement by statement, except the
     * hairpin masquerade, which matches the container's subnet as Go's iptables backend does.
     */
    @Test
    void rulesAreThoseOfGosNftablesBackend() throws Exception {
        PortmapConfig c = load(conf(",\"conditionsV4\":[\"ip daddr != 10.0.0.0/8\",\"iifname\",\"eth0\"]", """
                {"hostPort":8080,"containerPort":80,"protocol":"tcp"},\
                {"hostPort":8080,"containerPort":81,"protocol":"udp"},\
                {"hostPort":8083,"containerPort":83,"protocol":"tcp","hostIP":"192.168.0.2"},\
                {"hostPort":8084,"containerPort":84,"protocol":"tcp","hostIP":"0.0.0.0"},\
                {"hostPort":8085,"containerPort":85,"protocol":"sctp","hostIP":"fd88::1"}""", PREV_DUAL));
        String tag = AttachmentComment.of("pm", "eth0", "c1");
        TableFamily ip = TableFamily.IP;
        assertThat(HostportTable.attachmentRules(c, false, tag)).containsExactly(
                Rule.of(ip, "cni_hostport", "hostports", Exprs.in(ip).dport(Exprs.TCP, 8080)
                        .dnat(ip("10.88.0.5"), 80).toList(), tag),
                Rule.of(ip, "cni_hostport", "hostports", Exprs.in(ip).dport(Exprs.UDP, 8080)
                        .dnat(ip("10.88.0.5"), 81).toList(), tag),
                Rule.of(ip, "cni_hostport", "hostports", Exprs.in(ip).daddr(ip("192.168.0.2"))
                        .dport(Exprs.TCP, 8083).dnat(ip("10.88.0.5"), 83).toList(), tag),
                Rule.of(ip, "cni_hostport", "hostports", Exprs.in(ip).dport(Exprs.TCP, 8084)
                        .dnat(ip("10.88.0.5"), 84).toList(), tag),
                Rule.of(ip, "cni_hostport", "masquerading", Exprs.in(ip).saddr(ip("10.88.0.0"), 16)
                        .daddr(ip("10.88.0.5")).masquerade().toList(), tag),
                Rule.of(ip, "cni_hostport", "masquerading", Exprs.in(ip).saddr(ip("127.0.0.1"))
                        .daddr(ip("10.88.0.5")).masquerade().toList(), tag));
        TableFamily ip6 = TableFamily.IP6;
        assertThat(HostportTable.attachmentRules(c, true, tag)).containsExactly(
                Rule.of(ip6, "cni_hostport", "hostports", Exprs.in(ip6).dport(Exprs.TCP, 8080)
                        .dnat(ip("fd88::5"), 80).toList(), tag),
                Rule.of(ip6, "cni_hostport", "hostports", Exprs.in(ip6).dport(Exprs.UDP, 8080)
                        .dnat(ip("fd88::5"), 81).toList(), tag),
                Rule.of(ip6, "cni_hostport", "hostports", Exprs.in(ip6).daddr(ip("fd88::1"))
                        .dport(Exprs.SCTP, 8085).dnat(ip("fd88::5"), 85).toList(), tag),
                Rule.of(ip6, "cni_hostport", "masquerading", Exprs.in(ip6).saddr(ip("fd88::"), 64)
                        .daddr(ip("fd88::5")).masquerade().toList(), tag));
        assertThat(HostportTable.entry(ip, c.conditionsV4())).isEqualTo(Exprs.in(ip).notDaddr(ip("10.0.0.0"), 8)
                .iifname("eth0").fibDaddrType(Exprs.RTN_LOCAL).jump("hostports_all").toList());
        assertThat(HostportTable.entry(ip6, c.conditionsV6())).isEqualTo(Exprs.in(ip6)
                .fibDaddrType(Exprs.RTN_LOCAL).jump("hostports_all").toList());
    }

    @Test
    void masqAllMasqueradesEverySourceWithoutTheLocalhostRuleAsGo19() throws Exception {
        PortmapConfig c = load(conf(",\"masqAll\":true", TCP_8080, PREV_DUAL));
        TableFamily ip = TableFamily.IP;
        assertThat(HostportTable.attachmentRules(c, false, "t")).filteredOn(r -> r.chain().equals("masquerading"))
                .containsExactly(Rule.of(ip, "cni_hostport", "masquerading", Exprs.in(ip).saddr(ip("0.0.0.0"), 0)
                        .daddr(ip("10.88.0.5")).masquerade().toList(), "t"));
        assertThat(HostportTable.attachmentRules(c, true, "t")).filteredOn(r -> r.chain().equals("masquerading"))
                .singleElement().extracting(Rule::exprs).isEqualTo(Exprs.in(TableFamily.IP6).saddr(ip("::"), 0)
                        .daddr(ip("fd88::5")).masquerade().toList());
    }

    @Test
    void withoutSnatThereIsNoMasquerading() throws Exception {
        PortmapConfig c = load(conf(",\"snat\":false", TCP_8080, PREV));
        assertThat(HostportTable.attachmentRules(c, false, "t")).extracting(Rule::chain).containsExactly("hostports");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ip saddr 10.1.2.3", "ip saddr == 10.1.2.0/24", "ip daddr != 10.1.2.77/24",
        "iifname eth0", "meta iifname \"eth0\"", "oifname != br0", "meta oifname == \"x y\""})
    void conditionsReadAsNftWritesThem(String condition) throws Exception {
        Conditions c = Conditions.parse("conditionsV4", List.of(condition), false);
        Exprs ours = Exprs.in(TableFamily.IP);
        c.applyTo(ours);
        Exprs expected = Exprs.in(TableFamily.IP);
        switch (condition) {
            case "ip saddr 10.1.2.3" -> expected.saddr(ip("10.1.2.3"));
            case "ip saddr == 10.1.2.0/24" -> expected.saddr(ip("10.1.2.0"), 24);
            case "ip daddr != 10.1.2.77/24" -> expected.notDaddr(ip("10.1.2.0"), 24);
            case "iifname eth0", "meta iifname \"eth0\"" -> expected.iifname("eth0");
            case "oifname != br0" -> expected.notOifname("br0");
            default -> expected.oifname("x y");
        }
        List<Expr> exprs = ours.toList();
        assertThat(exprs).isNotEmpty().isEqualTo(expected.toList());
    }

    @Test
    void nfTablesEquivalenceToleratesWhatTheKernelAddsToNat() {
        List<Expr> written = Exprs.in(TableFamily.IP).dport(Exprs.TCP, 1).dnat(ip("10.0.0.1"), 2).toList();
        Expr.Nat nat = (Expr.Nat) written.getLast();
        List<Expr> readBack = new ArrayList<>(written);
        readBack.set(readBack.size() - 1, new Expr.Nat(nat.type(), nat.family(), nat.regAddrMin(), nat.regAddrMin(),
                nat.regProtoMin(), nat.regProtoMin(), nat.flags() | 1));
        assertThat(PortmapPlugin.sameExpressions(written, readBack)).isTrue();
        List<Expr> otherPort = Exprs.in(TableFamily.IP).dport(Exprs.TCP, 1).dnat(ip("10.0.0.1"), 3).toList();
        assertThat(PortmapPlugin.sameExpressions(written, otherPort)).isFalse();
        assertThat(PortmapPlugin.sameExpressions(written, written.subList(0, 3))).isFalse();
    }

    @Test
    void gcWithoutTheValidAttachmentsIsRefusedBeforeAnyRuleIsRead() throws Exception {
        CniError e = PluginCall.of("GC").stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"pm\",\"type\":\"portmap\"}")
                .run(skel()).error();
        assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(e.msg()).isEqualTo("GC needs cni.dev/valid-attachments");
    }
}
