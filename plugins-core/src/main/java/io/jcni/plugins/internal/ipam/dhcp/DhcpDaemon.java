package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code dhcp daemon [flags]}: the process that holds the leases of the dhcp plugin, as Go's {@code dhcp daemon} —
 * a {@link LeaseManager} behind a {@link DaemonServer}. Run it as a service (README: a systemd unit) before any
 * dhcp network is used.
 *
 * <p>Flags, Go's names, syntax ({@code -flag value}, {@code -flag=value}, {@code --flag}) and defaults:
 * {@code -socketpath} ({@code /run/cni/dhcp.sock}), {@code -pidfile} (absolute), {@code -hostprefix},
 * {@code -broadcast}, {@code -timeout} (10s), {@code -resendmax} (1m2s), {@code -resendtimeout} (3m28s), durations
 * as Go writes them ({@code 1.5s}, {@code 2m}, {@code 500ms}); and jcni's {@code -statedir} ({@code /run/cni/dhcp}),
 * where leases are kept across restarts, and {@code -metrics-address} (none: off), where the leases' figures
 * ({@link DhcpMetrics}) are served for Prometheus, {@code HOST:PORT} or an absolute Unix socket path (mode 0600; as
 * given, not under {@code -hostprefix}). When the service manager passes a listening Unix socket as stdin (systemd's
 * {@code StandardInput=socket}), the daemon serves that one instead of binding {@code -socketpath}.
 *
 * <p>SIGTERM or SIGINT stops it: no new requests, maintenance stopped, the socket and pid file removed, leases kept
 * on disk and at their servers for the next start.
 */
public final class DhcpDaemon {
    private DhcpDaemon() {
    }

    private static final String USAGE = "Usage: dhcp daemon [flags]\n"
            + "  -broadcast\n        broadcast DHCP leases\n"
            + "  -hostprefix string\n        optional prefix to host root\n"
            + "  -metrics-address string\n        serve the leases' metrics (Prometheus text format, GET /metrics) "
            + "on HOST:PORT or a Unix socket path (default: none)\n"
            + "  -pidfile string\n        optional path to write daemon PID to\n"
            + "  -resendmax duration\n        optional dhcp client max resend delay between requests (default 1m2s)\n"
            + "  -resendtimeout duration\n        optional dhcp client resend timeout, no more retries after this "
            + "timeout (default 3m28s)\n"
            + "  -socketpath string\n        optional dhcp server socketpath (default \"/run/cni/dhcp.sock\")\n"
            + "  -statedir string\n        where leases are kept across restarts (default \"/run/cni/dhcp\")\n"
            + "  -timeout duration\n        optional dhcp client timeout duration for each request (default 10s)\n";

    /** The parsed flags. */
    /** The parsed flags; {@code metricsAddress} is empty for no metrics. */
    record Flags(String socketPath, String pidFile, String metricsAddress, LeaseManager.Settings settings) {
    }

    /** A command line Go's flag package would refuse (exit status 2). */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;
        final boolean help;

        UsageException(String message, boolean help) {
            super(message);
            this.help = help;
        }
    }

    /**
     * Runs the daemon until it is stopped; returns the exit status (0 after a signal, 1 when it cannot start, 2 for a
     * bad command line, as Go's).
     *
     * @param args the arguments after {@code daemon}
     */
    public static int run(String[] args, PrintStream err) {
        Flags flags;
        try {
            flags = parse(args);
        } catch (UsageException e) {
            if (!e.help) {
                err.println(e.getMessage());
            }
            err.print(USAGE);
            err.flush();
            return e.help ? 0 : 2;
        }
        String socketPath = flags.settings().hostPrefix() + flags.socketPath();
        Path pidFile = flags.pidFile().isEmpty() ? null : Path.of(flags.pidFile());
        LeaseManager manager = null;
        DaemonServer server = null;
        MetricsServer metrics = null;
        try {
            if (pidFile != null) {
                if (!pidFile.isAbsolute()) {
                    throw new IOException("Error writing pidfile \"" + pidFile + "\": path not absolute");
                }
                Files.writeString(pidFile, Long.toString(ProcessHandle.current().pid()), StandardCharsets.US_ASCII);
            }
            manager = LeaseManager.start(flags.settings(), err);
            Channel inherited = System.inheritedChannel();
            if (inherited instanceof ServerSocketChannel listener) {
                server = DaemonServer.inherited(listener, manager, err);
            } else {
                server = DaemonServer.bind(Path.of(socketPath), manager, err);
            }
            if (!flags.metricsAddress().isEmpty()) {
                metrics = MetricsServer.start("-metrics-address", flags.metricsAddress(), manager.metrics(),
                        new DaemonLog(err));
            }
        } catch (IOException | RuntimeException e) {
            err.println("dhcp daemon: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            err.flush();
            if (server != null) {
                server.close();
            }
            if (manager != null) {
                manager.close();
            }
            deletePidFile(pidFile, err);
            return 1;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(new Shutdown(server, manager, metrics, pidFile, err),
                "jcni-dhcp-shutdown"));
        if (metrics != null) {
            new DaemonLog(err).log("dhcp daemon metrics at " + metricsAt(flags.metricsAddress(), metrics)
                    + " (GET /metrics)");
        }
        new DaemonLog(err).log("dhcp daemon listening on " + server.path() + ", leases in "
                + flags.settings().stateDir());
        server.serve();
        return 0;
    }

    /** What SIGTERM/SIGINT runs: a class, not a lambda. */
    private static final class Shutdown implements Runnable {
        private final DaemonServer server;
        private final LeaseManager manager;
        private final MetricsServer metrics;
        private final Path pidFile;
        private final PrintStream err;

        Shutdown(DaemonServer server, LeaseManager manager, MetricsServer metrics, Path pidFile, PrintStream err) {
            this.server = server;
            this.manager = manager;
            this.metrics = metrics;
            this.pidFile = pidFile;
            this.err = err;
        }

        @Override
        public void run() {
            new DaemonLog(err).log("dhcp daemon stopping; leases stay in " + manager.settings().stateDir());
            manager.close();
            server.close();
            if (metrics != null) {
                metrics.close();
            }
            deletePidFile(pidFile, err);
        }
    }

    /** The metrics address with the port actually bound (an address given with port 0 gets one). */
    private static String metricsAt(String address, MetricsServer metrics) {
        return metrics.port() < 0 ? address : address.substring(0, address.lastIndexOf(':') + 1) + metrics.port();
    }

    private static void deletePidFile(Path pidFile, PrintStream err) {
        if (pidFile == null) {
            return;
        }
        try {
            Files.deleteIfExists(pidFile);
        } catch (IOException e) {
            err.println("dhcp daemon: cannot remove " + pidFile + ": " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------ flags

    static Flags parse(String[] args) throws UsageException {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("socketpath", "");
        values.put("pidfile", "");
        values.put("hostprefix", "");
        values.put("statedir", LeaseManager.Settings.DEFAULT_STATE_DIR.toString());
        values.put("metrics-address", "");
        values.put("broadcast", "false");
        values.put("timeout", "10s");
        values.put("resendmax", "1m2s");
        values.put("resendtimeout", "3m28s");
        readFlags(args, values);
        String socketPath = values.get("socketpath");
        String metricsAddress = values.get("metrics-address");
        if (!metricsAddress.isEmpty() && !metricsAddress.startsWith("/")) {
            try {
                MetricsServer.tcpAddress(metricsAddress); // checked now, bound once the daemon's socket is
            } catch (IllegalArgumentException e) {
                throw new UsageException("invalid value \"" + metricsAddress + "\" for flag -metrics-address: "
                        + e.getMessage(), false);
            }
        }
        LeaseManager.Settings settings = new LeaseManager.Settings(Path.of(values.get("statedir")),
                values.get("hostprefix"), values.get("broadcast").equals("true"),
                positive("timeout", values.get("timeout")), positive("resendmax", values.get("resendmax")),
                positive("resendtimeout", values.get("resendtimeout")));
        return new Flags(socketPath.isEmpty() ? DhcpConfig.DEFAULT_SOCKET : socketPath, values.get("pidfile"),
                metricsAddress, settings);
    }

    /**
     * The flags as Go's {@code flag} package reads them into {@code values}, which holds every defined flag with its
     * default: {@code -name value}, {@code -name=value}, one or two dashes, {@code -broadcast} alone for true; the
     * flags end at {@code --} or the first argument that is not one, and no argument may follow them.
     */
    private static void readFlags(String[] args, Map<String, String> values) throws UsageException {
        int i = 0;
        while (i < args.length) {
            String arg = args[i];
            if (arg.equals("--")) {
                i++;
                break;
            }
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                break;
            }
            String name = arg.substring(arg.startsWith("--") ? 2 : 1);
            if (name.isEmpty() || name.startsWith("-") || name.startsWith("=")) {
                throw new UsageException("bad flag syntax: " + arg, false);
            }
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            if (name.equals("h") || name.equals("help")) {
                throw new UsageException("", true);
            }
            if (!values.containsKey(name)) {
                throw new UsageException("flag provided but not defined: -" + name, false);
            }
            if (name.equals("broadcast")) {
                if (value == null) {
                    value = "true";
                } else if (!value.equals("true") && !value.equals("false") && !value.equals("1")
                        && !value.equals("0")) {
                    throw new UsageException("invalid boolean value \"" + value + "\" for -broadcast: parse error",
                            false);
                }
                value = value.equals("true") || value.equals("1") ? "true" : "false";
            } else if (value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException("flag needs an argument: -" + name, false);
                }
                value = args[++i];
            }
            values.put(name, value);
            i++;
        }
        if (i < args.length) {
            throw new UsageException("unexpected argument: " + args[i], false);
        }
    }

    private static long positive(String flag, String text) throws UsageException {
        long millis = goDurationMillis(text);
        if (millis <= 0) {
            throw new UsageException("invalid value \"" + text + "\" for flag -" + flag
                    + ": parse error (a duration of at least 1ms, e.g. 10s)", false);
        }
        return millis;
    }

    /**
     * A duration as Go's {@code time.ParseDuration} reads it ({@code 300ms}, {@code 1.5h}, {@code 2h45m}; units ns,
     * us, µs, ms, s, m, h), in milliseconds rounded down; -1 when malformed.
     */
    static long goDurationMillis(String text) {
        if (text.equals("0")) {
            return 0;
        }
        int i = 0;
        double total = 0;
        boolean any = false;
        while (i < text.length()) {
            int start = i;
            while (i < text.length() && (Character.isDigit(text.charAt(i)) || text.charAt(i) == '.')) {
                i++;
            }
            String number = text.substring(start, i);
            int unitStart = i;
            while (i < text.length() && !Character.isDigit(text.charAt(i)) && text.charAt(i) != '.') {
                i++;
            }
            String unit = text.substring(unitStart, i);
            double value;
            try {
                if (number.isEmpty() || number.equals(".") || number.indexOf('.') != number.lastIndexOf('.')) {
                    return -1;
                }
                value = Double.parseDouble(number);
            } catch (NumberFormatException e) {
                return -1;
            }
            double scale;
            switch (unit) {
                case "ns":
                    scale = 1e-6;
                    break;
                case "us":
                case "\u00b5s":
                case "\u03bcs":
                    scale = 1e-3;
                    break;
                case "ms":
                    scale = 1;
                    break;
                case "s":
                    scale = 1e3;
                    break;
                case "m":
                    scale = 60e3;
                    break;
                case "h":
                    scale = 3600e3;
                    break;
                default:
                    return -1;
            }
            total += value * scale;
            any = true;
        }
        return any && total < Long.MAX_VALUE ? (long) total : -1;
    }
}
