package io.jcni.plugins.internal.pkg.link;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.plugins.internal.pkg.nft.NftSteps;
import io.jcni.plugins.internal.pkg.nft.NftUndos;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import java.util.List;
import java.util.Set;

/**
 * The bridge plugin's {@code macspoofchk}: frames entering the bridge from the container's port whose source MAC is
 * not the container's are dropped. The layout is Go's ({@code pkg/link/spoofcheck.go}, the one libvirt and ebtables
 * use), so Go's plugin and jcni's find and delete each other's chains:
 * <pre>
 * table bridge nat {
 *   chain PREROUTING {
 *     type filter hook prerouting priority -300; policy accept;
 *     iifname "vethXXXX" jump cni-br-iface-REF comment "macspoofchk-REF"
 *   }
 *   chain cni-br-iface-REF {
 *     jump cni-br-iface-REF-mac comment "macspoofchk-REF"
 *   }
 *   chain cni-br-iface-REF-mac {
 *     ether saddr 0a:58:0a:58:00:05 return comment "macspoofchk-REF"
 *     drop comment "macspoofchk-REF"
 *   }
 * }
 * </pre>
 * where {@code REF} is {@code CONTAINERID-IFNAME} (Go's {@code uniqueID}). Go applies it in two transactions (the
 * objects, then the rules); jcni in one, which also deletes a stale jump of the same REF (Go adds a second one).
 * Teardown deletes the jump rules (by comment) and both chains; the table and {@code PREROUTING} stay, as Go's do.
 */
public final class SpoofCheck {
    /** The table, in the {@code bridge} family (shared with ebtables-nft's nat table by name). */
    public static final String TABLE = "nat";
    /** The base chain. */
    public static final String PREROUTING = "PREROUTING";
    private static final TableFamily BRIDGE = TableFamily.BRIDGE;
    private static final int PRIORITY = -300;

    private final String ref;

    private SpoofCheck(String ref) {
        this.ref = ref;
    }

    /** The spoof check of attachment (container ID, CNI_IFNAME), as Go names it. */
    public static SpoofCheck of(String containerId, String ifName) {
        return new SpoofCheck(containerId + "-" + ifName);
    }

    /** nftables' limits: a chain name of 255 bytes ({@code NFT_NAME_MAXLEN} less its NUL), a comment of 128. */
    private static final int MAX_NAME_BYTES = 255;
    private static final int MAX_COMMENT_BYTES = 128;

    /**
     * Refuses (code 4, before any side effect) an attachment whose names Go's layout cannot carry: an interface name
     * with a character {@code nft} cannot print in a chain name and read back ({@code "}, spaces: a saved ruleset
     * would not load again; Go writes it all the same), or a container ID and interface name whose chain name or
     * comment would exceed nftables' limits (a 250-character container ID; the kernel would refuse the transaction
     * half-way through the ADD). Container IDs are already limited to letters, digits, {@code _ . -}.
     */
    public static void requireNameable(String containerId, String ifName) throws CniException {
        for (int i = 0; i < ifName.length(); i++) {
            char c = ifName.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
                    || c == '.')) {
                throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "macspoofchk: CNI_IFNAME \"" + ifName
                        + "\" cannot be part of a chain name", "nft prints chain names as they are, and a ruleset"
                        + " with this one could not be loaded again; with macspoofchk, an interface name has letters,"
                        + " digits, '-', '_' and '.' only");
            }
        }
        SpoofCheck check = of(containerId, ifName);
        int chain = check.macChain().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        int comment = check.comment().getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (chain > MAX_NAME_BYTES || comment > MAX_COMMENT_BYTES) {
            throw new CniException(CniError.INVALID_ENVIRONMENT_VARIABLES, "macspoofchk: CNI_CONTAINERID and "
                    + "CNI_IFNAME are too long to name its chains", "the chain cni-br-iface-ID-mac takes " + chain
                    + " bytes (nftables takes " + MAX_NAME_BYTES + ") and the comment macspoofchk-ID " + comment
                    + " (at most " + MAX_COMMENT_BYTES + "), where ID is CONTAINERID-IFNAME");
        }
    }

    /** {@code cni-br-iface-REF}. */
    public String ifaceChain() {
        return "cni-br-iface-" + ref;
    }

    /** {@code cni-br-iface-REF-mac}. */
    public String macChain() {
        return ifaceChain() + "-mac";
    }

    /** {@code macspoofchk-REF}: the comment of every rule. */
    public String comment() {
        return "macspoofchk-" + ref;
    }

    /**
     * Go's {@code Setup}, in one transaction: frames from {@code hostIface} (the container's bridge port) pass only
     * with source {@code mac}. Registers the undo: {@link Teardown}, and the table with {@code PREROUTING} if this
     * ADD created it and nothing else uses it by then.
     */
    public void setup(Namespace host, String hostIface, MacAddress mac, Rollback rollback) throws CniException {
        try {
            NftablesHandle nft = host.nft();
            boolean tableExisted = NftSteps.tableExists(nft, BRIDGE, TABLE);
            List<Rule> staleJumps = NftSteps.tagged(nft, BRIDGE, TABLE, PREROUTING, comment());
            Transaction tx = nft.transaction();
            tx.addTable(new Table(BRIDGE, TABLE, null));
            tx.addChain(baseChain());
            tx.addChain(Chain.regular(BRIDGE, TABLE, ifaceChain()));
            tx.addChain(Chain.regular(BRIDGE, TABLE, macChain()));
            tx.flushChain(BRIDGE, TABLE, ifaceChain());
            tx.flushChain(BRIDGE, TABLE, macChain());
            NftSteps.delete(tx, staleJumps);
            tx.addRule(Rule.of(BRIDGE, TABLE, PREROUTING, jumpRule(hostIface), comment()));
            tx.addRule(Rule.of(BRIDGE, TABLE, ifaceChain(), Exprs.in(BRIDGE).jump(macChain()).toList(), comment()));
            tx.addRule(Rule.of(BRIDGE, TABLE, macChain(), macRule(mac), comment()));
            tx.addRule(Rule.of(BRIDGE, TABLE, macChain(), Exprs.in(BRIDGE).drop().toList(), comment()));
            NftSteps.commit(tx, "failed to setup spoof-check");
            if (!tableExisted) {
                rollback.onFailure("remove nftables table bridge " + TABLE + " unless in use",
                        new NftUndos.RemoveTableIfUnused(host, BRIDGE, TABLE, List.of(PREROUTING), Set.of()));
            }
            rollback.onFailure("tear down spoof-check " + ref, new Teardown(host, this));
        } catch (KernelException e) {
            throw NetErrors.failure("failed to setup spoof-check", e);
        }
        Timing.phase("macspoofchk");
    }

    private static Chain baseChain() {
        return Chain.base(BRIDGE, TABLE, PREROUTING, Chain.Type.FILTER, Chain.Hook.PREROUTING, PRIORITY,
                Chain.Policy.ACCEPT);
    }

    /** {@code iifname "IF" jump cni-br-iface-REF}. */
    List<Expr> jumpRule(String hostIface) {
        return Exprs.in(BRIDGE).iifname(hostIface).jump(ifaceChain()).toList();
    }

    /** {@code ether saddr MAC return}. */
    static List<Expr> macRule(MacAddress mac) {
        return Exprs.in(BRIDGE).etherSaddr(mac).ret().toList();
    }

    /**
     * Go's {@code Teardown}, in one transaction: the {@code PREROUTING} rules with this comment, then both chains (with
     * their rules). What is already gone is skipped; a concurrent teardown that wins the race makes this one read
     * again and find nothing.
     */
    public void teardown(Namespace host) throws CniException {
        try {
            NftablesHandle nft = host.nft();
            for (int attempt = 0;; attempt++) {
                Transaction tx = nft.transaction();
                NftSteps.delete(tx, NftSteps.tagged(nft, BRIDGE, TABLE, PREROUTING, comment()));
                if (nft.findChain(BRIDGE, TABLE, ifaceChain()).isPresent()) {
                    tx.deleteChain(BRIDGE, TABLE, ifaceChain());
                }
                if (nft.findChain(BRIDGE, TABLE, macChain()).isPresent()) {
                    tx.deleteChain(BRIDGE, TABLE, macChain());
                }
                try {
                    tx.commit();
                    break;
                } catch (KernelException e) {
                    if (!e.isNotFound() || attempt > 0) {
                        throw e;
                    }
                }
            }
        } catch (KernelException e) {
            throw NetErrors.failure("failed to teardown spoof-check", e);
        }
        Timing.phase("macspoofchk");
    }

    /**
     * CHECK (jcni's addition; Go checks nothing): {@code PREROUTING} sends frames from {@code hostIface} to this
     * attachment's chain, which jumps to the MAC chain, which lets {@code mac} through and drops the rest.
     */
    public void check(Namespace host, String hostIface, MacAddress mac) throws CniException {
        try {
            NftablesHandle nft = host.nft();
            require(NftSteps.tagged(nft, BRIDGE, TABLE, PREROUTING, comment()), jumpRule(hostIface),
                    PREROUTING, "iifname \"" + hostIface + "\" jump " + ifaceChain());
            require(nft.rules(BRIDGE, TABLE, ifaceChain()), Exprs.in(BRIDGE).jump(macChain()).toList(),
                    ifaceChain(), "jump " + macChain());
            List<Rule> macRules = nft.rules(BRIDGE, TABLE, macChain());
            if (macRules.size() != 2 || !macRules.get(0).exprs().equals(macRule(mac))
                    || !macRules.get(1).exprs().equals(Exprs.in(BRIDGE).drop().toList())) {
                throw new CniException(CniError.INTERNAL, "macspoofchk: chain bridge " + TABLE + " " + macChain()
                        + " does not let only " + mac + " through",
                        "expected \"ether saddr " + mac + " return\" then \"drop\"");
            }
        } catch (KernelException e) {
            throw NetErrors.failure("failed to read the spoof-check rules", e);
        }
    }

    private static void require(List<Rule> rules, List<Expr> exprs, String chain, String text) throws CniException {
        for (Rule rule : rules) {
            if (rule.exprs().equals(exprs)) {
                return;
            }
        }
        throw new CniException(CniError.INTERNAL, "macspoofchk: rule \"" + text + "\" not found in chain bridge "
                + TABLE + " " + chain);
    }

    /** ADD rollback and DEL: {@link #teardown}. */
    public static final class Teardown extends Undos.InNamespace {
        private final SpoofCheck check;

        public Teardown(Namespace host, SpoofCheck check) {
            super(host);
            this.check = check;
        }

        @Override
        protected void apply(Namespace open) throws CniException {
            check.teardown(open);
        }
    }
}
