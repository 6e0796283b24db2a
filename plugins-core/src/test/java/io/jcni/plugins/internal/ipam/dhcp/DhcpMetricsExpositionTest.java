package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lease daemon's exposition as a scraper reads it, over HTTP on the shared listener's Unix socket: every series
 * present from the start (zero before any exchange, so that {@code rate()} has a first sample), then the counts the
 * manager's exchanges add. The exchanges themselves, against dnsmasq, are the it module's {@code DhcpMetricsTest}.
 */
class DhcpMetricsExpositionTest {
    @TempDir
    Path dir;

    @Test
    void everySeriesIsThereFromTheStartAndCountsWhatTheExchangesReport() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        Path socket = dir.resolve("metrics.sock");
        try (LeaseManager manager = LeaseManager.start(LeaseManager.Settings.defaults(dir.resolve("state")), err);
                MetricsServer server = MetricsServer.start("-metrics-address", socket.toString(), manager.metrics(),
                        new DaemonLog(err))) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
            List<String> before = scrape(socket);
            assertThat(before).contains("HTTP/1.1 200 OK", "# TYPE jcni_dhcp_leases_held gauge",
                    "jcni_dhcp_leases_held 0", "jcni_dhcp_leases_expired 0",
                    "# TYPE jcni_dhcp_acquisitions_total counter", "jcni_dhcp_acquisitions_total 0",
                    "jcni_dhcp_renewals_total 0", "jcni_dhcp_rebinds_total 0", "jcni_dhcp_releases_total 0",
                    "# TYPE jcni_dhcp_failures_total counter", "jcni_dhcp_failures_total{operation=\"acquire\"} 0",
                    "jcni_dhcp_failures_total{operation=\"renew\"} 0",
                    "jcni_dhcp_failures_total{operation=\"rebind\"} 0",
                    "jcni_dhcp_failures_total{operation=\"release\"} 0");

            DhcpMetrics metrics = manager.metrics();
            metrics.acquired();
            metrics.acquired();
            metrics.renewed(false);
            metrics.renewed(true);
            metrics.renewed(true);
            metrics.released();
            metrics.failed(DhcpMetrics.Operation.RENEW);
            metrics.failed(DhcpMetrics.Operation.ACQUIRE);
            metrics.failed(DhcpMetrics.Operation.ACQUIRE);
            List<String> after = scrape(socket);
            assertThat(after).contains("jcni_dhcp_acquisitions_total 2", "jcni_dhcp_renewals_total 1",
                    "jcni_dhcp_rebinds_total 2", "jcni_dhcp_releases_total 1",
                    "jcni_dhcp_failures_total{operation=\"acquire\"} 2",
                    "jcni_dhcp_failures_total{operation=\"renew\"} 1",
                    "jcni_dhcp_failures_total{operation=\"rebind\"} 0",
                    "jcni_dhcp_failures_total{operation=\"release\"} 0");
            assertThat(after).filteredOn(l -> l.startsWith("jcni_dhcp_")).hasSize(10);
        }
        assertThat(socket).as("closing the listener removes its socket").doesNotExist();
    }

    /** The HTTP answer to {@code GET /metrics} on {@code socket}, by line (status line, headers, body). */
    private static List<String> scrape(Path socket) throws Exception {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            byte[] request = "GET /metrics HTTP/1.1\r\nHost: dhcp\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
            ch.write(ByteBuffer.wrap(request));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer b = ByteBuffer.allocate(8192);
            while (ch.read(b) > 0) {
                out.write(b.array(), 0, b.position());
                b.clear();
            }
            return out.toString(StandardCharsets.UTF_8).lines().toList();
        }
    }
}
