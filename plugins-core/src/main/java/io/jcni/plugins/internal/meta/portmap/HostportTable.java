package io.jcni.plugins.internal.meta.portmap;

import io.jcni.netlink.nft.Chain;
import io.jcni.netlink.nft.Expr;
import io.jcni.netlink.nft.Exprs;
import io.jcni.netlink.nft.Rule;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.spec.IpPrefix;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The layout of Go's nftables backend ({@code plugins/meta/portmap/portmap_nftables.go}, containernetworking/plugins
 * 1.9), so that a node can move between Go's portmap and jcni's, with one change for CVE-2019-9946: per family a table
 * {@code ip|ip6 cni_hostport} (comment {@code "CNI portmap plugin"}) with
 * <pre>
 * chain hostports          { [ip daddr HOSTIP] tcp|udp|sctp dport HOSTPORT dnat to CONTAINER:PORT comment "TAG" ... }
 * chain hostip_hostports   { }   (Go keeps it empty, for upgrades from older versions)
 * chain hostports_all      { jump hostip_hostports ; jump hostports }
 * chain prerouting_after_dstnat { type nat hook prerouting priority dstnat + 1;
 *                                 [CONDITIONS] fib daddr type local jump hostports_all }
 * chain output_after_dstnat     { type nat hook output priority dstnat + 1;  (the same rule) }
 * chain masquerading { type nat hook postrouting priority srcnat;            (with snat only)
 *     ip saddr SUBNET ip daddr CONTAINER masquerade comment "TAG"          (hairpin; masqAll: 0.0.0.0/0)
 *     ip saddr 127.0.0.1 ip daddr CONTAINER masquerade comment "TAG" }    (localhost, IPv4, not with masqAll)
 * </pre>
 * {@code hostports_all} and the entry chains are flushed and refilled by every ADD, as Go does (the last ADD's
 * conditions hold for all); rules are appended, never inserted.
 *
 * <p><b>What is masqueraded.</b> Go's nftables backend masquerades connections to the container's published ports
 * that come from the container itself ({@code ip saddr CONTAINER}); its iptables backend, the one Debian's 1.1.1 and
 * podman's stock network use, from the container's whole subnet ({@code -s 10.88.0.5/16}), so that another container
 * on the same bridge reaching this one through a published port gets its answers back through the host. jcni
 * masquerades the subnet, as the iptables backend (a test compares the two on the same traffic); {@code masqAll}
 * (Go 1.9) masquerades every source, without the localhost rule, as Go's does.
 *
 * <p><b>Why the entry chains differ from Go's.</b> CVE-2019-9946: portmap put its jump at the top of the iptables nat
 * chains, so host ports overrode rules meant to win, such as Kubernetes' service rules; Go's fix appends it, so every
 * other rule of PREROUTING and OUTPUT decides first. Go's nftables backend hooks {@code prerouting} and
 * {@code output} at priority dstnat (-100), where kube-proxy (iptables-nft's {@code nat PREROUTING}, or its nftables
 * mode) and Docker hook theirs too; between chains of equal priority the kernel runs the one registered last first,
 * and of NAT chains the first to map a connection wins, so a portmap table created after kube-proxy's (the usual
 * order: the first host port comes long after boot) overrides it, the CVE again. jcni hooks one step later, dstnat +
 * 1, so every NAT chain at dstnat decides first whatever the order of creation. Its chains have names of their own:
 * Go's {@code add chain ... priority -100} on a chain of another priority fails, so the two plugins can still
 * take turns on a node. When Go's {@code prerouting}/{@code output} are there (Go's plugin made the table), ADD
 * flushes them, so that only the later jump is left; Go's plugin, if it comes back, refills them, and both then lead
 * to the same rules. Masquerading stays at srcnat as in Go: the masquerade rules of ipMasq there match other packets
 * (their destination is outside the container's subnet), and both masquerade anyway.
 *
 * <p>The tag is {@link io.jcni.plugins.internal.pkg.nft.AttachmentComment}'s (network, interface and container ID);
 * Go's portmap tags with the container ID alone, which DEL also recognizes (see {@link PortmapPlugin}).
 */
final class HostportTable {
    static final String TABLE = "cni_hostport";
    static final String COMMENT = "CNI portmap plugin";
    static final String HOSTPORTS = "hostports";
    static final String HOSTIP_HOSTPORTS = "hostip_hostports";
    static final String HOSTPORTS_ALL = "hostports_all";
    static final String PREROUTING = "prerouting_after_dstnat";
    static final String OUTPUT = "output_after_dstnat";
    /** Go's entry chains (priority dstnat): flushed by ADD when Go's plugin made them. */
    static final String GO_PREROUTING = "prerouting";
    static final String GO_OUTPUT = "output";
    static final String MASQUERADING = "masquerading";
    /** The entry chains' priority: after every NAT chain at dstnat (see the class comment). */
    static final int ENTRY_PRIORITY = Chain.PRIORITY_DSTNAT + 1;
    /** Every chain of the table, Go's included: anything else in it means someone else uses the table too. */
    static final List<String> CHAINS = List.of(HOSTPORTS, HOSTIP_HOSTPORTS, HOSTPORTS_ALL, PREROUTING, OUTPUT,
            MASQUERADING, GO_PREROUTING, GO_OUTPUT);
    /** The chains that hold an attachment's rules (Go's DEL looks in these three). */
    static final List<String> TAGGED_CHAINS = List.of(HOSTPORTS, HOSTIP_HOSTPORTS, MASQUERADING);

    private static final InetAddress LOCALHOST = address(new byte[] {127, 0, 0, 1});
    private static final InetAddress ANY_V4 = address(new byte[4]);
    private static final InetAddress ANY_V6 = address(new byte[16]);

    private HostportTable() {
    }

    private static InetAddress address(byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    static TableFamily family(boolean ipv6) {
        return ipv6 ? TableFamily.IP6 : TableFamily.IP;
    }

    /**
     * Queues the table, its chains and the rules that are no attachment's (Go's order); {@code existing} are the
     * chains the table has now (Go's entry chains among them are flushed).
     */
    static void queueScaffolding(Transaction tx, boolean ipv6, Conditions conditions, boolean snat,
            List<String> existing) {
        TableFamily f = family(ipv6);
        tx.addTable(new Table(f, TABLE, COMMENT));
        tx.addChain(Chain.regular(f, TABLE, HOSTPORTS));
        tx.addChain(Chain.regular(f, TABLE, HOSTIP_HOSTPORTS));
        tx.addChain(Chain.regular(f, TABLE, HOSTPORTS_ALL));
        tx.flushChain(f, TABLE, HOSTPORTS_ALL);
        tx.addRule(Rule.of(f, TABLE, HOSTPORTS_ALL, Exprs.in(f).jump(HOSTIP_HOSTPORTS).toList(), null));
        tx.addRule(Rule.of(f, TABLE, HOSTPORTS_ALL, Exprs.in(f).jump(HOSTPORTS).toList(), null));
        for (String hook : new String[] {PREROUTING, OUTPUT}) {
            tx.addChain(Chain.base(f, TABLE, hook, Chain.Type.NAT, hook.equals(PREROUTING) ? Chain.Hook.PREROUTING
                    : Chain.Hook.OUTPUT, ENTRY_PRIORITY, Chain.Policy.ACCEPT));
            tx.flushChain(f, TABLE, hook);
            tx.addRule(Rule.of(f, TABLE, hook, entry(f, conditions), null));
        }
        for (String goChain : new String[] {GO_PREROUTING, GO_OUTPUT}) {
            if (existing.contains(goChain)) {
                tx.flushChain(f, TABLE, goChain);
            }
        }
        if (snat) {
            tx.addChain(Chain.base(f, TABLE, MASQUERADING, Chain.Type.NAT, Chain.Hook.POSTROUTING,
                    Chain.PRIORITY_SRCNAT, Chain.Policy.ACCEPT));
        }
    }

    /** {@code [CONDITIONS] fib daddr type local jump hostports_all}. */
    static List<Expr> entry(TableFamily f, Conditions conditions) {
        Exprs exprs = Exprs.in(f);
        conditions.applyTo(exprs);
        return exprs.fibDaddrType(Exprs.RTN_LOCAL).jump(HOSTPORTS_ALL).toList();
    }

    /** The attachment's rules for the family: a DNAT per mapping of that family, and masquerading with snat. */
    static List<Rule> attachmentRules(PortmapConfig config, boolean ipv6, String tag) {
        TableFamily f = family(ipv6);
        InetAddress container = config.container(ipv6);
        List<Rule> rules = new ArrayList<>();
        for (PortMapping m : config.mappings()) {
            if (!m.appliesTo(ipv6)) {
                continue;
            }
            Exprs exprs = Exprs.in(f);
            if (m.matchesHostIp()) {
                exprs.daddr(m.hostIp());
            }
            exprs.dport(m.protocolNumber(), m.hostPort()).dnat(container, m.containerPort());
            rules.add(Rule.of(f, TABLE, HOSTPORTS, exprs.toList(), tag));
        }
        if (config.snat()) {
            IpPrefix from = config.masqAll() ? new IpPrefix(ipv6 ? ANY_V6 : ANY_V4, 0) : config.subnet(ipv6);
            rules.add(Rule.of(f, TABLE, MASQUERADING, Exprs.in(f).saddr(from.address(), from.prefixLength())
                    .daddr(container).masquerade().toList(), tag));
            if (!ipv6 && !config.masqAll()) {
                rules.add(Rule.of(f, TABLE, MASQUERADING, Exprs.in(f).saddr(LOCALHOST).daddr(container)
                        .masquerade().toList(), tag));
            }
        }
        return rules;
    }
}
