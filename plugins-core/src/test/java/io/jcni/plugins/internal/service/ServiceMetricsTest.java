package io.jcni.plugins.internal.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import io.jcni.plugins.internal.pkg.metrics.PromText;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service's metrics in this JVM: host-local calls through {@link TestClient} (successes, a failure with its CNI
 * code, an exhausted pool), then the exposition read over HTTP on TCP and on a Unix socket, line by line. The real
 * scraper (Debian's Prometheus) reads it in the it module's {@code PrometheusScrapeTest}.
 */
class ServiceMetricsTest {
    @TempDir
    Path dir;

    private PluginService service;
    private MetricsServer metrics;

    @AfterEach
    void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (service != null) {
            service.stop(Duration.ofSeconds(10));
        }
    }

    private TestClient hostLocal(String command, String container) {
        TestClient c = TestClient.call(command).env("CNI_CONTAINERID", container).env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", dir.toString()).env("CNI_NETNS", "/var/run/netns/unused")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"small\",\"type\":\"host-local\",\"ipam\":{\"type\":"
                        + "\"host-local\",\"dataDir\":\"" + dir.resolve("ipam") + "\",\"ranges\":[[{\"subnet\":"
                        + "\"10.252.0.0/29\"}]]}}");
        c.netnsState = Protocol.NETNS_UNOPENED;
        return c;
    }

    @Test
    void callsErrorsLatencyAndPoolsAreExposedInPrometheusTextFormat() throws Exception {
        service = PluginService.bind(new PluginService.Settings(dir.resolve("run/plugins.sock"),
                ServiceTest.us(), 4, 16, ServiceTest.BUILD_ID, Duration.ofSeconds(10), false),
                new ServiceLog(System.err, false));
        metrics = MetricsServer.start("--metrics-address", "127.0.0.1:0", service.enableMetrics(), service.log());
        Path socket = service.settings().socket();

        // A /29 holds 5 addresses for containers (.2 to .6; .1 is the gateway): the sixth ADD finds it exhausted.
        for (int i = 0; i < 6; i++) {
            TestClient.Reply reply = hostLocal("ADD", "c" + i).send(socket);
            assertThat(reply.status()).as(reply.stdout()).isEqualTo(i < 5 ? 0 : 1);
        }
        assertThat(hostLocal("DEL", "c0").send(socket).status()).isZero();
        TestClient broken = hostLocal("ADD", "broken").stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"small\","
                + "\"type\":\"host-local\",\"ipam\":{\"type\":\"host-local\"}}");
        TestClient.Reply refused = broken.send(socket);
        assertThat(refused.status()).isEqualTo(1);
        assertThat(TestClient.call("VERSION").send(socket).status()).isZero();
        TestClient other = TestClient.call("VERSION");
        other.buildId = "another-build";
        assertThat(other.send(socket).kind()).isEqualTo('M');

        String text = httpGet(metrics.port(), "/metrics");
        assertThat(text).startsWith("HTTP/1.1 200 OK\r\n")
                .contains("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n");
        List<String> lines = text.substring(text.indexOf("\r\n\r\n") + 4).lines().toList();
        assertThat(lines).contains(
                "# TYPE jcni_plugin_calls_total counter",
                "jcni_plugin_calls_total{type=\"host-local\",command=\"ADD\"} 7",
                "jcni_plugin_calls_total{type=\"host-local\",command=\"DEL\"} 1",
                "jcni_plugin_calls_total{type=\"host-local\",command=\"VERSION\"} 1",
                "jcni_plugin_errors_total{type=\"host-local\",command=\"ADD\",code=\"7\"} 1",
                "jcni_plugin_errors_total{type=\"host-local\",command=\"ADD\",code=\"999\"} 1",
                "# TYPE jcni_plugin_call_duration_seconds histogram",
                "jcni_plugin_call_duration_seconds_bucket{type=\"host-local\",command=\"ADD\",le=\"+Inf\"} 7",
                "jcni_plugin_call_duration_seconds_bucket{type=\"host-local\",command=\"ADD\",le=\"330\"} 7",
                "jcni_plugin_call_duration_seconds_count{type=\"host-local\",command=\"ADD\"} 7",
                "jcni_service_launcher_fallbacks_total{reason=\"other_build\"} 1",
                "jcni_service_refusals_total{reason=\"busy\"} 0",
                "jcni_service_calls_in_flight 0",
                "jcni_service_queue_depth 0",
                "jcni_ipam_addresses_allocated{plugin=\"host-local\",network=\"small\",family=\"ipv4\",data_dir=\""
                        + dir.resolve("ipam") + "\"} 4",
                "jcni_ipam_addresses_capacity{plugin=\"host-local\",network=\"small\",family=\"ipv4\",data_dir=\""
                        + dir.resolve("ipam") + "\"} 5");
        assertThat(lines).noneMatch(l -> l.contains("errors_total") && l.contains("command=\"DEL\""));
        assertThat(lines).anyMatch(l -> l.contains(",le=\"0.0005\"} ")).anyMatch(l -> l.contains(",le=\"2.5\"} "));
        // Buckets are cumulative and end at the count.
        long previous = 0;
        for (String l : lines) {
            if (l.startsWith("jcni_plugin_call_duration_seconds_bucket{type=\"host-local\",command=\"ADD\"")) {
                long v = Long.parseLong(l.substring(l.lastIndexOf(' ') + 1));
                assertThat(v).isGreaterThanOrEqualTo(previous);
                previous = v;
            }
        }
        assertThat(previous).isEqualTo(7);
        assertThat(httpGet(metrics.port(), "/other")).startsWith("HTTP/1.1 404 ");
        assertThat(httpGet(metrics.port(), "/metrics", "POST")).startsWith("HTTP/1.1 405 ");
    }

    @Test
    void aUnixSocketServesTheSameAndIsPrivate() throws Exception {
        service = PluginService.bind(new PluginService.Settings(dir.resolve("run/plugins.sock"),
                ServiceTest.us(), 4, 16, ServiceTest.BUILD_ID, Duration.ofSeconds(10), false),
                new ServiceLog(System.err, false));
        Path path = dir.resolve("run/metrics.sock");
        metrics = MetricsServer.start("--metrics-address", path.toString(), service.enableMetrics(), service.log());
        assertThat(TestClient.call("VERSION").send(service.settings().socket()).status()).isZero();
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                java.nio.file.Files.getPosixFilePermissions(path))).isEqualTo("rw-------");
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(path));
            ch.write(ByteBuffer.wrap("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            String text = new String(readAll(ch), StandardCharsets.UTF_8);
            assertThat(text).startsWith("HTTP/1.1 200 OK")
                    .contains("\njcni_plugin_calls_total{type=\"host-local\",command=\"VERSION\"} 1\n");
        }
        metrics.close();
        metrics = null;
        assertThat(path).doesNotExist();
    }

    @Test
    void phasesAreHistogramsByPluginTypeAndPhase() throws Exception {
        service = PluginService.bind(new PluginService.Settings(dir.resolve("run/plugins.sock"),
                ServiceTest.us(), 4, 16, ServiceTest.BUILD_ID, Duration.ofSeconds(10), false),
                new ServiceLog(System.err, false));
        metrics = MetricsServer.start("--metrics-address", "127.0.0.1:0", service.enableMetrics(), service.log());
        // dhcp's ADD marks its "config" phase, then finds no daemon (code 50): the phase counts all the same.
        TestClient dhcp = TestClient.call("ADD").type("dhcp").env("CNI_CONTAINERID", "d1").env("CNI_IFNAME", "eth0")
                .env("CNI_PATH", dir.toString()).env("CNI_NETNS", "/var/run/netns/unused")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"d\",\"type\":\"dhcp\",\"ipam\":{\"type\":\"dhcp\","
                        + "\"daemonSocketPath\":\"" + dir.resolve("no-daemon.sock") + "\"}}");
        dhcp.netnsState = Protocol.NETNS_UNOPENED;
        TestClient.Reply reply = dhcp.send(service.settings().socket());
        assertThat(reply.status()).as(reply.stdout()).isEqualTo(1);
        service.enableMetrics().phase("bridge", "ipam", 3_000_000);
        List<String> lines = httpGet(metrics.port(), "/metrics").lines().toList();
        assertThat(lines).contains("# TYPE jcni_plugin_phase_duration_seconds histogram",
                "jcni_plugin_phase_duration_seconds_count{type=\"dhcp\",phase=\"config\"} 1",
                "jcni_plugin_phase_duration_seconds_bucket{type=\"bridge\",phase=\"ipam\",le=\"0.0025\"} 0",
                "jcni_plugin_phase_duration_seconds_bucket{type=\"bridge\",phase=\"ipam\",le=\"0.005\"} 1");
        assertThat(lines).anyMatch(l -> l.startsWith("jcni_plugin_errors_total{type=\"dhcp\",command=\"ADD\",code="));
    }

    @Test
    void labelValuesAreEscapedAndAddressesChecked() {
        assertThat(PromText.escape("a\"b\\c\nd")).isEqualTo("a\\\"b\\\\c\\nd");
        assertThat(MetricsServer.tcpAddress("[::1]:9464").getAddress().getHostAddress()).isEqualTo("0:0:0:0:0:0:0:1");
        assertThat(MetricsServer.tcpAddress("127.0.0.1:9464").getPort()).isEqualTo(9464);
        for (String bad : Set.of("9464", "127.0.0.1:", "127.0.0.1:x", "127.0.0.1:70000")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MetricsServer.tcpAddress(bad))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    private static byte[] readAll(SocketChannel ch) throws java.io.IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(8192);
        while (ch.read(b) > 0) {
            out.write(b.array(), 0, b.position());
            b.clear();
        }
        return out.toByteArray();
    }

    static String httpGet(int port, String path) throws Exception {
        return httpGet(port, path, "GET");
    }

    static String httpGet(int port, String path, String method) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
