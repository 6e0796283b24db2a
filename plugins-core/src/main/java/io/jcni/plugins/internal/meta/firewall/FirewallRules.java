package io.jcni.plugins.internal.meta.firewall;

import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.spec.IpPrefix;
import java.util.List;
import java.util.Set;

/**
 * The firewall plugin's nftables layout: the Go plugin's iptables rules ({@code plugins/meta/firewall/iptables.go},
 * {@code ingresspolicy.go}), chain for chain and comment for comment, in a table of jcni's own instead of iptables'
 * {@code filter} tables, so one {@code inet} table serves IPv4 and IPv6:
 * <pre>
 * table inet jcni_firewall {
 *   chain FORWARD {
 *     type filter hook forward priority filter; policy accept;
 *     jump CNI-ISOLATION-STAGE-1 comment "CNI firewall plugin rules (ingressPolicy: same-bridge|isolated)"
 *     jump CNI-FORWARD comment "CNI firewall plugin rules"
 *   }
 *   chain CNI-FORWARD {
 *     jump CNI-ADMIN comment "CNI firewall plugin admin overrides"
 *     ip daddr 10.88.0.5 ct state established,related accept comment "NETHASH-IDHASH, net: N, if: I, id: C"
 *     ip saddr 10.88.0.5 accept comment "NETHASH-IDHASH, net: N, if: I, id: C"      # per address, both families
 *   }
 *   chain CNI-ADMIN { }                                          # iptablesAdminChainName: the administrator's
 *   chain CNI-ISOLATION-STAGE-1 {                                # same-bridge / isolated only, per bridge
 *     iifname "BR" oifname != "BR" jump CNI-ISOLATION-STAGE-2 comment "CNI firewall plugin rules (ingressPolicy: same-bridge)"
 *     iifname "BR" oifname "BR" drop comment "CNI firewall plugin rules (ingressPolicy: isolated)"   # isolated only
 *   }
 *   chain CNI-ISOLATION-STAGE-2 {
 *     oifname "BR" drop comment "CNI firewall plugin rules (ingressPolicy: same-bridge|isolated)"
 *   }
 * }
 * </pre>
 * Differences from Go's iptables rules: the per-address rules carry the attachment's comment
 * ({@code AttachmentComment}, as ipMasq's), so DEL and GC find them without a prevResult; the isolation chains end
 * without an explicit {@code return} (a regular nftables chain returns by itself); the chains are in one
 * {@code inet} table, not in {@code ip filter} and {@code ip6 filter}.
 */
final class FirewallRules {
    /** The table, in the {@code inet} family. */
    static final String TABLE = "jcni_firewall";
    static final String FORWARD = "FORWARD";
    static final String CNI_FORWARD = "CNI-FORWARD";
    static final String STAGE_1 = "CNI-ISOLATION-STAGE-1";
    static final String STAGE_2 = "CNI-ISOLATION-STAGE-2";
    /** Chains an administrator's chain may not be named after. */
    static final Set<String> OWN_CHAINS = Set.of(FORWARD, CNI_FORWARD, STAGE_1, STAGE_2);

    static final String FORWARD_COMMENT = "CNI firewall plugin rules";
    static final String ADMIN_COMMENT = "CNI firewall plugin admin overrides";
    static final String ISOLATION_COMMENT = "CNI firewall plugin rules (ingressPolicy: same-bridge|isolated)";
    static final TableFamily INET = TableFamily.INET;

    private FirewallRules() {
    }

    static Table table() {
        return new Table(INET, TABLE, "jcni firewall plugin: the Go firewall plugin's rules in nftables");
    }

    /** The base chain at the forward hook, priority filter, policy accept. */
    static Chain forwardChain() {
        return Chain.base(INET, TABLE, FORWARD, Chain.Type.FILTER, Chain.Hook.FORWARD, Chain.PRIORITY_FILTER,
                Chain.Policy.ACCEPT);
    }

    static Chain regular(String name) {
        return Chain.regular(INET, TABLE, name);
    }

    /** A rule of {@code chain} with {@code exprs} and {@code comment}. */
    static Rule rule(String chain, List<Expr> exprs, String comment) {
        return Rule.of(INET, TABLE, chain, exprs, comment);
    }

    /** {@code jump CHAIN}. */
    static List<Expr> jump(String chain) {
        return Exprs.in(INET).jump(chain).toList();
    }

    /** {@code ip daddr A ct state established,related accept} (Go: {@code -d A -m conntrack --ctstate ...}). */
    static List<Expr> replies(IpPrefix address) {
        return Exprs.in(INET).daddr(address.address()).ctState(Exprs.CT_STATE_ESTABLISHED | Exprs.CT_STATE_RELATED)
                .accept().toList();
    }

    /** {@code ip saddr A accept} (Go: {@code -s A -j ACCEPT}). */
    static List<Expr> outgoing(IpPrefix address) {
        return Exprs.in(INET).saddr(address.address()).accept().toList();
    }

    /** The comment of a stage-1 rule of {@code policy} ({@code same-bridge} or {@code isolated}). */
    static String policyComment(String policy) {
        return "CNI firewall plugin rules (ingressPolicy: " + policy + ")";
    }

    /** Stage 1: {@code iifname "BR" oifname != "BR" jump CNI-ISOLATION-STAGE-2}. */
    static List<Expr> leavingBridge(String bridge) {
        return Exprs.in(INET).iifname(bridge).notOifname(bridge).jump(STAGE_2).toList();
    }

    /** Stage 1, isolated: {@code iifname "BR" oifname "BR" drop}. */
    static List<Expr> withinBridge(String bridge) {
        return Exprs.in(INET).iifname(bridge).oifname(bridge).drop().toList();
    }

    /** Stage 2: {@code oifname "BR" drop}. */
    static List<Expr> enteringBridge(String bridge) {
        return Exprs.in(INET).oifname(bridge).drop().toList();
    }

    /** Whether {@code rules} hold one with these expressions and this comment (Go's {@code iptables -C}). */
    static boolean contains(List<Rule> rules, List<Expr> exprs, String comment) {
        for (Rule rule : rules) {
            if (rule.exprs().equals(exprs) && comment.equals(rule.comment())) {
                return true;
            }
        }
        return false;
    }
}
