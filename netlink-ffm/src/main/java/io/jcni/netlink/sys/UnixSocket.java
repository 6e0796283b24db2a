package io.jcni.netlink.sys;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.internal.ffm.UnixChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client connection to a Unix stream socket ({@code socat - UNIX-CONNECT:PATH}), with reads that wait at most a
 * given time: how a plugin talks to a local daemon (the dhcp plugin to {@code dhcp daemon}) without paying for the
 * JDK's Unix-domain channels, whose first use loads the security providers (see {@code UnixChannel}).
 *
 * <p>Not thread-safe: one call at a time, {@link #close()} only when none runs. Writing to a peer that closed its end
 * fails with EPIPE (no signal). Failures are {@link KernelException}s naming the call and the path:
 * {@code connect /run/x.sock: ENOENT (No such file or directory)} ({@link KernelException.Kind#NOT_FOUND}),
 * {@code ECONNREFUSED} when nothing listens there.
 */
public final class UnixSocket implements AutoCloseable {
    private final UnixChannel channel;
    private final AtomicBoolean closed = new AtomicBoolean();

    private UnixSocket(UnixChannel channel) {
        this.channel = channel;
    }

    /** Connects to the socket at {@code path} (at most 107 bytes, as {@code sockaddr_un} holds). */
    public static UnixSocket connect(Path path) {
        return new UnixSocket(UnixChannel.connect(path.toString()));
    }

    /** Writes all of {@code data[offset, offset + length)}. */
    public void write(byte[] data, int offset, int length) {
        channel.write(data, offset, length);
    }

    /**
     * Reads up to {@code length} bytes, waiting at most {@code timeoutMillis}: how many came, 0 if none came in time,
     * -1 at the end of the stream (the peer closed).
     */
    public int read(byte[] data, int offset, int length, long timeoutMillis) {
        return channel.read(data, offset, length, timeoutMillis);
    }

    /**
     * Fills {@code data[offset, offset + length)} before {@code deadline} ({@link System#currentTimeMillis()}):
     * true when it did, false when the peer closed first.
     *
     * @throws KernelException EAGAIN when the deadline passed first
     */
    public boolean readFully(byte[] data, int offset, int length, long deadline) {
        int done = 0;
        while (done < length) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                throw new KernelException("receive", KernelException.Kind.OTHER, "no answer in time", null);
            }
            int n = channel.read(data, offset + done, length - done, left);
            if (n < 0) {
                return false;
            }
            done += n;
        }
        return true;
    }

    /** Closes the connection. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            channel.close();
        }
    }
}
