package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.spec.Json;
import io.jcni.spec.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lease files: what is written is read back the same (the lease's times and result are computed from it again); only
 * regular files whose name matches what they hold are read; and a daemon started on a state directory resumes its
 * leases, dropping (file and all) one whose namespace is gone, as Go's daemon ends the maintenance of a lease whose
 * link disappeared.
 */
class LeaseStoreTest {
    @TempDir
    Path dir;

    static ManagedLease sample(String netns) throws Exception {
        Map<Integer, byte[]> options = new LinkedHashMap<>();
        options.put(DhcpMessage.OPT_MESSAGE_TYPE, new byte[] {DhcpMessage.ACK});
        options.put(DhcpMessage.OPT_SERVER_ID, new byte[] {10, 0, 0, 1});
        options.put(DhcpMessage.OPT_SUBNET_MASK, new byte[] {(byte) 255, (byte) 255, (byte) 255, 0});
        options.put(DhcpMessage.OPT_ROUTER, new byte[] {10, 0, 0, 1});
        options.put(DhcpMessage.OPT_LEASE_TIME, new byte[] {0, 0, 0, 120});
        DhcpMessage ack = new DhcpMessage(DhcpMessage.BOOTREPLY, 5, 0, 0, null, new byte[] {10, 0, 0, 23}, null,
                null, new byte[] {2, 0, 0, 0, 0, 7}, options);
        JsonObject ipam = (JsonObject) Json.parse("{\"type\":\"dhcp\",\"provide\":[{\"option\":\"host-name\","
                + "\"fromArg\":\"K8S_POD_NAME\"}],\"priority\":9}");
        return new ManagedLease("net", "ctr-1", "eth0", netns, new NetNs.Id(4, 4026532001L),
                MacAddress.parse("02:00:00:00:00:07"), "K8S_POD_NAME=pod", ipam,
                new Lease(ack, System.currentTimeMillis(), new byte[] {2, 0, 0, 0, 0, 1}), ManagedLease.State.BOUND);
    }

    @Test
    void whatIsWrittenIsReadBack() throws Exception {
        LeaseStore store = new LeaseStore(dir);
        ManagedLease lease = sample("/var/run/netns/x");
        store.write(lease);
        Path file = dir.resolve("net-ctr-1-eth0.json");
        assertThat(store.files()).containsExactly(file);
        assertThat(Files.getPosixFilePermissions(file).toString()).isEqualTo("[OWNER_READ, OWNER_WRITE]");
        ManagedLease read = store.read(file);
        assertThat(read.key()).isEqualTo(lease.key());
        assertThat(read.netns).isEqualTo("/var/run/netns/x");
        assertThat(read.netnsId).isEqualTo(lease.netnsId);
        assertThat(read.mac).isEqualTo(lease.mac);
        assertThat(read.cniArgs).isEqualTo("K8S_POD_NAME=pod");
        assertThat(read.lease.boundAt).isEqualTo(lease.lease.boundAt);
        assertThat(read.lease.serverMac).isEqualTo(lease.lease.serverMac);
        assertThat(read.lease.expiresAt()).isEqualTo(lease.lease.expiresAt());
        assertThat(read.lease.result(read.config.priority())).isEqualTo(lease.lease.result(9));
        assertThat(new String(read.prepared.provided().get(12), StandardCharsets.UTF_8)).isEqualTo("pod");
        assertThat(read.state).isEqualTo(ManagedLease.State.BOUND);
        store.delete(lease.key());
        store.delete(lease.key());
        assertThat(store.files()).isEmpty();
    }

    @Test
    void onlyRegularFilesNamedForWhatTheyHoldAreRead() throws Exception {
        LeaseStore store = new LeaseStore(dir);
        store.write(sample("/x"));
        Path file = dir.resolve("net-ctr-1-eth0.json");
        Path renamed = dir.resolve("net-ctr-2-eth0.json");
        Files.copy(file, renamed);
        assertThatThrownBy(() -> store.read(renamed)).hasMessageContaining(
                "the file's name does not match the attachment it holds");
        Path link = dir.resolve("net-ctr-3-eth0.json");
        Files.createSymbolicLink(link, file);
        assertThatThrownBy(() -> store.read(link)).hasMessageContaining("not a regular file");
        Files.writeString(dir.resolve(".net-ctr-1-eth0.tmp"), "partial");
        assertThat(store.files()).as("temporary files are not leases").containsExactly(file, renamed, link);
    }

    @Test
    void aRestartedDaemonDropsALeaseWhoseNamespaceIsGone() throws Exception {
        Path state = dir.resolve("state");
        LeaseStore store = new LeaseStore(state);
        store.create();
        store.write(sample(dir.resolve("no-such-netns").toString()));
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (LeaseManager manager = LeaseManager.start(LeaseManager.Settings.defaults(state), new PrintStream(log,
                true, StandardCharsets.UTF_8))) {
            long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (manager.leaseCount() > 0 && System.nanoTime() < end) {
                Thread.sleep(20);
            }
            assertThat(manager.leaseCount()).isZero();
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("ctr-1/net/eth0: resumed lease of 10.0.0.23")
                .contains("ctr-1/net/eth0: interface eth0 no longer exists, terminating lease maintenance");
        assertThat(store.files()).isEmpty();
    }
}
