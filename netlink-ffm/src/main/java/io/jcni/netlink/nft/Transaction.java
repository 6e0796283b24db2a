package io.jcni.netlink.nft;

import java.util.List;

/**
 * Changes to nftables applied all together or not at all: {@link #commit()} sends them in one datagram framed by
 * {@code NFNL_MSG_BATCH_BEGIN}/{@code NFNL_MSG_BATCH_END}, the way {@code nft -f FILE} applies a file. If any change
 * fails, the kernel applies none of them, and the exception names the failing change with the kernel's errno and
 * extended-ACK text. Each method names its {@code nft} equivalent.
 *
 * <p>Changes are encoded when a method is called (bad arguments throw then, and the change is not queued) and run in
 * the order queued: a chain can be created and filled in one transaction, a flushed chain refilled. Not thread-safe;
 * after {@link #commit()} (whether it succeeded or failed) the transaction is empty and may be reused. At most
 * 65,536 changes per transaction; the socket's buffers grow to hold a large one whole (one datagram out, an
 * acknowledgement per change in), so that it stays all or nothing.
 */
public interface Transaction {

    /**
     * {@code nft add table FAMILY NAME [{ comment "C" ; }]}: creates the table, or leaves an existing one as it is
     * (its comment included).
     */
    void addTable(Table table);

    /** {@code nft delete table FAMILY NAME}: with its chains, rules and sets. NOT_FOUND fails the transaction. */
    void deleteTable(TableFamily family, String name);

    /**
     * {@code nft delete table FAMILY NAME}, but only if it is empty: the kernel refuses ({@code EBUSY}, failing the
     * transaction) a table that still has chains, sets or objects once the changes queued before this one are
     * applied ({@code NLM_F_NONREC}; {@code nft} has no syntax for it). NOT_FOUND fails the transaction too. What a
     * plugin uses to remove a table it created, without taking along what another plugin added meanwhile.
     */
    void deleteTableIfEmpty(TableFamily family, String name);

    /**
     * {@code nft add chain FAMILY TABLE NAME [{ type T hook H priority P ; policy X ; comment "C" ; }]}: creates the
     * chain, or leaves an existing one (a base chain's policy is updated).
     */
    void addChain(Chain chain);

    /** {@code nft flush chain FAMILY TABLE NAME}: deletes every rule of the chain. */
    void flushChain(TableFamily family, String table, String name);

    /**
     * {@code nft delete chain FAMILY TABLE NAME}: with its rules (as {@code nft} does); no rule elsewhere may jump to
     * it.
     */
    void deleteChain(TableFamily family, String table, String name);

    /**
     * {@code nft delete chain FAMILY TABLE NAME}, but only if it is empty: the kernel refuses ({@code EBUSY}, failing
     * the transaction) a chain that still has rules or that a rule jumps to, once the changes queued before this one
     * are applied ({@code NLM_F_NONREC}). A plain {@link #deleteChain} deletes the chain's rules with it.
     */
    void deleteChainIfEmpty(TableFamily family, String table, String name);

    /** {@code nft add rule FAMILY TABLE CHAIN EXPRESSIONS [comment "C"]}: appends the rule to the chain. */
    void addRule(Rule rule);

    /** {@code nft insert rule FAMILY TABLE CHAIN EXPRESSIONS [comment "C"]}: puts the rule first in the chain. */
    void insertRule(Rule rule);

    /** {@code nft delete rule FAMILY TABLE CHAIN handle H}. NOT_FOUND fails the transaction. */
    void deleteRule(TableFamily family, String table, String chain, long handle);

    /** {@code nft add set|map FAMILY TABLE NAME { type ... ; }}: creates the set, or leaves an existing one. */
    void addSet(NamedSet set);

    /** {@code nft delete set FAMILY TABLE NAME}: no rule may refer to it. */
    void deleteSet(TableFamily family, String table, String name);

    /** {@code nft flush set FAMILY TABLE NAME}: deletes every element. */
    void flushSet(TableFamily family, String table, String name);

    /** {@code nft add element FAMILY TABLE SET { ELEMENT, ... }}; existing elements are left as they are. */
    void addElements(TableFamily family, String table, String set, List<SetElement> elements);

    /** {@code nft delete element FAMILY TABLE SET { ELEMENT, ... }}: by key. A missing key fails the transaction. */
    void deleteElements(TableFamily family, String table, String set, List<SetElement> elements);

    /** Changes queued. */
    int size();

    /**
     * Applies every queued change atomically, then empties the transaction. Does nothing when empty.
     *
     * @throws io.jcni.netlink.NetlinkException if the kernel refused the transaction (nothing was applied): its
     *     operation names the first failing change ({@code "NFT_MSG_NEWRULE inet t c (message 3 of 7; the
     *     transaction was not applied)"}), other failures are suppressed exceptions; or if the replies were lost
     *     (then it says the outcome is unknown)
     */
    void commit();
}
