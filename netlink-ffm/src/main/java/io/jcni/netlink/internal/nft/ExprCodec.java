package io.jcni.netlink.internal.nft;

import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_BITWISE_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_BITWISE_LEN;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_BITWISE_MASK;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_BITWISE_OP;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_BITWISE_SREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_BITWISE_XOR;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CMP_DATA;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CMP_OP;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CMP_SREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_COUNTER_BYTES;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_COUNTER_PACKETS;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CT_DIRECTION;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CT_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CT_KEY;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_CT_SREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_DATA_VALUE;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_DATA_VERDICT;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_EXPR_DATA;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_EXPR_NAME;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_FIB_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_FIB_FLAGS;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_FIB_RESULT;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_IMMEDIATE_DATA;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_IMMEDIATE_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_LIST_ELEM;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_LOOKUP_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_LOOKUP_FLAGS;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_LOOKUP_SET;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_LOOKUP_SREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_MASQ_FLAGS;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_MASQ_REG_PROTO_MAX;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_MASQ_REG_PROTO_MIN;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_META_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_META_KEY;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_META_SREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_FAMILY;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_FLAGS;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_REG_ADDR_MAX;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_REG_ADDR_MIN;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_REG_PROTO_MAX;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_REG_PROTO_MIN;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_NAT_TYPE;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_PAYLOAD_BASE;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_PAYLOAD_DREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_PAYLOAD_LEN;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_PAYLOAD_OFFSET;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_PAYLOAD_SREG;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_VERDICT_CHAIN;
import static io.jcni.netlink.internal.wire.NfTablesH.NFTA_VERDICT_CODE;

import io.jcni.netlink.Family;
import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetfilterH;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Verdict;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * nf_tables expressions to and from their netlink form: {@code NFTA_LIST_ELEM} nests of {@code NFTA_EXPR_NAME} and
 * {@code NFTA_EXPR_DATA}, the data's attributes in the order libnftnl writes them (so requests equal {@code nft}'s byte
 * for byte), every u32 big-endian, every nest flagged {@code NLA_F_NESTED}. Dispatch is by {@code instanceof}, not a
 * pattern switch (no invokedynamic bootstrap on a plugin's start-up path).
 */
final class ExprCodec {
    private ExprCodec() {}

    /** The transaction-local ids of sets created earlier in the same transaction. */
    interface SetIds {
        /** The id of set {@code name} of {@code table} if this transaction creates it, else 0. */
        int id(String table, String name);
    }

    /**
     * Writes {@code exprs} as the {@code NFTA_LIST_ELEM}s of an already opened list nest; a lookup of a set created in
     * the same transaction also names the set by its id, as {@code nft} does.
     */
    static void encode(MessageWriter w, List<Expr> exprs, String table, SetIds setIds) {
        for (Expr e : exprs) {
            int elem = w.nestFlagged(NFTA_LIST_ELEM);
            w.string(NFTA_EXPR_NAME, e.kind());
            int data = w.nestFlagged(NFTA_EXPR_DATA);
            if (e instanceof Expr.Lookup l) {
                lookup(w, l, setIds.id(table, l.set()));
            } else {
                encodeData(w, e);
            }
            w.endNest(data);
            w.endNest(elem);
        }
    }

    private static void encodeData(MessageWriter w, Expr e) {
        if (e instanceof Expr.Meta m) {
            w.u32be(NFTA_META_KEY, m.key().value());
            w.u32be(NFTA_META_DREG, m.dreg());
        } else if (e instanceof Expr.MetaSet m) {
            w.u32be(NFTA_META_KEY, m.key().value());
            w.u32be(NFTA_META_SREG, m.sreg());
        } else if (e instanceof Expr.Cmp c) {
            w.u32be(NFTA_CMP_SREG, c.sreg());
            w.u32be(NFTA_CMP_OP, c.op().value());
            value(w, NFTA_CMP_DATA, c.data());
        } else if (e instanceof Expr.Payload p) {
            w.u32be(NFTA_PAYLOAD_DREG, p.dreg());
            w.u32be(NFTA_PAYLOAD_BASE, p.base().value());
            w.u32be(NFTA_PAYLOAD_OFFSET, p.offset());
            w.u32be(NFTA_PAYLOAD_LEN, p.length());
        } else if (e instanceof Expr.Bitwise b) {
            byte[] mask = b.mask();
            w.u32be(NFTA_BITWISE_SREG, b.sreg());
            w.u32be(NFTA_BITWISE_DREG, b.dreg());
            w.u32be(NFTA_BITWISE_LEN, mask.length);
            value(w, NFTA_BITWISE_MASK, mask);
            value(w, NFTA_BITWISE_XOR, b.xor());
        } else if (e instanceof Expr.Immediate i) {
            w.u32be(NFTA_IMMEDIATE_DREG, i.dreg());
            value(w, NFTA_IMMEDIATE_DATA, i.data());
        } else if (e instanceof Expr.ImmediateVerdict v) {
            w.u32be(NFTA_IMMEDIATE_DREG, NfTablesH.NFT_REG_VERDICT);
            int data = w.nestFlagged(NFTA_IMMEDIATE_DATA);
            verdict(w, v.verdict());
            w.endNest(data);
        } else if (e instanceof Expr.Nat n) {
            w.u32be(NFTA_NAT_TYPE, n.type().value());
            w.u32be(NFTA_NAT_FAMILY, n.family() == Family.V4 ? NetfilterH.NFPROTO_IPV4 : NetfilterH.NFPROTO_IPV6);
            nonZero(w, NFTA_NAT_REG_ADDR_MIN, n.regAddrMin());
            nonZero(w, NFTA_NAT_REG_ADDR_MAX, n.regAddrMax());
            nonZero(w, NFTA_NAT_REG_PROTO_MIN, n.regProtoMin());
            nonZero(w, NFTA_NAT_REG_PROTO_MAX, n.regProtoMax());
            nonZero(w, NFTA_NAT_FLAGS, n.flags());
        } else if (e instanceof Expr.Masquerade m) {
            nonZero(w, NFTA_MASQ_FLAGS, m.flags());
            nonZero(w, NFTA_MASQ_REG_PROTO_MIN, m.regProtoMin());
            nonZero(w, NFTA_MASQ_REG_PROTO_MAX, m.regProtoMax());
        } else if (e instanceof Expr.Ct c) {
            w.u32be(NFTA_CT_KEY, c.key().value());
            w.u32be(NFTA_CT_DREG, c.dreg());
            if (c.direction() >= 0) {
                w.u8(NFTA_CT_DIRECTION, c.direction());
            }
        } else if (e instanceof Expr.CtSet c) {
            w.u32be(NFTA_CT_KEY, c.key().value());
            w.u32be(NFTA_CT_SREG, c.sreg());
        } else if (e instanceof Expr.Counter c) {
            if (c.bytes() != 0 || c.packets() != 0) { // a new counter starts at 0: nft sends nothing
                w.u64be(NFTA_COUNTER_BYTES, c.bytes());
                w.u64be(NFTA_COUNTER_PACKETS, c.packets());
            }
        } else if (e instanceof Expr.Fib f) {
            w.u32be(NFTA_FIB_FLAGS, f.flags());
            w.u32be(NFTA_FIB_RESULT, f.result().value());
            w.u32be(NFTA_FIB_DREG, f.dreg());
        } else {
            throw new IllegalArgumentException("cannot write " + e + ": an expression read from the kernel that this"
                    + " API does not model");
        }
    }

    /** {@code lookup}: registers, the set by name and, if created in this transaction, by id; the flags. */
    private static void lookup(MessageWriter w, Expr.Lookup l, int setId) {
        w.u32be(NFTA_LOOKUP_SREG, l.sreg());
        if (l.dreg() != -1) {
            w.u32be(NFTA_LOOKUP_DREG, l.dreg());
        }
        w.string(NFTA_LOOKUP_SET, l.set());
        if (setId != 0) {
            w.u32be(NfTablesH.NFTA_LOOKUP_SET_ID, setId);
        }
        if (l.invert()) {
            w.u32be(NFTA_LOOKUP_FLAGS, NfTablesH.NFT_LOOKUP_F_INV);
        }
    }

    private static void nonZero(MessageWriter w, int type, int value) {
        if (value != 0) {
            w.u32be(type, value);
        }
    }

    /** A nest {@code type} holding {@code NFTA_DATA_VALUE}. */
    static void value(MessageWriter w, int type, byte[] bytes) {
        int nest = w.nestFlagged(type);
        w.bytes(NFTA_DATA_VALUE, bytes);
        w.endNest(nest);
    }

    /** {@code NFTA_DATA_VERDICT} with the code and, for jump/goto, the chain. */
    static void verdict(MessageWriter w, Verdict v) {
        int nest = w.nestFlagged(NFTA_DATA_VERDICT);
        w.u32be(NFTA_VERDICT_CODE, v.code().value());
        if (v.chain() != null) {
            w.string(NFTA_VERDICT_CHAIN, v.chain());
        }
        w.endNest(nest);
    }

    // ---- decoding ----------------------------------------------------------------------------------------------

    /** The expressions of an {@code NFTA_RULE_EXPRESSIONS} nest. */
    static List<Expr> decode(AttrCursor list) {
        List<Expr> out = new ArrayList<>();
        while (list.next()) {
            if (list.type() != NFTA_LIST_ELEM) {
                continue;
            }
            AttrCursor elem = list.nested();
            String name = null;
            AttrCursor data = null;
            byte[] raw = new byte[0];
            while (elem.next()) {
                if (elem.type() == NFTA_EXPR_NAME) {
                    name = elem.string();
                } else if (elem.type() == NFTA_EXPR_DATA) {
                    data = elem.nested();
                    raw = elem.bytes();
                }
            }
            if (name == null) {
                throw new MalformedMessageException("expression without a name");
            }
            Expr e;
            try {
                e = data == null ? null : decodeData(name, data);
            } catch (IllegalArgumentException | MalformedMessageException ex) {
                e = null; // a key, register or shape this API does not model
            }
            out.add(e != null ? e : new Expr.Unknown(name, raw));
        }
        return out;
    }

    /** One expression's data; null when this API does not model it. */
    private static Expr decodeData(String name, AttrCursor c) {
        Attrs a = Attrs.read(c);
        return switch (name) {
            case "meta" -> a.has(NFTA_META_DREG)
                    ? new Expr.Meta(Expr.MetaKey.of(a.u32(NFTA_META_KEY)), a.u32(NFTA_META_DREG))
                    : new Expr.MetaSet(Expr.MetaKey.of(a.u32(NFTA_META_KEY)), a.u32(NFTA_META_SREG));
            case "cmp" -> new Expr.Cmp(Expr.CmpOp.of(a.u32(NFTA_CMP_OP)), a.u32(NFTA_CMP_SREG),
                    a.value(NFTA_CMP_DATA));
            case "payload" -> a.has(NFTA_PAYLOAD_SREG) ? null : new Expr.Payload(
                    Expr.PayloadBase.of(a.u32(NFTA_PAYLOAD_BASE)), a.u32(NFTA_PAYLOAD_OFFSET), a.u32(NFTA_PAYLOAD_LEN),
                    a.u32(NFTA_PAYLOAD_DREG));
            case "bitwise" -> a.has(NFTA_BITWISE_OP) && a.u32(NFTA_BITWISE_OP) != NfTablesH.NFT_BITWISE_BOOL ? null
                    : new Expr.Bitwise(a.u32(NFTA_BITWISE_SREG), a.u32(NFTA_BITWISE_DREG), a.value(NFTA_BITWISE_MASK),
                            a.value(NFTA_BITWISE_XOR));
            case "immediate" -> immediate(a);
            case "lookup" -> new Expr.Lookup(a.string(NFTA_LOOKUP_SET), a.u32(NFTA_LOOKUP_SREG),
                    a.has(NFTA_LOOKUP_DREG) ? a.u32(NFTA_LOOKUP_DREG) : -1,
                    (a.u32Or(NFTA_LOOKUP_FLAGS, 0) & NfTablesH.NFT_LOOKUP_F_INV) != 0);
            case "nat" -> new Expr.Nat(Expr.NatType.of(a.u32(NFTA_NAT_TYPE)),
                    a.u32(NFTA_NAT_FAMILY) == NetfilterH.NFPROTO_IPV6 ? Family.V6 : Family.V4,
                    a.u32Or(NFTA_NAT_REG_ADDR_MIN, 0), a.u32Or(NFTA_NAT_REG_ADDR_MAX, 0),
                    a.u32Or(NFTA_NAT_REG_PROTO_MIN, 0), a.u32Or(NFTA_NAT_REG_PROTO_MAX, 0),
                    a.u32Or(NFTA_NAT_FLAGS, 0));
            case "masq" -> new Expr.Masquerade(a.u32Or(NFTA_MASQ_FLAGS, 0), a.u32Or(NFTA_MASQ_REG_PROTO_MIN, 0),
                    a.u32Or(NFTA_MASQ_REG_PROTO_MAX, 0));
            case "ct" -> a.has(NFTA_CT_DREG)
                    ? new Expr.Ct(Expr.CtKey.of(a.u32(NFTA_CT_KEY)), a.u32(NFTA_CT_DREG), a.u8Or(NFTA_CT_DIRECTION, -1))
                    : new Expr.CtSet(Expr.CtKey.of(a.u32(NFTA_CT_KEY)), a.u32(NFTA_CT_SREG));
            case "counter" -> new Expr.Counter(a.u64Or(NFTA_COUNTER_PACKETS), a.u64Or(NFTA_COUNTER_BYTES));
            case "fib" -> new Expr.Fib(a.u32(NFTA_FIB_FLAGS), Expr.FibResult.of(a.u32(NFTA_FIB_RESULT)),
                    a.u32(NFTA_FIB_DREG));
            default -> null;
        };
    }

    private static Expr immediate(Attrs a) {
        AttrCursor data = a.nested(NFTA_IMMEDIATE_DATA);
        while (data.next()) {
            if (data.type() == NFTA_DATA_VALUE) {
                return new Expr.Immediate(a.u32(NFTA_IMMEDIATE_DREG), data.bytes());
            }
            if (data.type() == NFTA_DATA_VERDICT) {
                return new Expr.ImmediateVerdict(verdict(data.nested()));
            }
        }
        throw new MalformedMessageException("immediate without data");
    }

    /** The verdict of an {@code NFTA_DATA_VERDICT} nest. */
    static Verdict verdict(AttrCursor c) {
        Verdict.Code code = null;
        String chain = null;
        while (c.next()) {
            if (c.type() == NFTA_VERDICT_CODE) {
                code = Verdict.Code.of(c.u32be());
            } else if (c.type() == NFTA_VERDICT_CHAIN) {
                chain = c.string();
            }
        }
        if (code == null) {
            throw new MalformedMessageException("verdict without a code");
        }
        return new Verdict(code, code == Verdict.Code.JUMP || code == Verdict.Code.GOTO ? chain : null);
    }

    /**
     * The attributes of one nest by type (types up to 31), read once: where each starts, for lookups by type. The
     * buffer is the reply's, valid while the message is decoded.
     */
    static final class Attrs {
        private final ByteBuffer buf;
        private final int[] offsets = new int[32];
        private final int[] lengths = new int[32];

        private Attrs(ByteBuffer buf) {
            this.buf = buf;
            java.util.Arrays.fill(offsets, -1);
        }

        static Attrs read(AttrCursor c) {
            Attrs a = new Attrs(c.buffer());
            while (c.next()) {
                if (c.type() < a.offsets.length) {
                    a.offsets[c.type()] = c.payloadOffset();
                    a.lengths[c.type()] = c.payloadLength();
                }
            }
            return a;
        }

        boolean has(int type) {
            return offsets[type] >= 0;
        }

        private int need(int type, int n) {
            if (offsets[type] < 0) {
                throw new MalformedMessageException("attribute " + type + " missing");
            }
            if (lengths[type] < n) {
                throw new MalformedMessageException("attribute " + type + " has " + lengths[type] + " bytes");
            }
            return offsets[type];
        }

        int u32(int type) {
            int at = need(type, 4);
            return buf.order() == java.nio.ByteOrder.BIG_ENDIAN ? buf.getInt(at) : Integer.reverseBytes(buf.getInt(at));
        }

        int u32Or(int type, int otherwise) {
            return has(type) ? u32(type) : otherwise;
        }

        int u8Or(int type, int otherwise) {
            return has(type) ? Byte.toUnsignedInt(buf.get(need(type, 1))) : otherwise;
        }

        long u64Or(int type) {
            if (!has(type)) {
                return 0;
            }
            int at = need(type, 8);
            long v = buf.getLong(at);
            return buf.order() == java.nio.ByteOrder.BIG_ENDIAN ? v : Long.reverseBytes(v);
        }

        String string(int type) {
            int at = need(type, 0);
            int n = 0;
            while (n < lengths[type] && buf.get(at + n) != 0) {
                n++;
            }
            byte[] bytes = new byte[n];
            buf.get(at, bytes);
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }

        AttrCursor nested(int type) {
            int at = need(type, 0);
            return new AttrCursor(buf, at, at + lengths[type]);
        }

        /** The {@code NFTA_DATA_VALUE} inside nest {@code type}. */
        byte[] value(int type) {
            AttrCursor c = nested(type);
            while (c.next()) {
                if (c.type() == NFTA_DATA_VALUE) {
                    return c.bytes();
                }
            }
            throw new MalformedMessageException("attribute " + type + " holds no value");
        }
    }
}
