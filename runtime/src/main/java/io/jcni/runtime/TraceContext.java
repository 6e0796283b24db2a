package io.jcni.runtime;

import java.util.Objects;

/**
 * A W3C trace context (Trace Context Level 1 and Baggage) that a runtime hands to its plugins, as libcni does: each
 * plugin of a call made through {@link CniRuntime#withTraceContext} gets {@code TRACEPARENT}, and {@code TRACESTATE}
 * and {@code BAGGAGE} when they are not empty, in its environment (OpenTelemetry's environment-variable propagation).
 * jcni's plugins then continue the trace: a span for the call, children for its phases and delegates, exported over
 * OTLP/HTTP when the standard {@code OTEL_EXPORTER_OTLP_*} variables name an endpoint (README, "Operating jcni").
 *
 * @param traceparent {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}, the caller's current span
 * @param tracestate  vendor entries, passed on unread; "" for none
 * @param baggage     W3C baggage, passed on unread; "" for none
 */
public record TraceContext(String traceparent, String tracestate, String baggage) {
    /**
     * @throws IllegalArgumentException if {@code traceparent} is not a version-00 traceparent with a non-zero trace
     *                                  and parent id, or a value holds a line break or NUL (it goes into an
     *                                  environment)
     */
    public TraceContext {
        Objects.requireNonNull(traceparent, "traceparent");
        tracestate = tracestate == null ? "" : tracestate;
        baggage = baggage == null ? "" : baggage;
        if (!isValidTraceparent(traceparent)) {
            throw new IllegalArgumentException("not a W3C traceparent (00-<32 hex>-<16 hex>-<2 hex>, ids not all "
                    + "zero): \"" + traceparent + "\"");
        }
        for (String v : new String[] {tracestate, baggage}) {
            if (v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0 || v.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a trace context value holds a line break or NUL");
            }
        }
    }

    /** A context with a traceparent only. */
    public static TraceContext of(String traceparent) {
        return new TraceContext(traceparent, "", "");
    }

    /** The 32 hex digits of the trace id. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** The 16 hex digits of the caller's span, the parent of the plugins' spans. */
    public String parentId() {
        return traceparent.substring(36, 52);
    }

    /** Whether {@code value} is a version-00 traceparent (lower-case hex, ids not all zero). */
    public static boolean isValidTraceparent(String value) {
        if (value == null || value.length() != 55 || !value.startsWith("00-") || value.charAt(35) != '-'
                || value.charAt(52) != '-') {
            return false;
        }
        return hex(value, 3, 35) && hex(value, 36, 52) && hex(value, 53, 55) && !zeros(value, 3, 35)
                && !zeros(value, 36, 52);
    }

    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static boolean zeros(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }
}
