package io.jcni.plugins.internal.pkg.metrics;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.UnixSocket;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * {@code jcni serve --metrics-address}, {@code dhcp daemon -metrics-address}: answers {@code GET /metrics} with what
 * an {@link Exposition} renders, on a TCP address ({@code 127.0.0.1:9464}, {@code [::1]:9464}) or a Unix socket path
 * ({@code /run/jcni/metrics.sock}, mode 0600 like the service's).
 *
 * <p>HTTP/1.1 by hand, one request per connection ({@code Connection: close}), one connection at a time on one
 * thread, each bounded (8 KiB of request head, 5 s to send it and take the answer): a scraper asks every few
 * seconds, so a small listener that a stalled peer can hold 5 s at most is enough, and the JDK's
 * {@code jdk.httpserver} would add a module to the image for this alone. The listener never touches a call's path:
 * a scrape reads counters the calls update. What goes wrong with the listener itself (an accept that fails, a
 * render that throws) goes to the process's {@link Log}, a refusal at most once a second.
 */
public final class MetricsServer implements AutoCloseable {
    private static final int MAX_HEAD = 8192;
    private static final Duration IO_TIMEOUT = Duration.ofSeconds(5);
    private static final long REFUSAL_INTERVAL_NANOS = 1_000_000_000L;

    /** Where the listener reports its own trouble: the process's log. */
    public interface Log {
        /** The listener could not take a connection (it goes on). */
        void refusal(String message);

        /** A scrape failed with an unexpected exception (the listener goes on). */
        void failure(String message, Throwable t);
    }

    private final Exposition metrics;
    private final Log log;
    private final ServerSocket tcp;
    private final UnixSocket unix;
    private final Path unixPath;
    private final Thread thread;
    private volatile boolean closing;
    /** When the listener last logged a refusal; only its thread reads and writes it. */
    private long lastRefusal = System.nanoTime() - REFUSAL_INTERVAL_NANOS;

    private MetricsServer(Exposition metrics, Log log, ServerSocket tcp, UnixSocket unix, Path unixPath) {
        this.metrics = metrics;
        this.log = log;
        this.tcp = tcp;
        this.unix = unix;
        this.unixPath = unixPath;
        this.thread = new Thread(new Serve(), "jcni-metrics");
        thread.setDaemon(true);
    }

    /**
     * Listens on {@code address} (see the class comment) and serves until {@link #close}.
     *
     * @param flag the option that named the address ({@code --metrics-address}), for error messages
     */
    public static MetricsServer start(String flag, String address, Exposition metrics, Log log) throws IOException {
        MetricsServer server;
        if (address.startsWith("/")) {
            Path path = Path.of(address);
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                if (!Files.readAttributes(path, java.nio.file.attribute.PosixFileAttributes.class,
                        LinkOption.NOFOLLOW_LINKS).isOther()) {
                    throw new IOException(path + " exists and is not a socket: not removed");
                }
                Files.delete(path); // a stale socket: the process's own socket was free, so no other one runs
            }
            UnixSocket listener;
            try {
                listener = UnixSocket.listen(path, 16);
            } catch (KernelException e) {
                throw new IOException(flag + " " + address + ": " + e.getMessage(), e);
            }
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            server = new MetricsServer(metrics, log, null, listener, path);
        } else {
            ServerSocket socket = new ServerSocket();
            try {
                socket.setReuseAddress(true);
                socket.bind(tcpAddress(address), 16);
            } catch (IOException | IllegalArgumentException e) {
                socket.close();
                throw new IOException(flag + " " + address + ": " + e.getMessage(), e);
            }
            server = new MetricsServer(metrics, log, socket, null, null);
        }
        server.thread.start();
        return server;
    }

    /** {@code HOST:PORT}, the host an IPv4 address, {@code [IPv6]} or a name. */
    public static InetSocketAddress tcpAddress(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("not HOST:PORT or an absolute socket path: " + address);
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a port number: " + address.substring(colon + 1));
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("not a port number: " + port);
        }
        return new InetSocketAddress(host, port);
    }

    /** The TCP port listened on (for an address given with port 0), or -1 on a Unix socket. */
    public int port() {
        return tcp == null ? -1 : tcp.getLocalPort();
    }

    @Override
    public void close() {
        closing = true;
        try {
            if (tcp != null) {
                tcp.close();
            } else {
                unix.shutdown();
                unix.close();
                Files.deleteIfExists(unixPath);
            }
        } catch (IOException | KernelException e) {
            // closing anyway
        }
    }

    /** The answer to one request head. */
    byte[] answer(String head) {
        int end = head.indexOf("\r\n");
        String[] line = (end < 0 ? head : head.substring(0, end)).split(" ");
        if (line.length != 3 || !line[2].startsWith("HTTP/")) {
            return response("400 Bad Request", "text/plain; charset=utf-8", bytes("bad request\n"), false);
        }
        boolean headOnly = line[0].equals("HEAD");
        if (!line[0].equals("GET") && !headOnly) {
            return response("405 Method Not Allowed", "text/plain; charset=utf-8", bytes("GET /metrics\n"), false);
        }
        String path = line[1];
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        if (!path.equals("/metrics")) {
            return response("404 Not Found", "text/plain; charset=utf-8", bytes("jcni serves /metrics\n"), false);
        }
        return response("200 OK", "text/plain; version=0.0.4; charset=utf-8", metrics.render(), headOnly);
    }

    private static byte[] response(String status, String contentType, byte[] body, boolean headOnly) {
        byte[] head = bytes("HTTP/1.1 " + status + "\r\nContent-Type: " + contentType + "\r\nContent-Length: "
                + body.length + "\r\nConnection: close\r\n\r\n");
        if (headOnly) {
            return head;
        }
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The request head ends at its blank line; the body of a GET, if any, is not read. */
    private static int headEnd(byte[] b, int n) {
        for (int i = 3; i < n; i++) {
            if (b[i - 3] == '\r' && b[i - 2] == '\n' && b[i - 1] == '\r' && b[i] == '\n') {
                return i + 1;
            }
        }
        return -1;
    }

    /** Logs a refusal unless one was logged less than a second ago, so that a failing accept cannot flood the log. */
    private void refusal(String message) {
        long now = System.nanoTime();
        if (now - lastRefusal >= REFUSAL_INTERVAL_NANOS) {
            lastRefusal = now;
            log.refusal(message);
        }
    }

    private final class Serve implements Runnable {
        @Override
        public void run() {
            while (!closing) {
                try {
                    if (tcp != null) {
                        serveTcp();
                    } else {
                        serveUnix();
                    }
                } catch (IOException | KernelException e) {
                    if (!closing) {
                        refusal("metrics: " + e.getMessage());
                        pause();
                    }
                } catch (RuntimeException | Error e) {
                    log.failure("metrics: a scrape failed (the listener goes on)", e);
                    pause();
                }
            }
        }

        private void serveTcp() throws IOException {
            try (Socket conn = tcp.accept()) {
                conn.setSoTimeout((int) IO_TIMEOUT.toMillis());
                long deadline = System.nanoTime() + IO_TIMEOUT.toNanos();
                InputStream in = conn.getInputStream();
                byte[] b = new byte[MAX_HEAD];
                int n = 0;
                while (headEnd(b, n) < 0) {
                    if (n == b.length || System.nanoTime() > deadline) {
                        return;
                    }
                    int r = in.read(b, n, b.length - n);
                    if (r < 0) {
                        return;
                    }
                    n += r;
                }
                OutputStream out = conn.getOutputStream();
                out.write(answer(new String(b, 0, n, StandardCharsets.ISO_8859_1)));
                out.flush();
                conn.shutdownOutput();
            }
        }

        private void serveUnix() {
            UnixSocket conn = unix.accept();
            try {
                conn.timeouts(IO_TIMEOUT, IO_TIMEOUT);
                long deadline = System.nanoTime() + IO_TIMEOUT.toNanos();
                byte[] b = new byte[MAX_HEAD];
                int n = 0;
                while (headEnd(b, n) < 0) {
                    if (n == b.length || System.nanoTime() > deadline) {
                        return;
                    }
                    int r = conn.read(b, n, b.length - n);
                    if (r <= 0) {
                        return;
                    }
                    n += r;
                }
                conn.send(answer(new String(b, 0, n, StandardCharsets.ISO_8859_1)));
            } catch (KernelException e) {
                // the peer left or stalled: nothing to answer
            } finally {
                conn.close();
            }
        }

        private void pause() {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
