/**
 * Tracing of plugin calls: a plugin continues the W3C trace its runtime hands it in {@code TRACEPARENT} (libcni's
 * propagation, {@code io.jcni.runtime.TraceContext} in jcni's runtime) with a span for the call and a child span per
 * phase, hands its own span to its delegates as their parent, and exports the spans over OTLP/HTTP (JSON encoding)
 * when {@code OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} or {@code OTEL_EXPORTER_OTLP_ENDPOINT} is set.
 *
 * <p>Written by hand rather than with the OpenTelemetry SDK: a plugin exec must start in tens of milliseconds, the SDK
 * brings a dozen jars (OkHttp or the JDK's HTTP client, the autoconfiguration's service loading) whose class loading
 * alone costs more than a whole plugin call, and all a plugin needs is ids, times and one POST. With neither variable
 * set, a call pays two environment look-ups and nothing else.
 */
package io.jcni.plugins.internal.trace;
