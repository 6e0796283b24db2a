package io.jcni.netlink.nft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.MacAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The value types and {@link Exprs}: what they accept, what they refuse, and what they write. */
class NftApiTest {

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static List<String> text(Exprs e) {
        return e.toList().stream().map(Object::toString).toList();
    }

    @Test
    void expressionsPrintAsNftDebugNetlinkDoes() {
        assertThat(text(Exprs.in(TableFamily.INET).saddr(ip("10.88.0.5")).notDaddr(ip("10.88.0.0"), 16)
                .masquerade())).containsExactly(
                        "[ meta load nfproto => reg 1 ]",
                        "[ cmp eq reg 1 0x00000002 ]",
                        "[ payload load 4b @ network header + 12 => reg 1 ]",
                        "[ cmp eq reg 1 0x0500580a ]",
                        "[ payload load 2b @ network header + 16 => reg 1 ]",
                        "[ cmp neq reg 1 0x0000580a ]",
                        "[ masq ]");
        assertThat(text(Exprs.in(TableFamily.IP).daddr(ip("224.0.0.0"), 4).ret())).containsExactly(
                "[ payload load 4b @ network header + 16 => reg 1 ]",
                "[ bitwise reg 1 = ( reg 1 & 0x000000f0 ) ^ 0x00000000 ]",
                "[ cmp eq reg 1 0x000000e0 ]",
                "[ immediate reg 0 return ]");
        assertThat(text(Exprs.in(TableFamily.IP).dport(Exprs.TCP, 8080).dnat(ip("10.88.0.5"), 80))).containsExactly(
                "[ meta load l4proto => reg 1 ]",
                "[ cmp eq reg 1 0x00000006 ]",
                "[ payload load 2b @ transport header + 2 => reg 1 ]",
                "[ cmp eq reg 1 0x0000901f ]",
                "[ immediate reg 1 0x0500580a ]",
                "[ immediate reg 2 0x00005000 ]",
                "[ nat dnat ip addr_min reg 1 proto_min reg 2 flags 0x2 ]");
        assertThat(text(Exprs.in(TableFamily.INET).fibDaddrType(Exprs.RTN_LOCAL).jump("hostports")))
                .containsExactly("[ fib daddr type => reg 1 ]", "[ cmp eq reg 1 0x00000002 ]",
                        "[ immediate reg 0 jump -> hostports ]");
        assertThat(text(Exprs.in(TableFamily.INET).ctState(Exprs.CT_STATE_ESTABLISHED | Exprs.CT_STATE_RELATED)))
                .containsExactly("[ ct load state => reg 1 ]",
                        "[ bitwise reg 1 = ( reg 1 & 0x00000006 ) ^ 0x00000000 ]",
                        "[ cmp neq reg 1 0x00000000 ]");
        assertThat(text(Exprs.in(TableFamily.INET).inSet("s", Exprs.Field.IP_SADDR, Exprs.Field.L4PROTO,
                Exprs.Field.TH_DPORT))).containsExactly(
                        "[ meta load nfproto => reg 1 ]",
                        "[ cmp eq reg 1 0x00000002 ]",
                        "[ payload load 4b @ network header + 12 => reg 1 ]",
                        "[ meta load l4proto => reg 9 ]",
                        "[ payload load 2b @ transport header + 2 => reg 10 ]",
                        "[ lookup reg 1 set s ]");
    }

    @Test
    void aRuleChecksEachProtocolOnceAndRefusesConflictingOnes() {
        assertThat(text(Exprs.in(TableFamily.INET).saddr(ip("10.0.0.1")).daddr(ip("10.0.0.2"))))
                .filteredOn(s -> s.contains("nfproto")).hasSize(1);
        assertThat(text(Exprs.in(TableFamily.IP).dport(Exprs.UDP, 53).sport(Exprs.UDP, 53)))
                .filteredOn(s -> s.contains("l4proto")).hasSize(1);
        assertThat(text(Exprs.in(TableFamily.BRIDGE).saddr(ip("10.0.0.1")))).startsWith(
                "[ meta load protocol => reg 1 ]", "[ cmp eq reg 1 0x00000008 ]");
        assertThatThrownBy(() -> Exprs.in(TableFamily.INET).saddr(ip("10.0.0.1")).daddr(ip("fd00::1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("conflicting");
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP).dport(Exprs.TCP, 1).dport(Exprs.UDP, 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("conflicting");
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP).saddr(ip("fd00::1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ip table");
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP6).dnat(ip("10.0.0.1"), 80))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Exprs.in(TableFamily.INET).etherSaddr(MacAddress.parse("02:00:00:00:00:01")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Ethernet");
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP).dport(Exprs.TCP, 65536))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP).dport(1, 80)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP).saddr(ip("10.0.0.0"), 33))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Exprs.in(TableFamily.IP).iifname("0123456789abcdef"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void prefixesAreMaskedWhateverHostBitsTheAddressCarries() {
        assertThat(Exprs.in(TableFamily.IP).saddr(ip("10.88.7.9"), 16).toList())
                .isEqualTo(Exprs.in(TableFamily.IP).saddr(ip("10.88.0.0"), 16).toList());
        assertThat(Exprs.in(TableFamily.IP6).saddr(ip("fd00::7"), 61).toList())
                .isEqualTo(Exprs.in(TableFamily.IP6).saddr(ip("fd00::"), 61).toList());
    }

    @Test
    void namesCommentsVerdictsAndRegistersAreChecked() {
        assertThatThrownBy(() -> new Table(TableFamily.IP, "", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Table(TableFamily.IP, "a\0b", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Table(TableFamily.IP, "x".repeat(256), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new Table(TableFamily.IP, "with space \"quoted\"", null).name()).contains(" ");
        assertThat(Rule.of(TableFamily.IP, "t", "c", List.of(), "é".repeat(63)).comment()).hasSize(63);
        assertThatThrownBy(() -> Rule.of(TableFamily.IP, "t", "c", List.of(), "x".repeat(129)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("128");
        assertThatThrownBy(() -> new Verdict(Verdict.Code.JUMP, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Verdict(Verdict.Code.ACCEPT, "c")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Expr.Meta(Expr.MetaKey.MARK, 5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Expr.Cmp(Expr.CmpOp.EQ, 1, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Expr.Immediate(Expr.VERDICT, new byte[4]))
                .isInstanceOf(IllegalArgumentException.class);
        byte[] data = {1, 2, 3, 4};
        Expr.Cmp cmp = new Expr.Cmp(Expr.CmpOp.EQ, 1, data);
        data[0] = 9;
        assertThat(cmp.data()[0]).as("defensive copy").isEqualTo((byte) 1);
        assertThat(cmp).isEqualTo(new Expr.Cmp(Expr.CmpOp.EQ, 1, new byte[] {1, 2, 3, 4}))
                .hasSameHashCodeAs(new Expr.Cmp(Expr.CmpOp.EQ, 1, new byte[] {1, 2, 3, 4}));
    }

    @Test
    void setKeysAndDataEncodeAsTheKernelComparesThem() {
        NamedSet concat = NamedSet.set(TableFamily.INET, "t", "s", NamedSet.DataType.IPV4_ADDR,
                NamedSet.DataType.INET_PROTO, NamedSet.DataType.INET_SERVICE);
        assertThat(concat.keyTypeId()).isEqualTo((7 << 12) | (12 << 6) | 13);
        assertThat(concat.keyLength()).isEqualTo(12);
        assertThat(concat.key(ip("10.0.0.1"), 6, 80)).containsExactly(10, 0, 0, 1, 6, 0, 0, 0, 0, 80, 0, 0);
        NamedSet ifs = NamedSet.map(TableFamily.INET, "t", "m", NamedSet.DataType.VERDICT, NamedSet.DataType.IFNAME);
        assertThat(ifs.key("eth0")).hasSize(16).startsWith('e', 't', 'h', '0', 0);
        assertThat(ifs.isVerdictMap()).isTrue();
        assertThatThrownBy(() -> ifs.data(1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> concat.key(ip("fd00::1"), 6, 80)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> concat.key(ip("10.0.0.1"), 6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> concat.key(ip("10.0.0.1"), 6, 70000)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NamedSet.set(TableFamily.INET, "t", "s", NamedSet.DataType.VERDICT))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(SetElement.mapping(new byte[] {1}, Verdict.DROP))
                .isEqualTo(SetElement.mapping(new byte[] {1}, Verdict.DROP));
    }
}
