package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The daemon's Unix socket ({@code /run/cni/dhcp.sock} by default, Go's path): accepts connections and answers each
 * one's request ({@link DaemonProtocol}) from a {@link LeaseManager}. Robust against its clients: a request must
 * arrive within {@value #REQUEST_MILLIS} ms, a frame is bounded, anything malformed gets an error frame and the
 * connection is closed; nothing a client sends ends the server. At most {@value #MAX_CONNECTIONS} requests run at
 * once; a client beyond that gets code 11 ("busy") at once.
 *
 * <p>The socket file is created with mode 0660 in a directory created 0700 if missing (as Go's daemon and its systemd
 * socket unit do); a stale socket file (nothing accepts on it) is replaced, a live one is refused (another daemon
 * runs), anything else at the path is refused. {@link #close()} removes it.
 */
public final class DaemonServer implements AutoCloseable {
    /** How long a client may take to send its request. */
    static final long REQUEST_MILLIS = 10_000;
    static final int MAX_CONNECTIONS = 32;

    private final Path path;
    private final ServerSocketChannel listener;
    private final LeaseManager manager;
    private final DaemonLog log;
    private final ThreadPoolExecutor workers;
    private final ScheduledThreadPoolExecutor timers;
    private final long requestMillis;
    /** Whether {@link #close()} removes the socket file (not one the service manager made). */
    private final boolean owned;
    private volatile boolean closed;

    private DaemonServer(Path path, ServerSocketChannel listener, LeaseManager manager, PrintStream log,
            boolean owned, long requestMillis) {
        this.path = path;
        this.requestMillis = requestMillis;
        this.owned = owned;
        this.listener = listener;
        this.manager = manager;
        this.log = new DaemonLog(log);
        this.workers = new ThreadPoolExecutor(0, MAX_CONNECTIONS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                new LeaseManager.Threads("jcni-dhcp-request-"));
        this.timers = new ScheduledThreadPoolExecutor(1, new LeaseManager.Threads("jcni-dhcp-timer-"));
        timers.setRemoveOnCancelPolicy(true);
    }

    /** Binds the socket at {@code path} (see the class comment for what is there already). */
    public static DaemonServer bind(Path path, LeaseManager manager, PrintStream log) throws IOException {
        return bind(path, manager, log, REQUEST_MILLIS);
    }

    /** As {@link #bind(Path, LeaseManager, PrintStream)} with another time limit for requests (tests). */
    static DaemonServer bind(Path path, LeaseManager manager, PrintStream log, long requestMillis)
            throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            Files.createDirectories(parent, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
        }
        requirePrivate(parent);
        clearStale(path);
        ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            listener.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-rw----"));
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
        return new DaemonServer(path, listener, manager, log, true, requestMillis);
    }

    /**
     * A listening socket inherited from the service manager (systemd's {@code StandardInput=socket}: the socket unit's
     * listener as the daemon's stdin), which this server serves but does not remove.
     */
    public static DaemonServer inherited(ServerSocketChannel listener, LeaseManager manager, PrintStream log)
            throws IOException {
        UnixDomainSocketAddress address = (UnixDomainSocketAddress) listener.getLocalAddress();
        return new DaemonServer(address.getPath(), listener, manager, log, false, REQUEST_MILLIS);
    }

    /**
     * The socket's directory must not be writable by others (issue 23, decided; Go's daemon accepts any): whoever can
     * write there can replace the socket with one of their own between two runs of the daemon, and plugins would send
     * them their requests. Root's {@code /run/cni} (0755) and a 0700 directory pass; {@code /tmp} does not.
     */
    private static void requirePrivate(Path dir) throws IOException {
        if (dir == null) {
            return;
        }
        java.nio.file.attribute.PosixFileAttributes attrs = Files.readAttributes(dir,
                java.nio.file.attribute.PosixFileAttributes.class);
        java.util.Set<java.nio.file.attribute.PosixFilePermission> perms = attrs.permissions();
        if (perms.contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                || perms.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("the socket's directory " + dir + " is writable by others ("
                    + PosixFilePermissions.toString(perms) + "): another user could put a socket of theirs in its"
                    + " place; use a directory only root can write (the default is /run/cni)");
        }
    }

    private static void clearStale(Path path) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        if ((mode & 0170000) != 0140000) {
            throw new IOException(path + " exists and is not a socket; not replacing it");
        }
        boolean live;
        try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
            live = probe.isConnected();
        } catch (IOException e) {
            live = false;
        }
        if (live) {
            throw new IOException("another daemon answers on " + path);
        }
        Files.delete(path); // nobody listens: left by a daemon that was killed
    }

    public Path path() {
        return path;
    }

    /** Accepts and serves connections on the calling thread until {@link #close()}. */
    public void serve() {
        while (!closed) {
            SocketChannel connection;
            try {
                connection = listener.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (closed) {
                    return;
                }
                log.log("accept on " + path + " failed: " + e.getMessage());
                pause();
                continue;
            }
            try {
                workers.execute(new Connection(this, connection));
            } catch (RejectedExecutionException e) {
                busy(connection);
            }
        }
    }

    private void busy(SocketChannel connection) {
        try (SocketChannel c = connection) {
            DaemonProtocol.write(c, DaemonProtocol.error(new CniError(CniError.TRY_AGAIN_LATER,
                    "the dhcp daemon is busy: " + MAX_CONNECTIONS + " requests are running")));
        } catch (IOException ignored) {
            // the client went away too
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One connection: read the request (bounded in time and size), answer it, close. */
    private static final class Connection implements Runnable {
        private final DaemonServer server;
        private final SocketChannel channel;

        Connection(DaemonServer server, SocketChannel channel) {
            this.server = server;
            this.channel = channel;
        }

        @Override
        public void run() {
            try (SocketChannel c = channel) {
                byte[] frame;
                ScheduledFuture<?> deadline = server.timers.schedule(new CloseLate(c), server.requestMillis,
                        TimeUnit.MILLISECONDS);
                try {
                    frame = DaemonProtocol.read(c);
                } catch (DaemonProtocol.FrameException e) {
                    answer(c, DaemonProtocol.error(new CniError(CniError.DECODING_FAILURE,
                            "dhcp daemon: bad request: " + e.getMessage())));
                    return;
                } catch (ClosedChannelException e) {
                    server.log.log("a client sent no complete request within " + server.requestMillis + " ms");
                    return;
                } catch (EOFException e) {
                    return; // a probe (the daemon's own stale-socket check, a STATUS that gave up)
                } finally {
                    deadline.cancel(false);
                }
                DaemonProtocol.Request request;
                try {
                    request = DaemonProtocol.parseRequest(CniJson.parse(frame));
                } catch (CniException e) {
                    answer(c, DaemonProtocol.error(e.error()));
                    return;
                }
                LeaseManager.Answer reply = server.manager.handle(request);
                if (!answer(c, reply.reply())) {
                    server.manager.abandon(reply);
                }
            } catch (IOException e) {
                server.log.log("connection failed: " + e.getMessage());
            } catch (RuntimeException e) {
                server.log.log("internal error serving a request: " + e);
            }
        }

        /** Writes the reply; false when the client is gone. */
        private boolean answer(SocketChannel c, JsonObject reply) {
            try {
                DaemonProtocol.write(c, reply);
                return true;
            } catch (IOException e) {
                return false;
            }
        }
    }

    /** Closes a connection whose request did not arrive in time: its blocked read ends. */
    private static final class CloseLate implements Runnable {
        private final SocketChannel channel;

        CloseLate(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public void run() {
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing is all there is to do
            }
        }
    }

    /** Stops accepting, lets running requests finish (up to five seconds), removes the socket file. */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing is all there is to do
        }
        workers.shutdown();
        try {
            workers.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timers.shutdownNow();
        if (!owned) {
            return;
        }
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.log("cannot remove " + path + ": " + e.getMessage());
        }
    }
}
