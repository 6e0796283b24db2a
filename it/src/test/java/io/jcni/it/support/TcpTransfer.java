package io.jcni.it.support;

import io.jcni.netlink.NetNs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP transfer between two test namespaces, measured at the receiver: no tool, just this JVM's sockets, each one
 * created on a thread switched into its namespace ({@link NetNs#call}; a socket belongs to the namespace it was
 * created in) and used from any thread afterwards. The receiver listens on {@code address} (one of its addresses) at
 * a free port.
 *
 * <p>The rate is the steady state: bytes received after the first {@code skip} ones, over the time they took, so that
 * a token bucket's burst and TCP's slow start are left out.
 */
public final class TcpTransfer {
    private static final int CHUNK = 64 * 1024;

    private TcpTransfer() {
    }

    /**
     * What one transfer measured.
     *
     * @param bytes the bytes of the measured window
     * @param nanos the time they took
     * @param total everything received
     * @param totalNanos from the first byte to the last
     */
    public record Rate(long bytes, long nanos, long total, long totalNanos) {
        public double bitsPerSecond() {
            return bytes * 8.0 * 1e9 / nanos;
        }

        @Override
        public String toString() {
            return String.format("%.3f Mbit/s (%d bytes in %.3f s after the first %d; %d bytes in %.3f s in all)",
                    bitsPerSecond() / 1e6, bytes, nanos / 1e9, total - bytes, total, totalNanos / 1e9);
        }
    }

    /** Sends {@code total} bytes from {@code sender}'s namespace to {@code receiver}'s, listening on {@code address}. */
    public static Rate measure(TestNetns sender, TestNetns receiver, InetAddress address, long total, long skip) {
        return measure(sender.path(), receiver.path(), address, total, skip);
    }

    /**
     * The same between namespaces given by path: a pod's that a runtime made ({@code /proc/PID/ns/net}) or a test
     * host's.
     */
    public static Rate measure(Path sender, Path receiver, InetAddress address, long total, long skip) {
        try (NetNs tx = NetNs.open(sender); NetNs rx = NetNs.open(receiver);
                ServerSocketChannel server = rx.call(() -> {
                    ServerSocketChannel s = ServerSocketChannel.open();
                    s.bind(new InetSocketAddress(address, 0));
                    return s;
                })) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (SocketChannel client = tx.call(() -> SocketChannel.open(new InetSocketAddress(address, port)));
                    SocketChannel accepted = server.accept()) {
                AtomicReference<Throwable> failed = new AtomicReference<>();
                Thread writer = Thread.ofPlatform().name("tcp-transfer-sender").start(() -> {
                    try (OutputStream out = client.socket().getOutputStream()) {
                        byte[] chunk = new byte[CHUNK];
                        for (long sent = 0; sent < total; sent += CHUNK) {
                            out.write(chunk, 0, (int) Math.min(CHUNK, total - sent));
                        }
                    } catch (IOException | RuntimeException e) {
                        failed.set(e);
                    }
                });
                accepted.socket().setSoTimeout(60_000);
                InputStream in = accepted.socket().getInputStream();
                byte[] buffer = new byte[CHUNK];
                long received = 0;
                long first = 0;
                long windowStart = 0;
                long windowBytes = 0;
                while (true) {
                    int n = in.read(buffer);
                    if (n < 0) {
                        break;
                    }
                    long now = System.nanoTime();
                    if (received == 0) {
                        first = now;
                    }
                    received += n;
                    if (windowStart == 0 && received >= skip) {
                        windowStart = now;
                        windowBytes = received;
                    }
                }
                long end = System.nanoTime();
                writer.join(60_000);
                if (failed.get() != null) {
                    throw new AssertionError("the sender failed", failed.get());
                }
                if (received != total || windowStart == 0) {
                    throw new AssertionError("received " + received + " of " + total + " bytes");
                }
                return new Rate(received - windowBytes, end - windowStart, received, end - first);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** The slice of time in which {@link #measureAfterBurst} watches the arrival rate for the bucket's end. */
    private static final long SLICE_NANOS = 100_000_000;

    /**
     * The steady-state rate behind a token bucket whose burst is too large to skip by a byte count: the sender sends
     * without end, and the receiver watches the bytes of each 100 ms. The bucket is empty when three slices in a row
     * bring less than a tenth of the fastest slice so far (at line rate a slice brings tens of megabytes, at a shaped
     * rate of a few Mbit/s a hundred kilobytes: a pause of the sender on a loaded machine lasts one slice, not three);
     * then {@code skip} more bytes are left out and the next {@code window} bytes measured, and the receiver closes.
     * Fails after {@code timeoutSeconds} without a result (a bucket that never empties: no shaping).
     */
    public static Rate measureAfterBurst(Path sender, Path receiver, InetAddress address, long window, long skip,
            int timeoutSeconds) {
        try (NetNs tx = NetNs.open(sender); NetNs rx = NetNs.open(receiver);
                ServerSocketChannel server = rx.call(() -> {
                    ServerSocketChannel s = ServerSocketChannel.open();
                    s.bind(new InetSocketAddress(address, 0));
                    return s;
                })) {
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (SocketChannel client = tx.call(() -> SocketChannel.open(new InetSocketAddress(address, port)));
                    SocketChannel accepted = server.accept()) {
                java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
                AtomicReference<Throwable> failed = new AtomicReference<>();
                Thread writer = Thread.ofPlatform().name("tcp-transfer-sender").start(() -> {
                    try (OutputStream out = client.socket().getOutputStream()) {
                        byte[] chunk = new byte[CHUNK];
                        while (!done.get()) {
                            out.write(chunk);
                        }
                    } catch (IOException | RuntimeException e) {
                        if (!done.get()) {
                            failed.set(e); // the receiver's close ends the sender with an error: expected then
                        }
                    }
                });
                accepted.socket().setSoTimeout(timeoutSeconds * 1000);
                InputStream in = accepted.socket().getInputStream();
                byte[] buffer = new byte[CHUNK];
                long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
                long received = 0;
                long first = 0;
                long sliceStart = 0;
                long sliceBytes = 0;
                long fastest = 0;
                int slowSlices = 0;
                long emptyAt = -1; // bytes received when the bucket was seen empty
                long windowStart = 0;
                long windowFrom = 0;
                try {
                    while (true) {
                        int n = in.read(buffer);
                        long now = System.nanoTime();
                        if (n < 0) {
                            throw new AssertionError("the sender stopped after " + received + " bytes");
                        }
                        if (now > deadline) {
                            throw new AssertionError("no steady rate after " + timeoutSeconds + " s and " + received
                                    + " bytes (the fastest 100 ms brought " + fastest + " bytes)");
                        }
                        if (received == 0) {
                            first = now;
                            sliceStart = now;
                        }
                        received += n;
                        if (emptyAt < 0) {
                            sliceBytes += n;
                            if (now - sliceStart >= SLICE_NANOS) {
                                fastest = Math.max(fastest, sliceBytes);
                                slowSlices = sliceBytes * 10 < fastest ? slowSlices + 1 : 0;
                                if (slowSlices == 3) {
                                    emptyAt = received;
                                }
                                sliceStart = now;
                                sliceBytes = 0;
                            }
                        } else if (windowStart == 0 && received >= emptyAt + skip) {
                            windowStart = now;
                            windowFrom = received;
                        } else if (windowStart != 0 && received - windowFrom >= window) {
                            return new Rate(received - windowFrom, now - windowStart, received, now - first);
                        }
                    }
                } finally {
                    done.set(true);
                    accepted.close();
                    writer.join(60_000);
                    if (failed.get() != null) {
                        throw new AssertionError("the sender failed", failed.get());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
