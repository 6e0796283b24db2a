package io.jcni.plugins.internal.ipam.dhcp;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.sys.UnixSocket;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniResult;
import io.jcni.spec.JsonObject;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The plugin's side of {@link DaemonProtocol}: one connection per call, the request written, the reply read within a
 * bound (a daemon that hangs cannot hang the plugin), the daemon's error rethrown as the CNI error it is.
 *
 * <p>Over netlink-ffm's {@link UnixSocket}, not the JDK's Unix-domain channels: their first use loads the security
 * providers (about 25 ms of each exec, measured), and an interface plugin that runs dhcp in-process has FFM linked
 * already.
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
     * The daemon must run as root or as this plugin's user (issue 23, decided; Go's plugin talks to whatever listens
     * on {@code daemonSocketPath}): leases, and the addresses the plugin puts on interfaces, come from it. Anyone else
     * listening there (a socket left in a directory others can write) is refused with code 5, nothing sent.
     */
    private static void requireTrusted(UnixSocket c, Path socket) throws CniException {
        int uid = c.peer().uid();
        int own;
        try {
            own = (Integer) java.nio.file.Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (java.io.IOException | RuntimeException e) {
            own = 0;
        }
        if (uid != 0 && uid != own) {
            throw new CniException(CniError.IO_FAILURE, "the dhcp daemon at " + socket + " runs as uid " + uid
                    + ", neither root nor this plugin's user: not trusted", "start jcni's dhcp daemon as root (dhcp"
                    + " daemon, or its systemd units), or point daemonSocketPath at its socket");
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
        Netlink.checkAvailable();
        UnixSocket connection;
        try {
            connection = UnixSocket.connect(socket);
        } catch (KernelException e) {
            throw new Unreachable(reason(e), e);
        }
        Timing.phase("connect");
        byte[] frame;
        try (UnixSocket c = connection) {
            requireTrusted(c, socket);
            long deadline = System.currentTimeMillis() + timeoutMillis;
            byte[] body = CniJson.encode(request);
            byte[] out = new byte[4 + body.length];
            putInt(out, body.length);
            System.arraycopy(body, 0, out, 4, body.length);
            c.send(out);
            byte[] header = new byte[4];
            if (!c.readFully(header, 0, 4, deadline)) {
                throw closed(socket, "no answer");
            }
            int length = ((header[0] & 0xff) << 24) | ((header[1] & 0xff) << 16) | ((header[2] & 0xff) << 8)
                    | (header[3] & 0xff);
            if (length <= 0 || length > DaemonProtocol.MAX_FRAME) {
                throw new CniException(CniError.DECODING_FAILURE, "the dhcp daemon at " + socket
                        + " answered a frame of " + Integer.toUnsignedString(length) + " bytes");
            }
            frame = new byte[length];
            if (!c.readFully(frame, 0, length, deadline)) {
                throw closed(socket, "half an answer");
            }
            Timing.phase("daemon");
        } catch (KernelException e) {
            if (UnixSocket.isTimeout(e)) {
                throw new CniException(CniError.TRY_AGAIN_LATER, "no answer from the dhcp daemon at " + socket
                        + " within " + timeoutMillis / 1000 + " s");
            }
            throw closed(socket, reason(e));
        }
        return DaemonProtocol.parseReply(CniJson.parse(frame));
    }

    private static CniException closed(Path socket, String what) {
        return new CniException(CniError.TRY_AGAIN_LATER, "the dhcp daemon at " + socket
                + " closed the connection: " + what, "did the daemon stop?");
    }

    private static void putInt(byte[] out, int value) {
        out[0] = (byte) (value >>> 24);
        out[1] = (byte) (value >>> 16);
        out[2] = (byte) (value >>> 8);
        out[3] = (byte) value;
    }

    /** The kernel's reason without the operation, which the caller's message names already. */
    private static String reason(KernelException e) {
        String message = e.getMessage();
        String prefix = e.operation() + ": ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }
}
