package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.spec.IpPrefix;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm view's ADD is one transaction, sent without a read before it; when etcd has no quorum that write is not
 * answered and may still commit once the quorum is back, after its call answered code 11. It is then a doubt of the
 * JVM, undone (fence, then removal of exactly its keys) by the resolver thread or by the next call of the same
 * attachment. Here against three real members, two of them stopped with SIGSTOP while the store (the plugin service's,
 * with the JVM's shared view) talks to the leader alone: the leader takes the write into its log, and commits it when
 * the others resume, unless the undo's fence came first.
 */
class ClusterIpamDoubtTest {
    @TempDir
    Path tmp;

    private static final String PREFIX = "/doubt";
    private static final String NETWORK = "doubt";

    private static EtcdConfig config(EtcdCluster etcd, int member) {
        URI url = URI.create(etcd.clientUrl(member));
        return new EtcdConfig(List.of(new EtcdConfig.Endpoint(false, url.getHost(), url.getPort())), 1, 3, null,
                null, null, null, PREFIX);
    }

    private static ClusterStore store(EtcdConfig config) {
        return new ClusterStore(EtcdClient.open(config), PREFIX, NETWORK,
                new ClusterStore.Settings("node-a", 28, 122, 3600, List.of(), null), NodeView.of(config, NETWORK,
                "node-a"));
    }

    private static List<RangeSet> sets() throws Exception {
        return List.of(RangeSet.canonical(List.of(RangeSpec.of(IpPrefix.parse("10.94.0.0/24", "subnet")))));
    }

    private static String add(EtcdConfig config, String cid) throws Exception {
        try (ClusterStore store = store(config)) {
            List<Allocation> out = store.allocate(new Attachment(cid, "eth0"), sets(), List.of(), OnExisting.REUSE);
            return out.getFirst().address().toString();
        }
    }

    private static int warmRequests(EtcdConfig config, String cid) throws Exception {
        try (ClusterStore store = store(config)) {
            store.allocate(new Attachment(cid, "eth0"), sets(), List.of(), OnExisting.REUSE);
            return store.etcdRequests();
        }
    }

    @Test
    void aWriteInDoubtWithoutQuorumIsUndoneOnceEtcdHealsAndTheRepeatedAddKeepsItsAddress() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 3)) {
            int leader = etcd.leader();
            EtcdConfig config = config(etcd, leader);
            NodeView view = NodeView.of(config, NETWORK, "node-a");
            add(config, "w0");
            add(config, "w1");
            assertThat(warmRequests(config, "w2")).as("a warm view's ADD: the write alone").isEqualTo(1);

            List<Integer> others = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                if (i != leader) {
                    others.add(i);
                }
            }
            for (int i : others) {
                etcd.stop(i);
            }
            try {
                assertThatThrownBy(() -> add(config, "doubt")).isInstanceOfSatisfying(IpamException.class,
                        e -> assertThat(e.reason()).as(e.getMessage())
                                .isEqualTo(IpamException.Reason.STORE_UNAVAILABLE));
                assertThat(view.doubted()).as("the unanswered write is in doubt")
                        .containsExactly(PREFIX + "/" + NETWORK + "/owner/node-a/doubt/eth0");
                // With a doubt outstanding the next ADD proves a quorum first: it fails without sending its write.
                assertThatThrownBy(() -> add(config, "after")).isInstanceOfSatisfying(IpamException.class,
                        e -> assertThat(e.reason()).isEqualTo(IpamException.Reason.STORE_UNAVAILABLE));
                assertThat(view.doubted()).as("no write was sent blind while a doubt was outstanding")
                        .containsExactly(PREFIX + "/" + NETWORK + "/owner/node-a/doubt/eth0");
            } finally {
                for (int i : others) {
                    etcd.resume(i);
                }
            }
            etcd.awaitHealthy();

            // The runtime's retry of the same container, at once: its call undoes the doubt first (or finds it undone
            // by the resolver), so the address it gets is never one the undo then deletes.
            String again = add(config, "doubt");
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (view.hasDoubts() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(view.hasDoubts()).as("every doubt resolved within 30 s of the heal").isFalse();
            Thread.sleep(500); // an undo that came late would show now

            Map<String, String> holders = holders(etcd);
            assertThat(holders).as("the repeated ADD's address stays, held by it")
                    .containsEntry(again, "doubt");
            assertThat(holders.values()).as("one address each; nothing of the ADD that failed before the heal")
                    .containsExactlyInAnyOrder("w0", "w1", "w2", "doubt");
            List<String> owners = etcd.entries(PREFIX + "/" + NETWORK + "/owner/");
            assertThat(owners).hasSize(4).noneMatch(o -> o.contains("/after/"));
            for (String owner : owners) {
                String cid = owner.substring(0, owner.indexOf('=')).split("/")[5];
                String ip = owner.substring(owner.indexOf('=') + 1);
                assertThat(etcd.entries(PREFIX + "/" + NETWORK + "/ip/" + ip)).as(owner)
                        .containsExactly(PREFIX + "/" + NETWORK + "/ip/" + ip + "=node-a\n" + cid + "\neth0");
            }
            assertThat(add(config, "w3")).as("a fresh ADD after the heal").isNotIn(holders.keySet());
        }
    }

    /** Address (as text) → container, from the address keys. */
    private static Map<String, String> holders(EtcdCluster etcd) throws Exception {
        Map<String, String> out = new HashMap<>();
        for (String e : etcd.entries(PREFIX + "/" + NETWORK + "/ip/")) {
            String hex = e.substring(e.lastIndexOf("/", e.indexOf('=')) + 1, e.indexOf('='));
            String ip = ClusterKeys.parseHex("4/" + hex).toString();
            String previous = out.put(ip, e.substring(e.indexOf('=') + 1).split("\n")[1]);
            assertThat(previous).as("%s held twice", ip).isNull();
        }
        return out;
    }
}
