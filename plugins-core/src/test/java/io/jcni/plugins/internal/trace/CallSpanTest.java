package io.jcni.plugins.internal.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.spec.CniJson;
import io.jcni.spec.Json;
import io.jcni.spec.JsonArray;
import io.jcni.spec.JsonObject;
import io.jcni.spec.JsonString;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin call's span through the skel, against a receiver in this test that decodes OTLP/HTTP JSON: continued from
 * TRACEPARENT, the error status of a failed call, nothing sent without an endpoint, and an unreachable endpoint that
 * costs one stderr line and changes nothing of the call.
 */
class CallSpanTest {
    static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String PARENT = "00f067aa0ba902b7";

    @TempDir
    Path dir;

    private ServerSocket server;
    private final List<String> bodies = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    private int receiver() throws Exception {
        server = new ServerSocket();
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    InputStream in = s.getInputStream();
                    ByteArrayOutputStream head = new ByteArrayOutputStream();
                    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                        head.write(in.read());
                    }
                    String h = head.toString(StandardCharsets.ISO_8859_1);
                    int length = Integer.parseInt(h.replaceAll("(?s).*Content-Length: (\\d+).*", "$1"));
                    String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
                    assertThat(h).startsWith("POST /v1/traces HTTP/1.1\r\n").contains("Content-Type: application/json");
                    bodies.add(body);
                    OutputStream out = s.getOutputStream();
                    out.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}".getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (Exception e) {
                    // closed
                }
            }
        });
        t.setDaemon(true);
        t.start();
        return server.getLocalPort();
    }

    private int hostLocal(Map<String, String> extra, String ipam, ByteArrayOutputStream err) {
        Map<String, String> env = new HashMap<>(Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "c1", "CNI_IFNAME",
                "eth0", "CNI_NETNS", "/var/run/netns/unused", "CNI_PATH", dir.toString()));
        env.putAll(extra);
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"tr\",\"type\":\"host-local\",\"ipam\":" + ipam + "}";
        return PluginRegistry.skel("host-local").run(env, conf.getBytes(StandardCharsets.UTF_8),
                new ByteArrayOutputStream(), err);
    }

    private static List<JsonObject> spans(String body) throws Exception {
        List<JsonObject> out = new ArrayList<>();
        JsonObject request = (JsonObject) CniJson.parse(body.getBytes(StandardCharsets.UTF_8));
        for (Json rs : ((JsonArray) request.get("resourceSpans").orElseThrow()).elements()) {
            for (Json ss : ((JsonArray) ((JsonObject) rs).get("scopeSpans").orElseThrow()).elements()) {
                for (Json s : ((JsonArray) ((JsonObject) ss).get("spans").orElseThrow()).elements()) {
                    out.add((JsonObject) s);
                }
            }
        }
        return out;
    }

    private static String text(JsonObject o, String key) {
        return ((JsonString) o.get(key).orElseThrow()).value();
    }

    @Test
    void aCallContinuesTheTraceItIsGivenAndItsPhasesAreChildren() throws Exception {
        int port = receiver();
        String ipam = "{\"type\":\"host-local\",\"dataDir\":\"" + dir.resolve("ipam")
                + "\",\"ranges\":[[{\"subnet\":\"10.250.0.0/24\"}]]}";
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(hostLocal(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + port + "/",
                "TRACEPARENT", "00-" + TRACE + "-" + PARENT + "-01"), ipam, err)).isZero();
        assertThat(bodies).hasSize(1);
        List<JsonObject> spans = spans(bodies.get(0));
        JsonObject call = spans.get(0);
        assertThat(text(call, "name")).isEqualTo("ADD host-local");
        assertThat(text(call, "traceId")).isEqualTo(TRACE);
        assertThat(text(call, "parentSpanId")).isEqualTo(PARENT);
        assertThat(bodies.get(0)).contains("{\"key\":\"service.name\",\"value\":{\"stringValue\":\"jcni-host-local\"}}",
                "{\"key\":\"cni.network\",\"value\":{\"stringValue\":\"tr\"}}", "\"status\":{\"code\":1}");
        for (JsonObject phase : spans.subList(1, spans.size())) {
            assertThat(text(phase, "parentSpanId")).isEqualTo(text(call, "spanId"));
            assertThat(text(phase, "traceId")).isEqualTo(TRACE);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void aFailedCallIsAnErrorSpanAndARootWithoutTraceparent() throws Exception {
        int port = receiver();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(hostLocal(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:" + port + "/v1/traces"),
                "{\"type\":\"host-local\"}", err)).isEqualTo(1);
        JsonObject call = spans(bodies.get(0)).get(0);
        assertThat(call.get("parentSpanId")).isEmpty();
        assertThat(text(call, "traceId")).matches("[0-9a-f]{32}").isNotEqualTo("0".repeat(32));
        assertThat(bodies.get(0)).contains("\"status\":{\"code\":2,\"message\":\"no IP ranges specified\"}",
                "{\"key\":\"cni.error.code\",\"value\":{\"stringValue\":\"7\"}}");
    }

    @Test
    void withoutAnEndpointNothingIsSentAndAnUnreachableOneOnlyCostsALine() throws Exception {
        int port = receiver();
        String ipam = "{\"type\":\"host-local\",\"dataDir\":\"" + dir.resolve("ipam2")
                + "\",\"ranges\":[[{\"subnet\":\"10.250.1.0/24\"}]]}";
        assertThat(hostLocal(Map.of("TRACEPARENT", "00-" + TRACE + "-" + PARENT + "-01"), ipam,
                new ByteArrayOutputStream())).isZero();
        assertThat(CallSpan.start("host-local", Map.of("TRACEPARENT", "x"))).isNull();
        assertThat(CallSpan.start("host-local", Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + port,
                "OTEL_SDK_DISABLED", "true"))).isNull();
        server.close();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(hostLocal(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + port,
                "CNI_CONTAINERID", "c2"), ipam, err)).isZero();
        assertThat(bodies).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("jcni host-local: trace export failed: ");
    }
}
