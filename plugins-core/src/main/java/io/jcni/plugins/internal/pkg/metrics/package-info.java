/**
 * Prometheus' text exposition format 0.0.4 for jcni's long-lived processes ({@code jcni serve --metrics-address},
 * {@code dhcp daemon -metrics-address}): {@link io.jcni.plugins.internal.pkg.metrics.MetricsServer}, a small HTTP
 * listener that answers {@code GET /metrics} with what an {@link io.jcni.plugins.internal.pkg.metrics.Exposition}
 * renders, and {@link io.jcni.plugins.internal.pkg.metrics.PromText}, the lines of the format. Hand-written: the
 * Prometheus Java client's exposition jars declare no module, so they cannot be linked into the jlink image.
 */
package io.jcni.plugins.internal.pkg.metrics;
