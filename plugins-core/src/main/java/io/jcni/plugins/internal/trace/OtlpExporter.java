package io.jcni.plugins.internal.trace;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Sends spans to an OTLP/HTTP receiver with the JSON encoding ({@code POST /v1/traces}, {@code application/json}),
 * configured as OpenTelemetry's exporters are: {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} (used as it is) or
 * {@code OTEL_EXPORTER_OTLP_ENDPOINT} (with {@code /v1/traces} appended), {@code OTEL_EXPORTER_OTLP_HEADERS} or
 * {@code ..._TRACES_HEADERS} ({@code k=v,k2=v2}), {@code OTEL_EXPORTER_OTLP_TIMEOUT} or {@code ..._TRACES_TIMEOUT}
 * (milliseconds; default 1000 here, not the SDK's 10 s: a plugin's caller waits for its exit), and
 * {@code OTEL_SERVICE_NAME} (default {@code jcni-<type>}). {@code http} and {@code https} endpoints (the JDK's
 * default trust store). One request per call, synchronous: an exec'd plugin exits right after, and batching across
 * calls would need a process that outlives them.
 */
final class OtlpExporter {
    private final URI endpoint;
    private final List<String> headers;
    private final int timeoutMillis;
    private final String serviceName;

    private OtlpExporter(URI endpoint, List<String> headers, int timeoutMillis, String serviceName) {
        this.endpoint = endpoint;
        this.headers = headers;
        this.timeoutMillis = timeoutMillis;
        this.serviceName = serviceName;
    }

    /** From the OpenTelemetry variables in {@code env}; null when the endpoint is not an http(s) URL. */
    static OtlpExporter fromEnvironment(Map<String, String> env) {
        String traces = env.get(CallSpan.TRACES_ENDPOINT);
        String url;
        if (traces != null && !traces.isEmpty()) {
            url = traces;
        } else {
            String base = env.get(CallSpan.ENDPOINT);
            url = (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/v1/traces";
        }
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
            return null;
        }
        List<String> headers = new ArrayList<>();
        String h = first(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS");
        if (h != null) {
            for (String pair : h.split(",")) {
                int eq = pair.indexOf('=');
                if (eq > 0 && pair.indexOf('\r') < 0 && pair.indexOf('\n') < 0) {
                    headers.add(pair.substring(0, eq).trim() + ": " + java.net.URLDecoder.decode(
                            pair.substring(eq + 1).trim(), StandardCharsets.UTF_8));
                }
            }
        }
        int timeout = 1000;
        String t = first(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT");
        if (t != null) {
            try {
                timeout = Math.max(1, Integer.parseInt(t.trim()));
            } catch (NumberFormatException e) {
                // the default
            }
        }
        String service = env.get("OTEL_SERVICE_NAME");
        return new OtlpExporter(uri, headers, timeout, service == null || service.isEmpty() ? null : service);
    }

    private static String first(Map<String, String> env, String a, String b) {
        String v = env.get(a);
        return v != null && !v.isEmpty() ? v : env.get(b);
    }

    /** Posts {@code spans} of trace {@code traceId}; null when the receiver answered 2xx, else what went wrong. */
    String export(String traceId, String type, List<CallSpan.Span> spans) {
        byte[] body = json(traceId, serviceName != null ? serviceName : "jcni-" + type, spans)
                .getBytes(StandardCharsets.UTF_8);
        int port = endpoint.getPort() > 0 ? endpoint.getPort() : "https".equals(endpoint.getScheme()) ? 443 : 80;
        String path = endpoint.getRawPath() == null || endpoint.getRawPath().isEmpty() ? "/" : endpoint.getRawPath();
        if (endpoint.getRawQuery() != null) {
            path = path + "?" + endpoint.getRawQuery();
        }
        StringBuilder head = new StringBuilder(256).append("POST ").append(path).append(" HTTP/1.1\r\nHost: ")
                .append(endpoint.getHost()).append(':').append(port)
                .append("\r\nContent-Type: application/json\r\nContent-Length: ").append(body.length)
                .append("\r\nConnection: close\r\n");
        for (String h : headers) {
            head.append(h).append("\r\n");
        }
        head.append("\r\n");
        try (Socket socket = "https".equals(endpoint.getScheme())
                ? javax.net.ssl.SSLSocketFactory.getDefault().createSocket() : new Socket()) {
            socket.connect(new InetSocketAddress(endpoint.getHost(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] status = new byte[12];
            int n = 0;
            while (n < status.length) {
                int r = in.read(status, n, status.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            String line = new String(status, 0, n, StandardCharsets.ISO_8859_1);
            if (line.length() < 12 || line.charAt(9) != '2') {
                return endpoint + " answered \"" + line.strip() + "\"";
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return endpoint + ": " + e.getMessage();
        }
    }

    /** The OTLP JSON request (ExportTraceServiceRequest): ids as hex, times as decimal strings. */
    static String json(String traceId, String serviceName, List<CallSpan.Span> spans) {
        StringBuilder b = new StringBuilder(512 + spans.size() * 256);
        b.append("{\"resourceSpans\":[{\"resource\":{\"attributes\":[");
        attribute(b, "service.name", serviceName);
        b.append(',');
        attribute(b, "process.pid", Long.toString(ProcessHandle.current().pid()));
        b.append("]},\"scopeSpans\":[{\"scope\":{\"name\":\"io.jcni.plugins\"},\"spans\":[");
        for (int i = 0; i < spans.size(); i++) {
            CallSpan.Span s = spans.get(i);
            b.append(i == 0 ? "" : ",").append("{\"traceId\":\"").append(traceId).append("\",\"spanId\":\"")
                    .append(s.spanId()).append('"');
            if (s.parentId() != null) {
                b.append(",\"parentSpanId\":\"").append(s.parentId()).append('"');
            }
            b.append(",\"name\":");
            string(b, s.name());
            b.append(",\"kind\":1,\"startTimeUnixNano\":\"").append(s.startNanos()).append("\",\"endTimeUnixNano\":\"")
                    .append(s.endNanos()).append("\",\"attributes\":[");
            boolean first = true;
            for (Map.Entry<String, String> a : new java.util.TreeMap<>(s.attributes()).entrySet()) {
                b.append(first ? "" : ",");
                first = false;
                attribute(b, a.getKey(), a.getValue());
            }
            b.append("],\"status\":{");
            if (s.errorCode() != 0) {
                b.append("\"code\":2,\"message\":");
                string(b, s.errorMessage() == null ? "" : s.errorMessage());
            } else {
                b.append("\"code\":1");
            }
            b.append("}}");
        }
        return b.append("]}]}]}").toString();
    }

    private static void attribute(StringBuilder b, String key, String value) {
        b.append("{\"key\":");
        string(b, key);
        b.append(",\"value\":{\"stringValue\":");
        string(b, value);
        b.append("}}");
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
