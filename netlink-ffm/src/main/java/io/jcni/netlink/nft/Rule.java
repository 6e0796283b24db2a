package io.jcni.netlink.nft;

import java.util.List;
import java.util.Objects;

/**
 * An nftables rule: {@code nft add rule FAMILY TABLE CHAIN EXPRESSIONS [comment "COMMENT"]}. Its expressions are the
 * kernel's ({@link Expr}); {@link Exprs} writes them the way {@code nft} compiles its statements.
 *
 * @param handle the kernel's handle ({@code nft -a list}), unique within the table; 0 in a rule to add
 * @param exprs the expressions, in order
 * @param comment the comment ({@code NFTNL_UDATA_RULE_COMMENT} in the rule's user data, as {@code nft} writes it,
 *     so {@code nft list} shows it), or null; plugins tag their rules with it
 */
public record Rule(TableFamily family, String table, String chain, long handle, List<Expr> exprs, String comment) {
    public Rule {
        Objects.requireNonNull(family, "family");
        Names.check("table", table);
        Names.check("chain", chain);
        exprs = List.copyOf(exprs);
        Names.checkComment(comment);
    }

    /** A rule to add. */
    public static Rule of(TableFamily family, String table, String chain, List<Expr> exprs, String comment) {
        return new Rule(family, table, chain, 0, exprs, comment);
    }
}
