package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.Descriptor;
import io.jcni.netlink.sys.UnixSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One call as a client sent it ({@link Protocol}): checked against every limit before anything is allocated for it,
 * its descriptors owned until {@link #close()}.
 */
final class Request implements AutoCloseable {
    final String buildId;
    final String type;
    final Map<String, String> env;
    final byte[] stdin;
    final int netnsState;
    /** The client's network namespace, or null if it sent none. */
    final Descriptor ownNetns;
    /** The client's {@code /sys}, or null. */
    final Descriptor sysfs;
    /** The client's mount namespace, or null if it sent none (then also no {@link #mountInfo}). */
    final Descriptor mountNs;
    /** The client's {@code /proc/self/mountinfo}, or null. */
    final Descriptor mountInfo;
    /** CNI_NETNS as the client opened it, or null. */
    final Descriptor netns;
    private final List<Descriptor> descriptors;

    private Request(String buildId, String type, Map<String, String> env, byte[] stdin, int netnsState,
            Descriptor ownNetns, Descriptor sysfs, Descriptor mountNs, Descriptor mountInfo, Descriptor netns,
            List<Descriptor> descriptors) {
        this.buildId = buildId;
        this.type = type;
        this.env = env;
        this.stdin = stdin;
        this.netnsState = netnsState;
        this.ownNetns = ownNetns;
        this.sysfs = sysfs;
        this.mountNs = mountNs;
        this.mountInfo = mountInfo;
        this.netns = netns;
        this.descriptors = descriptors;
    }

    /**
     * Reads one request. The socket's receive timeout bounds every wait.
     *
     * @throws BadRequest    a request that breaks the protocol or its limits (nothing of it is kept)
     * @throws VersionSkew   a client of another protocol version (it understands 'M')
     * @throws KernelException the connection failed or timed out
     */
    static Request read(UnixSocket conn) throws BadRequest, VersionSkew {
        byte[] header = new byte[Protocol.HEADER_BYTES];
        UnixSocket.Received first = conn.receive(header, 0, header.length, Protocol.MAX_DESCRIPTORS);
        List<Descriptor> fds = first.descriptors();
        boolean keep = false;
        try {
            if (first.bytes() == 0) {
                throw new BadRequest("the connection ended before a request", true);
            }
            if (first.truncated()) {
                throw new BadRequest("malformed request: more than " + Protocol.MAX_DESCRIPTORS + " descriptors");
            }
            readFully(conn, header, first.bytes(), header.length - first.bytes());
            if (!Protocol.hasMagic(header)) {
                throw new BadRequest("malformed request: not a jcni plugin client");
            }
            ByteBuffer h = Protocol.view(header);
            int version = h.getShort(4) & 0xffff;
            if (version != Protocol.VERSION) {
                throw new VersionSkew("protocol " + version);
            }
            int netnsState = header[6];
            int flags = header[7];
            int idLength = h.getShort(8) & 0xffff;
            int typeLength = h.getShort(10) & 0xffff;
            long envLength = h.getInt(12) & 0xffffffffL;
            long stdinLength = h.getInt(16) & 0xffffffffL;
            if (netnsState < Protocol.NETNS_NONE || netnsState > Protocol.NETNS_UNOPENED
                    || (flags & ~Protocol.KNOWN_FLAGS) != 0
                    || h.getInt(20) != 0) {
                throw new BadRequest("malformed request: unknown flags");
            }
            if (idLength > Protocol.MAX_BUILD_ID || typeLength == 0 || typeLength > Protocol.MAX_TYPE) {
                throw new BadRequest("malformed request: build id or type of bad length");
            }
            if (envLength > Protocol.MAX_ENV || stdinLength > Protocol.MAX_STDIN
                    || ((flags & Protocol.FLAG_STDIN) == 0 && stdinLength != 0)) {
                throw new BadRequest("request too large: environment of " + envLength + " bytes (at most "
                        + Protocol.MAX_ENV + "), stdin of " + stdinLength + " bytes (at most " + Protocol.MAX_STDIN
                        + ")");
            }
            boolean own = (flags & Protocol.FLAG_OWN_NETNS) != 0;
            boolean sys = (flags & Protocol.FLAG_SYSFS) != 0;
            boolean mounts = (flags & Protocol.FLAG_MOUNTS) != 0;
            int expected = (own ? 1 : 0) + (sys ? 1 : 0) + (mounts ? 2 : 0)
                    + (netnsState == Protocol.NETNS_DESCRIPTOR ? 1 : 0);
            if (fds.size() != expected) {
                throw new BadRequest("malformed request: " + fds.size() + " descriptors, " + expected + " expected");
            }
            byte[] body = new byte[(int) (idLength + typeLength + envLength + stdinLength)];
            readFully(conn, body, 0, body.length);
            String buildId = new String(body, 0, idLength, StandardCharsets.UTF_8);
            String type = new String(body, idLength, typeLength, StandardCharsets.US_ASCII);
            Map<String, String> env = environment(body, idLength + typeLength, (int) envLength);
            int stdinAt = (int) (idLength + typeLength + envLength);
            byte[] stdin = new byte[(int) stdinLength];
            System.arraycopy(body, stdinAt, stdin, 0, stdin.length);
            int next = 0;
            Descriptor ownNetns = own ? fds.get(next++) : null;
            Descriptor sysfs = sys ? fds.get(next++) : null;
            Descriptor mountNs = mounts ? fds.get(next++) : null;
            Descriptor mountInfo = mounts ? fds.get(next++) : null;
            Descriptor netns = netnsState == Protocol.NETNS_DESCRIPTOR ? fds.get(next) : null;
            keep = true;
            return new Request(buildId, type, env, stdin, netnsState, ownNetns, sysfs, mountNs, mountInfo, netns,
                    fds);
        } finally {
            if (!keep) {
                first.closeDescriptors();
            }
        }
    }

    /**
     * The environment as the plugin sees it: "NAME=value" entries, each NUL-terminated, decoded as UTF-8 (bytes that
     * are not become U+FFFD, as a JVM decodes them, so the skel refuses such a CNI_IFNAME the same way); the first of
     * two entries with one name wins, as with getenv(3) and Go; an entry without '=' is skipped.
     */
    static Map<String, String> environment(byte[] bytes, int offset, int length) throws BadRequest {
        Map<String, String> env = new HashMap<>();
        int end = offset + length;
        if (length > 0 && bytes[end - 1] != 0) {
            throw new BadRequest("malformed request: the environment does not end with NUL");
        }
        int start = offset;
        for (int i = offset; i < end; i++) {
            if (bytes[i] == 0) {
                String entry = new String(bytes, start, i - start, StandardCharsets.UTF_8);
                int eq = entry.indexOf('=');
                if (eq > 0 && !env.containsKey(entry.substring(0, eq))) {
                    env.put(entry.substring(0, eq), entry.substring(eq + 1));
                }
                start = i + 1;
            }
        }
        return Collections.unmodifiableMap(env);
    }

    private static void readFully(UnixSocket conn, byte[] buffer, int offset, int length) throws BadRequest {
        int done = 0;
        while (done < length) {
            int n = conn.read(buffer, offset + done, length - done);
            if (n == 0) {
                throw new BadRequest("the connection ended in the middle of a request");
            }
            done += n;
        }
    }

    /** The value of an environment variable, or "". */
    String variable(String name) {
        String value = env.get(name);
        return value == null ? "" : value;
    }

    /** Closes every descriptor the client sent. Idempotent. */
    @Override
    public void close() {
        for (Descriptor d : descriptors) {
            d.close();
        }
    }

    /** A client speaking another protocol version: it gets 'M' and runs its JVM launcher. */
    static final class VersionSkew extends Exception {
        private static final long serialVersionUID = 1L;

        VersionSkew(String message) {
            super(message);
        }
    }
}
