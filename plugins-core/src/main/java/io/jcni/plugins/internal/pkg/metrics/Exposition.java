package io.jcni.plugins.internal.pkg.metrics;

/**
 * What a {@link MetricsServer} serves: a process's figures rendered at each scrape.
 *
 * <p>Called on the listener's thread, one scrape at a time, while the process goes on updating its counters: an
 * implementation reads them without locks a call's path would wait for.
 */
public interface Exposition {
    /** The whole exposition, Prometheus' text format 0.0.4, UTF-8. */
    byte[] render();
}
