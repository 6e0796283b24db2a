package io.jcni.plugins.internal.pkg.nft;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.Undos;
import java.util.List;
import java.util.Set;

/**
 * Rollback steps of the netfilter plugins' ADDs (named classes: no lambdas on the exec path). Each reopens the
 * namespace (the host) and reads the ruleset anew when it runs: what to remove is found by comment, never remembered
 * by handle across the ADD.
 */
public final class NftUndos {
    private NftUndos() {
    }

    /**
     * Deletes the rules of {@code chains} whose comment is {@code comment} (this attachment's), in one transaction;
     * a table or chain already gone has none.
     */
    public static final class DeleteTaggedRules extends Undos.InNamespace {
        private final NftSteps.TaggedIn rules;

        public DeleteTaggedRules(Namespace host, TableFamily family, String table, List<String> chains,
                String comment) {
            super(host);
            this.rules = new NftSteps.TaggedIn(family, table, chains, comment, false);
        }

        @Override
        protected void apply(Namespace open) throws Exception {
            NftSteps.deleteAll(open.nft(), rules.rules(open.nft()), rules, "delete rules of a failed ADD");
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    /**
     * Removes a table that the failed ADD created, with its chains, if nothing but the plugin's own scaffolding is in
     * it: every rule's comment is one of {@code scaffolding} ("" stands for a rule without comment) and every chain
     * is one of {@code chains}. Then, in one transaction: those rules by handle, each chain "if empty", the table "if
     * empty" ({@code NLM_F_NONREC}). If anything appeared in between (a concurrent ADD's rule or chain) the kernel
     * refuses the whole transaction and the table stays as an ADD leaves it, which is harmless. Runs after
     * {@link DeleteTaggedRules} (registered before it, as rollbacks run newest first).
     */
    public static final class RemoveTableIfUnused extends Undos.InNamespace {
        private final TableFamily family;
        private final String table;
        private final List<String> chains;
        private final Set<String> scaffolding;

        /** @param chains the chains the plugin makes in the table: any other chain means the table is in use */
        public RemoveTableIfUnused(Namespace host, TableFamily family, String table, List<String> chains,
                Set<String> scaffolding) {
            super(host);
            this.family = family;
            this.table = table;
            this.chains = List.copyOf(chains);
            this.scaffolding = Set.copyOf(scaffolding);
        }

        @Override
        protected void apply(Namespace open) {
            NftablesHandle nft = open.nft();
            if (!NftSteps.tableExists(nft, family, table)) {
                return;
            }
            List<Chain> present = nft.chains(family, table);
            for (Chain chain : present) {
                if (!chains.contains(chain.name())) {
                    return;
                }
            }
            List<Rule> rules = nft.rules(family, table);
            for (Rule rule : rules) {
                if (!scaffolding.contains(rule.comment() == null ? "" : rule.comment())) {
                    return;
                }
            }
            Transaction tx = nft.transaction();
            NftSteps.delete(tx, rules);
            for (Chain chain : present) {
                tx.deleteChainIfEmpty(family, table, chain.name());
            }
            tx.deleteTableIfEmpty(family, table);
            try {
                tx.commit();
            } catch (KernelException e) {
                if (!e.isNotFound() && e.kind() != KernelException.Kind.BUSY) {
                    throw e;
                }
                // Something changed meanwhile (a concurrent ADD): the table is in use, leave it.
            }
        }
    }
}
