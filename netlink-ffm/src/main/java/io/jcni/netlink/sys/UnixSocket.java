package io.jcni.netlink.sys;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.internal.ffm.NativeAccess;
import io.jcni.netlink.internal.ffm.SocketCalls;
import io.jcni.netlink.internal.wire.Errno;
import io.jcni.netlink.internal.wire.SocketH;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A Unix domain stream socket with what the JDK's {@code SocketChannel} lacks: descriptors passed with
 * {@code SCM_RIGHTS} (sent and received), adopting a listening socket inherited from systemd (socket activation), and
 * receive and send timeouts ({@code SO_RCVTIMEO}, {@code SO_SNDTIMEO}). The peer's credentials ({@code SO_PEERCRED})
 * too. Blocking calls on the calling thread; use platform threads (a virtual thread would pin its carrier).
 *
 * <p>Failures are {@link KernelException}s naming the call ({@code connect /run/x.sock: ENOENT (No such file or
 * directory)}); a timeout is errno {@code EAGAIN} ({@link #isTimeout}), a peer that has gone {@code EPIPE} or
 * {@code ECONNRESET} on send. A send never raises SIGPIPE.
 *
 * <p>Threads: one thread receives and one sends at a time. {@link #shutdown()} may be called from any thread and
 * wakes a thread blocked in {@link #accept()} or {@link #receive}; {@link #close()} only once no thread uses the
 * socket any more (the number is then free for reuse by the process).
 */
public final class UnixSocket implements AutoCloseable {
    private final int fd;
    private final String name;
    private final AtomicBoolean closed = new AtomicBoolean();

    private UnixSocket(int fd, String name) {
        this.fd = fd;
        this.name = name;
    }

    /**
     * A socket bound to {@code path} and listening, with room for {@code backlog} connections not yet accepted. The
     * socket file is created with the process's umask; nothing is removed or changed at {@code path} beforehand (an
     * existing file is EADDRINUSE). Close the socket and remove the file to stop.
     */
    public static UnixSocket listen(Path path, int backlog) {
        NativeAccess.check();
        return new UnixSocket(SocketCalls.listen(path.toString(), backlog), path.toString());
    }

    /** A socket connected to the listening socket at {@code path}. */
    public static UnixSocket connect(Path path) {
        NativeAccess.check();
        return new UnixSocket(SocketCalls.connect(path.toString()), path.toString());
    }

    /**
     * Adopts {@code fd}, a listening Unix stream socket this process inherited (systemd socket activation passes it
     * as descriptor 3 and up). Checked before it is used: anything else is refused with INVALID (and left open, as it
     * is not this object's). Marked close-on-exec, so that processes started later do not inherit it.
     */
    public static UnixSocket inherited(int fd) {
        NativeAccess.check();
        String what = "inherited descriptor " + fd;
        int domain = SocketCalls.intOption(fd, SocketH.SOL_SOCKET, SocketH.SO_DOMAIN, "SO_DOMAIN of " + what);
        int type = SocketCalls.intOption(fd, SocketH.SOL_SOCKET, SocketH.SO_TYPE, "SO_TYPE of " + what);
        int listening = SocketCalls.intOption(fd, SocketH.SOL_SOCKET, SocketH.SO_ACCEPTCONN,
                "SO_ACCEPTCONN of " + what);
        if (domain != SocketH.AF_UNIX || type != SocketH.SOCK_STREAM || listening == 0) {
            throw new KernelException(what, Errno.EINVAL, "not a listening Unix stream socket (domain " + domain
                    + ", type " + type + ", listening " + (listening != 0) + ")", null);
        }
        SocketCalls.setCloseOnExec(fd);
        return new UnixSocket(fd, what);
    }

    /** Whether {@code e} is a receive or send timeout ({@code EAGAIN}). */
    public static boolean isTimeout(KernelException e) {
        return e.errno() == Errno.EAGAIN;
    }

    /** The next connection; blocks until there is one, or fails (EINVAL) once {@link #shutdown()} was called. */
    public UnixSocket accept() {
        return new UnixSocket(SocketCalls.accept(fd()), "connection on " + name);
    }

    /** The peer's credentials when it connected ({@code SO_PEERCRED}). */
    public PeerCredentials peer() {
        int[] cred = SocketCalls.peerCredentials(fd());
        return new PeerCredentials(cred[0], cred[1], cred[2]);
    }

    /**
     * After these timeouts a blocked receive or send fails with {@code EAGAIN} ({@link #isTimeout}); zero for none,
     * the default.
     */
    public void timeouts(Duration receive, Duration send) {
        SocketCalls.timeout(fd(), SocketH.SO_RCVTIMEO, receive.toMillis(), "SO_RCVTIMEO");
        SocketCalls.timeout(fd(), SocketH.SO_SNDTIMEO, send.toMillis(), "SO_SNDTIMEO");
    }

    /** What one {@link #receive} got. */
    public record Received(int bytes, List<Descriptor> descriptors, boolean truncated) {
        /** Closes every descriptor received (idempotent). */
        public void closeDescriptors() {
            for (Descriptor d : descriptors) {
                d.close();
            }
        }
    }

    /**
     * Receives up to {@code length} bytes into {@code buffer} (0 at the end of the stream), with up to
     * {@code maxDescriptors} descriptors the peer attached to them; the kernel closes any beyond that and says so
     * ({@link Received#truncated()}). The caller owns the descriptors received. Descriptors attached to bytes read
     * by {@link #read} instead are closed by the kernel.
     */
    public Received receive(byte[] buffer, int offset, int length, int maxDescriptors) {
        int[] fds = new int[maxDescriptors + 1];
        int n = SocketCalls.receive(fd(), buffer, offset, length, maxDescriptors, fds);
        int count = Math.abs(fds[0]);
        List<Descriptor> received = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            received.add(Descriptor.adopt(fds[1 + i]));
        }
        return new Received(n, List.copyOf(received), fds[0] < 0);
    }

    /** Receives up to {@code length} bytes into {@code buffer}; 0 at the end of the stream. */
    public int read(byte[] buffer, int offset, int length) {
        return SocketCalls.receive(fd(), buffer, offset, length, 0, new int[1]);
    }

    /**
     * Fills {@code buffer[offset, offset + length)} before {@code deadline} (in {@link System#currentTimeMillis()}'s
     * terms): true when it did, false when the peer closed first. It sets the receive timeout to what is left before
     * each read, so a peer that stops answering cannot hold the caller past the deadline (the dhcp plugin waiting for
     * its daemon).
     *
     * @throws KernelException EAGAIN ({@link #isTimeout}) when the deadline passed first
     */
    public boolean readFully(byte[] buffer, int offset, int length, long deadline) {
        int done = 0;
        while (done < length) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new KernelException("receive on " + name, Errno.EAGAIN, "no answer in time", null);
            }
            SocketCalls.timeout(fd(), SocketH.SO_RCVTIMEO, left, "SO_RCVTIMEO");
            int n = read(buffer, offset + done, length - done);
            if (n == 0) {
                return false;
            }
            done += n;
        }
        return true;
    }

    /** Sends all of {@code bytes[offset, offset + length)}; {@code descriptors} travel with the first bytes. */
    public void send(byte[] bytes, int offset, int length, List<Descriptor> descriptors) {
        int[] fds = null;
        if (!descriptors.isEmpty()) {
            if (length == 0) {
                throw new IllegalArgumentException("descriptors travel with data: send at least one byte");
            }
            fds = new int[descriptors.size()];
            for (int i = 0; i < fds.length; i++) {
                fds[i] = descriptors.get(i).fd();
            }
        }
        int done = 0;
        while (done < length || fds != null) {
            done += SocketCalls.send(fd(), bytes, offset + done, length - done, fds);
            fds = null;
        }
    }

    /** Sends all of {@code bytes}. */
    public void send(byte[] bytes) {
        send(bytes, 0, bytes.length, List.of());
    }

    /**
     * Whether the peer has closed the connection (exited, or was killed), without reading anything or blocking: a
     * byte peeked with {@code MSG_DONTWAIT}. Data the peer sent and nobody read yet counts as "still there". Safe to
     * call from another thread than the one receiving and sending.
     */
    public boolean peerClosed() {
        return SocketCalls.peerClosed(fd());
    }

    /** {@code shutdown(SHUT_RDWR)}: ends the connection both ways, or stops a listening socket's {@link #accept()}. */
    public void shutdown() {
        if (!closed.get()) {
            SocketCalls.shutdown(fd);
        }
    }

    /** The descriptor's number. */
    public int fd() {
        if (closed.get()) {
            throw new KernelException(name, Errno.EBADF, "closed", null);
        }
        return fd;
    }

    /** Closes the socket (not the file of a listening socket's path). Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            SocketCalls.close(fd);
        }
    }

    @Override
    public String toString() {
        return "unix socket " + name;
    }
}
