package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.internal.pkg.metrics.MetricsServer;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * {@code jcni serve}: the command line of {@link PluginService} ({@code dist/bin/jcni serve ...} starts it in the
 * image's JVM). Runs until SIGTERM or SIGINT, then lets the calls in flight finish (up to 30 s) and removes its socket.
 */
public final class ServiceMain {
    /** The socket clients and service use when {@link #SOCKET_ENV} is unset. */
    static final String DEFAULT_SOCKET = "/run/jcni/plugins.sock";
    /** Read by the client and, as the default of {@code --socket}, by the service. */
    static final String SOCKET_ENV = "JCNI_SERVICE_SOCKET";
    /** Written into the image by the build; the clients of the same build carry the same text. */
    static final String BUILD_ID_FILE = "lib/jcni-build-id";

    static final String HELP = """
            Usage: jcni serve [--socket PATH] [--allow-uid UID]... [--max-calls N] [--queue N] [--call-timeout S]
                              [--metrics-address HOST:PORT|PATH] [--warm-up ROUNDS]

            Runs jcni's plugins as a resident service. The programs in dist/cni/bin hand every CNI call to it over a
            Unix socket and print its answer; without a service of their own build they run the plugin in a JVM of
            their own (dist/cni/jvm) as before. Calls run concurrently, calls on one attachment one after the other.

            Options:
              --socket PATH    where to listen (default $JCNI_SERVICE_SOCKET, else /run/jcni/plugins.sock); its
                               directory is created with mode 0700 if missing and must not be writable by others;
                               the socket gets mode 0600. Clients find it through JCNI_SERVICE_SOCKET too.
              --allow-uid UID  also serve clients running as UID (repeatable). Root is always served. A uid allowed
                               here gets root's network powers through the plugins.
              --max-calls N    calls run at once (default 16)
              --queue N        connections waiting for a free call before new ones get error 11 (default 256)
              --call-timeout S cancel a call still running after S seconds (default 330): its plugin fails and
                               rolls back, its client gets error 11. A call whose client is gone (the runtime
                               killed it at its own timeout) is cancelled at once. Waits for another call on the
                               same attachment, for a GC of the same network or for memory end after 30 s (or S,
                               if shorter) with error 11.
              --metrics-address HOST:PORT|PATH
                               serve Prometheus metrics (text format 0.0.4) at http://HOST:PORT/metrics, or
                               over HTTP on the Unix socket PATH (mode 0600); off by default. `jcni stats
                               ADDRESS` prints them as a table. The list is in the README's "Operating jcni".
              --warm-up ROUNDS after it starts serving, run ROUNDS rounds of a node's own calls (bridge +
                               host-local ADD/DEL, a pod's bridge -> portmap -> firewall -> tuning ADD/DEL) in
                               private network namespaces and a private temporary directory, so that clients'
                               first calls find the code loaded and compiled (default 30; 0: none). It waits
                               whenever clients' calls are in the service, and leaves nothing behind.
              --help           this text

            systemd socket activation: with LISTEN_PID and LISTEN_FDS set for this process, it serves the socket
            passed as descriptor 3 (see the units in dist/systemd) and creates none.
            JCNI_DEBUG=1 in the service's environment logs one line per call on stderr.

            Reconciling (off by default): --reconcile-every DURATION (e.g. 60s, 5m) runs `jcni gc --stale` every
            DURATION on the node's networks (--conf-dir DIR, default $NETCONFPATH or /etc/cni/net.d), cache
            (--cache-dir DIR, default /var/lib/cni) and plugins (--cni-path PATH, default $CNI_PATH or
            /opt/cni/bin), logging each removal; see the README's "Leaks, and how jcni prevents them".
            """;

    private ServiceMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream err = System.err;
        // Nothing a library prints may go anywhere but the log.
        System.setOut(err);
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("jcni serve: " + e.getMessage() + " (jcni serve --help)");
            Runtime.getRuntime().halt(2);
            return;
        }
        if (options.help) {
            PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                    StandardCharsets.UTF_8);
            out.print(HELP);
            out.flush();
            return;
        }
        boolean debug = isTrue(System.getenv("JCNI_DEBUG"));
        ServiceLog log = new ServiceLog(err, debug);
        PluginService service;
        MetricsServer metrics = null;
        WarmUp warmUp;
        try {
            String buildId = buildId();
            Netlink.checkAvailable();
            Netlink.prepareInBackground();
            UnixSocket inherited = inheritedSocket();
            Path socket = options.socket != null ? options.socket : defaultSocket();
            Duration callTimeout = Duration.ofSeconds(options.callTimeoutSeconds);
            Duration waitTimeout = callTimeout.compareTo(PluginService.Settings.WAIT_TIMEOUT) < 0 ? callTimeout
                    : PluginService.Settings.WAIT_TIMEOUT;
            PluginService.Settings settings = new PluginService.Settings(socket, options.uids, options.maxCalls,
                    options.queue, buildId, Duration.ofSeconds(10), callTimeout, waitTimeout,
                    PluginService.Settings.HUNG_GRACE, debug);
            if (inherited != null) {
                service = PluginService.adopt(inherited, settings, log);
                log.info("serving the socket systemd passed (descriptor 3), build " + buildId);
            } else {
                service = PluginService.bind(settings, log);
                log.info("listening on " + socket + ", build " + buildId);
            }
            if (options.metricsAddress != null) {
                metrics = startMetrics(options.metricsAddress, service, log);
            }
            Reconciler.start(options.reconcile, socket, log);
            warmUp = WarmUp.start(service, options.warmUpRounds, log);
            log.info("serving uids " + settings.allowedUids() + ", " + settings.maxCalls() + " calls at once, "
                    + settings.queue() + " waiting; a call is cancelled after " + callTimeout.toSeconds() + " s");
        } catch (IOException | KernelException | IllegalStateException e) {
            err.println("jcni serve: " + e.getMessage());
            Runtime.getRuntime().halt(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(new Stop(service, metrics, warmUp, stopped),
                "jcni-service-stop"));
        stopped.await();
    }

    /** The Prometheus listener at {@code --metrics-address}, logged with the port it got. */
    private static MetricsServer startMetrics(String address, PluginService service, ServiceLog log)
            throws IOException {
        MetricsServer metrics = MetricsServer.start("--metrics-address", address, service.enableMetrics(), log);
        log.info("metrics at " + (metrics.port() < 0 ? address
                : address.substring(0, address.lastIndexOf(':') + 1) + metrics.port()) + " (GET /metrics)");
        return metrics;
    }

    /** The listening socket systemd passed, or null without socket activation. */
    static UnixSocket inheritedSocket() {
        String pid = System.getenv("LISTEN_PID");
        String fds = System.getenv("LISTEN_FDS");
        if (pid == null || fds == null || !pid.equals(Long.toString(ProcessHandle.current().pid()))) {
            return null;
        }
        int count;
        try {
            count = Integer.parseInt(fds);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("LISTEN_FDS is not a number: " + fds);
        }
        if (count < 1) {
            return null;
        }
        if (count > 1) {
            throw new IllegalStateException("systemd passed " + count + " sockets; the service's socket unit has one");
        }
        return UnixSocket.inherited(3);
    }

    static Path defaultSocket() {
        String env = System.getenv(SOCKET_ENV);
        if (env == null || env.isEmpty()) {
            return Path.of(DEFAULT_SOCKET);
        }
        Path socket = Path.of(env);
        if (!socket.isAbsolute()) {
            throw new IllegalStateException(SOCKET_ENV + " is \"" + env + "\": clients take a value that is not an "
                    + "absolute path for \"no service\"; give --socket");
        }
        return socket;
    }

    /** This image's build id ({@code lib/jcni-build-id}, written by the build). */
    static String buildId() throws IOException {
        Path file = Path.of(System.getProperty("java.home"), BUILD_ID_FILE);
        try {
            String id = Files.readString(file, StandardCharsets.UTF_8).strip();
            if (id.isEmpty()) {
                throw new IOException(file + " is empty");
            }
            return id;
        } catch (NoSuchFileException e) {
            throw new IOException("not running in a jcni image: " + file + " is missing (start it as dist/bin/jcni serve)");
        }
    }

    private static boolean isTrue(String value) {
        return value != null && (value.equals("1") || value.equalsIgnoreCase("true"));
    }

    /** The parsed command line. */
    static final class Options {
        Path socket;
        final Set<Integer> uids = new LinkedHashSet<>(List.of(0));
        int maxCalls = 16;
        int queue = 256;
        long callTimeoutSeconds = PluginService.Settings.CALL_TIMEOUT.toSeconds();
        /** {@link Reconciler#OPTIONS} as given. */
        final Map<String, String> reconcile = new LinkedHashMap<>();
        /** {@code --metrics-address}, or null: no metrics. */
        String metricsAddress;
        int warmUpRounds = WarmUp.DEFAULT_ROUNDS;
        boolean help;

        static Options parse(String[] args) {
            Options o = new Options();
            List<String> rest = new ArrayList<>(List.of(args));
            while (!rest.isEmpty()) {
                String arg = rest.remove(0);
                switch (arg) {
                    case "--help":
                    case "-h":
                        o.help = true;
                        break;
                    case "--socket":
                        o.socket = Path.of(value(arg, rest));
                        if (!o.socket.isAbsolute()) {
                            throw new IllegalArgumentException("--socket needs an absolute path");
                        }
                        break;
                    case "--allow-uid":
                        o.uids.add(number(arg, rest, 0));
                        break;
                    case "--max-calls":
                        o.maxCalls = number(arg, rest, 1);
                        break;
                    case "--queue":
                        o.queue = number(arg, rest, 0);
                        break;
                    case "--call-timeout":
                        o.callTimeoutSeconds = number(arg, rest, 1);
                        break;
                    case "--warm-up":
                        o.warmUpRounds = number(arg, rest, 0);
                        break;
                    case "--metrics-address":
                        o.metricsAddress = value(arg, rest);
                        if (!o.metricsAddress.startsWith("/")) {
                            MetricsServer.tcpAddress(o.metricsAddress); // checked now, bound once the service is
                        }
                        break;
                    case "--reconcile-every", "--conf-dir", "--cache-dir", "--cni-path":
                        o.reconcile.put(arg, value(arg, rest));
                        break;
                    default:
                        throw new IllegalArgumentException("unknown argument " + arg);
                }
            }
            return o;
        }

        private static String value(String option, List<String> rest) {
            if (rest.isEmpty()) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            return rest.remove(0);
        }

        private static int number(String option, List<String> rest, int min) {
            String v = value(option, rest);
            try {
                int n = Integer.parseInt(v);
                if (n >= min) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + " needs a number of at least " + min + ", not " + v);
        }
    }

    /** The shutdown hook: stop accepting, let calls finish, remove the socket. */
    private static final class Stop implements Runnable {
        private final PluginService service;
        private final MetricsServer metrics;
        private final WarmUp warmUp;
        private final CountDownLatch stopped;

        Stop(PluginService service, MetricsServer metrics, WarmUp warmUp, CountDownLatch stopped) {
            this.service = service;
            this.metrics = metrics;
            this.warmUp = warmUp;
            this.stopped = stopped;
        }

        @Override
        public void run() {
            if (warmUp != null) {
                warmUp.stop(10_000); // after its call in progress; its namespaces and files go with it
            }
            service.stop(Duration.ofSeconds(30));
            if (metrics != null) {
                metrics.close(); // after the calls: their last figures can still be scraped meanwhile
            }
            stopped.countDown();
        }
    }
}
