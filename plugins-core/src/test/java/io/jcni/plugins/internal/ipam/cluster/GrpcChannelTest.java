package io.jcni.plugins.internal.ipam.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GrpcChannel}: against a real etcd member, calls whose request and answer are larger than HTTP/2's default
 * flow-control windows (so that both sides' window updates are needed) and an error answer; against a scripted HTTP/2
 * server, what etcd does not do on demand: a PING in the middle of an answer, a GOAWAY on a kept connection (the
 * call is sent again on a new one), an answer cut off (an error, never sent again), a trailers-only error and an HTTP
 * status that is not 200.
 */
class GrpcChannelTest {
    private static final long SECOND = 1_000_000_000L;

    @TempDir
    Path tmp;

    @Test
    void requestsAndAnswersLargerThanTheDefaultWindowsAndAnErrorAgainstEtcd() throws Exception {
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            URI url = URI.create(etcd.clientUrl(0));
            try (GrpcChannel channel = new GrpcChannel(url.getHost(), url.getPort(), null, 2 * SECOND)) {
                // 300 KiB in one put: more than the 64 KiB a new stream and connection may send before the server
                // opens its windows.
                byte[] big = new byte[300 * 1024];
                Arrays.fill(big, (byte) 'x');
                EtcdClient.Txn put = new EtcdClient.Txn();
                for (int i = 0; i < 4; i++) {
                    put.put("/big/" + i, big, 0);
                }
                GrpcChannel.Answer written = channel.call(EtcdClient.TXN, put.toProto(), null, deadline());
                assertThat(written.status).as(written.message).isZero();
                assertThat(EtcdAnswers.txnResult(written.body).succeeded).isTrue();

                // 1.2 MiB back: more than our initial 64 KiB connection window, in frames of 16 KiB.
                byte[] range = EtcdClient.rangeRequest("/big/", EtcdClient.prefixEnd("/big/"), false, 0).toBytes();
                for (int round = 0; round < 3; round++) {
                    GrpcChannel.Answer read = channel.call(EtcdClient.RANGE, range, null, deadline());
                    assertThat(read.status).as(read.message).isZero();
                    List<EtcdClient.Kv> kvs = EtcdAnswers.kvs(read.body, "test");
                    assertThat(kvs).hasSize(4);
                    assertThat(kvs.get(3).value).isEqualTo(big);
                }

                // etcd refuses a transaction of more than 128 operations: InvalidArgument, with its text.
                EtcdClient.Txn tooMany = new EtcdClient.Txn();
                for (int i = 0; i < 200; i++) {
                    tooMany.put("/many/" + i, new byte[1], 0);
                }
                GrpcChannel.Answer refused = channel.call(EtcdClient.TXN, tooMany.toProto(), null, deadline());
                assertThat(refused.status).isEqualTo(3);
                assertThat(refused.message).contains("too many operations in txn request");

                // The connection is still good after the error.
                GrpcChannel.Answer count = channel.call(EtcdClient.RANGE,
                        EtcdClient.rangeRequest("/big/", EtcdClient.prefixEnd("/big/"), false, 0).bool(9, true)
                                .toBytes(), null, deadline());
                assertThat(EtcdAnswers.count(count.body)).isEqualTo(4);
            }
        }
    }

    @Test
    void aPingInTheAnswerIsAcknowledgedAndTheAnswerRead() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (Scripted server = new Scripted(conn -> {
            Request r = conn.readRequest();
            seen.add(r.path);
            conn.frame(4, 0, 0, new byte[0]); // the server's SETTINGS
            conn.frame(6, 0, 0, "pingpong".getBytes(StandardCharsets.ISO_8859_1));
            // Both acknowledgements come before the answer is sent.
            boolean settingsAck = false;
            boolean pingAck = false;
            while (!settingsAck || !pingAck) {
                Frame f = conn.readFrame();
                settingsAck |= f.type == 4 && (f.flags & 1) != 0;
                pingAck |= f.type == 6 && (f.flags & 1) != 0
                        && new String(f.payload, StandardCharsets.ISO_8859_1).equals("pingpong");
            }
            conn.answer(r.stream, "hello".getBytes(StandardCharsets.UTF_8), 0, "");
        })) {
            try (GrpcChannel channel = server.channel()) {
                GrpcChannel.Answer a = channel.call("/etcdserverpb.KV/Range", new byte[] {1, 2}, "tok", deadline());
                assertThat(a.status).isZero();
                assertThat(new String(a.body, StandardCharsets.UTF_8)).isEqualTo("hello");
            }
        }
        assertThat(seen).containsExactly("/etcdserverpb.KV/Range");
    }

    @Test
    void aGoAwayOnAKeptConnectionSendsTheCallAgainOnANewOne() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        try (Scripted server = new Scripted(conn -> {
            int n = connections.incrementAndGet();
            Request first = conn.readRequest();
            conn.answer(first.stream, new byte[] {(byte) n}, 0, "");
            if (n == 1) {
                // The next call's frames arrive; the server says it processed nothing after stream 1, and closes.
                Request second = conn.readRequest();
                assertThat(second.stream).isEqualTo(3);
                conn.goAway(1);
            }
        })) {
            try (GrpcChannel channel = server.channel()) {
                assertThat(channel.call("/a", new byte[0], null, deadline()).body).containsExactly(1);
                assertThat(channel.call("/a", new byte[0], null, deadline()).body).containsExactly(2);
            }
        }
        assertThat(connections).hasValue(2);
    }

    @Test
    void aKeptConnectionTheServerPingedAndClosedSendsTheCallAgainOnANewOne() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        try (Scripted server = new Scripted(conn -> {
            int n = connections.incrementAndGet();
            Request first = conn.readRequest();
            conn.answer(first.stream, new byte[] {(byte) n}, 0, "");
            if (n == 1) {
                // Idle, the server pings, gets no answer (nothing reads the connection between calls), says it
                // processed nothing after stream 1, and closes: the client finds all of it at its next call, and
                // its acknowledgement of the PING cannot be written by then.
                conn.frame(6, 0, 0, "keepaliv".getBytes(StandardCharsets.ISO_8859_1));
                conn.goAway(1);
            }
        })) {
            try (GrpcChannel channel = server.channel()) {
                assertThat(channel.call("/a", new byte[0], null, deadline()).body).containsExactly(1);
                Thread.sleep(300);
                assertThat(channel.call("/a", new byte[0], null, deadline()).body).containsExactly(2);
            }
        }
        assertThat(connections).hasValue(2);
    }

    @Test
    void anAnswerCutOffIsAnErrorAndTheCallIsNotSentAgain() throws Exception {
        AtomicInteger connections = new AtomicInteger();
        AtomicInteger requests = new AtomicInteger();
        try (Scripted server = new Scripted(conn -> {
            connections.incrementAndGet();
            Request r = conn.readRequest();
            requests.incrementAndGet();
            conn.answer(r.stream, new byte[] {7}, 0, "");
            // The second call gets its headers, then the connection closes.
            r = conn.readRequest();
            requests.incrementAndGet();
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            Hpack.encode(block, ":status", "200");
            conn.frame(1, 4, r.stream, block.toByteArray());
        })) {
            try (GrpcChannel channel = server.channel()) {
                assertThat(channel.call("/a", new byte[0], null, deadline()).status).isZero();
                assertThatThrownBy(() -> channel.call("/a", new byte[0], null, deadline()))
                        .isInstanceOf(IOException.class);
            }
        }
        assertThat(connections).hasValue(1);
        assertThat(requests).hasValue(2);
    }

    @Test
    void aTrailersOnlyErrorAndAnHttpStatusGiveTheirGrpcStatus() throws Exception {
        try (Scripted server = new Scripted(conn -> {
            Request r = conn.readRequest();
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            Hpack.encode(block, ":status", "200");
            Hpack.encode(block, "content-type", "application/grpc");
            Hpack.encode(block, "grpc-status", "14");
            Hpack.encode(block, "grpc-message", "etcdserver: no leader %E2%80%94 try again");
            conn.frame(1, 4 | 1, r.stream, block.toByteArray());
            r = conn.readRequest();
            block.reset();
            Hpack.encode(block, ":status", "503");
            conn.frame(1, 4 | 1, r.stream, block.toByteArray());
        })) {
            try (GrpcChannel channel = server.channel()) {
                GrpcChannel.Answer noLeader = channel.call("/a", new byte[0], null, deadline());
                assertThat(noLeader.status).isEqualTo(14);
                assertThat(noLeader.message).isEqualTo("etcdserver: no leader \u2014 try again");
                GrpcChannel.Answer unavailable = channel.call("/a", new byte[0], null, deadline());
                assertThat(unavailable.status).isEqualTo(14);
                assertThat(unavailable.message).isEqualTo("HTTP status 503");
            }
        }
    }

    @Test
    void anHttp1AnswerSaysSo() throws Exception {
        try (Scripted server = new Scripted(
                conn -> conn.raw("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))) {
            try (GrpcChannel channel = server.channel()) {
                assertThatThrownBy(() -> channel.call("/a", new byte[0], null, deadline()))
                        .isInstanceOf(IOException.class).hasMessageContaining("HTTP/1, not HTTP/2");
            }
        }
    }

    private static long deadline() {
        return System.nanoTime() + 10 * SECOND;
    }

    // ---------------------------------------------------------------------------------------------- the server

    private record Frame(int type, int flags, int stream, byte[] payload) {
    }

    private record Request(int stream, String path, byte[] message) {
    }

    private interface Script {
        void run(Conn conn) throws Exception;
    }

    /**
     * An HTTP/2 server on loopback that runs a script on each connection it accepts, one connection at a time, and
     * closes the connection when the script ends. It does not answer frames by itself (no SETTINGS of its own unless
     * the script sends them): the client must work with a server that says nothing but its answers.
     */
    private static final class Scripted implements AutoCloseable {
        private final ServerSocket server;
        private final Thread thread;
        private final List<Throwable> failures = new ArrayList<>();

        Scripted(Script script) throws IOException {
            server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
            thread = Thread.ofPlatform().daemon().start(() -> {
                while (!server.isClosed()) {
                    try (Socket s = server.accept()) {
                        Conn conn = new Conn(s);
                        conn.readPreface();
                        script.run(conn);
                        s.getOutputStream().flush();
                    } catch (IOException e) {
                        // the test closed the server, or the client the connection
                    } catch (Throwable t) {
                        synchronized (failures) {
                            failures.add(t);
                        }
                    }
                }
            });
        }

        GrpcChannel channel() {
            return new GrpcChannel("127.0.0.1", server.getLocalPort(), null, 2 * SECOND);
        }

        @Override
        public void close() throws Exception {
            server.close();
            thread.join(5000);
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    throw new AssertionError("the scripted server failed", failures.get(0));
                }
            }
        }
    }

    private static final class Conn {
        private final DataInputStream in;
        private final OutputStream out;
        private final Hpack.Decoder decoder = new Hpack.Decoder(4096);

        Conn(Socket s) throws IOException {
            s.setSoTimeout(10_000);
            in = new DataInputStream(s.getInputStream());
            out = s.getOutputStream();
        }

        void readPreface() throws IOException {
            byte[] preface = new byte[24];
            in.readFully(preface);
            assertThat(new String(preface, StandardCharsets.ISO_8859_1)).isEqualTo("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        }

        Frame readFrame() throws IOException {
            byte[] head = new byte[9];
            in.readFully(head);
            int length = ((head[0] & 0xFF) << 16) | ((head[1] & 0xFF) << 8) | (head[2] & 0xFF);
            byte[] payload = new byte[length];
            in.readFully(payload);
            int stream = ((head[5] & 0x7F) << 24) | ((head[6] & 0xFF) << 16) | ((head[7] & 0xFF) << 8)
                    | (head[8] & 0xFF);
            return new Frame(head[3] & 0xFF, head[4] & 0xFF, stream, payload);
        }

        /** The next call: its HEADERS (the path decoded) and its DATA up to END_STREAM; other frames are skipped. */
        Request readRequest() throws IOException {
            String[] path = new String[1];
            int stream = -1;
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            while (true) {
                Frame f = readFrame();
                if (f.type == 1) {
                    stream = f.stream;
                    assertThat(f.flags & 4).as("one HEADERS frame").isEqualTo(4);
                    decoder.decode(f.payload, 0, f.payload.length, (name, value) -> {
                        if (name.equals(":path")) {
                            path[0] = value;
                        }
                    });
                } else if (f.type == 0 && f.stream == stream) {
                    data.write(f.payload);
                    if ((f.flags & 1) != 0) {
                        byte[] d = data.toByteArray();
                        return new Request(stream, path[0], Arrays.copyOfRange(d, 5, d.length));
                    }
                }
            }
        }

        void raw(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        void frame(int type, int flags, int stream, byte[] payload) throws IOException {
            byte[] head = {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
                (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
                (byte) stream};
            out.write(head);
            out.write(payload);
            out.flush();
        }

        /** GOAWAY, error 0: the server processed no stream after {@code lastStream}. */
        void goAway(int lastStream) throws IOException {
            frame(7, 0, 0, new byte[] {(byte) (lastStream >>> 24), (byte) (lastStream >>> 16),
                (byte) (lastStream >>> 8), (byte) lastStream, 0, 0, 0, 0});
        }

        /** A whole answer: headers, the message in one DATA frame, trailers with the status. */
        void answer(int stream, byte[] message, int status, String text) throws IOException {
            ByteArrayOutputStream block = new ByteArrayOutputStream();
            Hpack.encode(block, ":status", "200");
            Hpack.encode(block, "content-type", "application/grpc");
            frame(1, 4, stream, block.toByteArray());
            byte[] data = new byte[5 + message.length];
            data[4] = (byte) message.length;
            System.arraycopy(message, 0, data, 5, message.length);
            frame(0, 0, stream, data);
            block.reset();
            Hpack.encode(block, "grpc-status", Integer.toString(status));
            if (!text.isEmpty()) {
                Hpack.encode(block, "grpc-message", text);
            }
            frame(1, 4 | 1, stream, block.toByteArray());
        }
    }
}
