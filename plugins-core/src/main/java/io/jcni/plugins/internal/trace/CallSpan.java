package io.jcni.plugins.internal.trace;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The span of one plugin call, and its phases' spans, exported when the call ends. Made only when the environment
 * names an OTLP endpoint ({@link #start} returns null otherwise). Belongs to the thread running the call.
 */
public final class CallSpan {
    /** The OpenTelemetry variables that turn export on; either suffices. */
    static final String TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
    static final String ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /** One finished span. */
    record Span(String spanId, String parentId, String name, long startNanos, long endNanos,
            Map<String, String> attributes, int errorCode, String errorMessage) {
    }

    private final OtlpExporter exporter;
    private final String traceId;
    private final String spanId;
    /** The caller's span, or null for a root span (no valid TRACEPARENT). */
    private final String parentId;
    private final String flags;
    private final String type;
    private final long startEpochNanos;
    private final long startNanoTime;
    private final Map<String, String> attributes = new HashMap<>();
    private final List<Span> children = new ArrayList<>();
    private int errorCode;
    private String errorMessage;

    private CallSpan(OtlpExporter exporter, String traceparent, String type) {
        this.exporter = exporter;
        this.type = type;
        if (io.jcni.runtime.TraceContext.isValidTraceparent(traceparent)) {
            this.traceId = traceparent.substring(3, 35);
            this.parentId = traceparent.substring(36, 52);
            this.flags = traceparent.substring(53, 55);
        } else {
            this.traceId = hexId(16);
            this.parentId = null;
            this.flags = "01";
        }
        this.spanId = hexId(8);
        Instant now = Instant.now();
        this.startEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.startNanoTime = System.nanoTime();
    }

    /**
     * The span of a call of plugin {@code type} when {@code env} names an OTLP endpoint (and
     * {@code OTEL_SDK_DISABLED} is not true, {@code OTEL_TRACES_EXPORTER} not {@code none}); else null.
     */
    public static CallSpan start(String type, Map<String, String> env) {
        String traces = env.get(TRACES_ENDPOINT);
        String base = env.get(ENDPOINT);
        if ((traces == null || traces.isEmpty()) && (base == null || base.isEmpty())) {
            return null;
        }
        if ("true".equalsIgnoreCase(env.get("OTEL_SDK_DISABLED")) || "none".equals(env.get("OTEL_TRACES_EXPORTER"))) {
            return null;
        }
        OtlpExporter exporter = OtlpExporter.fromEnvironment(env);
        return exporter == null ? null : new CallSpan(exporter, env.get("TRACEPARENT"), type);
    }

    /** The environment of the call: {@code env} with this span as the parent its delegates continue from. */
    public Map<String, String> environment(Map<String, String> env) {
        Map<String, String> out = new HashMap<>(env);
        out.put("TRACEPARENT", "00-" + traceId + "-" + spanId + "-" + flags);
        return java.util.Collections.unmodifiableMap(out);
    }

    public void attribute(String key, String value) {
        if (value != null) {
            attributes.put(key, value);
        }
    }

    /** The call failed with this CNI error. */
    public void failed(int code, String message) {
        this.errorCode = code;
        this.errorMessage = message;
    }

    /**
     * A phase of the call, a child span: it ran from {@code startNanoTime} to {@code endNanoTime} (the call's
     * {@link System#nanoTime()} clock).
     */
    public void phase(String name, long startNanoTime, long endNanoTime) {
        children.add(new Span(hexId(8), spanId, name, epoch(startNanoTime), epoch(endNanoTime), Map.of(), 0, null));
    }

    /**
     * Ends the call's span and exports it with its phases; a failed export is reported on {@code stderr} (one
     * line) and changes nothing of the call.
     */
    public void end(String command, java.io.OutputStream stderr) {
        long end = epoch(System.nanoTime());
        attributes.put("cni.plugin.type", type);
        attributes.put("cni.command", command);
        if (errorCode != 0) {
            attributes.put("cni.error.code", Integer.toString(errorCode));
        }
        List<Span> spans = new ArrayList<>(children.size() + 1);
        spans.add(new Span(spanId, parentId, command + " " + type, startEpochNanos, end, attributes, errorCode,
                errorMessage));
        spans.addAll(children);
        String failure = exporter.export(traceId, type, spans);
        if (failure != null) {
            try {
                stderr.write(("jcni " + type + ": trace export failed: " + failure + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
            } catch (java.io.IOException e) {
                // nothing else to tell it with
            }
        }
    }

    public String traceId() {
        return traceId;
    }

    public String spanId() {
        return spanId;
    }

    private long epoch(long nanoTime) {
        return startEpochNanos + (nanoTime - startNanoTime);
    }

    private static String hexId(int bytes) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        StringBuilder b = new StringBuilder(bytes * 2);
        while (b.length() < bytes * 2) {
            long v = random.nextLong();
            if (v == 0) {
                continue; // an all-zero id is invalid
            }
            b.append(String.format(Locale.ROOT, "%016x", v));
        }
        return b.substring(0, bytes * 2);
    }
}
