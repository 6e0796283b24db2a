package io.jcni.plugins.internal.service;

import io.jcni.netlink.sys.Descriptor;
import io.jcni.netlink.sys.UnixSocket;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The client side of {@link Protocol} in Java, for tests: what src/image/client.c sends, and a reader of the replies.
 * Requests can be built wrong on purpose.
 */
final class TestClient {
    final Map<String, String> env = new LinkedHashMap<>();
    String buildId = ServiceTest.BUILD_ID;
    String type = "host-local";
    byte[] stdin;
    int protocol = Protocol.VERSION;
    int netnsState = Protocol.NETNS_NONE;
    Path ownNetns = Path.of("/proc/thread-self/ns/net");
    Path sysfs;
    Path mountNs = Path.of("/proc/thread-self/ns/mnt");
    Path mountInfo = Path.of("/proc/thread-self/mountinfo");
    Path root = Path.of("/");
    Path cwd = Path.of(".");
    Path netns;

    static TestClient call(String command) {
        TestClient c = new TestClient();
        c.env.put("PATH", "/usr/bin:/bin");
        c.env.put("CNI_COMMAND", command);
        return c;
    }

    TestClient env(String name, String value) {
        env.put(name, value);
        return this;
    }

    TestClient type(String value) {
        type = value;
        return this;
    }

    TestClient stdin(String config) {
        stdin = config.getBytes(StandardCharsets.UTF_8);
        return this;
    }

    /** CNI_NETNS as {@code shown}, handed over as a descriptor of {@code actual}. */
    TestClient netns(String shown, Path actual) {
        env.put("CNI_NETNS", shown);
        netns = actual;
        netnsState = Protocol.NETNS_DESCRIPTOR;
        return this;
    }

    /** The request frame, as the C client builds it. */
    byte[] frame() {
        ByteArrayOutputStream envBytes = new ByteArrayOutputStream();
        for (Map.Entry<String, String> e : env.entrySet()) {
            envBytes.writeBytes((e.getKey() + "=" + e.getValue()).getBytes(StandardCharsets.UTF_8));
            envBytes.write(0);
        }
        byte[] id = buildId.getBytes(StandardCharsets.UTF_8);
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        byte[] in = stdin == null ? new byte[0] : stdin;
        ByteBuffer b = ByteBuffer.allocate(Protocol.HEADER_BYTES + id.length + t.length + envBytes.size() + in.length)
                .order(java.nio.ByteOrder.nativeOrder());
        b.put((byte) 'J').put((byte) 'C').put((byte) 'N').put((byte) 'I').putShort((short) protocol)
                .put((byte) netnsState).put((byte) ((ownNetns != null ? Protocol.FLAG_OWN_NETNS : 0)
                        | (stdin != null ? Protocol.FLAG_STDIN : 0) | (sysfs != null ? Protocol.FLAG_SYSFS : 0)
                        | (mountNs != null ? Protocol.FLAG_MOUNTS : 0) | (root != null ? Protocol.FLAG_ROOT : 0)
                        | (cwd != null ? Protocol.FLAG_CWD : 0)))
                .putShort((short) id.length).putShort((short) t.length).putInt(envBytes.size()).putInt(in.length)
                .putInt(0).put(id).put(t).put(envBytes.toByteArray()).put(in);
        return b.array();
    }

    /** Sends the request with its descriptors and reads every reply until the connection ends. */
    Reply send(Path socket) {
        try (UnixSocket conn = UnixSocket.connect(socket)) {
            return send(conn, frame());
        }
    }

    /** Sends the request and returns the connection, its answer unread: a client waiting (or killed by closing it). */
    UnixSocket start(Path socket) {
        UnixSocket conn = UnixSocket.connect(socket);
        try {
            sendRequest(conn, frame());
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
        return conn;
    }

    Reply send(UnixSocket conn, byte[] frame) {
        sendRequest(conn, frame);
        return Reply.read(conn);
    }

    private void sendRequest(UnixSocket conn, byte[] frame) {
        List<Descriptor> fds = new ArrayList<>();
        try {
            if (ownNetns != null) {
                fds.add(Descriptor.openPath(ownNetns));
            }
            if (sysfs != null) {
                fds.add(Descriptor.openPath(sysfs));
            }
            if (mountNs != null) {
                fds.add(Descriptor.openPath(mountNs));
                fds.add(Descriptor.openPath(mountInfo));
            }
            if (root != null) {
                fds.add(Descriptor.openPath(root));
            }
            if (cwd != null) {
                fds.add(Descriptor.openPath(cwd));
            }
            if (netns != null) {
                fds.add(Descriptor.openPath(netns));
            }
            conn.send(frame, 0, frame.length, fds);
        } catch (io.jcni.netlink.KernelException e) {
            // Refused before the request was read (busy, not allowed): the reply is there all the same.
        } finally {
            for (Descriptor d : fds) {
                d.close();
            }
        }
    }

    /** What came back: whether 'A' came first, then the 'R' or 'M' frame (or nothing). */
    record Reply(boolean accepted, char kind, int status, String stdout, String stderr) {
        static Reply read(UnixSocket conn) {
            byte[] all = readAll(conn);
            int at = 0;
            boolean accepted = all.length > 0 && all[0] == Protocol.ACCEPTED;
            if (accepted) {
                at++;
            }
            if (at >= all.length) {
                return new Reply(accepted, '-', -1, "", "");
            }
            ByteBuffer b = Protocol.view(all);
            char kind = (char) all[at];
            if (kind == 'M' || kind == 'E') {
                int n = b.getShort(at + 1);
                return new Reply(accepted, kind, -1, new String(all, at + 3, n, StandardCharsets.UTF_8), "");
            }
            int status = b.getInt(at + 1);
            int out = b.getInt(at + 5);
            int err = b.getInt(at + 9);
            return new Reply(accepted, kind, status, new String(all, at + 13, out, StandardCharsets.UTF_8),
                    new String(all, at + 13 + out, err, StandardCharsets.UTF_8));
        }

        static byte[] readAll(UnixSocket conn) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buffer = new byte[65536];
            try {
                for (int n; (n = conn.read(buffer, 0, buffer.length)) > 0; ) {
                    all.write(buffer, 0, n);
                }
            } catch (io.jcni.netlink.KernelException e) {
                // ECONNRESET after the reply: the service closed with our request unread (a refusal).
                if (!e.errnoName().equals("ECONNRESET")) {
                    throw e;
                }
            }
            return all.toByteArray();
        }
    }
}
