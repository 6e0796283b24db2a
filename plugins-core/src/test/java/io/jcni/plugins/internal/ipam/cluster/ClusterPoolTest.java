package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamPools;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cluster-ipam's pool figures for the service's metrics ({@link ClusterPool} through {@link IpamPools}), against a
 * real etcd member: the count is the whole cluster's (ADDs of several nodes, a DEL, writes of another node seen),
 * capacity leaves out the gateway and {@code exclude}, and an etcd that does not answer costs a scrape no more than
 * its budget and leaves the pool without an allocated figure.
 */
class ClusterPoolTest {
    @TempDir
    static Path etcdDir;

    static EtcdCluster etcd;

    private final Skel skel = PluginRegistry.skel("cluster-ipam");
    private final String prefix = "/pools-" + System.nanoTime();

    @BeforeAll
    static void startEtcd() throws Exception {
        etcd = EtcdCluster.start(etcdDir, 1);
        IpamPools.watch();
    }

    @AfterAll
    static void stopEtcd() throws Exception {
        if (etcd != null) {
            etcd.close();
        }
    }

    private String conf(String network) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"cluster-ipam\",\"ranges\":[[{\"subnet\":\"10.73.0.0/26\"}],[{\"subnet\":\"fd73::/120\"}]],"
                + "\"exclude\":[\"10.73.0.0/30\",\"10.73.0.48/28\"],\"blockSize\":28,\"etcd\":{\"endpoints\":["
                + etcd.endpointsJson() + "],\"prefix\":\"" + prefix + "\",\"requestTimeoutSeconds\":5}}}";
    }

    private void call(String command, String node, String container, String network) {
        PluginCall.of(command).containerId(container).env(ClusterIpamPlugin.NODE_ENV, node).stdin(conf(network))
                .run(skel).ok();
    }

    private List<IpamPools.Usage> mine(long budgetNanos) {
        List<IpamPools.Usage> out = new ArrayList<>();
        for (IpamPools.Usage u : IpamPools.usage(System.nanoTime() + budgetNanos)) {
            if (u.store().equals(prefix)) {
                out.add(u);
            }
        }
        return out;
    }

    @Test
    void theWholeClustersAddressesAreCountedAtTheScrapeAgainstCapacityWithoutGatewayAndExclude() throws Exception {
        for (int i = 0; i < 5; i++) {
            call("ADD", "node-" + (i % 2), "c" + i, "pool");
        }
        call("DEL", "node-0", "c2", "pool");

        // 10.73.0.0/26: .1 to .62 less the gateway .1 = 61; exclude .0/30 covers .1-.3 in the range (.1 counted as
        // the gateway already: 2 more), .48/28 covers .48-.62 (15): 44. fd73::/120: ::1 to ::ff (no broadcast) less ::1 = 254.
        assertThat(mine(3_000_000_000L)).containsExactly(
                new IpamPools.Usage("cluster-ipam", "pool", "etcd_prefix", prefix, "ipv4", 44, 4),
                new IpamPools.Usage("cluster-ipam", "pool", "etcd_prefix", prefix, "ipv6", 254, 4));

        // A node this JVM never ran a call for: its addresses are the cluster's too, seen at the next scrape.
        PluginCall.of("ADD").containerId("elsewhere").env(ClusterIpamPlugin.NODE_ENV, "node-far")
                .stdin(conf("pool")).run(skel).ok();
        assertThat(mine(3_000_000_000L)).extracting(IpamPools.Usage::allocated).containsExactly(5L, 5L);
    }

    @Test
    void anEtcdThatDoesNotAnswerCostsTheScrapeItsBudgetAndLeavesAllocatedUnknown() throws Exception {
        call("ADD", "node-0", "s1", "stalled");
        etcd.stop(0);
        try {
            long start = System.nanoTime();
            List<IpamPools.Usage> usage = mine(1_000_000_000L);
            long took = System.nanoTime() - start;
            assertThat(usage).extracting(IpamPools.Usage::allocated).containsOnly(-1L);
            assertThat(usage).extracting(IpamPools.Usage::capacity).containsExactly(44L, 254L);
            assertThat(took).as("nanoseconds the scrape took").isLessThan(2_500_000_000L);
        } finally {
            etcd.resume(0);
        }
    }
}
