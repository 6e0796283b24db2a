package io.jcni.plugins.internal.pkg.nft;

import io.jcni.netlink.nft.TableFamily;
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
        protected boolean tolerates(io.jcni.netlink.KernelException e) {
            return e.isNotFound();
        }
    }

    /**
     * Removes a table that the failed ADD created, with its chains, if nothing but the plugin's own scaffolding is in
     * it ({@link NftSteps#removeTableIfUnused}). Runs after {@link DeleteTaggedRules} (registered before it, as
     * rollbacks run newest first).
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
            NftSteps.removeTableIfUnused(open.nft(), family, table, chains, scaffolding);
        }
    }
}
