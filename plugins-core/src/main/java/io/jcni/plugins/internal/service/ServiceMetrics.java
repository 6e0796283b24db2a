package io.jcni.plugins.internal.service;

import static io.jcni.plugins.internal.pkg.metrics.PromText.escape;
import static io.jcni.plugins.internal.pkg.metrics.PromText.gauge;
import static io.jcni.plugins.internal.pkg.metrics.PromText.header;
import static io.jcni.plugins.internal.pkg.metrics.PromText.sample;

import io.jcni.plugins.internal.pkg.ipam.ranges.IpamPools;
import io.jcni.plugins.internal.pkg.metrics.Exposition;
import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import io.jcni.plugins.internal.trace.PhaseSink;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonNumber;
import io.jcni.spec.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The service's figures in Prometheus' text exposition format 0.0.4 ({@code jcni serve --metrics-address}), for
 * {@link MetricsServer} to serve and {@code jcni stats} to read.
 *
 * <p>Written by hand rather than with a client library: the Prometheus Java client (1.x) is split over a dozen jars
 * of which the exposition ones declare no module (automatic modules cannot be linked into the jlink image), and the
 * whole of what the service needs is the text format, counters and one histogram type: this class and
 * {@link Histogram}. What a call costs when metrics are on: one lookup in a concurrent map and a handful of
 * {@link LongAdder} increments (the error path also decodes the plugin's error JSON for its code); with metrics off
 * the service holds no instance and the call path is the one it had before.
 *
 * <p>Label values are bounded: {@code type} is one of the image's plugin types (a call of another type is refused
 * before it runs), {@code command} one of the spec's verbs or {@code other}, {@code code} a CNI error code.
 */
final class ServiceMetrics implements PhaseSink, Exposition {
    private static final List<String> COMMANDS = List.of("ADD", "DEL", "CHECK", "GC", "STATUS", "VERSION");
    /** How long one scrape may spend counting the IPAM pools' reservations (Prometheus' default timeout is 10 s). */
    static final long POOL_BUDGET_NANOS = 3_000_000_000L;

    /** The figures of one plugin type and command. */
    static final class Series {
        final String type;
        final String command;
        final LongAdder calls = new LongAdder();
        /** By the text of the error's code (a code the plugin printed, or "none" when its stdout had none). */
        final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
        final Histogram duration = new Histogram();

        Series(String type, String command) {
            this.type = type;
            this.command = command;
        }
    }

    private final PluginService service;
    private final Map<String, Series> series = new ConcurrentHashMap<>();
    /** By plugin type and phase name ({@code Timing.phase}'s names: a fixed set in the plugins' code). */
    private final Map<String, Histogram> phases = new ConcurrentHashMap<>();
    private final double startTime = System.currentTimeMillis() / 1000.0;

    ServiceMetrics(PluginService service) {
        this.service = service;
        IpamPools.watch();
    }

    /**
     * A call ran: {@code error} is null for a call that exited 0, else its CNI code as text; {@code nanos} how long
     * the plugin ran (from the call's start in the service to its end, waits for locks excluded).
     */
    void call(String type, String command, String error, long nanos) {
        String verb = COMMANDS.contains(command) ? command : "other";
        String key = type + ' ' + verb;
        Series s = series.get(key);
        if (s == null) {
            Series fresh = new Series(type, verb);
            s = series.putIfAbsent(key, fresh);
            if (s == null) {
                s = fresh;
            }
        }
        s.calls.increment();
        s.duration.record(nanos);
        if (error != null) {
            LongAdder n = s.errors.get(error);
            if (n == null) {
                LongAdder fresh = new LongAdder();
                n = s.errors.putIfAbsent(error, fresh);
                if (n == null) {
                    n = fresh;
                }
            }
            n.increment();
        }
    }

    @Override
    public void phase(String plugin, String phase, long nanos) {
        String key = plugin + ' ' + phase;
        Histogram h = phases.get(key);
        if (h == null) {
            Histogram fresh = new Histogram();
            h = phases.putIfAbsent(key, fresh);
            if (h == null) {
                h = fresh;
            }
        }
        h.record(nanos);
    }

    /** The {@code code} of the error JSON a plugin printed ({@code length} bytes of {@code out}), or "none". */
    static String errorCode(byte[] out, int length) {
        try {
            if (CniJson.parse(Arrays.copyOf(out, length)) instanceof JsonObject error
                    && error.get("code").orElse(null) instanceof JsonNumber code) {
                return code.literal();
            }
        } catch (RuntimeException e) {
            // not JSON: reported as "none"
        }
        return "none";
    }

    /** The exposition, UTF-8. */
    @Override
    public byte[] render() {
        StringBuilder out = new StringBuilder(8192);
        writeCalls(out);
        writePhases(out);
        writeService(out);
        writePools(out);
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The plugin calls by type and command: how many, how many failed (by code), how long they ran. */
    private void writeCalls(StringBuilder out) {
        List<Series> all = new ArrayList<>(series.values());
        Collections.sort(all, new BySeries());

        header(out, "jcni_plugin_calls_total", "counter", "Plugin calls the service ran, by plugin type and command.");
        for (Series s : all) {
            out.append("jcni_plugin_calls_total{").append(labels(s)).append("} ").append(s.calls.sum()).append('\n');
        }
        header(out, "jcni_plugin_errors_total", "counter",
                "Plugin calls that ended with a CNI error, by the error's code (none: the plugin printed no code).");
        for (Series s : all) {
            List<String> codes = new ArrayList<>(s.errors.keySet());
            Collections.sort(codes);
            for (String code : codes) {
                out.append("jcni_plugin_errors_total{").append(labels(s)).append(",code=\"").append(escape(code))
                        .append("\"} ").append(s.errors.get(code).sum()).append('\n');
            }
        }
        header(out, "jcni_plugin_call_duration_seconds", "histogram",
                "How long plugin calls ran in the service, waits for their attachment or network excluded.");
        for (Series s : all) {
            s.duration.write(out, "jcni_plugin_call_duration_seconds", labels(s));
        }
    }

    /** How long the plugins' phases took, by type and phase. */
    private void writePhases(StringBuilder out) {
        header(out, "jcni_plugin_phase_duration_seconds", "histogram",
                "How long the phases of plugin calls took (netlink, IPAM, nftables, namespace entry, delegation, ...),"
                        + " by plugin type and phase; a delegate run in-process counts under its own type.");
        List<String> phaseKeys = new ArrayList<>(phases.keySet());
        Collections.sort(phaseKeys);
        for (String key : phaseKeys) {
            int space = key.indexOf(' ');
            phases.get(key).write(out, "jcni_plugin_phase_duration_seconds", "type=\"" + escape(key.substring(0,
                    space)) + "\",phase=\"" + escape(key.substring(space + 1)) + "\"");
        }
    }

    /** The service's own figures: calls in flight and queued, refusals, fallbacks, cancellations, its start. */
    private void writeService(StringBuilder out) {
        PluginService.Stats stats = service.stats();
        gauge(out, "jcni_service_calls_in_flight", "Calls read and admitted, running or waiting for their attachment.",
                service.watchedCalls());
        gauge(out, "jcni_service_queue_depth", "Connections accepted and waiting for a call thread.",
                service.queueDepth());
        header(out, "jcni_service_refusals_total", "counter",
                "Connections answered with an error without running a plugin, by reason.");
        sample(out, "jcni_service_refusals_total", "reason", "busy", stats.busy.sum());
        sample(out, "jcni_service_refusals_total", "reason", "malformed", stats.malformed.sum());
        sample(out, "jcni_service_refusals_total", "reason", "not_allowed", stats.denied.sum());
        sample(out, "jcni_service_refusals_total", "reason", "waited_too_long", stats.waitedOut.sum());
        header(out, "jcni_service_launcher_fallbacks_total", "counter",
                "Calls the service sent back to the client's JVM launcher, by reason.");
        sample(out, "jcni_service_launcher_fallbacks_total", "reason", "other_build", stats.mismatched.sum());
        sample(out, "jcni_service_launcher_fallbacks_total", "reason", "other_files", stats.elsewhere.sum());
        header(out, "jcni_service_calls_cancelled_total", "counter", "Calls the service cancelled, by reason.");
        sample(out, "jcni_service_calls_cancelled_total", "reason", "client_left", stats.abandoned.sum());
        sample(out, "jcni_service_calls_cancelled_total", "reason", "call_timeout", stats.timedOut.sum());
        header(out, "jcni_service_calls_hung_total", "counter", "Cancelled calls written off as hung.");
        out.append("jcni_service_calls_hung_total ").append(stats.hung.sum()).append('\n');
        gauge(out, "jcni_service_calls_hung", "Calls written off as hung that still run.", stats.hungNow.get());
        header(out, "jcni_service_start_time_seconds", "gauge", "When the service started, in Unix time.");
        out.append("jcni_service_start_time_seconds ").append(startTime).append('\n');
    }

    /**
     * The IPAM pools' reservations and capacity. Counted now, at the scrape (a directory read per host-local pool,
     * one etcd range count per range of a cluster-ipam pool), never on a call's path; all of it within POOL_BUDGET,
     * so that an etcd that does not answer costs a scrape at most that long (its pools then have no allocated figure
     * in this scrape).
     */
    private static void writePools(StringBuilder out) {
        List<IpamPools.Usage> pools = IpamPools.usage(System.nanoTime() + POOL_BUDGET_NANOS);
        header(out, "jcni_ipam_addresses_allocated", "gauge",
                "Addresses reserved in an IPAM pool the service has allocated from, by network and family"
                        + " (cluster-ipam: in the whole cluster).");
        for (IpamPools.Usage u : pools) {
            if (u.allocated() >= 0) {
                out.append("jcni_ipam_addresses_allocated{").append(poolLabels(u)).append("} ")
                        .append(u.allocated()).append('\n');
            }
        }
        header(out, "jcni_ipam_addresses_capacity", "gauge",
                "Addresses an IPAM pool's ranges hold (the last configuration seen; gateways and cluster-ipam's"
                        + " exclude left out), by network and family.");
        for (IpamPools.Usage u : pools) {
            out.append("jcni_ipam_addresses_capacity{").append(poolLabels(u)).append("} ").append(u.capacity())
                    .append('\n');
        }
    }

    private static String labels(Series s) {
        return "type=\"" + escape(s.type) + "\",command=\"" + s.command + "\"";
    }

    private static String poolLabels(IpamPools.Usage u) {
        return "plugin=\"" + u.plugin() + "\",network=\"" + escape(u.network()) + "\",family=\"" + u.family()
                + "\"," + u.where() + "=\"" + escape(u.store()) + "\"";
    }

    /** Series in type, then command order, so that a scrape reads the same from one to the next. */
    private static final class BySeries implements java.util.Comparator<Series> {
        @Override
        public int compare(Series a, Series b) {
            int c = a.type.compareTo(b.type);
            return c != 0 ? c : a.command.compareTo(b.command);
        }
    }
}
