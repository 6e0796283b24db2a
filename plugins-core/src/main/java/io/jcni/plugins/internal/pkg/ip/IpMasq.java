package io.jcni.plugins.internal.pkg.ip;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.nft.AttachmentComment;
import io.jcni.plugins.internal.pkg.nft.NftSteps;
import io.jcni.plugins.internal.pkg.nft.NftUndos;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
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
 * {@code ipMasq} of the bridge and ptp plugins: traffic from the container's addresses to anything outside their
 * subnet (multicast excluded) leaves the host with the host's address. The layout is Go's nftables backend
 * ({@code pkg/ip/ipmasq_nftables_linux.go}, containernetworking/plugins 1.5 and later), so that Go's plugins and
 * jcni's find, check and delete each other's rules:
 * <pre>
 * table inet cni_plugins_masquerade {                       # comment "Masquerading for plugins from ..."
 *   chain masq_checks {                                     # comment "Masquerade traffic from certain IPs ..."
 *     ip saddr 10.88.0.5 ip daddr != 10.88.0.0/16 masquerade comment "NETHASH-IDHASH, net: N, if: I, id: C"
 *     ip6 saddr fd00::5 ip6 daddr != fd00::/64 masquerade comment "..."     # one rule per address
 *   }
 *   chain postrouting {
 *     type nat hook postrouting priority srcnat; policy accept;
 *     ip daddr 224.0.0.0/4 return
 *     ip6 daddr ff00::/8 return
 *     goto masq_checks
 *   }
 * }
 * </pre>
 * The comment is {@link AttachmentComment}: the rules of one attachment are found by it (by its {@code NETHASH-IDHASH}
 * prefix, as Go's), those of a network by {@code NETHASH}.
 *
 * <p>ADD ({@link #setup}) is one transaction: the table and chains (left as they are when present), the
 * {@code postrouting} chain flushed and refilled (as Go does on every ADD), stale rules of the same attachment
 * deleted, one rule per address. DEL ({@link #teardown}) deletes the attachment's rules by comment: idempotent, and it
 * needs no prevResult. CHECK ({@link #check}) requires a rule per prevResult address and the jump from
 * {@code postrouting}. GC ({@link #gc}) deletes the network's rules of attachments not in
 * {@code cni.dev/valid-attachments}. Unlike Go's, the last DEL also removes the table, in a transaction the kernel
 * refuses if any other rule appeared meanwhile ({@code NftSteps.removeTableIfUnused}); Go's ADD re-creates the table
 * and chains in its own transaction, so the two stay compatible.
 *
 * <p>{@code ipMasqBackend} ({@link #checkBackend}): Go's latest plugins take {@code "iptables"}, {@code "nftables"} or
 * none (then iptables unless only nftables is there). jcni writes nftables over netlink only, so all three get this
 * layout; any other value is refused as Go refuses it. Go's DEL and GC clean up both backends, so after a switch from
 * jcni to Go nothing is left; after a switch from Go with iptables to jcni, jcni's DEL does not remove Go's iptables
 * rules (README, Known limits).
 */
public final class IpMasq {
    /** The table, in the {@code inet} family. */
    public static final String TABLE = "cni_plugins_masquerade";
    /** The chain of per-address rules. */
    public static final String CHECKS = "masq_checks";
    /** The nat base chain at postrouting. */
    public static final String POSTROUTING = "postrouting";

    private static final TableFamily INET = TableFamily.INET;
    private static final String TABLE_COMMENT = "Masquerading for plugins from github.com/containernetworking/plugins";
    private static final String CHECKS_COMMENT =
            "Masquerade traffic from certain IPs to any (non-multicast) IP outside their subnet";
    private static final InetAddress MULTICAST_V4 = literal(new byte[] {(byte) 224, 0, 0, 0});
    private static final InetAddress MULTICAST_V6 = literal(new byte[] {(byte) 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0});

    private IpMasq() {
    }

    /**
     * {@code ipMasqBackend}, checked by ADD before any side effect: absent (or null), {@code "iptables"} and
     * {@code "nftables"} are taken (all served by nftables, see the class comment); anything else is refused with
     * Go's message, code 7 (Go's is untyped, 999).
     */
    public static void checkBackend(PluginConfig config) throws CniException {
        Optional<String> backend = config.node().string("ipMasqBackend");
        if (backend.isEmpty() || backend.get().equals("iptables") || backend.get().equals("nftables")) {
            return;
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "unknown ipmasq backend \"" + backend.get() + "\"",
                "ipMasqBackend is \"iptables\", \"nftables\" or absent; jcni serves all three with nftables");
    }

    private static InetAddress literal(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The addresses of a result to masquerade from, each with its prefix length (the subnet left unmasqueraded). */
    public static List<IpPrefix> addresses(List<IpConfig> ips) {
        List<IpPrefix> out = new ArrayList<>(ips.size());
        for (IpConfig ip : ips) {
            out.add(ip.address());
        }
        return out;
    }

    // ---- ADD -------------------------------------------------------------------------------------------------

    /**
     * Go's {@code setupIPMasqNFTables}, in one transaction; registers the undo (this attachment's rules, and the
     * table with its chains if this ADD created it and nothing else is in it by then).
     */
    public static void setup(Namespace host, List<IpPrefix> addresses, String network, String ifName,
            String containerId, Rollback rollback) throws CniException {
        String comment = AttachmentComment.of(network, ifName, containerId);
        try {
            NftablesHandle nft = host.nft();
            boolean tableExisted = NftSteps.tableExists(nft, INET, TABLE);
            List<Rule> stale = NftSteps.taggedWithPrefix(nft, INET, TABLE, CHECKS,
                    AttachmentComment.attachmentPrefix(network, ifName, containerId));
            Transaction tx = nft.transaction();
            tx.addTable(new Table(INET, TABLE, TABLE_COMMENT));
            tx.addChain(Chain.regular(INET, TABLE, CHECKS).withComment(CHECKS_COMMENT));
            tx.addChain(Chain.base(INET, TABLE, POSTROUTING, Chain.Type.NAT, Chain.Hook.POSTROUTING,
                    Chain.PRIORITY_SRCNAT, Chain.Policy.ACCEPT));
            tx.flushChain(INET, TABLE, POSTROUTING);
            for (List<Expr> exprs : postroutingRules()) {
                tx.addRule(Rule.of(INET, TABLE, POSTROUTING, exprs, null));
            }
            NftSteps.delete(tx, stale);
            for (IpPrefix address : addresses) {
                tx.addRule(Rule.of(INET, TABLE, CHECKS, masquerade(address), comment));
            }
            NftSteps.commit(tx, "failed to set up IP masquerading for " + describe(addresses));
            if (!tableExisted) {
                rollback.onFailure("remove nftables table inet " + TABLE + " unless in use",
                        new NftUndos.RemoveTableIfUnused(host, INET, TABLE, List.of(POSTROUTING, CHECKS), Set.of("")));
            }
            rollback.onFailure("delete masquerade rules \"" + comment + "\"",
                    new NftUndos.DeleteTaggedRules(host, INET, TABLE, List.of(CHECKS), comment));
        } catch (KernelException e) {
            throw NetErrors.failure("failed to set up IP masquerading for " + describe(addresses), e);
        }
        Timing.phase("ipmasq");
    }

    /** {@code ip daddr 224.0.0.0/4 return}, {@code ip6 daddr ff00::/8 return}, {@code goto masq_checks}. */
    static List<List<Expr>> postroutingRules() {
        return List.of(Exprs.in(INET).daddr(MULTICAST_V4, 4).ret().toList(),
                Exprs.in(INET).daddr(MULTICAST_V6, 8).ret().toList(),
                Exprs.in(INET).goTo(CHECKS).toList());
    }

    /** {@code ip saddr A ip daddr != NET/P masquerade} (or {@code ip6}). */
    static List<Expr> masquerade(IpPrefix address) {
        IpPrefix subnet = address.masked();
        return Exprs.in(INET).saddr(address.address()).notDaddr(subnet.address(), subnet.prefixLength())
                .masquerade().toList();
    }

    private static String describe(List<IpPrefix> addresses) {
        List<String> texts = new ArrayList<>(addresses.size());
        for (IpPrefix a : addresses) {
            texts.add(a.toString());
        }
        return String.join(", ", texts);
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    /**
     * Go's {@code teardownIPMasqNFTables}: deletes the attachment's rules (comment prefix {@code NETHASH-IDHASH}) in
     * one transaction, then the table if no other attachment's rule is left. Nothing there (no table, no rule) is
     * success.
     */
    public static void teardown(Namespace host, String network, String ifName, String containerId)
            throws CniException {
        String prefix = AttachmentComment.attachmentPrefix(network, ifName, containerId);
        try {
            NftablesHandle nft = host.nft();
            NftSteps.TaggedIn ours = new NftSteps.TaggedIn(INET, TABLE, List.of(CHECKS), prefix, true);
            NftSteps.deleteAll(nft, ours.rules(nft), ours, "failed to delete the masquerade rules of " + containerId);
            NftSteps.removeTableIfUnused(nft, INET, TABLE, List.of(POSTROUTING, CHECKS), Set.of(""));
        } catch (KernelException e) {
            if (e.kind() == KernelException.Kind.NOT_SUPPORTED) {
                return; // no nf_tables in this kernel: no rule of ours can exist (Go ignores this case too)
            }
            throw NetErrors.failure("failed to delete the masquerade rules of " + containerId, e);
        }
        Timing.phase("ipmasq");
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    /**
     * The attachment's rules are there: one masquerade rule per address of {@code addresses} with this attachment's
     * comment, and {@code postrouting}'s jump to them (Go has no CHECK of these; jcni's addition).
     */
    public static void check(Namespace host, List<IpPrefix> addresses, String network, String ifName,
            String containerId) throws CniException {
        try {
            NftablesHandle nft = host.nft();
            List<Rule> ours = NftSteps.taggedWithPrefix(nft, INET, TABLE, CHECKS,
                    AttachmentComment.attachmentPrefix(network, ifName, containerId));
            for (IpPrefix address : addresses) {
                if (!containsExprs(ours, masquerade(address))) {
                    throw new CniException(CniError.INTERNAL, "ipMasq: no masquerade rule for " + address
                            + " in inet " + TABLE + " " + CHECKS, "expected \"ip saddr " + IpText.format(address
                            .address()) + " ip daddr != " + address.masked() + " masquerade\" with the comment \""
                            + AttachmentComment.of(network, ifName, containerId) + "\"");
                }
            }
            Exprs jump = Exprs.in(INET).goTo(CHECKS);
            if (!containsExprs(nft.rules(INET, TABLE, POSTROUTING), jump.toList())) {
                throw new CniException(CniError.INTERNAL, "ipMasq: chain inet " + TABLE + " " + POSTROUTING
                        + " does not jump to " + CHECKS, "expected \"goto " + CHECKS + "\"");
            }
        } catch (KernelException e) {
            throw NetErrors.failure("failed to read the masquerade rules", e);
        }
    }

    private static boolean containsExprs(List<Rule> rules, List<Expr> exprs) {
        for (Rule rule : rules) {
            if (rule.exprs().equals(exprs)) {
                return true;
            }
        }
        return false;
    }

    // ---- GC --------------------------------------------------------------------------------------------------

    /**
     * GC of a plugin with {@code ipMasq} (bridge, ptp): IPAM's GC, then, when {@code ipMasq} is on, {@link #gc} of
     * the masquerade rules in the host namespace. Both run; the first failure is reported.
     */
    public static void gcWithIpam(CniRequest request, boolean ipMasq) throws CniException {
        CniException failure = null;
        try {
            IpamDelegation.gc(request);
        } catch (CniException e) {
            failure = e;
        }
        if (ipMasq) {
            try (Namespace host = Namespace.host()) {
                gc(host, request);
            } catch (CniException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Go's {@code gcIPMasqNFTables}: deletes the rules of {@code network} (comment prefix {@code NETHASH}) whose
     * comment is not that of an attachment in {@code cni.dev/valid-attachments}, in one transaction, then the table if
     * nothing is left in it. Refused (code 7, nothing deleted) when the key is missing: a missing list must not read
     * as "nothing is valid".
     */
    public static void gc(Namespace host, CniRequest request) throws CniException {
        String network = request.config().name();
        Set<String> valid = validComments(request);
        try {
            NftablesHandle nft = host.nft();
            List<Rule> stale = new ArrayList<>();
            for (Rule rule : NftSteps.taggedWithPrefix(nft, INET, TABLE, CHECKS,
                    AttachmentComment.networkPrefix(network))) {
                if (!valid.contains(rule.comment())) {
                    stale.add(rule);
                }
            }
            NftSteps.deleteAll(nft, stale, new Stale(network, valid), "failed to collect masquerade rules");
            NftSteps.removeTableIfUnused(nft, INET, TABLE, List.of(POSTROUTING, CHECKS), Set.of(""));
        } catch (KernelException e) {
            throw NetErrors.failure("failed to collect masquerade rules of " + network, e);
        }
    }

    /**
     * The comments of the attachments in {@code cni.dev/valid-attachments} for this network; code 7 when the key is
     * missing (GC must not read a missing list as "nothing is valid").
     */
    public static Set<String> validComments(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        if (!present(config, PluginConfig.VALID_ATTACHMENTS) && !present(config, PluginConfig.LEGACY_ATTACHMENTS)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC needs " + PluginConfig.VALID_ATTACHMENTS,
                    "without the list of attachments that are still valid the plugin cannot tell which rules to"
                            + " delete; nothing was deleted");
        }
        Set<String> valid = new HashSet<>();
        for (GcAttachment a : config.validAttachments()) {
            valid.add(AttachmentComment.of(config.name(), a.ifName(), a.containerId()));
        }
        return valid;
    }

    private static boolean present(PluginConfig config, String key) {
        Optional<Json> value = config.get(key);
        return value.isPresent() && !(value.get() instanceof JsonNull);
    }

    /** The network's rules whose attachment is not valid, read again (GC's retry after a concurrent DEL). */
    private static final class Stale implements NftSteps.Reread {
        private final String network;
        private final Set<String> valid;

        Stale(String network, Set<String> valid) {
            this.network = network;
            this.valid = valid;
        }

        @Override
        public List<Rule> rules(NftablesHandle nft) {
            List<Rule> out = new ArrayList<>();
            for (Rule rule : NftSteps.taggedWithPrefix(nft, INET, TABLE, CHECKS,
                    AttachmentComment.networkPrefix(network))) {
                if (!valid.contains(rule.comment())) {
                    out.add(rule);
                }
            }
            return out;
        }
    }
}
