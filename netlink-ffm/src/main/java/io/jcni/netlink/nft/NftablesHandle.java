package io.jcni.netlink.nft;

import java.util.List;
import java.util.Optional;

/**
 * An nf_tables netlink socket ({@code NETLINK_NETFILTER}) bound to one network namespace, the one it was opened for
 * ({@link Nftables#open(io.jcni.netlink.NetNs)}), for its whole life, whatever thread uses it. Reads here, each
 * naming its {@code nft} equivalent; changes through {@link #transaction()}.
 *
 * <p>Threads: safe to share; exchanges with the kernel are serialized. Blocking: the kernel answers within the
 * system call. Resources: one socket and about 50 KiB of native buffers, freed by {@link #close()}.
 */
public interface NftablesHandle extends AutoCloseable {

    /** {@code nft -a list tables}: every table of every family. */
    List<Table> tables();

    /** {@code nft -a list table FAMILY NAME}: the table, or empty if there is none. */
    Optional<Table> findTable(TableFamily family, String name);

    /** {@code nft -a list chains FAMILY}, restricted to one table: its chains; empty if the table does not exist. */
    List<Chain> chains(TableFamily family, String table);

    /** {@code nft -a list chain FAMILY TABLE NAME} without the rules: the chain, or empty. */
    Optional<Chain> findChain(TableFamily family, String table, String name);

    /**
     * {@code nft -a list chain FAMILY TABLE CHAIN}: the chain's rules in order, with handles, expressions and
     * comments; empty if the chain or table does not exist.
     */
    List<Rule> rules(TableFamily family, String table, String chain);

    /** {@code nft -a list table FAMILY TABLE}: the rules of every chain of the table; empty if it does not exist. */
    List<Rule> rules(TableFamily family, String table);

    /** {@code nft list sets FAMILY}, restricted to one table (maps included); empty if the table does not exist. */
    List<NamedSet> sets(TableFamily family, String table);

    /** {@code nft list set FAMILY TABLE SET}: the elements; NOT_FOUND if the set does not exist. */
    List<SetElement> elements(TableFamily family, String table, String set);

    /** A new, empty transaction sent through this handle. */
    Transaction transaction();

    /** Closes the socket and frees its memory. Later calls fail; idempotent. */
    @Override
    void close();
}
