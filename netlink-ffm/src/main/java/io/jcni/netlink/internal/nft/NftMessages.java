package io.jcni.netlink.internal.nft;

import static io.jcni.netlink.internal.wire.NetlinkH.NLM_F_APPEND;
import static io.jcni.netlink.internal.wire.NetlinkH.NLM_F_CREATE;

import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.NamedSet;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.SetElement;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import java.util.List;

/**
 * The nf_tables requests, one class per message shape, each writing its attributes in the order {@code nft}
 * (libnftnl 1.2) writes them, so that a request equals {@code nft}'s byte for byte (the vector tests compare them with
 * {@code nft --debug=mnl}).
 */
final class NftMessages {
    private NftMessages() {}

    static String id(TableFamily family, String table) {
        return family.nftName() + " " + table;
    }

    /** {@code NFT_MSG_NEWTABLE} ({@code nft add table}): name, flags 0, comment. */
    static final class NewTable extends NftRequest {
        private final Table table;

        NewTable(Table table) {
            super(NfTablesH.NFT_MSG_NEWTABLE, NLM_F_CREATE, table.family().nfproto(), table.id());
            this.table = table;
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_TABLE_NAME, table.name());
            w.u32be(NfTablesH.NFTA_TABLE_FLAGS, table.flags());
            if (table.comment() != null) {
                w.bytes(NfTablesH.NFTA_TABLE_USERDATA, Udata.comment(table.comment()));
            }
        }
    }

    /** {@code NFT_MSG_DELTABLE}, {@code NFT_MSG_GETTABLE} of one table: its name. */
    static final class TableByName extends NftRequest {
        private final String name;

        TableByName(int msg, TableFamily family, String name) {
            this(msg, 0, family, name);
        }

        /** With {@code flags}: {@code NLM_F_NONREC} makes a delete refuse a table that still holds anything. */
        TableByName(int msg, int flags, TableFamily family, String name) {
            super(msg, flags, family.nfproto(), id(family, name));
            this.name = name;
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_TABLE_NAME, name);
        }
    }

    /** {@code NFT_MSG_NEWCHAIN} ({@code nft add chain}): table, name, then type, policy and hook of a base chain. */
    static final class NewChain extends NftRequest {
        private final Chain chain;

        NewChain(Chain chain) {
            super(NfTablesH.NFT_MSG_NEWCHAIN, NLM_F_CREATE, chain.family().nfproto(),
                    id(chain.family(), chain.table()) + " " + chain.name());
            this.chain = chain;
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_CHAIN_TABLE, chain.table());
            w.string(NfTablesH.NFTA_CHAIN_NAME, chain.name());
            Chain.Base base = chain.base();
            if (base != null) {
                w.string(NfTablesH.NFTA_CHAIN_TYPE, base.type().nftName());
                w.u32be(NfTablesH.NFTA_CHAIN_POLICY, base.policy().value());
                int hook = w.nestFlagged(NfTablesH.NFTA_CHAIN_HOOK);
                w.u32be(NfTablesH.NFTA_HOOK_HOOKNUM, base.hook().value());
                w.u32be(NfTablesH.NFTA_HOOK_PRIORITY, base.priority());
                w.endNest(hook);
            }
            if (chain.comment() != null) {
                w.bytes(NfTablesH.NFTA_CHAIN_USERDATA, Udata.comment(chain.comment()));
            }
        }
    }

    /**
     * A chain by table and name: {@code NFT_MSG_DELCHAIN} ({@code nft delete chain}), {@code NFT_MSG_GETCHAIN};
     * {@code NFT_MSG_DELRULE} without a handle is {@code nft flush chain}.
     */
    static final class ChainByName extends NftRequest {
        private final String table;
        private final String name;

        ChainByName(int msg, TableFamily family, String table, String name) {
            this(msg, 0, family, table, name);
        }

        /** With {@code flags}: {@code NLM_F_NONREC} makes a delete refuse a chain with rules or references. */
        ChainByName(int msg, int flags, TableFamily family, String table, String name) {
            super(msg, flags, family.nfproto(), id(family, table) + " " + name);
            this.table = table;
            this.name = name;
        }

        @Override
        void attributes(MessageWriter w) {
            if (type() == io.jcni.netlink.internal.wire.MessageTypes.nftables(NfTablesH.NFT_MSG_DELRULE)) {
                w.string(NfTablesH.NFTA_RULE_TABLE, table);
                w.string(NfTablesH.NFTA_RULE_CHAIN, name);
            } else {
                w.string(NfTablesH.NFTA_CHAIN_TABLE, table);
                w.string(NfTablesH.NFTA_CHAIN_NAME, name);
            }
        }
    }

    /**
     * {@code NFT_MSG_NEWRULE}: {@code nft add rule} ({@code NLM_F_APPEND}) or {@code nft insert rule} (without):
     * table, chain, expressions, comment.
     */
    static final class NewRule extends NftRequest {
        private final Rule rule;
        private final ExprCodec.SetIds setIds;

        NewRule(Rule rule, boolean append, ExprCodec.SetIds setIds) {
            super(NfTablesH.NFT_MSG_NEWRULE, append ? NLM_F_CREATE | NLM_F_APPEND : NLM_F_CREATE,
                    rule.family().nfproto(), id(rule.family(), rule.table()) + " " + rule.chain()
                            + (rule.comment() == null ? "" : " comment \"" + rule.comment() + "\""));
            this.rule = rule;
            this.setIds = setIds;
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_RULE_TABLE, rule.table());
            w.string(NfTablesH.NFTA_RULE_CHAIN, rule.chain());
            int list = w.nestFlagged(NfTablesH.NFTA_RULE_EXPRESSIONS);
            ExprCodec.encode(w, rule.exprs(), rule.table(), setIds);
            w.endNest(list);
            if (rule.comment() != null) {
                w.bytes(NfTablesH.NFTA_RULE_USERDATA, Udata.comment(rule.comment()));
            }
        }
    }

    /** {@code NFT_MSG_DELRULE} by handle: {@code nft delete rule FAMILY TABLE CHAIN handle H}. */
    static final class DeleteRule extends NftRequest {
        private final String table;
        private final String chain;
        private final long handle;

        DeleteRule(TableFamily family, String table, String chain, long handle) {
            super(NfTablesH.NFT_MSG_DELRULE, 0, family.nfproto(), id(family, table) + " " + chain + " handle "
                    + handle);
            if (handle <= 0) {
                throw new IllegalArgumentException("rule handle must be positive: " + handle);
            }
            this.table = table;
            this.chain = chain;
            this.handle = handle;
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_RULE_TABLE, table);
            w.string(NfTablesH.NFTA_RULE_CHAIN, chain);
            w.u64be(NfTablesH.NFTA_RULE_HANDLE, handle);
        }
    }

    /**
     * {@code NFT_MSG_NEWSET} ({@code nft add set|map}): table, name, flags, key type and length, data type and
     * length of a map, the transaction-local id the kernel requires, and the byte orders {@code nft} keeps in the
     * user data to print elements.
     */
    static final class NewSet extends NftRequest {
        private final NamedSet set;
        private final int id;

        NewSet(NamedSet set, int id) {
            super(NfTablesH.NFT_MSG_NEWSET, NLM_F_CREATE, set.family().nfproto(),
                    id(set.family(), set.table()) + " " + set.name());
            this.set = set;
            this.id = id;
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_SET_TABLE, set.table());
            w.string(NfTablesH.NFTA_SET_NAME, set.name());
            w.u32be(NfTablesH.NFTA_SET_FLAGS, set.isMap() ? NfTablesH.NFT_SET_MAP : 0);
            w.u32be(NfTablesH.NFTA_SET_KEY_TYPE, set.keyTypeId());
            w.u32be(NfTablesH.NFTA_SET_KEY_LEN, set.keyLength());
            if (set.isMap()) {
                w.u32be(NfTablesH.NFTA_SET_DATA_TYPE, NftCodec.dataTypeId(set));
                w.u32be(NfTablesH.NFTA_SET_DATA_LEN, set.dataType().length());
            }
            w.u32be(NfTablesH.NFTA_SET_ID, id);
            w.bytes(NfTablesH.NFTA_SET_USERDATA, NftCodec.setUserData(set));
        }
    }

    /**
     * A set by table and name: {@code NFT_MSG_DELSET} ({@code nft delete set}); {@code NFT_MSG_DELSETELEM} without
     * elements ({@code nft flush set}) and {@code NFT_MSG_GETSETELEM} (the elements' dump) use the element list's
     * attributes.
     */
    static final class SetByName extends NftRequest {
        private final String table;
        private final String name;

        SetByName(int msg, TableFamily family, String table, String name) {
            super(msg, 0, family.nfproto(), id(family, table) + " " + name);
            this.table = table;
            this.name = name;
        }

        @Override
        void attributes(MessageWriter w) {
            if ((type() & 0xff) == NfTablesH.NFT_MSG_DELSET || (type() & 0xff) == NfTablesH.NFT_MSG_GETSET) {
                w.string(NfTablesH.NFTA_SET_TABLE, table);
                w.string(NfTablesH.NFTA_SET_NAME, name);
            } else if ((type() & 0xff) == NfTablesH.NFT_MSG_DELSETELEM) {
                w.string(NfTablesH.NFTA_SET_ELEM_LIST_SET, name); // nft's order for a flush
                w.string(NfTablesH.NFTA_SET_ELEM_LIST_TABLE, table);
            } else {
                w.string(NfTablesH.NFTA_SET_ELEM_LIST_TABLE, table);
                w.string(NfTablesH.NFTA_SET_ELEM_LIST_SET, name);
            }
        }
    }

    /**
     * {@code NFT_MSG_NEWSETELEM} / {@code NFT_MSG_DELSETELEM} ({@code nft add|delete element}): table, set, the set's
     * transaction-local id if it was created in the same transaction (additions only, as {@code nft}), the elements.
     */
    static final class Elements extends NftRequest {
        private final String table;
        private final String set;
        private final int setId;
        private final List<SetElement> elements;

        Elements(int msg, TableFamily family, String table, String set, int setId, List<SetElement> elements) {
            super(msg, msg == NfTablesH.NFT_MSG_NEWSETELEM ? NLM_F_CREATE : 0, family.nfproto(),
                    id(family, table) + " " + set + " (" + elements.size() + " elements)");
            if (elements.isEmpty()) {
                throw new IllegalArgumentException("no elements for set " + set);
            }
            this.table = table;
            this.set = set;
            this.setId = setId;
            this.elements = List.copyOf(elements);
        }

        @Override
        void attributes(MessageWriter w) {
            w.string(NfTablesH.NFTA_SET_ELEM_LIST_TABLE, table);
            w.string(NfTablesH.NFTA_SET_ELEM_LIST_SET, set);
            if (setId != 0) {
                w.u32be(NfTablesH.NFTA_SET_ELEM_LIST_SET_ID, setId);
            }
            int list = w.nestFlagged(NfTablesH.NFTA_SET_ELEM_LIST_ELEMENTS);
            int index = 0;
            for (SetElement e : elements) {
                // libnftnl numbers the entries 1, 2, ... where expressions use NFTA_LIST_ELEM; the kernel ignores it
                int elem = w.nestFlagged(++index);
                ExprCodec.value(w, NfTablesH.NFTA_SET_ELEM_KEY, e.key());
                if (e.data() != null) {
                    ExprCodec.value(w, NfTablesH.NFTA_SET_ELEM_DATA, e.data());
                } else if (e.verdict() != null) {
                    int data = w.nestFlagged(NfTablesH.NFTA_SET_ELEM_DATA);
                    ExprCodec.verdict(w, e.verdict());
                    w.endNest(data);
                }
                w.endNest(elem);
            }
            w.endNest(list);
        }
    }

    /** A dump of {@code msg} ({@code NFT_MSG_GETTABLE}, ...) for one family (all with {@code NFPROTO_UNSPEC}). */
    static final class Dump extends NftRequest {
        private final String table;
        private final String chain;

        /**
         * @param table with {@code NFT_MSG_GETRULE}: only this table's rules (the kernel filters), else null
         * @param chain with {@code NFT_MSG_GETRULE}: only this chain's rules, else null
         */
        Dump(int msg, int nfproto, String subject, String table, String chain) {
            super(msg, 0, nfproto, subject);
            this.table = table;
            this.chain = chain;
        }

        @Override
        void attributes(MessageWriter w) {
            if (table != null) {
                w.string(NfTablesH.NFTA_RULE_TABLE, table);
            }
            if (chain != null) {
                w.string(NfTablesH.NFTA_RULE_CHAIN, chain);
            }
        }
    }
}
