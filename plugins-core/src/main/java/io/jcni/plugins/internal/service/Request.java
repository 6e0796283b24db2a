package io.jcni.plugins.internal.service;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.sys.Descriptor;
import io.jcni.netlink.sys.UnixSocket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
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
    /** The client's root directory ({@code /} as it resolves it; a chroot's), or null. */
    final Descriptor root;
    /** The client's working directory, or null. */
    final Descriptor cwd;
    /** CNI_NETNS as the client opened it, or null. */
    final Descriptor netns;
    private final List<Descriptor> descriptors;
    /** The network the call is about, once {@link ServiceCall#network} found it. */
    String network;

    private Request(String buildId, String type, Map<String, String> env, byte[] stdin, int netnsState,
            Descriptor ownNetns, Descriptor sysfs, Descriptor mountNs, Descriptor mountInfo, Descriptor root,
            Descriptor cwd, Descriptor netns, List<Descriptor> descriptors) {
        this.buildId = buildId;
        this.type = type;
        this.env = env;
        this.stdin = stdin;
        this.netnsState = netnsState;
        this.ownNetns = ownNetns;
        this.sysfs = sysfs;
        this.mountNs = mountNs;
        this.mountInfo = mountInfo;
        this.root = root;
        this.cwd = cwd;
        this.netns = netns;
        this.descriptors = descriptors;
    }

    /**
     * Reads one request whole, before {@code deadline} ({@link System#nanoTime()}): the header, then the body. See
     * {@link Header#read} and {@link Header#readBody}; the service admits the call between the two.
     */
    static Request read(UnixSocket conn, long deadline) throws BadRequest, VersionSkew {
        Header header = Header.read(conn, deadline);
        try {
            return header.readBody(conn, deadline);
        } finally {
            header.closeUnclaimed();
        }
    }

    /**
     * A request's fixed part and its descriptors, checked: how much more is coming. Owns the descriptors until
     * {@link #readBody} hands them to the request (or {@link #closeUnclaimed} closes them).
     */
    static final class Header {
        final int netnsState;
        final int flags;
        final int idLength;
        final int typeLength;
        final long envLength;
        final long stdinLength;
        private final List<Descriptor> fds;
        private boolean claimed;

        private Header(int netnsState, int flags, int idLength, int typeLength, long envLength, long stdinLength,
                List<Descriptor> fds) {
            this.netnsState = netnsState;
            this.flags = flags;
            this.idLength = idLength;
            this.typeLength = typeLength;
            this.envLength = envLength;
            this.stdinLength = stdinLength;
            this.fds = fds;
        }

        /**
         * Reads and checks the header and its descriptors, every receive bounded by what is left before
         * {@code deadline}: a client sending a byte now and then is dropped at the deadline, not after its last byte.
         *
         * @throws BadRequest      a request that breaks the protocol or its limits (nothing of it is kept), or one
         *                         that did not arrive before the deadline
         * @throws VersionSkew     a client of another protocol version (it understands 'M')
         * @throws KernelException the connection failed
         */
        static Header read(UnixSocket conn, long deadline) throws BadRequest, VersionSkew {
            byte[] header = new byte[Protocol.HEADER_BYTES];
            receiveTimeout(conn, deadline);
            UnixSocket.Received first;
            try {
                first = conn.receive(header, 0, header.length, Protocol.MAX_DESCRIPTORS);
            } catch (KernelException e) {
                throw timeoutOr(e);
            }
            boolean keep = false;
            try {
                if (first.bytes() == 0) {
                    throw new BadRequest("the connection ended before a request", true);
                }
                if (first.truncated()) {
                    throw new BadRequest("malformed request: more than " + Protocol.MAX_DESCRIPTORS + " descriptors");
                }
                readFully(conn, header, first.bytes(), header.length - first.bytes(), deadline);
                Header parsed = parse(header, first.descriptors());
                keep = true;
                return parsed;
            } finally {
                if (!keep) {
                    first.closeDescriptors();
                }
            }
        }

        /** The header's fields, checked against the protocol, its limits and the descriptors that came with it. */
        private static Header parse(byte[] header, List<Descriptor> fds) throws BadRequest, VersionSkew {
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
                        + Protocol.MAX_ENV + "), stdin of " + stdinLength + " bytes (at most "
                        + Protocol.MAX_STDIN + ")");
            }
            int expected = expectedDescriptors(flags, netnsState);
            if (fds.size() != expected) {
                throw new BadRequest("malformed request: " + fds.size() + " descriptors, " + expected
                        + " expected");
            }
            return new Header(netnsState, flags, idLength, typeLength, envLength, stdinLength, fds);
        }

        /** One descriptor per flag that sends one (two for the mounts), and the namespace's when it is sent. */
        private static int expectedDescriptors(int flags, int netnsState) {
            boolean own = (flags & Protocol.FLAG_OWN_NETNS) != 0;
            boolean sys = (flags & Protocol.FLAG_SYSFS) != 0;
            boolean mounts = (flags & Protocol.FLAG_MOUNTS) != 0;
            boolean root = (flags & Protocol.FLAG_ROOT) != 0;
            boolean cwd = (flags & Protocol.FLAG_CWD) != 0;
            return (own ? 1 : 0) + (sys ? 1 : 0) + (mounts ? 2 : 0) + (root ? 1 : 0) + (cwd ? 1 : 0)
                    + (netnsState == Protocol.NETNS_DESCRIPTOR ? 1 : 0);
        }

        /** The heap the call may need ({@link MemoryAdmission#estimate}). */
        long memoryEstimate() {
            return MemoryAdmission.estimate(envLength, stdinLength);
        }

        /**
         * Reads the rest (build id, type, environment, stdin) before {@code deadline} and checks the descriptors'
         * kinds: the request, owning the descriptors from now on.
         */
        Request readBody(UnixSocket conn, long deadline) throws BadRequest {
            byte[] head = new byte[(int) (idLength + typeLength + envLength)];
            readFully(conn, head, 0, head.length, deadline);
            byte[] stdin = new byte[(int) stdinLength];
            readFully(conn, stdin, 0, stdin.length, deadline);
            String buildId = new String(head, 0, idLength, StandardCharsets.UTF_8);
            String type = new String(head, idLength, typeLength, StandardCharsets.US_ASCII);
            Map<String, String> env = environment(head, idLength + typeLength, (int) envLength);
            boolean own = (flags & Protocol.FLAG_OWN_NETNS) != 0;
            boolean sys = (flags & Protocol.FLAG_SYSFS) != 0;
            boolean mounts = (flags & Protocol.FLAG_MOUNTS) != 0;
            boolean root = (flags & Protocol.FLAG_ROOT) != 0;
            boolean cwd = (flags & Protocol.FLAG_CWD) != 0;
            int next = 0;
            Descriptor ownNetns = own ? fds.get(next++) : null;
            Descriptor sysfs = sys ? fds.get(next++) : null;
            Descriptor mountNs = mounts ? fds.get(next++) : null;
            Descriptor mountInfo = mounts ? fds.get(next++) : null;
            Descriptor rootDir = root ? fds.get(next++) : null;
            Descriptor workDir = cwd ? fds.get(next++) : null;
            Descriptor netns = netnsState == Protocol.NETNS_DESCRIPTOR ? fds.get(next) : null;
            checkKinds(sysfs, mountNs, mountInfo, rootDir);
            checkKinds(null, null, null, workDir);
            claimed = true;
            return new Request(buildId, type, env, stdin, netnsState, ownNetns, sysfs, mountNs, mountInfo, rootDir,
                    workDir, netns, fds);
        }

        /** Closes the descriptors unless a request took them. */
        void closeUnclaimed() {
            if (!claimed) {
                for (Descriptor d : fds) {
                    d.close();
                }
            }
        }
    }

    /**
     * The descriptors the service reads or lends to plugins are checked for their kind before anything reads them: a
     * pipe whose writer stays open handed over as the mount table would block a call thread, {@code /dev/zero} would
     * never end. (The network namespaces are checked where they are opened, by {@code NetNs.openDescriptor}.)
     */
    static void checkKinds(Descriptor sysfs, Descriptor mountNs, Descriptor mountInfo, Descriptor root)
            throws BadRequest {
        try {
            // Plugins only list directories and read links below /sys (host-device): a directory is all it takes.
            if (sysfs != null && !Files.isDirectory(sysfs.procPath())) {
                throw new BadRequest("malformed request: the client's /sys is not a directory");
            }
            if (mountNs != null && (mountNs.fileSystem() != Descriptor.FileSystem.NSFS
                    || !Files.readSymbolicLink(mountNs.procPath()).toString().startsWith("mnt:["))) {
                throw new BadRequest("malformed request: the client's mount namespace is not a mount namespace");
            }
            if (mountInfo != null && (mountInfo.fileSystem() != Descriptor.FileSystem.PROC
                    || !Files.isRegularFile(mountInfo.procPath())
                    || !Files.readSymbolicLink(mountInfo.procPath()).toString().endsWith("/mountinfo"))) {
                throw new BadRequest("malformed request: the client's mount table is not a /proc/PID/mountinfo file");
            }
            if (root != null && !Files.isDirectory(root.procPath())) {
                throw new BadRequest("malformed request: a directory the client handed over is not one");
            }
        } catch (IOException | KernelException e) {
            throw new BadRequest("malformed request: a descriptor cannot be examined: " + e.getMessage());
        }
    }

    private static void receiveTimeout(UnixSocket conn, long deadline) throws BadRequest {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw late();
        }
        Duration timeout = Duration.ofNanos(Math.max(1_000_000, left));
        conn.timeouts(timeout, timeout);
    }

    private static BadRequest late() {
        return new BadRequest("the request did not arrive in time");
    }

    private static RuntimeException timeoutOr(KernelException e) throws BadRequest {
        if (UnixSocket.isTimeout(e)) {
            throw late();
        }
        throw e;
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

    private static void readFully(UnixSocket conn, byte[] buffer, int offset, int length, long deadline)
            throws BadRequest {
        int done = 0;
        while (done < length) {
            receiveTimeout(conn, deadline);
            int n;
            try {
                n = conn.read(buffer, offset + done, length - done);
            } catch (KernelException e) {
                throw timeoutOr(e);
            }
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
