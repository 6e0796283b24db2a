package io.jcni.it.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.runtime.TraceContext;
import io.jcni.spec.CniJson;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trace started by the runtime reaches every plugin: jcni's runtime, given a W3C trace context for its calls
 * ({@link CniRuntime#withTraceContext}), runs jcni's bridge with host-local (exec'd, and in the suite's service run
 * through the plugin service) with {@code OTEL_EXPORTER_OTLP_ENDPOINT} pointing at a small OTLP/HTTP receiver in the
 * test host (Python's http.server, writing each JSON request to a file: no collector is packaged here). Every span
 * carries the runtime's trace id; bridge's call span is a child of the runtime's span, its phases and its delegate
 * host-local are children of bridge's.
 */
class TraceContextTest {
    private static final String TAG = "otl";
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String PARENT_ID = "00f067aa0ba902b7";

    /** Accepts POST /v1/traces, writes the body to DIR/N.json, answers 200 with an empty JSON object. */
    private static final String RECEIVER = """
            import http.server, sys, os, itertools
            out = sys.argv[2]
            counter = itertools.count()
            class H(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers['Content-Length']))
                    ok = self.path == '/v1/traces' and self.headers['Content-Type'] == 'application/json'
                    if ok:
                        n = next(counter)
                        with open(os.path.join(out, '%04d.tmp' % n), 'wb') as f:
                            f.write(body)
                        os.rename(os.path.join(out, '%04d.tmp' % n), os.path.join(out, '%04d.json' % n))
                    self.send_response(200 if ok else 404)
                    self.send_header('Content-Type', 'application/json')
                    self.send_header('Content-Length', '2')
                    self.end_headers()
                    self.wfile.write(b'{}')
                def log_message(self, *args):
                    pass
            http.server.HTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
            """;

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;

    @Test
    void pluginsContinueTheRuntimesTraceAndTheDelegateIsAChildOfItsCaller() throws Exception {
        Prerequisites.assumeRoot();
        Prerequisites.assumeDistPlugins("bridge", "host-local");
        Prerequisites.assumeCommand("python3");
        host = TestHost.create(TAG);
        TestNetns container = host.container();
        Path received = Files.createDirectories(tmp.resolve("received"));
        Path script = Files.writeString(tmp.resolve("receiver.py"), RECEIVER);
        int port = 4318;
        Process receiver = new ProcessBuilder("ip", "netns", "exec", host.netns().name(), "python3", script.toString(),
                Integer.toString(port), received.toString()).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("receiver.log").toFile()).start();
        try {
            awaitListening(port);
            NetworkConfigList list = CniJson.decodeNetworkConfigList(Conflists.list("1.0.0", "jcni-trace",
                    Conflists.bridge(Names.link(TAG), "", Conflists.hostLocal(tmp.resolve("ipam"),
                            List.of("10.217.7.0/24")))).getBytes(StandardCharsets.UTF_8));
            RuntimeConf rt = new RuntimeConf("trace-1", container.path().toString(), "eth0");
            // This JVM's environment (in the suite's service run, JCNI_SERVICE_SOCKET) and the exporter's endpoint.
            Map<String, String> env = new HashMap<>(System.getenv());
            env.put("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + port);
            try (CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(host.runtimeCniPath(
                    tmp.resolve("host-bin"), List.of(Locations.distCniBin()))).withCacheDir(tmp.resolve("cache"))
                    .withEnvironment(env))) {
                CniRuntime traced = runtime.withTraceContext(new TraceContext("00-" + TRACE_ID + "-" + PARENT_ID
                        + "-01", "vendor=opaque", "tenant=blue"));
                traced.addNetworkList(list, rt);
                traced.delNetworkList(list, rt);
            }

            List<JsonNode> spans = spans(received);
            assertThat(spans).isNotEmpty().allSatisfy(s -> assertThat(s.path("traceId").asText()).isEqualTo(TRACE_ID));
            for (String command : List.of("ADD", "DEL")) {
                JsonNode bridge = one(spans, command + " bridge");
                JsonNode ipam = one(spans, command + " host-local");
                assertThat(bridge.path("parentSpanId").asText()).as("bridge's parent: the runtime's span")
                        .isEqualTo(PARENT_ID);
                assertThat(ipam.path("parentSpanId").asText()).as("the delegate is a child of bridge")
                        .isEqualTo(bridge.path("spanId").asText());
                assertThat(attribute(bridge, "cni.container_id")).isEqualTo("trace-1");
                assertThat(attribute(bridge, "cni.network")).isEqualTo("jcni-trace");
                // Where each ran: bridge exec'd or in the suite's service, its IPAM in bridge's process or thread.
                assertThat(attribute(bridge, "jcni.mode")).isEqualTo(Locations.viaService() ? "via service" : "exec");
                assertThat(attribute(ipam, "jcni.mode")).isEqualTo("in-process");
                assertThat(bridge.path("status").path("code").asInt()).isEqualTo(1);
                assertThat(Long.parseLong(ipam.path("startTimeUnixNano").asText()))
                        .isGreaterThanOrEqualTo(Long.parseLong(bridge.path("startTimeUnixNano").asText()));
                assertThat(Long.parseLong(ipam.path("endTimeUnixNano").asText()))
                        .isLessThanOrEqualTo(Long.parseLong(bridge.path("endTimeUnixNano").asText()));
            }
            String addSpan = one(spans, "ADD bridge").path("spanId").asText();
            List<String> phases = spans.stream().filter(s -> s.path("parentSpanId").asText().equals(addSpan))
                    .map(s -> s.path("name").asText()).toList();
            assertThat(phases).as("bridge ADD's phases and its delegate").contains("ipam", "ADD host-local");
        } finally {
            receiver.destroy();
            receiver.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static String attribute(JsonNode span, String key) {
        for (JsonNode a : span.path("attributes")) {
            if (a.path("key").asText().equals(key)) {
                return a.path("value").path("stringValue").asText();
            }
        }
        return null;
    }

    private static JsonNode one(List<JsonNode> spans, String name) {
        List<JsonNode> named = spans.stream().filter(s -> s.path("name").asText().equals(name)).toList();
        assertThat(named).as("spans named " + name + " in " + spans).hasSize(1);
        return named.get(0);
    }

    private static List<JsonNode> spans(Path dir) throws Exception {
        List<JsonNode> spans = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                for (JsonNode rs : Json.read(f).path("resourceSpans")) {
                    for (JsonNode ss : rs.path("scopeSpans")) {
                        for (JsonNode s : ss.path("spans")) {
                            spans.add(s);
                        }
                    }
                }
            }
        }
        return spans;
    }

    private void awaitListening(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            if (host.netns().exec("python3", "-c", "import socket; socket.create_connection(('127.0.0.1', " + port
                    + "), 1)").succeeded()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the OTLP receiver did not start: " + Files.readString(tmp.resolve("receiver.log")));
    }
}
