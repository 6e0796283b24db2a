package io.jcni.it.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.Locations;
import io.jcni.it.support.LoopbackPorts;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's Prometheus (2.42, from scripts/setup) scrapes {@code jcni serve --metrics-address} on loopback. After a
 * known mix of calls through the plugin clients (host-local ADDs that succeed, that find the pool exhausted and that
 * have no ranges; DELs; VERSIONs; a client of another build), PromQL over Prometheus' HTTP API returns exactly those
 * counts, the error ratio, the pool's use, and a p99 ADD latency equal to the one {@code jcni stats} prints for the
 * same figures. Without a prometheus binary the test fails (it is the real peer), it does not skip.
 */
class PrometheusScrapeTest {
    @TempDir
    Path tmp;

    @Test
    void prometheusScrapesTheServiceAndPromqlReturnsTheCallMix() throws Exception {
        Prerequisites.assumeDistPlugins("host-local");
        Prerequisites.require(Prerequisites.onPath("prometheus"),
                () -> "prometheus (Debian package prometheus; scripts/setup installs it)");
        int metricsPort = LoopbackPorts.next();
        String metricsAddress = "127.0.0.1:" + metricsPort;
        Path socket = tmp.resolve("run/plugins.sock");
        Path dataDir = tmp.resolve("ipam");
        try (PluginServiceProcess service = PluginServiceProcess.start(socket,
                List.of("--metrics-address", metricsAddress), Map.of());
                PrometheusProcess prometheus = PrometheusProcess.start(tmp.resolve("prometheus"), metricsAddress)) {
            // The mix: a /29 has 5 addresses for containers (the gateway .1 is never handed out).
            String pool = "{\"cniVersion\":\"1.0.0\",\"name\":\"prom\",\"type\":\"host-local\",\"ipam\":{\"type\":"
                    + "\"host-local\",\"dataDir\":\"" + dataDir + "\",\"ranges\":[[{\"subnet\":\"10.253.0.0/29\"}]]}}";
            String noRanges = "{\"cniVersion\":\"1.0.0\",\"name\":\"prom\",\"type\":\"host-local\",\"ipam\":{"
                    + "\"type\":\"host-local\",\"dataDir\":\"" + dataDir + "\"}}";
            for (int i = 0; i < 8; i++) {
                ProcessResult add = hostLocal(socket, "ADD", "c" + i, pool);
                assertThat(add.exitCode()).as(add.describe()).isEqualTo(i < 5 ? 0 : 1);
                if (i >= 5) {
                    assertThat(add.stdout()).contains("\"code\": 999");
                }
            }
            for (int i = 0; i < 2; i++) {
                hostLocal(socket, "DEL", "c" + i, pool).requireSuccess();
                ProcessResult bad = hostLocal(socket, "ADD", "bad" + i, noRanges);
                assertThat(bad.stdout()).as(bad.describe()).contains("\"code\": 7");
            }
            for (int i = 0; i < 3; i++) {
                hostLocal(socket, "VERSION", "", "").requireSuccess();
            }

            // Prometheus has scraped everything once the last calls show.
            prometheus.awaitValue("jcni_plugin_calls_total{type=\"host-local\",command=\"VERSION\"}", "3");
            assertThat(prometheus.query("jcni_plugin_calls_total{type=\"host-local\",command=\"ADD\"}")).isEqualTo("10");
            assertThat(prometheus.query("jcni_plugin_calls_total{type=\"host-local\",command=\"DEL\"}")).isEqualTo("2");
            assertThat(prometheus.query("jcni_plugin_errors_total{command=\"ADD\",code=\"999\"}")).isEqualTo("3");
            assertThat(prometheus.query("jcni_plugin_errors_total{command=\"ADD\",code=\"7\"}")).isEqualTo("2");
            assertThat(prometheus.query("sum(jcni_plugin_errors_total{command=\"DEL\"}) or vector(0)")).isEqualTo("0");
            assertThat(prometheus.query("sum(jcni_plugin_errors_total{command=\"ADD\"})"
                    + " / sum(jcni_plugin_calls_total{command=\"ADD\"})")).isEqualTo("0.5");
            assertThat(prometheus.query("jcni_plugin_call_duration_seconds_count{type=\"host-local\",command=\"ADD\"}"))
                    .isEqualTo("10");
            assertThat(prometheus.query("jcni_ipam_addresses_allocated{network=\"prom\"}"
                    + " / jcni_ipam_addresses_capacity{network=\"prom\"}")).isEqualTo("0.6");
            assertThat(prometheus.query("jcni_service_refusals_total{reason=\"busy\"}")).isEqualTo("0");
            assertThat(prometheus.query("up{job=\"jcni\"}")).isEqualTo("1");

            double p99 = Double.parseDouble(prometheus.query("histogram_quantile(0.99, sum by (le) ("
                    + "jcni_plugin_call_duration_seconds_bucket{type=\"host-local\",command=\"ADD\"}))"));
            assertThat(p99).isGreaterThan(0).isLessThan(330);
            ProcessResult stats = Processes.run(List.of(Locations.distJcni().toString(), "stats", metricsAddress),
                    Map.of(), null, Duration.ofSeconds(60)).requireSuccess();
            String row = stats.stdout().lines().filter(l -> l.startsWith("host-local       ADD ")).findFirst()
                    .orElseThrow(() -> new AssertionError(stats.describe()));
            String[] cols = row.trim().split(" +");
            assertThat(cols[2]).as(row).isEqualTo("10");
            assertThat(cols[3]).as(row).isEqualTo("5");
            assertThat(cols[6] + " " + cols[7]).as(row).isEqualTo(p99 < 1
                    ? String.format(Locale.ROOT, "%.2f ms", p99 * 1000) : String.format(Locale.ROOT, "%.2f s", p99));
            assertThat(stats.stdout()).contains("prom", "3 of 5");
            assertThat(service.log()).contains("metrics at " + metricsAddress);
        }
    }

    private static ProcessResult hostLocal(Path socket, String command, String container, String config) {
        Map<String, String> env = new HashMap<>();
        env.put("CNI_COMMAND", command);
        env.put("JCNI_SERVICE_SOCKET", socket.toString());
        if (!container.isEmpty()) {
            env.put("CNI_CONTAINERID", container);
            env.put("CNI_IFNAME", "eth0");
            env.put("CNI_NETNS", "/var/run/netns/prometheus-test-unused");
            env.put("CNI_PATH", Locations.distCniBin().toString());
        }
        return Processes.run(List.of(Locations.distPlugin("host-local").toString()), env, config,
                Duration.ofSeconds(60));
    }

    /** A {@code prometheus} process on a loopback port, scraping {@code target} every second, with its own data. */
    static final class PrometheusProcess implements AutoCloseable {
        private final Process process;
        private final int port;
        private final Path log;

        private PrometheusProcess(Process process, int port, Path log) {
            this.process = process;
            this.port = port;
            this.log = log;
        }

        static PrometheusProcess start(Path dir, String target) throws Exception {
            Files.createDirectories(dir.resolve("data"));
            Path config = Files.writeString(dir.resolve("prometheus.yml"), """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    scrape_configs:
                      - job_name: jcni
                        static_configs:
                          - targets: ['%s']
                    """.formatted(target));
            int port = LoopbackPorts.next();
            Path log = dir.resolve("prometheus.log");
            Process process = new ProcessBuilder("prometheus", "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                    "--log.level=warn").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            PrometheusProcess p = new PrometheusProcess(process, port, log);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    if (p.get("/-/ready").startsWith("HTTP/1.0 200") || p.get("/-/ready").startsWith("HTTP/1.1 200")) {
                        return p;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    p.close();
                    throw new AssertionError("prometheus did not start: " + Files.readString(log));
                }
                Thread.sleep(100);
            }
        }

        /** The single value of an instant query, as Prometheus prints it; fails on anything else. */
        String query(String promql) throws IOException {
            String body = get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
            Matcher m = Pattern.compile("\"result\":\\[\\{\"metric\":\\{[^}]*\\},\"value\":\\[[0-9.]+,\"([^\"]+)\"\\]\\}\\]")
                    .matcher(body);
            if (!m.find()) {
                throw new AssertionError("not one sample for " + promql + ": " + body);
            }
            return m.group(1);
        }

        void awaitValue(String promql, String expected) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            String last = null;
            while (System.nanoTime() < deadline) {
                try {
                    last = query(promql);
                    if (last.equals(expected)) {
                        return;
                    }
                } catch (AssertionError e) {
                    last = e.getMessage(); // not scraped yet
                }
                Thread.sleep(200);
            }
            throw new AssertionError(promql + " never became " + expected + " (last: " + last + "); targets: "
                    + get("/api/v1/targets") + "; log: " + Files.readString(log));
        }

        /** An HTTP/1.0 GET (no chunked answer), the whole response. */
        String get(String pathAndQuery) throws IOException {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                s.setSoTimeout(10000);
                OutputStream out = s.getOutputStream();
                out.write(("GET " + pathAndQuery + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = s.getInputStream();
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
