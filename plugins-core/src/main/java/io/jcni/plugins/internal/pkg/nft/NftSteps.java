package io.jcni.plugins.internal.pkg.nft;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.ArrayList;
import java.util.List;

/**
 * The nftables steps of every netfilter plugin (see the package docs for the discipline): probing nf_tables, reading
 * rules by comment, deleting them by handle, committing one transaction with the failure as a CNI error.
 *
 * <p>Stateless; every method works on the handle it is given ({@link Namespace#nft()} of the host).
 */
public final class NftSteps {
    private NftSteps() {
    }

    /**
     * STATUS: code 50 (plugin not available) when this namespace has no usable nf_tables: the socket cannot be
     * opened ({@code NETLINK_NETFILTER} missing) or the kernel refuses to list its tables ({@code nf_tables} not
     * built). Opening the handle is the probe; it stays open in {@code host} for the caller.
     */
    public static void requireAvailable(Namespace host, String plugin) throws CniException {
        try {
            host.nft().tables();
        } catch (KernelException e) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, plugin + ": nf_tables is not available: "
                    + e.getMessage(), "the plugin writes its rules with nftables over netlink; the kernel needs"
                    + " CONFIG_NF_TABLES (and nf_tables_inet, nft_nat, nft_masq, nft_ct for the rules it writes)");
        }
    }

    /**
     * Commits {@code tx} (one all-or-nothing transaction); a refusal becomes a CNI error saying {@code what} failed,
     * with the kernel's words (the failing request, errno, extended ACK): 11 for EBUSY, else 999. Nothing was applied
     * when this throws (unless the replies were lost, which the message then says).
     */
    public static void commit(Transaction tx, String what) throws CniException {
        try {
            tx.commit();
        } catch (KernelException e) {
            throw NetErrors.failure(what, e);
        }
    }

    /**
     * {@code nft -a list chain FAMILY TABLE CHAIN}, the rules whose comment is exactly {@code comment}, in chain
     * order; none when the table or chain does not exist.
     */
    public static List<Rule> tagged(NftablesHandle nft, TableFamily family, String table, String chain,
            String comment) {
        return select(nft.rules(family, table, chain), comment, false);
    }

    /** As {@link #tagged}, the rules whose comment starts with {@code prefix}. */
    public static List<Rule> taggedWithPrefix(NftablesHandle nft, TableFamily family, String table, String chain,
            String prefix) {
        return select(nft.rules(family, table, chain), prefix, true);
    }

    /** Of {@code rules}, those whose comment equals {@code comment} (or starts with it, when {@code prefix}). */
    public static List<Rule> select(List<Rule> rules, String comment, boolean prefix) {
        List<Rule> out = new ArrayList<>();
        for (Rule rule : rules) {
            String c = rule.comment();
            if (c != null && (prefix ? c.startsWith(comment) : c.equals(comment))) {
                out.add(rule);
            }
        }
        return out;
    }

    /** Queues {@code nft delete rule FAMILY TABLE CHAIN handle H} for each of {@code rules} (read back from a list). */
    public static void delete(Transaction tx, List<Rule> rules) {
        for (Rule rule : rules) {
            tx.deleteRule(rule.family(), rule.table(), rule.chain(), rule.handle());
        }
    }

    /** Whether the table exists ({@code nft list table FAMILY NAME} succeeds). */
    public static boolean tableExists(NftablesHandle nft, TableFamily family, String table) {
        return nft.findTable(family, table).isPresent();
    }

    /**
     * Deletes {@code rules} by handle in one transaction (nothing to do when empty). A rule already deleted by
     * someone else fails the transaction with NOT_FOUND; then the rules are read again once and the deletion
     * retried with what is left of them ({@code reread}), which makes DEL idempotent under concurrent DELs.
     *
     * @param reread reads the rules to delete again (a named class; plugins' exec path has no lambdas)
     */
    public static void deleteAll(NftablesHandle nft, List<Rule> rules, Reread reread, String what)
            throws CniException {
        if (rules.isEmpty()) {
            return;
        }
        Transaction tx = nft.transaction();
        delete(tx, rules);
        try {
            tx.commit();
            return;
        } catch (KernelException e) {
            if (!e.isNotFound()) {
                throw NetErrors.failure(what, e);
            }
        }
        List<Rule> left;
        try {
            left = reread.rules(nft);
        } catch (KernelException e) {
            throw NetErrors.failure(what, e);
        }
        delete(tx, left);
        commit(tx, what);
    }

    /**
     * Removes {@code table} if nothing but a plugin's own scaffolding is left in it: every chain is one of
     * {@code chains} and every rule's comment one of {@code scaffolding} ("" stands for a rule without comment). Then,
     * in one transaction: those rules by handle, each chain "if empty", the table "if empty" ({@code NLM_F_NONREC}).
     * If anything appeared since it was read (a concurrent ADD's rule or chain, a re-flushed chain), the kernel
     * refuses the whole transaction and the table stays as it is: a concurrent ADD never loses its rules. Returns
     * whether the table was removed; a table that is already gone is not.
     */
    public static boolean removeTableIfUnused(NftablesHandle nft, TableFamily family, String table,
            List<String> chains, java.util.Set<String> scaffolding) {
        if (!tableExists(nft, family, table)) {
            return false;
        }
        List<Chain> present = nft.chains(family, table);
        for (Chain chain : present) {
            if (!chains.contains(chain.name())) {
                return false;
            }
        }
        List<Rule> rules = nft.rules(family, table);
        for (Rule rule : rules) {
            if (!scaffolding.contains(rule.comment() == null ? "" : rule.comment())) {
                return false;
            }
        }
        Transaction tx = nft.transaction();
        delete(tx, rules);
        for (Chain chain : present) {
            tx.deleteChainIfEmpty(family, table, chain.name());
        }
        tx.deleteTableIfEmpty(family, table);
        try {
            tx.commit();
            return true;
        } catch (KernelException e) {
            if (!e.isNotFound() && e.kind() != KernelException.Kind.BUSY) {
                throw e;
            }
            return false; // something changed meanwhile (a concurrent ADD): the table is in use, leave it
        }
    }

    /** Reads the rules a {@link #deleteAll} deletes, again. */
    public interface Reread {
        List<Rule> rules(NftablesHandle nft);
    }

    /** {@link Reread} of the rules of some chains of one table whose comment equals (or starts with) a text. */
    public static final class TaggedIn implements Reread {
        private final TableFamily family;
        private final String table;
        private final List<String> chains;
        private final String comment;
        private final boolean prefix;

        public TaggedIn(TableFamily family, String table, List<String> chains, String comment, boolean prefix) {
            this.family = family;
            this.table = table;
            this.chains = List.copyOf(chains);
            this.comment = comment;
            this.prefix = prefix;
        }

        @Override
        public List<Rule> rules(NftablesHandle nft) {
            List<Rule> out = new ArrayList<>();
            for (String chain : chains) {
                out.addAll(select(nft.rules(family, table, chain), comment, prefix));
            }
            return out;
        }
    }
}
