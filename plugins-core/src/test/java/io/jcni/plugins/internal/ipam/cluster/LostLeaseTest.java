package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.internal.ipam.cluster.EtcdClient.Txn;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A write on a lease etcd no longer has (it expired between the grant and the write) is the {@link
 * EtcdException.Kind#LEASE_NOT_FOUND} kind, told apart by the client from what etcd answers, not by the store
 * matching a message; for the store it is a lost race, retried with a new lease.
 */
class LostLeaseTest {
    @TempDir
    Path tmp;

    @Test
    void aWriteOnARevokedLeaseIsTheLeaseNotFoundKindAndALostRaceForTheStore() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            URI url = URI.create(cluster.clientUrl(0));
            EtcdConfig config = new EtcdConfig(List.of(new EtcdConfig.Endpoint(false, url.getHost(), url.getPort())),
                    2, 5, null, null, null, null, EtcdConfig.DEFAULT_PREFIX);
            try (EtcdClient client = EtcdClient.open(config)) {
                long lease = client.grantLease(60);
                cluster.revokeLease(lease);
                Txn write = new Txn().put("/t/node/n1", "x".getBytes(StandardCharsets.UTF_8), lease);
                assertThatThrownBy(() -> client.txn(write)).isInstanceOfSatisfying(EtcdException.class,
                        e -> assertThat(e.kind()).isEqualTo(EtcdException.Kind.LEASE_NOT_FOUND));

                ClusterEtcd store = new ClusterEtcd(client, new SplittableRandom(1), new QuorumRead());
                assertThat(store.commit(write)).as("a lost lease is a lost race").isFalse();
                long renewed = store.lease(60);
                assertThat(renewed).as("the retry gets a new lease").isNotEqualTo(lease);
                assertThat(store.commit(new Txn().put("/t/node/n1", new byte[0], renewed))).isTrue();
            }
        }
    }
}
