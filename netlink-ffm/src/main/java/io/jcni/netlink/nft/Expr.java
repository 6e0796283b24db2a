package io.jcni.netlink.nft;

import io.jcni.netlink.Family;
import io.jcni.netlink.internal.wire.NfTablesH;
import java.util.Arrays;
import java.util.Objects;

/**
 * One nf_tables expression: the register machine a rule is made of, as the kernel sees it. {@code nft} compiles
 * {@code ip saddr 10.0.0.1 accept} into {@code payload} (load 4 bytes at network header + 12 into register 1),
 * {@code cmp} (register 1 equals 10.0.0.1) and {@code immediate} (the verdict register gets {@code accept}); the
 * records below are those expressions, and {@link Exprs} writes the sequences {@code nft} writes for its statements.
 *
 * <p>Registers: {@link #VERDICT} (0) holds the verdict; {@link #REG_1}..{@code REG_4} are the four 16-byte data
 * registers, {@link #REG32_00}..{@code REG32_15} (8..23) the same space in 4-byte steps (concatenations use them).
 * {@code toString()} prints an expression as {@code nft --debug=netlink} does ({@code [ cmp eq reg 1 0x0100000a ]},
 * data as host-order 32-bit words).
 *
 * <p>{@code equals} and {@code hashCode} are written out (arrays compare by content; no record method is bootstrapped
 * through invokedynamic when a plugin compares expressions on its start-up path).
 *
 * <p>Data ({@code cmp}, {@code bitwise}, {@code immediate}) is raw bytes in the order the packet or the kernel holds
 * them: addresses and ports big-endian, marks and meta values host order.
 */
public sealed interface Expr {

    /** {@code NFT_REG_VERDICT}. */
    int VERDICT = NfTablesH.NFT_REG_VERDICT;
    /** {@code NFT_REG_1}: the first 16-byte data register. */
    int REG_1 = NfTablesH.NFT_REG_1;
    /** {@code NFT_REG_2}. */
    int REG_2 = NfTablesH.NFT_REG_2;
    /** {@code NFT_REG32_00}: the first 4-byte register (the same bytes as the start of {@link #REG_1}). */
    int REG32_00 = NfTablesH.NFT_REG32_00;

    /** The expression's kernel name ({@code NFTA_EXPR_NAME}): {@code meta}, {@code cmp}, {@code payload}, ... */
    String kind();

    // ---- keys and operators ------------------------------------------------------------------------------------

    /** Keys of {@code meta} ({@code NFT_META_*}); the name is {@code nft}'s. */
    enum MetaKey {
        LEN("len", NfTablesH.NFT_META_LEN),
        PROTOCOL("protocol", NfTablesH.NFT_META_PROTOCOL),
        PRIORITY("priority", NfTablesH.NFT_META_PRIORITY),
        MARK("mark", NfTablesH.NFT_META_MARK),
        IIF("iif", NfTablesH.NFT_META_IIF),
        OIF("oif", NfTablesH.NFT_META_OIF),
        IIFNAME("iifname", NfTablesH.NFT_META_IIFNAME),
        OIFNAME("oifname", NfTablesH.NFT_META_OIFNAME),
        IIFTYPE("iiftype", NfTablesH.NFT_META_IIFTYPE),
        OIFTYPE("oiftype", NfTablesH.NFT_META_OIFTYPE),
        SKUID("skuid", NfTablesH.NFT_META_SKUID),
        SKGID("skgid", NfTablesH.NFT_META_SKGID),
        NFTRACE("nftrace", NfTablesH.NFT_META_NFTRACE),
        RTCLASSID("rtclassid", NfTablesH.NFT_META_RTCLASSID),
        SECMARK("secmark", NfTablesH.NFT_META_SECMARK),
        NFPROTO("nfproto", NfTablesH.NFT_META_NFPROTO),
        L4PROTO("l4proto", NfTablesH.NFT_META_L4PROTO),
        BRI_IIFNAME("bri_iifname", NfTablesH.NFT_META_BRI_IIFNAME),
        BRI_OIFNAME("bri_oifname", NfTablesH.NFT_META_BRI_OIFNAME),
        PKTTYPE("pkttype", NfTablesH.NFT_META_PKTTYPE);

        private final String nftName;
        private final int value;

        MetaKey(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static MetaKey of(int value) {
            for (MetaKey k : values()) {
                if (k.value == value) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown meta key " + value);
        }

        @Override
        public String toString() {
            return nftName;
        }
    }

    /** Keys of {@code ct} ({@code NFT_CT_*}). */
    enum CtKey {
        STATE("state", NfTablesH.NFT_CT_STATE),
        DIRECTION("direction", NfTablesH.NFT_CT_DIRECTION),
        STATUS("status", NfTablesH.NFT_CT_STATUS),
        MARK("mark", NfTablesH.NFT_CT_MARK),
        SECMARK("secmark", NfTablesH.NFT_CT_SECMARK),
        EXPIRATION("expiration", NfTablesH.NFT_CT_EXPIRATION),
        HELPER("helper", NfTablesH.NFT_CT_HELPER),
        L3PROTOCOL("l3protocol", NfTablesH.NFT_CT_L3PROTOCOL),
        SRC("src", NfTablesH.NFT_CT_SRC),
        DST("dst", NfTablesH.NFT_CT_DST),
        PROTOCOL("protocol", NfTablesH.NFT_CT_PROTOCOL),
        PROTO_SRC("proto-src", NfTablesH.NFT_CT_PROTO_SRC),
        PROTO_DST("proto-dst", NfTablesH.NFT_CT_PROTO_DST),
        LABELS("label", NfTablesH.NFT_CT_LABELS);

        private final String nftName;
        private final int value;

        CtKey(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static CtKey of(int value) {
            for (CtKey k : values()) {
                if (k.value == value) {
                    return k;
                }
            }
            throw new IllegalArgumentException("unknown ct key " + value);
        }

        @Override
        public String toString() {
            return nftName;
        }
    }

    /** Where a {@code payload} offset counts from ({@code NFT_PAYLOAD_*_HEADER}). */
    enum PayloadBase {
        LINK("link", NfTablesH.NFT_PAYLOAD_LL_HEADER),
        NETWORK("network", NfTablesH.NFT_PAYLOAD_NETWORK_HEADER),
        TRANSPORT("transport", NfTablesH.NFT_PAYLOAD_TRANSPORT_HEADER);

        private final String nftName;
        private final int value;

        PayloadBase(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static PayloadBase of(int value) {
            for (PayloadBase b : values()) {
                if (b.value == value) {
                    return b;
                }
            }
            throw new IllegalArgumentException("unknown payload base " + value);
        }

        @Override
        public String toString() {
            return nftName;
        }
    }

    /** Comparisons of {@code cmp} ({@code NFT_CMP_*}). */
    enum CmpOp {
        EQ("eq", NfTablesH.NFT_CMP_EQ),
        NEQ("neq", NfTablesH.NFT_CMP_NEQ),
        LT("lt", NfTablesH.NFT_CMP_LT),
        LTE("lte", NfTablesH.NFT_CMP_LTE),
        GT("gt", NfTablesH.NFT_CMP_GT),
        GTE("gte", NfTablesH.NFT_CMP_GTE);

        private final String nftName;
        private final int value;

        CmpOp(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static CmpOp of(int value) {
            for (CmpOp o : values()) {
                if (o.value == value) {
                    return o;
                }
            }
            throw new IllegalArgumentException("unknown cmp op " + value);
        }

        @Override
        public String toString() {
            return nftName;
        }
    }

    /** {@code NFT_NAT_SNAT}, {@code NFT_NAT_DNAT}. */
    enum NatType {
        SNAT("snat", NfTablesH.NFT_NAT_SNAT),
        DNAT("dnat", NfTablesH.NFT_NAT_DNAT);

        private final String nftName;
        private final int value;

        NatType(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static NatType of(int value) {
            for (NatType t : values()) {
                if (t.value == value) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown nat type " + value);
        }

        @Override
        public String toString() {
            return nftName;
        }
    }

    /** What {@code fib} looks up ({@code NFT_FIB_RESULT_*}). */
    enum FibResult {
        OIF("oif", NfTablesH.NFT_FIB_RESULT_OIF),
        OIFNAME("oifname", NfTablesH.NFT_FIB_RESULT_OIFNAME),
        /** The route type of the address ({@code RTN_LOCAL}, {@code RTN_UNICAST}, ...), as {@code fib ... type}. */
        ADDRTYPE("type", NfTablesH.NFT_FIB_RESULT_ADDRTYPE);

        private final String nftName;
        private final int value;

        FibResult(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        public int value() {
            return value;
        }

        public static FibResult of(int value) {
            for (FibResult r : values()) {
                if (r.value == value) {
                    return r;
                }
            }
            throw new IllegalArgumentException("unknown fib result " + value);
        }

        @Override
        public String toString() {
            return nftName;
        }
    }

    // ---- expressions -------------------------------------------------------------------------------------------

    /** {@code meta}, loading: {@code [ meta load KEY => reg DREG ]}. */
    record Meta(MetaKey key, int dreg) implements Expr {
        public Meta {
            Objects.requireNonNull(key, "key");
            Registers.check(dreg);
        }

        @Override
        public String kind() {
            return "meta";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Meta x && x.key.equals(key) && x.dreg == dreg;
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + dreg;
        }

        @Override
        public String toString() {
            return "[ meta load " + key + " => reg " + dreg + " ]";
        }
    }

    /** {@code meta}, setting: {@code [ meta set KEY with reg SREG ]} ({@code meta mark set ...}). */
    record MetaSet(MetaKey key, int sreg) implements Expr {
        public MetaSet {
            Objects.requireNonNull(key, "key");
            Registers.check(sreg);
        }

        @Override
        public String kind() {
            return "meta";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof MetaSet x && x.key.equals(key) && x.sreg == sreg;
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + sreg;
        }

        @Override
        public String toString() {
            return "[ meta set " + key + " with reg " + sreg + " ]";
        }
    }

    /** {@code payload}: {@code [ payload load LENb @ BASE header + OFFSET => reg DREG ]}. */
    record Payload(PayloadBase base, int offset, int length, int dreg) implements Expr {
        public Payload {
            Objects.requireNonNull(base, "base");
            if (offset < 0 || length <= 0 || length > NfTablesH.NFT_REG_SIZE * 4) {
                throw new IllegalArgumentException("payload offset " + offset + " length " + length);
            }
            Registers.check(dreg);
        }

        @Override
        public String kind() {
            return "payload";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Payload x && x.base.equals(base) && x.offset == offset && x.length == length
                    && x.dreg == dreg;
        }

        @Override
        public int hashCode() {
            return ((base.hashCode() * 31 + offset) * 31 + length) * 31 + dreg;
        }

        @Override
        public String toString() {
            return "[ payload load " + length + "b @ " + base + " header + " + offset + " => reg " + dreg + " ]";
        }
    }

    /** {@code cmp}: {@code [ cmp OP reg SREG DATA ]}; compares {@code data.length} bytes of the register. */
    record Cmp(CmpOp op, int sreg, byte[] data) implements Expr {
        public Cmp {
            Objects.requireNonNull(op, "op");
            Registers.check(sreg);
            data = Registers.data(data);
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public String kind() {
            return "cmp";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Cmp c && c.op == op && c.sreg == sreg && Arrays.equals(c.data, data);
        }

        @Override
        public int hashCode() {
            return (op.hashCode() * 31 + sreg) * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "[ cmp " + op + " reg " + sreg + " " + Words.of(data) + " ]";
        }
    }

    /** {@code bitwise}: {@code [ bitwise reg DREG = ( reg SREG & MASK ) ^ XOR ]} over {@code mask.length} bytes. */
    record Bitwise(int sreg, int dreg, byte[] mask, byte[] xor) implements Expr {
        public Bitwise {
            Registers.check(sreg);
            Registers.check(dreg);
            mask = Registers.data(mask);
            xor = Registers.data(xor);
            if (mask.length != xor.length) {
                throw new IllegalArgumentException("bitwise mask and xor differ in length");
            }
        }

        @Override
        public byte[] mask() {
            return mask.clone();
        }

        @Override
        public byte[] xor() {
            return xor.clone();
        }

        @Override
        public String kind() {
            return "bitwise";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Bitwise b && b.sreg == sreg && b.dreg == dreg && Arrays.equals(b.mask, mask)
                    && Arrays.equals(b.xor, xor);
        }

        @Override
        public int hashCode() {
            return ((sreg * 31 + dreg) * 31 + Arrays.hashCode(mask)) * 31 + Arrays.hashCode(xor);
        }

        @Override
        public String toString() {
            return "[ bitwise reg " + dreg + " = ( reg " + sreg + " & " + Words.of(mask) + " ) ^ " + Words.of(xor)
                    + " ]";
        }
    }

    /** {@code immediate} data: {@code [ immediate reg DREG DATA ]}. */
    record Immediate(int dreg, byte[] data) implements Expr {
        public Immediate {
            Registers.check(dreg);
            if (dreg == VERDICT) {
                throw new IllegalArgumentException("the verdict register takes an ImmediateVerdict");
            }
            data = Registers.data(data);
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public String kind() {
            return "immediate";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Immediate i && i.dreg == dreg && Arrays.equals(i.data, data);
        }

        @Override
        public int hashCode() {
            return dreg * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "[ immediate reg " + dreg + " " + Words.of(data) + " ]";
        }
    }

    /** {@code immediate} of a verdict: {@code [ immediate reg 0 accept ]}, {@code [ immediate reg 0 jump -> C ]}. */
    record ImmediateVerdict(Verdict verdict) implements Expr {
        public ImmediateVerdict {
            Objects.requireNonNull(verdict, "verdict");
        }

        @Override
        public String kind() {
            return "immediate";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ImmediateVerdict x && x.verdict.equals(verdict);
        }

        @Override
        public int hashCode() {
            return verdict.hashCode();
        }

        @Override
        public String toString() {
            return "[ immediate reg 0 " + verdict + " ]";
        }
    }

    /**
     * {@code lookup}: is the value in {@code sreg} (a concatenation spans registers from {@code sreg} on) an element
     * of the named set ({@code [ lookup reg 1 set S ]}); for a map, its data goes to {@code dreg} (a verdict map: 0).
     *
     * @param dreg the destination register for a map lookup, or -1 for a set
     * @param invert match when the value is absent ({@code != @set}, {@code NFT_LOOKUP_F_INV})
     */
    record Lookup(String set, int sreg, int dreg, boolean invert) implements Expr {
        public Lookup {
            Names.check("set", set);
            Registers.check(sreg);
            if (dreg != -1) {
                Registers.check(dreg);
            }
            if (invert && dreg != -1) {
                throw new IllegalArgumentException("a map lookup cannot be inverted");
            }
        }

        @Override
        public String kind() {
            return "lookup";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Lookup x && x.set.equals(set) && x.sreg == sreg && x.dreg == dreg && x.invert == invert;
        }

        @Override
        public int hashCode() {
            return ((set.hashCode() * 31 + sreg) * 31 + dreg) * 31 + (invert ? 1 : 0);
        }

        @Override
        public String toString() {
            return "[ lookup reg " + sreg + " set " + set + (dreg != -1 ? " dreg " + dreg : "") + (invert ? " 0x1" : "")
                    + " ]";
        }
    }

    /**
     * {@code nat}: {@code [ nat dnat ip addr_min reg 1 proto_min reg 2 flags 0x2 ]}. Registers that are 0 are absent.
     *
     * @param family the address family of the address registers ({@code dnat ip to} / {@code dnat ip6 to})
     * @param flags {@code NF_NAT_RANGE_*} ({@code <linux/netfilter/nf_nat.h>}); {@code nft} sets
     *     {@code NF_NAT_RANGE_PROTO_SPECIFIED} (2) with a port
     */
    record Nat(NatType type, Family family, int regAddrMin, int regAddrMax, int regProtoMin, int regProtoMax,
            int flags) implements Expr {
        public Nat {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(family, "family");
            for (int r : new int[] {regAddrMin, regAddrMax, regProtoMin, regProtoMax}) {
                if (r != 0) {
                    Registers.check(r);
                }
            }
        }

        @Override
        public String kind() {
            return "nat";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Nat x && x.type.equals(type) && x.family.equals(family) && x.regAddrMin == regAddrMin
                    && x.regAddrMax == regAddrMax && x.regProtoMin == regProtoMin && x.regProtoMax == regProtoMax
                    && x.flags == flags;
        }

        @Override
        public int hashCode() {
            int h = (type.hashCode() * 31 + family.hashCode()) * 31 + regAddrMin;
            return ((h * 31 + regAddrMax) * 31 + regProtoMin) * 31 + regProtoMax * 31 + flags;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("[ nat ").append(type).append(family == Family.V4 ? " ip" : " ip6");
            Registers.appendNonZero(sb, "addr_min", regAddrMin);
            Registers.appendNonZero(sb, "addr_max", regAddrMax);
            Registers.appendNonZero(sb, "proto_min", regProtoMin);
            Registers.appendNonZero(sb, "proto_max", regProtoMax);
            if (flags != 0) {
                sb.append(" flags 0x").append(Integer.toHexString(flags));
            }
            return sb.append(" ]").toString();
        }
    }

    /** {@code masq}: masquerade to the outgoing interface's address; {@code [ masq ]}. Registers 0 are absent. */
    record Masquerade(int flags, int regProtoMin, int regProtoMax) implements Expr {
        public Masquerade {
            for (int r : new int[] {regProtoMin, regProtoMax}) {
                if (r != 0) {
                    Registers.check(r);
                }
            }
        }

        @Override
        public String kind() {
            return "masq";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Masquerade x && x.flags == flags && x.regProtoMin == regProtoMin
                    && x.regProtoMax == regProtoMax;
        }

        @Override
        public int hashCode() {
            return (flags * 31 + regProtoMin) * 31 + regProtoMax;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("[ masq");
            if (flags != 0) {
                sb.append(" flags 0x").append(Integer.toHexString(flags));
            }
            Registers.appendNonZero(sb, "proto_min", regProtoMin);
            Registers.appendNonZero(sb, "proto_max", regProtoMax);
            return sb.append(" ]").toString();
        }
    }

    /**
     * {@code ct}, loading: {@code [ ct load state => reg 1 ]}.
     *
     * @param direction {@code IP_CT_DIR_ORIGINAL} (0) or {@code IP_CT_DIR_REPLY} (1) for direction-specific keys, -1
     *     for none
     */
    record Ct(CtKey key, int dreg, int direction) implements Expr {
        public Ct {
            Objects.requireNonNull(key, "key");
            Registers.check(dreg);
            if (direction < -1 || direction > 1) {
                throw new IllegalArgumentException("ct direction must be -1, 0 or 1: " + direction);
            }
        }

        @Override
        public String kind() {
            return "ct";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Ct x && x.key.equals(key) && x.dreg == dreg && x.direction == direction;
        }

        @Override
        public int hashCode() {
            return (key.hashCode() * 31 + dreg) * 31 + direction;
        }

        @Override
        public String toString() {
            return "[ ct load " + key + " => reg " + dreg + (direction >= 0 ? ", dir "
                    + (direction == 0 ? "original" : "reply") : "") + " ]";
        }
    }

    /** {@code ct}, setting: {@code [ ct set mark with reg 1 ]} ({@code ct mark set ...}). */
    record CtSet(CtKey key, int sreg) implements Expr {
        public CtSet {
            Objects.requireNonNull(key, "key");
            Registers.check(sreg);
        }

        @Override
        public String kind() {
            return "ct";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CtSet x && x.key.equals(key) && x.sreg == sreg;
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + sreg;
        }

        @Override
        public String toString() {
            return "[ ct set " + key + " with reg " + sreg + " ]";
        }
    }

    /** {@code counter}: packets and bytes seen ({@code [ counter pkts 0 bytes 0 ]}); a new rule starts at 0. */
    record Counter(long packets, long bytes) implements Expr {
        @Override
        public String kind() {
            return "counter";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Counter x && x.packets == packets && x.bytes == bytes;
        }

        @Override
        public int hashCode() {
            return (Long.hashCode(packets)) * 31 + Long.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "[ counter pkts " + packets + " bytes " + bytes + " ]";
        }
    }

    /**
     * {@code fib}: a route lookup ({@code fib daddr type} is {@code [ fib daddr type => reg 1 ]}).
     *
     * @param flags {@code NFTA_FIB_F_*}: which address ({@code SADDR} 1, {@code DADDR} 2) and modifiers
     */
    record Fib(int flags, FibResult result, int dreg) implements Expr {
        public Fib {
            Objects.requireNonNull(result, "result");
            Registers.check(dreg);
        }

        @Override
        public String kind() {
            return "fib";
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Fib x && x.flags == flags && x.result.equals(result) && x.dreg == dreg;
        }

        @Override
        public int hashCode() {
            return (flags * 31 + result.hashCode()) * 31 + dreg;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("[ fib");
            if ((flags & NfTablesH.NFTA_FIB_F_SADDR) != 0) {
                sb.append(" saddr");
            }
            if ((flags & NfTablesH.NFTA_FIB_F_DADDR) != 0) {
                sb.append(" daddr");
            }
            if ((flags & NfTablesH.NFTA_FIB_F_MARK) != 0) {
                sb.append(" . mark");
            }
            if ((flags & NfTablesH.NFTA_FIB_F_IIF) != 0) {
                sb.append(" . iif");
            }
            if ((flags & NfTablesH.NFTA_FIB_F_OIF) != 0) {
                sb.append(" . oif");
            }
            return sb.append(' ').append(result).append(" => reg ").append(dreg).append(" ]").toString();
        }
    }

    /**
     * An expression this API does not model, as read from the kernel: its name and the raw attributes of its
     * {@code NFTA_EXPR_DATA}. Only returned by reads; a rule holding one cannot be written back.
     */
    record Unknown(String kind, byte[] data) implements Expr {
        public Unknown {
            Objects.requireNonNull(kind, "kind");
            data = Words.copy(data, "data");
        }

        @Override
        public byte[] data() {
            return data.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Unknown u && u.kind.equals(kind) && Arrays.equals(u.data, data);
        }

        @Override
        public int hashCode() {
            return kind.hashCode() * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "[ " + kind + " (" + data.length + " bytes not decoded) ]";
        }
    }
}
