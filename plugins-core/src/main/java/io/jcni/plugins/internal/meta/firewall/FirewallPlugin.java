package io.jcni.plugins.internal.meta.firewall;

import static io.jcni.plugins.internal.meta.firewall.FirewallRules.ADMIN_COMMENT;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.CNI_FORWARD;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.FORWARD;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.FORWARD_COMMENT;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.INET;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.ISOLATION_COMMENT;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.STAGE_1;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.STAGE_2;
import static io.jcni.plugins.internal.meta.firewall.FirewallRules.TABLE;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Transaction;
import io.jcni.plugins.internal.pkg.ip.IpMasq;
import io.jcni.plugins.internal.pkg.nft.AttachmentComment;
import io.jcni.plugins.internal.pkg.nft.NftSteps;
import io.jcni.plugins.internal.pkg.nft.NftUndos;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The {@code firewall} meta plugin, chained after bridge or ptp: the container's addresses are let through the
 * forward path (traffic from them, and replies to them), an administrator's chain is consulted first, and with
 * {@code ingressPolicy} {@code same-bridge} or {@code isolated} the bridge is isolated from other isolated bridges as
 * Go's plugin (containernetworking/plugins 1.9) and Docker do it. Go writes iptables rules by exec'ing
 * {@code iptables}; jcni writes the same rules as nftables over netlink, in one {@code inet} table of its own
 * ({@link FirewallRules} has the layout), one transaction per ADD. Configuration: {@link FirewallConfig}.
 *
 * <p>What the nftables table can and cannot do: in nftables every base chain on a hook sees the packet and a drop in
 * any of them is final, so jcni's accept rules do not override a drop elsewhere (an {@code iptables} FORWARD policy
 * of DROP, a firewalld zone). On a node whose forward path is open, jcni's rules behave as Go's: the administrator's
 * chain can drop container traffic before the accepts, and the isolation chains drop traffic between isolated
 * bridges. README "Known limits" says so.
 *
 * <p>ADD: the table and chains (kept when present), the jumps that are missing ({@code FORWARD} to
 * {@code CNI-FORWARD} appended, {@code CNI-FORWARD} to the admin chain inserted first, {@code FORWARD} to stage 1
 * inserted first, Go's {@code InsertUnique}), stale rules of the same attachment deleted, two rules per prevResult
 * address, the isolation rules of the bridge that are missing. Returns the prevResult. DEL deletes the attachment's
 * rules by comment (idempotent, no prevResult needed); the per-bridge isolation rules stay, as Go's do (other
 * containers may use the bridge). CHECK: the jumps and the attachment's rules per prevResult address. GC: the
 * network's rules of attachments not in {@code cni.dev/valid-attachments}. STATUS: code 50 without nf_tables.
 */
public final class FirewallPlugin implements CniPlugin {

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        FirewallConfig conf = FirewallConfig.forAdd(request);
        List<IpPrefix> addresses = IpMasq.addresses(conf.prevResult().ips());
        if (addresses.isEmpty() && !conf.isolates()) {
            return request.config().prevResult().get();
        }
        String comment = AttachmentComment.of(request.config().name(), request.ifName(), request.containerId());
        try (Namespace host = Namespace.host()) {
            allow(host, conf, addresses, comment, request.rollback());
        }
        return request.config().prevResult().get();
    }

    /** The ADD transaction (see the class comment), and its undo. */
    private static void allow(Namespace host, FirewallConfig conf, List<IpPrefix> addresses, String comment,
            Rollback rollback) throws CniException {
        try {
            NftablesHandle nft = host.nft();
            boolean tableExisted = NftSteps.tableExists(nft, INET, TABLE);
            List<Rule> forward = nft.rules(INET, TABLE, FORWARD);
            List<Rule> cniForward = nft.rules(INET, TABLE, CNI_FORWARD);
            Transaction tx = nft.transaction();
            tx.addTable(FirewallRules.table());
            tx.addChain(FirewallRules.forwardChain());
            tx.addChain(FirewallRules.regular(CNI_FORWARD));
            tx.addChain(FirewallRules.regular(conf.adminChain()));
            if (!FirewallRules.contains(forward, FirewallRules.jump(CNI_FORWARD), FORWARD_COMMENT)) {
                tx.addRule(FirewallRules.rule(FORWARD, FirewallRules.jump(CNI_FORWARD), FORWARD_COMMENT));
            }
            if (!FirewallRules.contains(cniForward, FirewallRules.jump(conf.adminChain()), ADMIN_COMMENT)) {
                tx.insertRule(FirewallRules.rule(CNI_FORWARD, FirewallRules.jump(conf.adminChain()), ADMIN_COMMENT));
            }
            NftSteps.delete(tx, NftSteps.select(cniForward, comment, false));
            for (IpPrefix address : addresses) {
                tx.addRule(FirewallRules.rule(CNI_FORWARD, FirewallRules.replies(address), comment));
                tx.addRule(FirewallRules.rule(CNI_FORWARD, FirewallRules.outgoing(address), comment));
            }
            if (conf.isolates()) {
                isolate(nft, tx, forward, conf);
            }
            NftSteps.commit(tx, "failed to set up the firewall rules of " + comment);
            if (!tableExisted) {
                rollback.onFailure("remove nftables table inet " + TABLE + " unless in use",
                        new NftUndos.RemoveTableIfUnused(host, INET, TABLE, List.of(FORWARD, CNI_FORWARD,
                                conf.adminChain(), STAGE_1, STAGE_2), Set.of(FORWARD_COMMENT, ADMIN_COMMENT,
                                ISOLATION_COMMENT, FirewallRules.policyComment(FirewallConfig.SAME_BRIDGE),
                                FirewallRules.policyComment(FirewallConfig.ISOLATED))));
            }
            rollback.onFailure("delete firewall rules \"" + comment + "\"",
                    new NftUndos.DeleteTaggedRules(host, INET, TABLE, List.of(CNI_FORWARD), comment));
        } catch (KernelException e) {
            throw NetErrors.failure("failed to set up the firewall rules", e);
        }
        Timing.phase("firewall");
    }

    /**
     * Go's {@code setupIsolationChains} for the bridge (the prevResult's first interface): the chains, the jump from
     * {@code FORWARD} first, the bridge's rules unless present (with the policy's comment, as Go's {@code -C}).
     */
    private static void isolate(NftablesHandle nft, Transaction tx, List<Rule> forward, FirewallConfig conf)
            throws CniException {
        String bridge = conf.bridge();
        String policyComment = FirewallRules.policyComment(conf.ingressPolicy());
        List<Rule> stage1 = nft.rules(INET, TABLE, STAGE_1);
        List<Rule> stage2 = nft.rules(INET, TABLE, STAGE_2);
        tx.addChain(FirewallRules.regular(STAGE_1));
        tx.addChain(FirewallRules.regular(STAGE_2));
        if (!FirewallRules.contains(forward, FirewallRules.jump(STAGE_1), ISOLATION_COMMENT)) {
            tx.insertRule(FirewallRules.rule(FORWARD, FirewallRules.jump(STAGE_1), ISOLATION_COMMENT));
        }
        if (!FirewallRules.contains(stage1, FirewallRules.leavingBridge(bridge), policyComment)) {
            tx.insertRule(FirewallRules.rule(STAGE_1, FirewallRules.leavingBridge(bridge), policyComment));
        }
        if (conf.ingressPolicy().equals(FirewallConfig.ISOLATED)
                && !FirewallRules.contains(stage1, FirewallRules.withinBridge(bridge), policyComment)) {
            tx.insertRule(FirewallRules.rule(STAGE_1, FirewallRules.withinBridge(bridge), policyComment));
        }
        if (!FirewallRules.contains(stage2, FirewallRules.enteringBridge(bridge), ISOLATION_COMMENT)) {
            tx.insertRule(FirewallRules.rule(STAGE_2, FirewallRules.enteringBridge(bridge), ISOLATION_COMMENT));
        }
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    /**
     * Deletes the attachment's rules (by comment, in one transaction). Nothing there, no table, or no nf_tables in
     * the kernel at all (then nothing of ours can exist) is success.
     */
    @Override
    public void del(CniRequest request) throws CniException {
        FirewallConfig.forDel(request);
        String comment = AttachmentComment.of(request.config().name(), request.ifName(), request.containerId());
        try (Namespace host = Namespace.host()) {
            NftablesHandle nft = host.nft();
            NftSteps.TaggedIn ours = new NftSteps.TaggedIn(INET, TABLE, List.of(CNI_FORWARD), comment, false);
            NftSteps.deleteAll(nft, ours.rules(nft), ours, "failed to delete the firewall rules of "
                    + request.containerId());
        } catch (KernelException e) {
            if (e.kind() == KernelException.Kind.NOT_SUPPORTED) {
                request.log().debug("DEL: no nf_tables in this kernel, so no rules of ours: " + e.getMessage());
                return;
            }
            throw NetErrors.failure("failed to delete the firewall rules of " + request.containerId(), e);
        }
        Timing.phase("firewall");
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    /**
     * Go's {@code checkRules}: {@code FORWARD} jumps to {@code CNI-FORWARD}, which jumps to the admin chain, and
     * both rules of every prevResult address are there (with this attachment's comment).
     */
    @Override
    public void check(CniRequest request) throws CniException {
        FirewallConfig conf = FirewallConfig.forAdd(request);
        List<IpPrefix> addresses = IpMasq.addresses(conf.prevResult().ips());
        if (addresses.isEmpty()) {
            return;
        }
        String comment = AttachmentComment.of(request.config().name(), request.ifName(), request.containerId());
        try (Namespace host = Namespace.host()) {
            NftablesHandle nft = host.nft();
            require(nft.rules(INET, TABLE, FORWARD), FirewallRules.jump(CNI_FORWARD), FORWARD_COMMENT, FORWARD,
                    "jump " + CNI_FORWARD);
            List<Rule> cniForward = nft.rules(INET, TABLE, CNI_FORWARD);
            require(cniForward, FirewallRules.jump(conf.adminChain()), ADMIN_COMMENT, CNI_FORWARD,
                    "jump " + conf.adminChain());
            for (IpPrefix address : addresses) {
                require(cniForward, FirewallRules.replies(address), comment, CNI_FORWARD, "ip daddr "
                        + IpText.format(address.address()) + " ct state established,related accept");
                require(cniForward, FirewallRules.outgoing(address), comment, CNI_FORWARD, "ip saddr "
                        + IpText.format(address.address()) + " accept");
            }
        } catch (KernelException e) {
            throw NetErrors.failure("failed to read the firewall rules", e);
        }
    }

    private static void require(List<Rule> rules, List<Expr> exprs, String comment, String chain, String text)
            throws CniException {
        if (!FirewallRules.contains(rules, exprs, comment)) {
            throw new CniException(CniError.INTERNAL, "expected " + chain + " rule \"" + text + "\" not found",
                    "chain inet " + TABLE + " " + chain + " has no such rule with the comment \"" + comment + "\"");
        }
    }

    // ---- GC, STATUS ------------------------------------------------------------------------------------------

    /**
     * Deletes this network's rules (comment prefix: the network's hash) whose attachment is not in
     * {@code cni.dev/valid-attachments}; code 7 when that key is missing. (Go's firewall has no GC yet.)
     */
    @Override
    public void gc(CniRequest request) throws CniException {
        FirewallConfig.forDel(request);
        Set<String> valid = IpMasq.validComments(request);
        String prefix = AttachmentComment.networkPrefix(request.config().name());
        try (Namespace host = Namespace.host()) {
            NftablesHandle nft = host.nft();
            Stale stale = new Stale(prefix, valid);
            NftSteps.deleteAll(nft, stale.rules(nft), stale, "failed to collect firewall rules");
        } catch (KernelException e) {
            throw NetErrors.failure("failed to collect firewall rules", e);
        }
    }

    /** The network's per-address rules whose comment is not a valid attachment's. */
    private static final class Stale implements NftSteps.Reread {
        private final String prefix;
        private final Set<String> valid;

        Stale(String prefix, Set<String> valid) {
            this.prefix = prefix;
            this.valid = valid;
        }

        @Override
        public List<Rule> rules(NftablesHandle nft) {
            List<Rule> out = new ArrayList<>();
            for (Rule rule : NftSteps.taggedWithPrefix(nft, INET, TABLE, CNI_FORWARD, prefix)) {
                if (!valid.contains(rule.comment())) {
                    out.add(rule);
                }
            }
            return out;
        }
    }

    /** STATUS: code 50 when the kernel has no usable nf_tables. */
    @Override
    public void status(CniRequest request) throws CniException {
        try (Namespace host = Namespace.host()) {
            NftSteps.requireAvailable(host, "firewall");
        }
    }
}
