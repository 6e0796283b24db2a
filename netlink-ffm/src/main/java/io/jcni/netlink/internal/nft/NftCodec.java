package io.jcni.netlink.internal.nft;

import static io.jcni.netlink.internal.wire.Offsets.NFGENMSG_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSGHDR_SIZE;
import static io.jcni.netlink.internal.wire.Offsets.NLMSG_TYPE;

import io.jcni.netlink.internal.wire.AttrCursor;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MalformedMessageException;
import io.jcni.netlink.internal.wire.MessageTypes;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.internal.wire.Offsets;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.NamedSet;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.SetElement;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoders of nf_tables dump replies ({@code NFT_MSG_NEWTABLE}, {@code NEWCHAIN}, {@code NEWRULE}, {@code NEWSET},
 * {@code NEWSETELEM} messages), each filtering by table (and chain, set) because not every dump filters in the kernel,
 * and the set helpers shared with the requests. Decoders are named classes, not lambdas.
 */
final class NftCodec {
    private NftCodec() {}

    /** {@code NFTA_SET_DATA_TYPE} of a map: the type's number, or {@code NFT_DATA_VERDICT}. */
    static int dataTypeId(NamedSet set) {
        return set.isVerdictMap() ? NfTablesH.NFT_DATA_VERDICT : set.dataType().id();
    }

    /**
     * The user data {@code nft} writes for a set: the key's byte order ({@code BYTEORDER_INVALID} for a
     * concatenation), and for a map the data's byte order and its interval flag (0).
     */
    static byte[] setUserData(NamedSet set) {
        int keyOrder = set.keyType().size() > 1 ? Udata.BYTEORDER_INVALID : order(set.keyType().getFirst());
        if (!set.isMap()) {
            return Udata.u32s(new int[] {Udata.SET_KEYBYTEORDER}, new int[] {keyOrder});
        }
        int dataOrder = set.isVerdictMap() ? Udata.BYTEORDER_INVALID : order(set.dataType());
        return Udata.u32s(new int[] {Udata.SET_KEYBYTEORDER, Udata.SET_DATABYTEORDER, SET_DATA_INTERVAL},
                new int[] {keyOrder, dataOrder, 0});
    }

    /** {@code NFTNL_UDATA_SET_DATA_INTERVAL} (libnftnl): whether map data are intervals. */
    private static final int SET_DATA_INTERVAL = 6;

    private static int order(NamedSet.DataType t) {
        return t.bigEndian() ? Udata.BYTEORDER_BIG_ENDIAN : Udata.BYTEORDER_HOST_ENDIAN;
    }

    /** Where the attributes of the message at {@code off} start, or -1 if it is not nf_tables message {@code msg}. */
    private static int attributes(ByteBuffer b, int off, int len, int msg) {
        if (Short.toUnsignedInt(b.getShort(off + NLMSG_TYPE)) != MessageTypes.nftables(msg)) {
            return -1;
        }
        if (len < NLMSGHDR_SIZE + NFGENMSG_SIZE) {
            throw new MalformedMessageException("nf_tables message of " + len + " bytes");
        }
        return off + NLMSGHDR_SIZE + NFGENMSG_SIZE;
    }

    private static TableFamily family(ByteBuffer b, int off) {
        return TableFamily.of(Byte.toUnsignedInt(b.get(off + NLMSGHDR_SIZE + Offsets.NFGEN_FAMILY)));
    }

    /** Tables, optionally only one by name. */
    static final class Tables implements Channel.Decoder<Table> {
        private final String name;

        Tables(String name) {
            this.name = name;
        }

        @Override
        public Table decode(ByteBuffer b, int off, int len) {
            int start = attributes(b, off, len, NfTablesH.NFT_MSG_NEWTABLE);
            if (start < 0) {
                return null;
            }
            String tableName = null;
            long handle = 0;
            int flags = 0;
            String comment = null;
            AttrCursor c = new AttrCursor(b, start, off + len);
            while (c.next()) {
                switch (c.type()) {
                    case NfTablesH.NFTA_TABLE_NAME -> tableName = c.string();
                    case NfTablesH.NFTA_TABLE_FLAGS -> flags = c.u32be();
                    case NfTablesH.NFTA_TABLE_HANDLE -> handle = c.u64be();
                    case NfTablesH.NFTA_TABLE_USERDATA -> comment = Udata.comment(c.bytes());
                    default -> { }
                }
            }
            if (tableName == null || (name != null && !name.equals(tableName))) {
                return null;
            }
            return new Table(family(b, off), tableName, handle, flags, comment);
        }
    }

    /** Chains of one table, optionally only one by name. */
    static final class Chains implements Channel.Decoder<Chain> {
        private final TableFamily family;
        private final String table;
        private final String name;

        Chains(TableFamily family, String table, String name) {
            this.family = family;
            this.table = table;
            this.name = name;
        }

        @Override
        public Chain decode(ByteBuffer b, int off, int len) {
            int start = attributes(b, off, len, NfTablesH.NFT_MSG_NEWCHAIN);
            if (start < 0 || family(b, off) != family) {
                return null;
            }
            String chainTable = null;
            String chainName = null;
            long handle = 0;
            int hook = -1;
            int priority = 0;
            int policy = -1;
            String type = null;
            String comment = null;
            AttrCursor c = new AttrCursor(b, start, off + len);
            while (c.next()) {
                switch (c.type()) {
                    case NfTablesH.NFTA_CHAIN_TABLE -> chainTable = c.string();
                    case NfTablesH.NFTA_CHAIN_NAME -> chainName = c.string();
                    case NfTablesH.NFTA_CHAIN_HANDLE -> handle = c.u64be();
                    case NfTablesH.NFTA_CHAIN_POLICY -> policy = c.u32be();
                    case NfTablesH.NFTA_CHAIN_TYPE -> type = c.string();
                    case NfTablesH.NFTA_CHAIN_USERDATA -> comment = Udata.comment(c.bytes());
                    case NfTablesH.NFTA_CHAIN_HOOK -> {
                        AttrCursor h = c.nested();
                        while (h.next()) {
                            if (h.type() == NfTablesH.NFTA_HOOK_HOOKNUM) {
                                hook = h.u32be();
                            } else if (h.type() == NfTablesH.NFTA_HOOK_PRIORITY) {
                                priority = h.u32be();
                            }
                        }
                    }
                    default -> { }
                }
            }
            if (!table.equals(chainTable) || chainName == null || (name != null && !name.equals(chainName))) {
                return null;
            }
            Chain.Base base = hook < 0 || type == null ? null : new Chain.Base(Chain.Type.of(type),
                    Chain.Hook.of(hook), priority, Chain.Policy.of(policy));
            return new Chain(family, chainTable, chainName, base, comment, handle);
        }
    }

    /** Rules of one table, optionally of one chain. */
    static final class Rules implements Channel.Decoder<Rule> {
        private final TableFamily family;
        private final String table;
        private final String chain;

        Rules(TableFamily family, String table, String chain) {
            this.family = family;
            this.table = table;
            this.chain = chain;
        }

        @Override
        public Rule decode(ByteBuffer b, int off, int len) {
            int start = attributes(b, off, len, NfTablesH.NFT_MSG_NEWRULE);
            if (start < 0 || family(b, off) != family) {
                return null;
            }
            String ruleTable = null;
            String ruleChain = null;
            long handle = 0;
            List<Expr> exprs = List.of();
            String comment = null;
            AttrCursor c = new AttrCursor(b, start, off + len);
            while (c.next()) {
                switch (c.type()) {
                    case NfTablesH.NFTA_RULE_TABLE -> ruleTable = c.string();
                    case NfTablesH.NFTA_RULE_CHAIN -> ruleChain = c.string();
                    case NfTablesH.NFTA_RULE_HANDLE -> handle = c.u64be();
                    case NfTablesH.NFTA_RULE_EXPRESSIONS -> exprs = ExprCodec.decode(c.nested());
                    case NfTablesH.NFTA_RULE_USERDATA -> comment = Udata.comment(c.bytes());
                    default -> { }
                }
            }
            if (!table.equals(ruleTable) || ruleChain == null || (chain != null && !chain.equals(ruleChain))) {
                return null;
            }
            return new Rule(family, ruleTable, ruleChain, handle, exprs, comment);
        }
    }

    /** Named sets and maps of one table; anonymous sets and sets of types this API does not model are left out. */
    static final class Sets implements Channel.Decoder<NamedSet> {
        private final TableFamily family;
        private final String table;

        Sets(TableFamily family, String table) {
            this.family = family;
            this.table = table;
        }

        @Override
        public NamedSet decode(ByteBuffer b, int off, int len) {
            int start = attributes(b, off, len, NfTablesH.NFT_MSG_NEWSET);
            if (start < 0 || family(b, off) != family) {
                return null;
            }
            String setTable = null;
            String name = null;
            int flags = 0;
            int keyType = 0;
            int keyLength = 0;
            int dataType = 0;
            long handle = 0;
            AttrCursor c = new AttrCursor(b, start, off + len);
            while (c.next()) {
                switch (c.type()) {
                    case NfTablesH.NFTA_SET_TABLE -> setTable = c.string();
                    case NfTablesH.NFTA_SET_NAME -> name = c.string();
                    case NfTablesH.NFTA_SET_FLAGS -> flags = c.u32be();
                    case NfTablesH.NFTA_SET_KEY_TYPE -> keyType = c.u32be();
                    case NfTablesH.NFTA_SET_KEY_LEN -> keyLength = c.u32be();
                    case NfTablesH.NFTA_SET_DATA_TYPE -> dataType = c.u32be();
                    case NfTablesH.NFTA_SET_HANDLE -> handle = c.u64be();
                    default -> { }
                }
            }
            if (!table.equals(setTable) || name == null || (flags & NfTablesH.NFT_SET_ANONYMOUS) != 0) {
                return null;
            }
            try {
                List<NamedSet.DataType> key = keyTypes(keyType);
                NamedSet.DataType data = (flags & NfTablesH.NFT_SET_MAP) == 0 ? null
                        : dataType == NfTablesH.NFT_DATA_VERDICT ? NamedSet.DataType.VERDICT
                        : NamedSet.DataType.of(dataType);
                NamedSet set = new NamedSet(family, setTable, name, key, data, handle);
                return set.keyLength() == keyLength ? set : null;
            } catch (IllegalArgumentException e) {
                return null; // a type this API does not model
            }
        }

        /** The parts of a (concatenated) key type, first part first. */
        private static List<NamedSet.DataType> keyTypes(int id) {
            List<NamedSet.DataType> parts = new ArrayList<>();
            int mask = (1 << 6) - 1;
            for (int rest = id; rest != 0; rest >>>= 6) {
                parts.addFirst(NamedSet.DataType.of(rest & mask));
            }
            return parts;
        }
    }

    /** The elements of one set reply; interval end markers are left out. */
    static final class Elements implements Channel.Decoder<List<SetElement>> {
        @Override
        public List<SetElement> decode(ByteBuffer b, int off, int len) {
            int start = attributes(b, off, len, NfTablesH.NFT_MSG_NEWSETELEM);
            if (start < 0) {
                return null;
            }
            List<SetElement> out = new ArrayList<>();
            AttrCursor c = new AttrCursor(b, start, off + len);
            while (c.next()) {
                if (c.type() != NfTablesH.NFTA_SET_ELEM_LIST_ELEMENTS) {
                    continue;
                }
                AttrCursor list = c.nested();
                while (list.next()) {
                    if (list.type() == NfTablesH.NFTA_LIST_ELEM) {
                        SetElement e = element(list.nested());
                        if (e != null) {
                            out.add(e);
                        }
                    }
                }
            }
            return out;
        }

        private static SetElement element(AttrCursor c) {
            ExprCodec.Attrs a = ExprCodec.Attrs.read(c);
            if ((a.u32Or(NfTablesH.NFTA_SET_ELEM_FLAGS, 0) & NfTablesH.NFT_SET_ELEM_INTERVAL_END) != 0
                    || !a.has(NfTablesH.NFTA_SET_ELEM_KEY)) {
                return null;
            }
            byte[] key = a.value(NfTablesH.NFTA_SET_ELEM_KEY);
            if (!a.has(NfTablesH.NFTA_SET_ELEM_DATA)) {
                return SetElement.of(key);
            }
            AttrCursor data = a.nested(NfTablesH.NFTA_SET_ELEM_DATA);
            while (data.next()) {
                if (data.type() == NfTablesH.NFTA_DATA_VALUE) {
                    return SetElement.mapping(key, data.bytes());
                }
                if (data.type() == NfTablesH.NFTA_DATA_VERDICT) {
                    return SetElement.mapping(key, ExprCodec.verdict(data.nested()));
                }
            }
            throw new MalformedMessageException("set element data without a value");
        }
    }
}
