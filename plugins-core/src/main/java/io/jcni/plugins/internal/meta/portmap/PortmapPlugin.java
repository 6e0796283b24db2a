package io.jcni.plugins.internal.meta.portmap;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.Route;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
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
import io.jcni.spec.GcAttachment;
import io.jcni.spec.IpText;
import io.jcni.spec.Json;
import io.jcni.spec.JsonNull;
import io.jcni.spec.PluginConfig;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code portmap} meta plugin, chained after the plugin that gave the container its addresses: publishes the
 * container's ports on the host ({@code portMappings} runtime capability) with nftables over netlink, in the layout of
 * Go's nftables backend ({@link HostportTable}); configuration as {@link PortmapConfig}.
 *
 * <p>ADD: one transaction for both families (table, chains, the entry rules, this attachment's DNAT and masquerade
 * rules, and the removal of rules a failed DEL left for the same attachment): a refused ADD changes nothing. Then, with
 * {@code snat}, {@code route_localnet=1} on the host interface that routes to the container's IPv4 address (Go's
 * {@code getRoutableHostIF}: {@code ip route get}), so that connections from 127.0.0.1, masqueraded, may leave through
 * it; as Go, it is never reset (other containers behind that interface rely on it). If that fails, the rollback
 * removes this attachment's rules, and the tables if this ADD created them and nothing else is in them. The result is
 * {@code prevResult}, unchanged.
 *
 * <p>Rules carry {@link AttachmentComment}'s tag (network, interface, container ID: Go's ipMasq format), so DEL,
 * CHECK and GC find exactly one attachment's rules, also for a container with port mappings on two networks. Go's
 * portmap tags with the container ID alone (and its DEL then removes every network's rules of the container); DEL here
 * also removes rules tagged that way, so that containers set up by Go's plugin are cleaned up after a node moves to
 * jcni's.
 *
 * <p>DEL: this attachment's rules in both families, by handle, in one transaction (re-read and retried once if a
 * concurrent DEL removed some), also when the DEL carries no port mappings (Go then does nothing, and leaves DNAT
 * rules to an address the next container may get); then each table that
 * holds nothing but the scaffolding is removed (Go leaves its tables; jcni's ipMasq removes its own the same way), so
 * the last DEL leaves the node's ruleset as it was. Idempotent; the configuration is not validated beyond that (a DEL
 * must succeed for a configuration an ADD refused).
 *
 * <p>CHECK: every rule ADD would write is there (expressions compared), and the entry rules lead to them.
 *
 * <p>GC: rules of this network whose attachment is not in {@code cni.dev/valid-attachments} are removed (and the
 * tables, as by DEL, if nothing is left); rules tagged Go's way name no network and are left alone. STATUS: code 50 without nf_tables.
 *
 * <p>Differences from Go, deliberate: the entry chains hook one step after dstnat, and hairpin masquerading covers
 * the container's subnet as Go's iptables backend does (see {@link HostportTable} for both); a mapping whose
 * {@code hostIP} family the container has no address of is code 7
 * (Go publishes nothing and says nothing); ports above 65535 are code 7 before anything is written; missing
 * {@code prevResult} is code 7 with Go's text (Go's skel makes it 999); stale UDP conntrack entries for the published
 * ports are not flushed (Go deletes them after ADD, failures ignored): netlink-ffm has no conntrack operations yet.
 */
public final class PortmapPlugin implements CniPlugin {

    // ------------------------------------------------------------------------------------------ ADD

    @Override
    public CniResult add(CniRequest request) throws CniException {
        PortmapConfig config = PortmapConfig.load(request);
        if (config.prevResult() == null) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "must be called as chained plugin",
                    "portmap forwards to the addresses of the previous plugin's result (prevResult)");
        }
        Timing.phase("config");
        List<Boolean> families = families(config);
        if (config.mappings().isEmpty() || families.isEmpty()) {
            return config.prevResult();
        }
        String tag = tag(request);
        try (Namespace host = Namespace.host()) {
            forwardPorts(host, config, families, tag, request.rollback());
            if (config.snat() && config.containerV4() != null) {
                enableLocalnetRouting(host, config.containerV4());
            }
        } catch (KernelException e) {
            throw NetErrors.failure("unable to set up nftables rules for port mappings", e);
        }
        return config.prevResult();
    }

    /** The families to set up: IPv4 and/or IPv6, those the container has an address of. */
    private static List<Boolean> families(PortmapConfig config) {
        List<Boolean> families = new ArrayList<>(2);
        if (config.containerV4() != null) {
            families.add(Boolean.FALSE);
        }
        if (config.containerV6() != null) {
            families.add(Boolean.TRUE);
        }
        return families;
    }

    /**
     * The one transaction of ADD (see {@link HostportTable}); its undo registered right after the commit: this
     * attachment's rules, and each table this ADD created if nothing but the scaffolding is left in it (registered
     * first, so it runs last).
     */
    private static void forwardPorts(Namespace host, PortmapConfig config, List<Boolean> families, String tag,
            Rollback rollback) throws CniException {
        NftablesHandle nft = host.nft();
        Timing.phase("nft-open");
        List<TableFamily> created = new ArrayList<>(2);
        Transaction tx = nft.transaction();
        for (Boolean ipv6 : families) {
            TableFamily f = HostportTable.family(ipv6);
            List<String> chains = new ArrayList<>();
            for (Chain chain : nft.chains(f, HostportTable.TABLE)) {
                chains.add(chain.name());
            }
            if (chains.isEmpty() && !NftSteps.tableExists(nft, f, HostportTable.TABLE)) {
                created.add(f);
            }
            HostportTable.queueScaffolding(tx, ipv6, config.conditions(ipv6), config.snat(), chains);
            NftSteps.delete(tx, tagged(nft, f, tag, null));
            for (Rule rule : HostportTable.attachmentRules(config, ipv6, tag)) {
                tx.addRule(rule);
            }
        }
        Timing.phase("nft-read");
        NftSteps.commit(tx, "unable to set up nftables rules for port mappings");
        for (TableFamily f : created) {
            rollback.onFailure("remove table " + f.nftName() + " " + HostportTable.TABLE + " if unused",
                    new NftUndos.RemoveTableIfUnused(host, f, HostportTable.TABLE, HostportTable.CHAINS,
                            SCAFFOLDING));
        }
        for (Boolean ipv6 : families) {
            TableFamily f = HostportTable.family(ipv6);
            rollback.onFailure("delete the port mapping rules of " + tag + " in " + f.nftName(),
                    new NftUndos.DeleteTaggedRules(host, f, HostportTable.TABLE, HostportTable.TAGGED_CHAINS, tag));
        }
        Timing.phase("nftables");
    }

    /**
     * Go's {@code getRoutableHostIF} and {@code enableLocalnetRouting}: {@code route_localnet=1} on the interface
     * the host routes {@code container} through, so that 127/8 may cross it (the localhost connections the
     * masquerading rule rewrites). No route, no interface: nothing to do, as Go.
     */
    private static void enableLocalnetRouting(Namespace host, InetAddress container) throws CniException {
        String ifName;
        try {
            Route route = host.nl().routeGet(container);
            Optional<Link> link = route.outIndex() == 0 ? Optional.<Link>empty()
                    : host.nl().findLink(route.outIndex());
            if (link.isEmpty()) {
                return;
            }
            ifName = link.get().name();
        } catch (KernelException e) {
            return;
        }
        try {
            host.sysctl("net/ipv4/conf/" + ifName + "/route_localnet", "1");
        } catch (KernelException e) {
            throw NetErrors.failure("unable to enable route_localnet on " + ifName, e);
        }
        Timing.phase("route_localnet");
    }

    // ------------------------------------------------------------------------------------------ DEL

    @Override
    public void del(CniRequest request) throws CniException {
        // Without portMappings in this DEL (a runtime that sends them on ADD only, or lost them), the attachment's
        // rules are still found by their comment and removed: left, they would forward its ports to the released
        // address, and so to the next container given it (Go leaves them). Rules Go's portmap tagged with the
        // container ID alone are only removed when the DEL names mappings, as Go's own DEL would.
        Tagged attachment = new Tagged(tag(request), PortmapConfig.hasMappings(request) ? request.containerId()
                : null);
        try (Namespace host = Namespace.host()) {
            NftablesHandle nft = host.nft();
            Timing.phase("nft-open");
            NftSteps.deleteAll(nft, attachment.rules(nft), attachment, "error deleting nftables rules");
            Timing.phase("nftables");
            removeTablesIfUnused(nft);
            Timing.phase("tables");
        } catch (KernelException e) {
            if (e.kind() == KernelException.Kind.NOT_SUPPORTED) {
                return; // no nf_tables: no rules to delete
            }
            throw NetErrors.failure("error deleting nftables rules", e);
        }
    }

    /**
     * The last attachment's DEL (or a GC that removed the last rules) takes the tables away, as ipMasq's does: each is
     * removed, in one transaction of "if empty" deletes, when nothing but the scaffolding (rules without comment, the
     * chains of {@link HostportTable#CHAINS}) is left in it; the kernel refuses that transaction, and the table stays,
     * if a concurrent ADD put a rule there meanwhile.
     */
    private static void removeTablesIfUnused(NftablesHandle nft) {
        for (TableFamily f : new TableFamily[] {TableFamily.IP, TableFamily.IP6}) {
            NftSteps.removeTableIfUnused(nft, f, HostportTable.TABLE, HostportTable.CHAINS, SCAFFOLDING);
        }
    }

    /** The comments of rules that are no attachment's: none. */
    private static final Set<String> SCAFFOLDING = Set.of("");

    /**
     * The rules of one attachment in both tables: tagged with its comment, or with {@code goTag} (the container ID,
     * as Go's portmap tags) unless that is null.
     */
    private static final class Tagged implements NftSteps.Reread {
        private final String tag;
        private final String goTag;

        Tagged(String tag, String goTag) {
            this.tag = tag;
            this.goTag = goTag;
        }

        @Override
        public List<Rule> rules(NftablesHandle nft) {
            List<Rule> rules = new ArrayList<>();
            rules.addAll(tagged(nft, TableFamily.IP, tag, goTag));
            rules.addAll(tagged(nft, TableFamily.IP6, tag, goTag));
            return rules;
        }
    }

    /** Rules of the family's table in the chains that hold attachments' rules, tagged {@code tag} (or {@code goTag}). */
    private static List<Rule> tagged(NftablesHandle nft, TableFamily f, String tag, String goTag) {
        List<Rule> out = new ArrayList<>();
        for (Rule rule : nft.rules(f, HostportTable.TABLE)) {
            String c = rule.comment();
            if (c != null && HostportTable.TAGGED_CHAINS.contains(rule.chain())
                    && (c.equals(tag) || c.equals(goTag))) {
                out.add(rule);
            }
        }
        return out;
    }

    private static String tag(CniRequest request) {
        return AttachmentComment.of(request.config().name(), request.ifName(), request.containerId());
    }

    // ------------------------------------------------------------------------------------------ CHECK

    @Override
    public void check(CniRequest request) throws CniException {
        PortmapConfig config = PortmapConfig.load(request);
        if (config.prevResult() == null) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Required prevResult missing",
                    "the runtime passes the previous result in prevResult for CHECK");
        }
        if (config.mappings().isEmpty()) {
            return;
        }
        String tag = tag(request);
        try (Namespace host = Namespace.host()) {
            NftablesHandle nft = host.nft();
            for (Boolean ipv6 : families(config)) {
                checkFamily(nft, config, ipv6, tag);
            }
        } catch (KernelException e) {
            throw NetErrors.failure("checking the nftables rules for port mappings", e);
        }
    }

    /** The family's entry rules, and every rule ADD would write for the attachment, in their chains. */
    private static void checkFamily(NftablesHandle nft, PortmapConfig config, boolean ipv6, String tag)
            throws CniException {
        TableFamily f = HostportTable.family(ipv6);
        List<Rule> all = nft.rules(f, HostportTable.TABLE);
        requireJump(all, f, HostportTable.PREROUTING, HostportTable.HOSTPORTS_ALL);
        requireJump(all, f, HostportTable.OUTPUT, HostportTable.HOSTPORTS_ALL);
        requireJump(all, f, HostportTable.HOSTPORTS_ALL, HostportTable.HOSTPORTS);
        for (Rule expected : HostportTable.attachmentRules(config, ipv6, tag)) {
            boolean found = false;
            for (Rule actual : all) {
                if (actual.chain().equals(expected.chain()) && tag.equals(actual.comment())
                        && sameExpressions(expected.exprs(), actual.exprs())) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                throw new CniException(CniError.INTERNAL, "missing hostport rules in \"" + expected.chain()
                        + "\" chain", "table " + f.nftName() + " " + HostportTable.TABLE + " has no rule " + describe(
                        config, expected) + " tagged \"" + tag + "\"");
            }
        }
    }

    private static void requireJump(List<Rule> rules, TableFamily f, String chain, String target)
            throws CniException {
        for (Rule rule : rules) {
            if (rule.chain().equals(chain) && !rule.exprs().isEmpty()
                    && rule.exprs().getLast() instanceof Expr.ImmediateVerdict v && v.verdict().chain() != null
                    && v.verdict().chain().equals(target)) {
                return;
            }
        }
        throw new CniException(CniError.INTERNAL, "chain \"" + chain + "\" of table " + f.nftName() + " "
                + HostportTable.TABLE + " does not jump to \"" + target + "\"",
                "the port mappings are not reached; an ADD writes the entry rules again");
    }

    /**
     * Whether two rules' expressions do the same: equal, except that the kernel reports a {@code nat} back with its
     * maximum registers filled in and a flag of its own ({@code NF_NAT_RANGE_MAP_IPS}), so {@code nat} is compared
     * by type, family and minimum registers (the addresses and ports are in the {@code immediate}s before it).
     */
    static boolean sameExpressions(List<Expr> expected, List<Expr> actual) {
        if (expected.size() != actual.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            Expr e = expected.get(i);
            Expr a = actual.get(i);
            if (e instanceof Expr.Nat en && a instanceof Expr.Nat an) {
                if (en.type() != an.type() || en.family() != an.family() || en.regAddrMin() != an.regAddrMin()
                        || en.regProtoMin() != an.regProtoMin()) {
                    return false;
                }
            } else if (!e.equals(a)) {
                return false;
            }
        }
        return true;
    }

    private static String describe(PortmapConfig config, Rule rule) {
        String target = rule.chain().equals(HostportTable.MASQUERADING) ? "masquerading to " : "forwarding to ";
        InetAddress container = config.container(rule.family() == TableFamily.IP6);
        return target + IpText.format(container);
    }

    // ------------------------------------------------------------------------------------------ GC, STATUS

    @Override
    public void gc(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        requireValidAttachments(config);
        String network = config.name();
        Set<String> valid = new HashSet<>();
        for (GcAttachment a : config.validAttachments()) {
            valid.add(AttachmentComment.attachmentPrefix(network, a.ifName(), a.containerId()));
        }
        Stale stale = new Stale(AttachmentComment.networkPrefix(network) + "-", valid);
        try (Namespace host = Namespace.host()) {
            NftablesHandle nft = host.nft();
            NftSteps.deleteAll(nft, stale.rules(nft), stale, "error deleting stale nftables rules");
            removeTablesIfUnused(nft);
        } catch (KernelException e) {
            if (e.kind() == KernelException.Kind.NOT_SUPPORTED) {
                return;
            }
            throw NetErrors.failure("error deleting stale nftables rules", e);
        }
    }

    /** Rules of one network (comment prefix) whose attachment prefix is not among the valid ones. */
    private static final class Stale implements NftSteps.Reread {
        private final String networkPrefix;
        private final Set<String> valid;

        Stale(String networkPrefix, Set<String> valid) {
            this.networkPrefix = networkPrefix;
            this.valid = valid;
        }

        @Override
        public List<Rule> rules(NftablesHandle nft) {
            List<Rule> out = new ArrayList<>();
            for (TableFamily f : new TableFamily[] {TableFamily.IP, TableFamily.IP6}) {
                for (Rule rule : nft.rules(f, HostportTable.TABLE)) {
                    String c = rule.comment();
                    int end = networkPrefix.length() + 16;
                    if (c != null && HostportTable.TAGGED_CHAINS.contains(rule.chain()) && c.startsWith(networkPrefix)
                            && c.length() >= end && !valid.contains(c.substring(0, end))) {
                        out.add(rule);
                    }
                }
            }
            return out;
        }
    }

    /** As host-local: without the list, nothing can be told apart, and nothing is removed (code 7). */
    private static void requireValidAttachments(PluginConfig config) throws CniException {
        if (present(config, PluginConfig.VALID_ATTACHMENTS) || present(config, PluginConfig.LEGACY_ATTACHMENTS)) {
            return;
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC needs " + PluginConfig.VALID_ATTACHMENTS,
                "without the list of attachments that are still valid, portmap cannot tell which rules to remove;"
                        + " nothing was removed");
    }

    private static boolean present(PluginConfig config, String key) {
        Optional<Json> value = config.get(key);
        return value.isPresent() && !(value.get() instanceof JsonNull);
    }

    @Override
    public void status(CniRequest request) throws CniException {
        try (Namespace host = Namespace.host()) {
            NftSteps.requireAvailable(host, "portmap");
        }
    }
}
