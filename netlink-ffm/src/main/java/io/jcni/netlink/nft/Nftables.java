package io.jcni.netlink.nft;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.internal.nft.NftablesHandleImpl;

/**
 * Entry point: opens {@link NftablesHandle}s.
 *
 * <pre>{@code
 * try (NftablesHandle nft = Nftables.open(hostNs)) {
 *     Transaction tx = nft.transaction();
 *     tx.addTable(new Table(TableFamily.IP, "cni_hostport", "CNI portmap plugin"));
 *     tx.addChain(Chain.regular(TableFamily.IP, "cni_hostport", "hostports"));
 *     tx.addRule(Rule.of(TableFamily.IP, "cni_hostport", "hostports", Exprs.in(TableFamily.IP)
 *             .dport(Exprs.TCP, 8080).dnat(containerIp, 80).toList(), containerId));
 *     tx.commit(); // all or nothing
 * }
 * }</pre>
 *
 * <p>Needs {@code CAP_NET_ADMIN} in the namespace's user namespace for changes, and the same native access as
 * {@link io.jcni.netlink.Netlink}.
 */
public final class Nftables {
    private Nftables() {}

    /** A handle in the calling thread's network namespace. */
    public static NftablesHandle open() {
        return NftablesHandleImpl.open(null);
    }

    /**
     * A handle in {@code netns}: its socket is created by a dedicated platform thread switched into the namespace
     * and back; the handle stays bound to {@code netns} even after {@code netns} is closed.
     */
    public static NftablesHandle open(NetNs netns) {
        return NftablesHandleImpl.open(netns);
    }
}
