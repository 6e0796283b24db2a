package io.jcni.plugins.internal.pkg.ns;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.nft.NftablesHandle;
import io.jcni.netlink.nft.Table;
import io.jcni.netlink.nft.TableFamily;
import io.jcni.netlink.nft.Transaction;
import io.jcni.plugins.testing.Worlds;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link HostNftables}: under a keeper, the host {@link Namespace}'s nf_tables socket is lent and given back (the next
 * call gets the same socket, with the kernel state the previous one left), at most {@code maxIdle} are kept, and
 * without a keeper every namespace opens and closes its own. Runs in a fresh namespace, on a namespace worker (the
 * "host" a plugin sees is its thread's namespace).
 */
class HostNftablesTest {

    @Test
    void aKeptSocketIsLentToTheNextCallOnlyUnderItsKeeper() throws Exception {
        try (Worlds w = Worlds.create(); HostNftables.Keeper keeper = new HostNftables.Keeper(2)) {
            List<String> seen = w.hostNs.call(() -> {
                List<String> out = new ArrayList<>();
                NftablesHandle first;
                try (HostNftables.Scope lent = keeper.enter()) {
                    try (Namespace host = Namespace.host()) {
                        first = host.nft();
                        Transaction tx = first.transaction();
                        tx.addTable(new Table(TableFamily.INET, "kept_test", "test"));
                        tx.commit();
                    }
                    out.add("idle after the first call: " + keeper.idle());
                    try (Namespace host = Namespace.host()) {
                        out.add("the same socket: " + (host.nft() == first));
                        out.add("sees the table: " + host.nft().findTable(TableFamily.INET, "kept_test").isPresent());
                    }
                }
                try (Namespace host = Namespace.host()) {
                    out.add("without the keeper, the same socket: " + (host.nft() == first));
                }
                out.add("idle at the end: " + keeper.idle());
                return out;
            });
            assertThat(seen).containsExactly("idle after the first call: 1", "the same socket: true",
                    "sees the table: true", "without the keeper, the same socket: false", "idle at the end: 1");
        }
    }

    @Test
    void aKeeperKeepsAtMostItsIdleSocketsAndClosesThemWhenClosed() throws Exception {
        try (Worlds w = Worlds.create()) {
            HostNftables.Keeper keeper = new HostNftables.Keeper(2);
            int idle = w.hostNs.call(() -> {
                try (HostNftables.Scope lent = keeper.enter()) {
                    Namespace a = Namespace.host();
                    Namespace b = Namespace.host();
                    Namespace c = Namespace.host();
                    a.nft().tables();
                    b.nft().tables();
                    c.nft().tables();
                    a.close();
                    b.close();
                    c.close();
                }
                return keeper.idle();
            });
            assertThat(idle).as("three given back, two kept").isEqualTo(2);
            keeper.close();
            assertThat(keeper.idle()).isZero();
        }
    }

    @Test
    void aBorrowedNamespaceNeverTakesTheHostsKeptSockets() throws Exception {
        try (Worlds w = Worlds.create(); HostNftables.Keeper keeper = new HostNftables.Keeper(2);
                NetNs other = NetNs.create()) {
            int idle = w.hostNs.call(() -> {
                try (HostNftables.Scope lent = keeper.enter(); Namespace borrowed = Namespace.borrowing(other)) {
                    borrowed.nft().tables();
                }
                return keeper.idle();
            });
            assertThat(idle).isZero();
        }
    }
}
