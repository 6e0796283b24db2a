package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.JsonObject;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The plugin's side of {@link DaemonProtocol}: one connection per call, the request written, the reply read within a
 * bound (a daemon that hangs cannot hang the plugin), the daemon's error rethrown as the CNI error it is.
 */
final class DaemonClient {
    private DaemonClient() {
    }

    /** The daemon cannot be reached at all (no socket, nobody listening, no permission). */
    static final class Unreachable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * Sends {@code request} to the daemon at {@code socket} and waits up to {@code timeoutMillis} for its reply.
     *
     * @return the reply's result, empty for a reply without one
     * @throws Unreachable when no connection could be made
     * @throws CniException the daemon's error; code 11 when it closed the connection or did not answer in time
     */
    static Optional<CniResult> call(Path socket, JsonObject request, long timeoutMillis)
            throws Unreachable, CniException {
        SocketChannel channel;
        try {
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        } catch (IOException e) {
            throw new Unreachable("cannot open a Unix socket: " + e.getMessage(), e);
        }
        try (SocketChannel c = channel) {
            try {
                c.connect(UnixDomainSocketAddress.of(socket));
            } catch (IOException e) {
                throw new Unreachable(reason(e), e);
            }
            Watchdog watchdog = new Watchdog(c, timeoutMillis);
            Thread timer = new Thread(watchdog, "jcni-dhcp-client-timeout");
            timer.setDaemon(true);
            timer.start();
            byte[] frame;
            try {
                DaemonProtocol.write(c, request);
                frame = DaemonProtocol.read(c);
            } catch (AsynchronousCloseException e) {
                throw new CniException(CniError.TRY_AGAIN_LATER, "no answer from the dhcp daemon at " + socket
                        + " within " + timeoutMillis / 1000 + " s");
            } catch (IOException e) {
                throw new CniException(CniError.TRY_AGAIN_LATER, "the dhcp daemon at " + socket
                        + " closed the connection without an answer: " + reason(e), "did the daemon stop?");
            } finally {
                timer.interrupt();
            }
            return DaemonProtocol.parseReply(CniJson.parse(frame));
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "dhcp daemon connection: " + reason(e));
        }
    }

    private static String reason(IOException e) {
        String message = e.getMessage();
        return message == null || message.isEmpty() ? "failed" : message;
    }

    /** Closes the connection when the reply is late: the blocked read then ends. A class, not a lambda. */
    private static final class Watchdog implements Runnable {
        private final SocketChannel channel;
        private final long millis;

        Watchdog(SocketChannel channel, long millis) {
            this.channel = channel;
            this.millis = millis;
        }

        @Override
        public void run() {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                return; // the reply came
            }
            try {
                channel.close();
            } catch (IOException ignored) {
                // closing is all there is to do
            }
        }
    }
}
