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
        try (NetNs tx = NetNs.open(sender.path()); NetNs rx = NetNs.open(receiver.path());
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
}
