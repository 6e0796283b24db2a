package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSpec;
import io.jcni.spec.IpPrefix;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IdleChannels}: a finished call leaves its connection for the next call of the JVM, and a kept connection
 * that the member closed (it restarted) is reopened by the next call, which succeeds as if it had been fresh.
 */
class ClusterIpamIdleChannelsTest {
    @TempDir
    Path tmp;

    @Test
    void aCallLeavesItsConnectionForTheNextAndOneTheMemberClosedIsReopened() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            URI url = URI.create(etcd.clientUrl(0));
            EtcdConfig.Endpoint endpoint = new EtcdConfig.Endpoint(false, url.getHost(), url.getPort());
            EtcdConfig config = new EtcdConfig(List.of(endpoint), 2, 10, null, null, null, null, "/idle");
            List<RangeSet> sets = List.of(RangeSet.canonical(List.of(RangeSpec.of(IpPrefix.parse("10.94.0.0/24",
                    "subnet")))));
            ClusterStore.Settings settings = new ClusterStore.Settings("n1", 26, 122, 3600, List.of(), null);

            try (ClusterStore store = new ClusterStore(EtcdClient.open(config), "/idle", "idle", settings,
                    new NodeView())) {
                store.allocate(new Attachment("c1", "eth0"), sets, List.of(), OnExisting.REUSE);
            }
            GrpcChannel kept = IdleChannels.take(endpoint);
            assertThat(kept).as("the call's connection, kept").isNotNull();
            assertThat(kept.isOpen()).isTrue();
            assertThat(IdleChannels.give(endpoint, kept)).isTrue();

            etcd.kill(0);
            etcd.startMember(0);
            etcd.awaitHealthy();
            long t0 = System.nanoTime();
            try (ClusterStore store = new ClusterStore(EtcdClient.open(config), "/idle", "idle", settings,
                    new NodeView())) {
                assertThat(store.allocate(new Attachment("c2", "eth0"), sets, List.of(), OnExisting.REUSE))
                        .hasSize(1);
            }
            assertThat((System.nanoTime() - t0) / 1_000_000).as("ms for the ADD after the restart")
                    .isLessThan(1000);
            assertThat(etcd.keys("/idle/idle/owner/n1/")).hasSize(2);
        }
    }
}
