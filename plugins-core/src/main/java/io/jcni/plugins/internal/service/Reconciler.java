package io.jcni.plugins.internal.service;

import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.CniRuntimeException;
import io.jcni.runtime.NetworkConfigs;
import io.jcni.runtime.StaleOptions;
import io.jcni.runtime.StaleReport;
import io.jcni.spec.NetworkConfigList;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code jcni serve --reconcile-every DURATION}: the service runs {@code jcni gc --stale} on its own, every DURATION
 * (off by default), with the same rules ({@link CniRuntime#gcStale}) and one log line per removal, per failure and per
 * network collected, and a summary per run.
 *
 * <p>The attachments, configurations and plugins are the node's: {@code --conf-dir} (default {@code $NETCONFPATH},
 * else {@code /etc/cni/net.d}), {@code --cache-dir} (default {@code /var/lib/cni}), {@code --cni-path} (default
 * {@code $CNI_PATH}, else {@code /opt/cni/bin}), every network of the directory and every network in the cache. The
 * DELs and GCs exec the plugins found there, as a runtime would, with {@code JCNI_SERVICE_SOCKET} set to this
 * service's socket: jcni's clients hand them back to this service, where they queue behind the calls on the same
 * attachment and a GC waits for the calls in flight, as any client's would; Go's plugins run as exec'd. Paths are
 * judged in the service's mount namespace and host ends looked up in its network namespace: run the service where
 * the runtime runs (the host), as its systemd units do.
 *
 * <p>One platform thread, started after the service listens, asleep between runs; a run that fails (a configuration
 * directory that cannot be listed) is logged and the next one comes on time. Not a daemon's state: everything it
 * acts on is on disk.
 */
final class Reconciler implements Runnable {
    /** The options {@code jcni serve} hands over (see {@link ServiceMain}'s help). */
    static final List<String> OPTIONS = List.of("--reconcile-every", "--conf-dir", "--cache-dir", "--cni-path");

    private final Duration every;
    private final Path confDir;
    private final CniRuntime runtime;
    private final ServiceLog log;

    private Reconciler(Duration every, Path confDir, CniRuntime runtime, ServiceLog log) {
        this.every = every;
        this.confDir = confDir;
        this.runtime = runtime;
        this.log = log;
    }

    /**
     * Starts reconciling if {@code --reconcile-every} is among {@code options}; does nothing otherwise.
     *
     * @param options {@link #OPTIONS} as given on the command line
     * @param socket  this service's socket, which the plugins' clients are to call
     * @throws IllegalStateException if an option's value is invalid, or an option is given without
     *                               {@code --reconcile-every}
     */
    static void start(Map<String, String> options, Path socket, ServiceLog log) {
        String every = options.get("--reconcile-every");
        if (every == null) {
            if (!options.isEmpty()) {
                throw new IllegalStateException(String.join(", ", options.keySet())
                        + " only apply with --reconcile-every");
            }
            return;
        }
        Duration interval = duration(every);
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put(ServiceMain.SOCKET_ENV, socket.toString());
        Path confDir = Path.of(option(options, "--conf-dir", env.get("NETCONFPATH"), "/etc/cni/net.d"));
        Path cacheDir = Path.of(option(options, "--cache-dir", null, CniRuntime.Options.DEFAULT_CACHE_DIR
                .toString()));
        List<Path> cniPath = new ArrayList<>();
        for (String dir : option(options, "--cni-path", env.get("CNI_PATH"), "/opt/cni/bin").split(":")) {
            if (!dir.isEmpty()) {
                cniPath.add(Path.of(dir));
            }
        }
        CniRuntime runtime = CniRuntime.create(CniRuntime.Options.of(cniPath).withCacheDir(cacheDir)
                .withEnvironment(env).withStderr(new LogSink(log)));
        Reconciler reconciler = new Reconciler(interval, confDir, runtime, log);
        Thread thread = new Thread(reconciler, "jcni-reconciler");
        thread.setDaemon(true);
        thread.start();
        log.info("reconciling every " + every + ": networks in " + confDir + ", cache " + cacheDir + ", plugins in "
                + cniPath);
    }

    private static String option(Map<String, String> options, String name, String env, String fallback) {
        String value = options.get(name);
        if (value == null) {
            value = env;
        }
        return value == null || value.isEmpty() ? fallback : value;
    }

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}; a bare number is seconds; at least one second. */
    static Duration duration(String text) {
        int unit = 0;
        while (unit < text.length() && Character.isDigit(text.charAt(unit))) {
            unit++;
        }
        Duration d = null;
        if (unit > 0 && unit <= 9) {
            long amount = Long.parseLong(text.substring(0, unit));
            d = switch (text.substring(unit)) {
                case "ms" -> Duration.ofMillis(amount);
                case "", "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> null;
            };
        }
        if (d == null || d.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalStateException("--reconcile-every needs a duration of at least 1s (e.g. 60s, 5m), not "
                    + text);
        }
        return d;
    }

    @Override
    public void run() {
        while (!Thread.currentThread().isInterrupted()) {
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            try {
                reconcile();
            } catch (RuntimeException e) {
                log.failure("reconcile failed", e);
            }
        }
    }

    /** One run: every network of the directory, and every network in the cache. */
    void reconcile() {
        NetworkConfigs configs;
        try {
            configs = NetworkConfigs.load(confDir);
        } catch (CniRuntimeException e) {
            log.info("reconcile: " + e.getMessage());
            return;
        }
        List<NetworkConfigList> networks = new ArrayList<>();
        for (NetworkConfigs.Network network : configs.networks()) {
            networks.add(network.list());
        }
        StaleReport report;
        try {
            report = runtime.gcStale(networks, StaleOptions.of().withEveryCachedNetwork(true));
        } catch (CniRuntimeException e) {
            log.info("reconcile: " + e.getMessage());
            return;
        }
        int kept = 0;
        for (StaleReport.Entry entry : report.attachments()) {
            if (entry.action() == StaleReport.Action.KEPT) {
                kept++;
                log.debug("reconcile: " + entry.line());
            } else {
                log.info("reconcile: " + entry.line());
            }
        }
        for (StaleReport.NetworkGc gc : report.networks()) {
            if (gc.action() == StaleReport.GcAction.SKIPPED) {
                log.debug("reconcile: " + gc.line());
            } else {
                log.info("reconcile: " + gc.line());
            }
        }
        log.info("reconcile: " + report.with(StaleReport.Action.REMOVED).size() + " removed, " + kept + " kept, "
                + report.with(StaleReport.Action.FAILED).size() + " failed");
    }

    /** The plugins' stderr, into the service's log line by line. */
    private static final class LogSink extends OutputStream {
        private final ServiceLog log;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        LogSink(ServiceLog log) {
            this.log = log;
        }

        @Override
        public synchronized void write(int b) {
            if (b == '\n') {
                flushLine();
            } else {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) {
                write(b[i]);
            }
        }

        @Override
        public synchronized void flush() {
            flushLine();
        }

        private void flushLine() {
            if (line.size() > 0) {
                log.info("reconcile: plugin stderr: " + line.toString(StandardCharsets.UTF_8));
                line.reset();
            }
        }
    }
}
