package io.jcni.netlink.internal.nft;

import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.NfTablesH;
import io.jcni.netlink.internal.wire.NfnetlinkH;
import io.jcni.netlink.internal.wire.RequestQueue;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.NamedSet;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.SetElement;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** {@link Transaction}: nf_tables requests encoded into a queue as they are made, committed by the channel. */
public final class TransactionImpl implements Transaction, ExprCodec.SetIds {
    private final Channel channel;
    private final RequestQueue queue = new RequestQueue(16, 8192);
    /** Sets created in this transaction, by family, table and name, with their transaction-local ids. */
    private final List<String> newSets = new ArrayList<>();
    /** The family of the rule being encoded, for {@link #id}. */
    private TableFamily ruleFamily;

    public TransactionImpl(Channel channel) {
        this.channel = channel;
    }

    @Override
    public void addTable(Table table) {
        queue.add(new NftMessages.NewTable(Objects.requireNonNull(table, "table")));
    }

    @Override
    public void deleteTable(TableFamily family, String name) {
        queue.add(new NftMessages.TableByName(NfTablesH.NFT_MSG_DELTABLE, family, check(name)));
    }

    @Override
    public void deleteTableIfEmpty(TableFamily family, String name) {
        queue.add(new NftMessages.TableByName(NfTablesH.NFT_MSG_DELTABLE, NetlinkH.NLM_F_NONREC, family,
                check(name)));
    }

    @Override
    public void addChain(Chain chain) {
        queue.add(new NftMessages.NewChain(Objects.requireNonNull(chain, "chain")));
    }

    @Override
    public void flushChain(TableFamily family, String table, String name) {
        queue.add(new NftMessages.ChainByName(NfTablesH.NFT_MSG_DELRULE, family, check(table), check(name)));
    }

    @Override
    public void deleteChain(TableFamily family, String table, String name) {
        queue.add(new NftMessages.ChainByName(NfTablesH.NFT_MSG_DELCHAIN, family, check(table), check(name)));
    }

    @Override
    public void deleteChainIfEmpty(TableFamily family, String table, String name) {
        queue.add(new NftMessages.ChainByName(NfTablesH.NFT_MSG_DELCHAIN, NetlinkH.NLM_F_NONREC, family,
                check(table), check(name)));
    }

    @Override
    public void addRule(Rule rule) {
        queueRule(Objects.requireNonNull(rule, "rule"), true);
    }

    @Override
    public void insertRule(Rule rule) {
        queueRule(Objects.requireNonNull(rule, "rule"), false);
    }

    private void queueRule(Rule rule, boolean append) {
        ruleFamily = rule.family();
        try {
            queue.add(new NftMessages.NewRule(rule, append, this));
        } finally {
            ruleFamily = null;
        }
    }

    @Override
    public void deleteRule(TableFamily family, String table, String chain, long handle) {
        queue.add(new NftMessages.DeleteRule(family, check(table), check(chain), handle));
    }

    @Override
    public void addSet(NamedSet set) {
        Objects.requireNonNull(set, "set");
        String key = setKey(set.family(), set.table(), set.name());
        newSets.add(key);
        try {
            queue.add(new NftMessages.NewSet(set, newSets.size()));
        } catch (RuntimeException | Error e) {
            newSets.removeLast();
            throw e;
        }
    }

    @Override
    public void deleteSet(TableFamily family, String table, String name) {
        queue.add(new NftMessages.SetByName(NfTablesH.NFT_MSG_DELSET, family, check(table), check(name)));
    }

    @Override
    public void flushSet(TableFamily family, String table, String name) {
        queue.add(new NftMessages.SetByName(NfTablesH.NFT_MSG_DELSETELEM, family, check(table), check(name)));
    }

    @Override
    public void addElements(TableFamily family, String table, String set, List<SetElement> elements) {
        queue.add(new NftMessages.Elements(NfTablesH.NFT_MSG_NEWSETELEM, family, check(table), check(set),
                setId(family, table, set), elements));
    }

    @Override
    public void deleteElements(TableFamily family, String table, String set, List<SetElement> elements) {
        queue.add(new NftMessages.Elements(NfTablesH.NFT_MSG_DELSETELEM, family, check(table), check(set), 0,
                elements));
    }

    /** The transaction-local id of a set created earlier in this transaction, else 0 (refer to it by name). */
    private int setId(TableFamily family, String table, String name) {
        return newSets.lastIndexOf(setKey(family, table, name)) + 1;
    }

    /** For lookups of a rule being queued: the family is the rule's, set while it is encoded. */
    @Override
    public int id(String table, String name) {
        return ruleFamily == null ? 0 : setId(ruleFamily, table, name);
    }

    private static String setKey(TableFamily family, String table, String name) {
        return family.nftName() + '\0' + table + '\0' + name;
    }

    private static String check(String name) {
        if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("invalid nftables object name: " + name);
        }
        return name;
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public void commit() {
        try {
            channel.transact(queue, NfnetlinkH.NFNL_SUBSYS_NFTABLES);
        } finally {
            queue.clear();
            newSets.clear();
        }
    }
}
