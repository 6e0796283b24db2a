package io.jcni.netlink.internal.nft;

import static io.jcni.netlink.internal.nft.NftVectorCases.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.Family;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MessageTypes;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Verdict;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every expression, table and chain attribute this module writes decodes back to what was written: requests are
 * encoded by a real transaction and decoded as the kernel's dump messages (same layout), no kernel needed.
 */
class NftCodecTest {

    /** The messages of type {@code msg} of the one datagram committing what {@code tx} queues. */
    private static List<byte[]> messages(TransactionImpl tx, AckingTransport kernel, int msg) {
        tx.commit();
        byte[] d = kernel.sent.getLast();
        ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.nativeOrder());
        List<byte[]> out = new ArrayList<>();
        for (int off = 0; off + 16 <= d.length; off += (b.getInt(off) + 3) & ~3) {
            if (Short.toUnsignedInt(b.getShort(off + 4)) == MessageTypes.nftables(msg)) {
                out.add(java.util.Arrays.copyOfRange(d, off, off + b.getInt(off)));
            }
        }
        return out;
    }

    private static <T> T decode(Channel.Decoder<T> decoder, byte[] message) {
        ByteBuffer b = ByteBuffer.wrap(message).order(ByteOrder.nativeOrder());
        return decoder.decode(b, 0, message.length);
    }

    /**
     * The "if empty" deletes are the plain ones plus {@code NLM_F_NONREC} (0x100 of {@code <linux/netlink.h>}; no
     * {@code nft} command sends it, so there is no recorded vector): the same body, the flag set, ACK still asked.
     */
    @Test
    void deletesIfEmptyAreThePlainDeletesWithNonrec() {
        AckingTransport kernel = new AckingTransport();
        TransactionImpl tx = new TransactionImpl(new Channel(kernel));
        tx.deleteChain(TableFamily.INET, "t", "c");
        tx.deleteChainIfEmpty(TableFamily.INET, "t", "c");
        List<byte[]> chains = messages(tx, kernel, NfTablesH.NFT_MSG_DELCHAIN);
        tx.deleteTable(TableFamily.INET, "t");
        tx.deleteTableIfEmpty(TableFamily.INET, "t");
        List<byte[]> tables = messages(tx, kernel, NfTablesH.NFT_MSG_DELTABLE);
        for (List<byte[]> pair : List.of(chains, tables)) {
            assertThat(pair).hasSize(2);
            int plain = Short.toUnsignedInt(ByteBuffer.wrap(pair.get(0)).order(ByteOrder.nativeOrder()).getShort(6));
            int ifEmpty = Short.toUnsignedInt(ByteBuffer.wrap(pair.get(1)).order(ByteOrder.nativeOrder()).getShort(6));
            assertThat(ifEmpty).isEqualTo(plain | io.jcni.netlink.internal.wire.NetlinkH.NLM_F_NONREC);
            assertThat(plain & io.jcni.netlink.internal.wire.NetlinkH.NLM_F_NONREC).isZero();
            assertThat(java.util.Arrays.copyOfRange(pair.get(1), 16, pair.get(1).length))
                    .isEqualTo(java.util.Arrays.copyOfRange(pair.get(0), 16, pair.get(0).length));
        }
    }

    @Test
    void everyExpressionKindRoundTrips() {
        List<Expr> all = List.of(
                new Expr.Meta(Expr.MetaKey.L4PROTO, Expr.REG_1),
                new Expr.MetaSet(Expr.MetaKey.MARK, Expr.REG_2),
                new Expr.Payload(Expr.PayloadBase.TRANSPORT, 2, 2, Expr.REG32_00 + 1),
                new Expr.Cmp(Expr.CmpOp.GTE, Expr.REG_1, new byte[] {1, 2, 3}),
                new Expr.Bitwise(Expr.REG_1, Expr.REG_2, new byte[] {(byte) 0xf0, 0}, new byte[] {0, 1}),
                new Expr.Immediate(Expr.REG_1, ip("fd00::5").getAddress()),
                new Expr.ImmediateVerdict(Verdict.goTo("other")),
                new Expr.ImmediateVerdict(Verdict.CONTINUE),
                new Expr.Lookup("s", Expr.REG_1, -1, true),
                new Expr.Lookup("m", Expr.REG_1, Expr.VERDICT, false),
                new Expr.Nat(Expr.NatType.SNAT, Family.V6, 1, 2, 3, 4, 0x13),
                new Expr.Masquerade(0x10, Expr.REG_1, Expr.REG_2),
                new Expr.Ct(Expr.CtKey.MARK, Expr.REG_1, -1),
                new Expr.Ct(Expr.CtKey.SRC, Expr.REG_1, 1),
                new Expr.CtSet(Expr.CtKey.MARK, Expr.REG_1),
                new Expr.Counter(7, 4096),
                new Expr.Fib(NfTablesH.NFTA_FIB_F_SADDR | NfTablesH.NFTA_FIB_F_IIF, Expr.FibResult.OIF, Expr.REG_1));
        AckingTransport kernel = new AckingTransport();
        TransactionImpl tx = new TransactionImpl(new Channel(kernel));
        tx.addRule(Rule.of(TableFamily.INET, "t", "c", all, "round trip"));
        byte[] message = messages(tx, kernel, NfTablesH.NFT_MSG_NEWRULE).getFirst();
        Rule back = decode(new NftCodec.Rules(TableFamily.INET, "t", null), message);
        assertThat(back.exprs()).isEqualTo(all);
        assertThat(back.comment()).isEqualTo("round trip");
        assertThat(back.chain()).isEqualTo("c");
        assertThat(decode(new NftCodec.Rules(TableFamily.INET, "other", null), message)).as("other table").isNull();
        assertThat(decode(new NftCodec.Rules(TableFamily.IP, "t", null), message)).as("other family").isNull();
        assertThat(decode(new NftCodec.Rules(TableFamily.INET, "t", "d"), message)).as("other chain").isNull();
    }

    @Test
    void tablesAndChainsRoundTrip() {
        AckingTransport kernel = new AckingTransport();
        TransactionImpl tx = new TransactionImpl(new Channel(kernel));
        tx.addTable(new Table(TableFamily.BRIDGE, "nat", "a comment"));
        Chain chain = Chain.base(TableFamily.BRIDGE, "nat", "PREROUTING", Chain.Type.FILTER, Chain.Hook.PREROUTING,
                -300, Chain.Policy.DROP).withComment("c");
        tx.addChain(chain);
        tx.commit();
        List<byte[]> sent = new ArrayList<>();
        byte[] d = kernel.sent.getFirst();
        ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.nativeOrder());
        for (int off = 0; off + 16 <= d.length; off += (b.getInt(off) + 3) & ~3) {
            sent.add(java.util.Arrays.copyOfRange(d, off, off + b.getInt(off)));
        }
        assertThat(decode(new NftCodec.Tables(null), sent.get(1)))
                .isEqualTo(new Table(TableFamily.BRIDGE, "nat", 0, 0, "a comment"));
        assertThat(decode(new NftCodec.Tables("other"), sent.get(1))).isNull();
        assertThat(decode(new NftCodec.Chains(TableFamily.BRIDGE, "nat", null), sent.get(2))).isEqualTo(chain);
    }

    @Test
    void anExpressionThisApiDoesNotModelIsReadAsUnknownAndCannotBeWrittenBack() {
        // a payload *set* (NFTA_PAYLOAD_SREG): read, but not modelled
        AckingTransport kernel = new AckingTransport();
        TransactionImpl tx = new TransactionImpl(new Channel(kernel));
        tx.addRule(Rule.of(TableFamily.IP, "t", "c", List.of(new Expr.Counter(0, 0)), null));
        byte[] message = messages(tx, kernel, NfTablesH.NFT_MSG_NEWRULE).getFirst();
        // rename the expression "counter" to "quota" in place: same length, a kind this API does not decode
        String text = new String(message, java.nio.charset.StandardCharsets.ISO_8859_1);
        int at = text.indexOf("counter");
        byte[] renamed = message.clone();
        System.arraycopy("quota\0\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), 0, renamed, at, 7);
        Rule back = decode(new NftCodec.Rules(TableFamily.IP, "t", null), renamed);
        assertThat(back.exprs()).singleElement().isInstanceOfSatisfying(Expr.Unknown.class,
                u -> assertThat(u.kind()).isEqualTo("quota"));
        assertThatThrownBy(() -> tx.addRule(back)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not model");
        assertThat(tx.size()).isZero();
    }

    @Test
    void udataCommentsAreReadTheWayNftWritesThem() {
        assertThat(Udata.comment(Udata.comment("héllo"))).isEqualTo("héllo");
        assertThat(Udata.comment(new byte[] {1, 4, 1, 2, 3, 4, 0, 3, 'a', 'b', 0})).isEqualTo("ab");
        assertThat(Udata.comment(new byte[] {0, 9, 'a'})).as("damaged: no comment").isNull();
        assertThat(Udata.comment(new byte[0])).isNull();
    }
}
