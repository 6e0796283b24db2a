package io.jcni.plugins.internal.ipam.cluster;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/2 connection to one etcd endpoint, carrying unary gRPC calls one at a time, kept open across calls and
 * reopened when the server closed it. Only what a gRPC client of etcd needs: the connection preface and settings,
 * one stream per call (HEADERS, then the request message in DATA), flow control both ways, the server's PINGs and
 * GOAWAY, and the answer's status from its trailers. TLS negotiates {@code h2} by ALPN; plain connections start
 * HTTP/2 at once (prior knowledge), as etcd's client port expects of gRPC.
 *
 * <p>Why gRPC and not etcd's JSON gateway: the gateway turns each request into a gRPC call to its own member over
 * loopback, so etcd parses and encodes every request twice. Measured on this machine (3 members, sequential
 * compare-and-swap transactions): 0.5 ms less per transaction and a quarter to a third less of etcd's CPU per request
 * through gRPC. A call is bounded by the caller's deadline: connect by {@code min(dialTimeout, remaining)}, every read
 * by the remaining time. The deadline is not sent as {@code grpc-timeout}: etcd would answer a call that outlives it
 * with "context deadline exceeded" (gRPC Unknown) at the moment the client gives up on its own, and a client that gives
 * up closes the connection with a reset, which cancels the call in etcd all the same.
 *
 * <p>Not thread-safe: one call at a time ({@link EtcdClient} serializes).
 */
final class GrpcChannel implements AutoCloseable {
    /** Largest answer accepted. */
    static final int MAX_MESSAGE = 4 << 20;

    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final int DATA = 0;
    private static final int HEADERS = 1;
    private static final int RST_STREAM = 3;
    private static final int SETTINGS = 4;
    private static final int PUSH_PROMISE = 5;
    private static final int PING = 6;
    private static final int GOAWAY = 7;
    private static final int WINDOW_UPDATE = 8;
    private static final int CONTINUATION = 9;
    private static final int END_STREAM = 0x1;
    private static final int ACK = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int PADDED = 0x8;
    private static final int PRIORITY = 0x20;
    /** The frames we accept: the protocol's default, which we do not raise. */
    private static final int MAX_FRAME = 16_384;
    /** What we let the server send on one stream and on the connection before we must say we read it. */
    private static final int STREAM_WINDOW = MAX_MESSAGE + 1024;
    private static final int CONNECTION_WINDOW = 1 << 24;
    /**
     * A kept connection idle for longer is replaced, not used: nothing reads it between calls, so a PING of the
     * server's would go unanswered (etcd pings a connection idle for {@code --grpc-keepalive-interval}, 2 h, and closes
     * it 20 s later), and a new connection costs a call less than finding out.
     */
    static final long IDLE_NANOS = 60_000_000_000L;
    /** Stream IDs are 31 bits: a connection that used this many is replaced. */
    private static final int LAST_STREAM = (1 << 30);

    private final String host;
    private final int port;
    private final String authority;
    private final SSLSocketFactory tls;
    private final long dialTimeoutNanos;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private Hpack.Decoder decoder;
    /** A header block being read (HEADERS, then CONTINUATIONs until END_HEADERS): its bytes, stream, END_STREAM. */
    private ByteArrayOutputStream block;
    private int blockStream;
    private boolean blockEndsStream;
    private int nextStream;
    private boolean goingAway;
    private long lastUsed;
    private int peerMaxFrame;
    private long peerInitialWindow;
    private long sendWindow;
    private long unacknowledged;

    GrpcChannel(String host, int port, SSLSocketFactory tls, long dialTimeoutNanos) {
        this.host = host;
        this.port = port;
        this.authority = (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
        this.tls = tls;
        this.dialTimeoutNanos = dialTimeoutNanos;
    }

    /**
     * A call's outcome: its gRPC status ({@code 0}: OK, {@code body} the answer), the status's message. An HTTP
     * status other than 200 gets the status gRPC's clients give it (14 Unavailable for 502, 503, 504 and 429, 16 for
     * 401, 7 for 403, 12 for 404, 2 otherwise), with the HTTP status as its message.
     */
    static final class Answer {
        final int status;
        final String message;
        final byte[] body;

        Answer(int status, String message, byte[] body) {
            this.status = status;
            this.message = message;
            this.body = body;
        }
    }

    /**
     * Calls {@code method} ("/etcdserverpb.KV/Txn") with {@code request}; {@code token} (etcd's auth token) goes in
     * the {@code token} metadata when not null. A kept connection that the server closed before it answered (or told
     * us, by GOAWAY or REFUSED_STREAM, that it did not process the call) is reopened once and the call sent again.
     *
     * @throws SocketTimeoutException when the deadline passes
     */
    Answer call(String method, byte[] request, String token, long deadline) throws IOException {
        boolean reused = socket != null;
        try {
            return exchange(method, request, token, deadline);
        } catch (NotProcessed e) {
            close();
            if (!reused) {
                throw e;
            }
            return exchange(method, request, token, deadline);
        }
    }

    private Answer exchange(String method, byte[] request, String token, long deadline) throws IOException {
        if (socket != null && (goingAway || nextStream >= LAST_STREAM || System.nanoTime() - lastUsed > IDLE_NANOS)) {
            close();
        }
        ByteArrayOutputStream frames = new ByteArrayOutputStream(256 + request.length);
        if (socket == null) {
            open(deadline);
            preface(frames);
        }
        int stream = nextStream;
        nextStream += 2;
        Call call = new Call(stream);
        boolean answered = false;
        try {
            socket.setSoTimeout(remainingMillis(deadline));
            headersFrame(frames, stream, method, token);
            byte[] message = new byte[5 + request.length];
            message[1] = (byte) (request.length >>> 24);
            message[2] = (byte) (request.length >>> 16);
            message[3] = (byte) (request.length >>> 8);
            message[4] = (byte) request.length;
            System.arraycopy(request, 0, message, 5, request.length);
            call.window = peerInitialWindow;
            int sent = 0;
            // As much as the windows allow goes out with the headers, in one write; the rest as the server opens them.
            while (true) {
                int chunk = (int) Math.min(Math.min(message.length - sent, peerMaxFrame),
                        Math.min(sendWindow, call.window));
                if (chunk > 0) {
                    boolean last = sent + chunk == message.length;
                    frameHeader(frames, chunk, DATA, last ? END_STREAM : 0, stream);
                    frames.write(message, sent, chunk);
                    sent += chunk;
                    sendWindow -= chunk;
                    call.window -= chunk;
                    if (last) {
                        break;
                    }
                    continue;
                }
                flush(frames);
                if (call.ended) {
                    break; // the server answered (an error) before it read all of the request
                }
                readFrame(call, deadline);
            }
            flush(frames);
            call.sent = true;
            while (!call.ended) {
                readFrame(call, deadline);
            }
            answered = true;
            lastUsed = System.nanoTime();
            if (System.nanoTime() - deadline > 0) {
                throw new SocketTimeoutException("deadline passed");
            }
            return call.answer();
        } catch (NotProcessed e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            if (!answered && call.sent) {
                abort();
            } else {
                close();
            }
            if (!call.sent && !call.readAny && isConnectionFailure(e)) {
                throw new NotProcessed(e.getMessage());
            }
            throw e;
        }
    }

    /**
     * A failure of the connection itself (not a timeout, not an answer that does not parse): one met before the call
     * was all sent or anything of it read means the server had closed the connection, and did not process the call.
     */
    private static boolean isConnectionFailure(Exception e) {
        return e instanceof IOException && !(e instanceof SocketTimeoutException) && !(e instanceof Proto.Malformed);
    }

    /**
     * One call's stream: what the server sent on it so far. It takes the fields of each header block as the decoder
     * reads them (a class, not a lambda: the exec path links no call site of its own, see the package's tests).
     */
    private static final class Call implements BiConsumer<String, String> {
        final int stream;
        long window;
        boolean sent;
        boolean readAny;
        boolean ended;
        boolean trailers;
        int httpStatus = -1;
        int grpcStatus = -1;
        String grpcMessage = "";
        ByteArrayOutputStream data;
        /** Whether the header block being decoded is the answer's first (its :status counts), not its trailers. */
        boolean initialBlock;

        Call(int stream) {
            this.stream = stream;
        }

        @Override
        public void accept(String name, String value) {
            switch (name) {
                case ":status" -> {
                    if (initialBlock) {
                        httpStatus = parsed(value, 0);
                    }
                }
                case "grpc-status" -> grpcStatus = parsed(value, 2);
                case "grpc-message" -> grpcMessage = percentDecoded(value);
                default -> {
                }
            }
        }

        private static int parsed(String value, int otherwise) {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                return otherwise;
            }
        }

        Answer answer() throws IOException {
            if (httpStatus != 200) {
                int status = switch (httpStatus) {
                    case 400 -> 13;
                    case 401 -> 16;
                    case 403 -> 7;
                    case 404 -> 12;
                    case 429, 502, 503, 504 -> 14;
                    default -> 2;
                };
                return new Answer(status, "HTTP status " + httpStatus, new byte[0]);
            }
            if (grpcStatus < 0) {
                throw new IOException("the answer has no grpc-status");
            }
            if (grpcStatus != 0) {
                return new Answer(grpcStatus, grpcMessage.isEmpty() ? "gRPC status " + grpcStatus : grpcMessage,
                        new byte[0]);
            }
            byte[] d = data == null ? new byte[0] : data.toByteArray();
            if (d.length < 5) {
                throw new IOException("the answer holds no message");
            }
            if (d[0] != 0) {
                throw new IOException("the answer is compressed, which was not asked for");
            }
            long n = ((d[1] & 0xFFL) << 24) | ((d[2] & 0xFF) << 16) | ((d[3] & 0xFF) << 8) | (d[4] & 0xFF);
            if (n != d.length - 5) {
                throw new IOException("the answer's message is " + (d.length - 5) + " bytes, its prefix says " + n);
            }
            byte[] body = new byte[(int) n];
            System.arraycopy(d, 5, body, 0, body.length);
            return new Answer(0, "", body);
        }
    }

    // ---------------------------------------------------------------------------------------------- frames out

    private void preface(ByteArrayOutputStream frames) {
        frames.write(PREFACE, 0, PREFACE.length);
        frameHeader(frames, 12, SETTINGS, 0, 0);
        setting(frames, 2, 0); // ENABLE_PUSH: no
        setting(frames, 4, STREAM_WINDOW); // INITIAL_WINDOW_SIZE
        frameHeader(frames, 4, WINDOW_UPDATE, 0, 0);
        int32(frames, CONNECTION_WINDOW - 65_535);
    }

    private void headersFrame(ByteArrayOutputStream frames, int stream, String method, String token) {
        ByteArrayOutputStream block = new ByteArrayOutputStream(160);
        Hpack.encode(block, ":method", "POST");
        Hpack.encode(block, ":scheme", tls != null ? "https" : "http");
        Hpack.encode(block, ":path", method);
        Hpack.encode(block, ":authority", authority);
        Hpack.encode(block, "content-type", "application/grpc");
        Hpack.encode(block, "te", "trailers");
        if (token != null) {
            Hpack.encode(block, "token", token);
        }
        byte[] b = block.toByteArray();
        // A block larger than a frame continues in CONTINUATION frames (a token is a few hundred bytes at most).
        int at = 0;
        boolean first = true;
        do {
            int n = Math.min(b.length - at, peerMaxFrame);
            boolean last = at + n == b.length;
            frameHeader(frames, n, first ? HEADERS : CONTINUATION, last ? END_HEADERS : 0, stream);
            frames.write(b, at, n);
            at += n;
            first = false;
        } while (at < b.length);
    }

    private static void frameHeader(ByteArrayOutputStream frames, int length, int type, int flags, int stream) {
        frames.write(length >>> 16);
        frames.write(length >>> 8);
        frames.write(length);
        frames.write(type);
        frames.write(flags);
        int32(frames, stream);
    }

    private static void setting(ByteArrayOutputStream frames, int id, int value) {
        frames.write(id >>> 8);
        frames.write(id);
        int32(frames, value);
    }

    private static void int32(ByteArrayOutputStream frames, int value) {
        frames.write(value >>> 24);
        frames.write(value >>> 16);
        frames.write(value >>> 8);
        frames.write(value);
    }

    private void flush(ByteArrayOutputStream frames) throws IOException {
        if (frames.size() > 0) {
            frames.writeTo(out); // one write, no copy of the frames
            out.flush();
            frames.reset();
        }
    }

    /**
     * A control frame that must go out now (a SETTINGS or PING acknowledgement, a window update). If it cannot be
     * written, the server has closed the connection: what it sent before still decides the call (its answer, or a
     * GOAWAY saying the call was not processed), so reading goes on, and the connection is not used again.
     */
    private void control(int type, int flags, byte[] payload) {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(9 + payload.length);
        frameHeader(frame, payload.length, type, flags, 0);
        frame.write(payload, 0, payload.length);
        try {
            flush(frame);
        } catch (IOException e) {
            goingAway = true;
        }
    }

    // ---------------------------------------------------------------------------------------------- frames in

    /** Reads and handles one frame: the connection's own, or one of {@code call}'s stream. */
    private void readFrame(Call call, long deadline) throws IOException {
        socket.setSoTimeout(remainingMillis(deadline));
        byte[] head = new byte[9];
        int first = in.read();
        if (first < 0) {
            if (!call.readAny) {
                throw new NotProcessed("connection closed by the server");
            }
            throw new EOFException("connection closed in the answer");
        }
        head[0] = (byte) first;
        readFully(head, 1, 8);
        int length = ((head[0] & 0xFF) << 16) | ((head[1] & 0xFF) << 8) | (head[2] & 0xFF);
        int type = head[3] & 0xFF;
        int flags = head[4] & 0xFF;
        int stream = (((head[5] & 0x7F) << 24) | ((head[6] & 0xFF) << 16) | ((head[7] & 0xFF) << 8)
                | (head[8] & 0xFF));
        if (length > MAX_FRAME) {
            if (new String(head, 0, 5, StandardCharsets.ISO_8859_1).equals("HTTP/")) {
                throw new IOException("the endpoint answered in HTTP/1, not HTTP/2: is it etcd's client URL?");
            }
            throw new IOException("HTTP/2 frame of " + length + " bytes exceeds " + MAX_FRAME);
        }
        byte[] payload = new byte[length];
        readFully(payload, 0, length);
        switch (type) {
            case SETTINGS -> settings(call, flags, payload, stream);
            case PING -> {
                if ((flags & ACK) == 0 && length == 8) {
                    control(PING, ACK, payload);
                }
            }
            case WINDOW_UPDATE -> windowUpdate(call, payload, stream);
            case GOAWAY -> goAway(call, payload);
            case PUSH_PROMISE -> throw new IOException("the server pushed, which was disabled");
            case HEADERS, CONTINUATION -> headers(call, type, flags, payload, stream);
            case DATA -> data(call, flags, payload, stream);
            case RST_STREAM -> {
                if (stream == call.stream) {
                    int code = length == 4 ? int32(payload, 0) : -1;
                    if (code == 7 && !call.readAny) { // REFUSED_STREAM: not processed, safe to send again
                        throw new NotProcessed("the server refused the stream");
                    }
                    throw new IOException("the server reset the call's stream (HTTP/2 error " + code + ")");
                }
            }
            default -> {
                // PRIORITY, and frame types this client does not know: ignored, as the protocol asks.
            }
        }
    }

    private void settings(Call call, int flags, byte[] payload, int stream) throws IOException {
        if (stream != 0 || payload.length % 6 != 0) {
            throw new IOException("malformed HTTP/2 SETTINGS");
        }
        if ((flags & ACK) != 0) {
            return;
        }
        for (int i = 0; i < payload.length; i += 6) {
            int id = ((payload[i] & 0xFF) << 8) | (payload[i + 1] & 0xFF);
            long value = int32(payload, i + 2) & 0xFFFFFFFFL;
            if (id == 4) { // INITIAL_WINDOW_SIZE: changes the window of the open stream by the difference
                if (value > Integer.MAX_VALUE) {
                    throw new IOException("HTTP/2 initial window of " + value);
                }
                call.window += value - peerInitialWindow;
                peerInitialWindow = value;
            } else if (id == 5) { // MAX_FRAME_SIZE
                if (value < MAX_FRAME || value > 0xFFFFFF) {
                    throw new IOException("HTTP/2 max frame size of " + value);
                }
                peerMaxFrame = (int) Math.min(value, 1 << 20);
            }
        }
        control(SETTINGS, ACK, new byte[0]);
    }

    private void windowUpdate(Call call, byte[] payload, int stream) throws IOException {
        if (payload.length != 4) {
            throw new IOException("malformed HTTP/2 WINDOW_UPDATE");
        }
        long increment = int32(payload, 0) & 0x7FFFFFFFL;
        if (stream == 0) {
            sendWindow += increment;
        } else if (stream == call.stream) {
            call.window += increment;
        }
    }

    private void goAway(Call call, byte[] payload) throws IOException {
        if (payload.length < 8) {
            throw new IOException("malformed HTTP/2 GOAWAY");
        }
        goingAway = true;
        int lastStream = int32(payload, 0) & 0x7FFFFFFF;
        if (lastStream < call.stream) {
            // The server will not process the call: it may go again on a new connection.
            throw new NotProcessed("the server is closing the connection (GOAWAY, error "
                    + int32(payload, 4) + ")");
        }
    }

    private void headers(Call call, int type, int flags, byte[] payload, int stream)
            throws IOException {
        int from = 0;
        int to = payload.length;
        if (type == HEADERS) {
            if (block != null) {
                throw new IOException("HTTP/2 HEADERS inside another header block");
            }
            if ((flags & PADDED) != 0) {
                if (payload.length < 1 || (payload[0] & 0xFF) >= payload.length) {
                    throw new IOException("malformed HTTP/2 HEADERS padding");
                }
                to -= payload[0] & 0xFF;
                from = 1;
            }
            if ((flags & PRIORITY) != 0) {
                from += 5;
            }
            if (from > to) {
                throw new IOException("malformed HTTP/2 HEADERS");
            }
            block = new ByteArrayOutputStream(Math.max(16, to - from));
            blockEndsStream = (flags & END_STREAM) != 0;
            blockStream = stream;
        } else if (block == null || stream != blockStream) {
            throw new IOException("HTTP/2 CONTINUATION without its HEADERS");
        }
        block.write(payload, from, to - from);
        if (block.size() > 256 * 1024) {
            throw new IOException("HTTP/2 header block over 256 KiB");
        }
        if ((flags & END_HEADERS) == 0) {
            return;
        }
        byte[] b = block.toByteArray();
        block = null;
        if (stream != call.stream) {
            // Another stream's (none is open): decoded all the same, the table must follow every block.
            decoder.decode(b, 0, b.length, new Call(-1));
            return;
        }
        call.readAny = true;
        boolean initial = !call.trailers && call.httpStatus < 0;
        call.initialBlock = initial;
        decoder.decode(b, 0, b.length, call);
        if (!initial) {
            call.trailers = true;
        }
        if (blockEndsStream) {
            call.ended = true;
        }
    }

    private void data(Call call, int flags, byte[] payload, int stream) throws IOException {
        int from = 0;
        int to = payload.length;
        if ((flags & PADDED) != 0) {
            if (payload.length < 1 || (payload[0] & 0xFF) >= payload.length) {
                throw new IOException("malformed HTTP/2 DATA padding");
            }
            to -= payload[0] & 0xFF;
            from = 1;
        }
        // Everything that arrives counts against the connection's window, padding too.
        unacknowledged += payload.length;
        if (unacknowledged >= CONNECTION_WINDOW / 2) {
            byte[] increment = new byte[4];
            put32(increment, (int) unacknowledged);
            unacknowledged = 0;
            control(WINDOW_UPDATE, 0, increment);
        }
        if (stream != call.stream) {
            return;
        }
        call.readAny = true;
        if (call.data == null) {
            call.data = new ByteArrayOutputStream(Math.max(64, to - from));
        }
        if (call.data.size() + (to - from) > MAX_MESSAGE + 5) {
            throw new IOException("answer of more than " + MAX_MESSAGE + " bytes");
        }
        call.data.write(payload, from, to - from);
        if ((flags & END_STREAM) != 0) {
            call.ended = true;
        }
    }

    // ---------------------------------------------------------------------------------------------- connection

    private void open(long deadline) throws IOException {
        long dial = Math.min(dialTimeoutNanos, deadline - System.nanoTime());
        if (dial <= 0) {
            throw new SocketTimeoutException("deadline passed before connecting");
        }
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host.startsWith("[") ? host.substring(1, host.length() - 1) : host,
                    port), (int) Math.max(1, dial / 1_000_000));
            if (tls != null) {
                SSLSocket ssl = (SSLSocket) tls.createSocket(s, host, port, true);
                SSLParameters params = ssl.getSSLParameters();
                params.setEndpointIdentificationAlgorithm("HTTPS");
                params.setApplicationProtocols(new String[] {"h2"});
                ssl.setSSLParameters(params);
                ssl.setSoTimeout(remainingMillis(deadline));
                ssl.startHandshake();
                if (!"h2".equals(ssl.getApplicationProtocol())) {
                    // Not etcd's client URL (or a proxy that speaks HTTP/1.1 only): a configuration error, not a
                    // member that may come back.
                    throw new SSLException("the server did not agree to HTTP/2 by ALPN (h2), as etcd's gRPC needs");
                }
                s = ssl;
            }
            socket = s;
            in = new BufferedInputStream(s.getInputStream(), 16_384);
            out = s.getOutputStream();
            decoder = new Hpack.Decoder(4096);
            nextStream = 1;
            goingAway = false;
            peerMaxFrame = MAX_FRAME;
            peerInitialWindow = 65_535;
            sendWindow = 65_535;
            unacknowledged = 0;
            block = null;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /**
     * Closes a connection whose call went unanswered with a reset (linger 0), so that what of it the kernel has not
     * delivered yet is dropped. A plain close would keep retransmitting it: to a member cut off by a partition that
     * heals later, a write the caller gave up on (and answered code 11 for) would arrive and could commit then.
     */
    private void abort() {
        Socket s = socket;
        if (s != null) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException e) {
                // closed already: nothing left to send
            }
        }
        close();
    }

    /** Whether a connection is open (the server may have closed it meanwhile: {@link #call} reopens it then). */
    boolean isOpen() {
        return socket != null;
    }

    @Override
    public void close() {
        Socket s = socket;
        socket = null;
        in = null;
        out = null;
        if (s != null) {
            try {
                s.close();
            } catch (IOException e) {
                // nothing left to release
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- helpers

    private void readFully(byte[] b, int off, int len) throws IOException {
        int n = in.readNBytes(b, off, len);
        if (n != len) {
            throw new EOFException("connection closed in an HTTP/2 frame");
        }
    }

    private static int int32(byte[] b, int at) {
        return ((b[at] & 0xFF) << 24) | ((b[at + 1] & 0xFF) << 16) | ((b[at + 2] & 0xFF) << 8) | (b[at + 3] & 0xFF);
    }

    private static void put32(byte[] b, int value) {
        b[0] = (byte) (value >>> 24);
        b[1] = (byte) (value >>> 16);
        b[2] = (byte) (value >>> 8);
        b[3] = (byte) value;
    }

    /** gRPC's grpc-message: UTF-8, with what is not printable ASCII (and '%') percent-encoded. */
    static String percentDecoded(String value) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            int high = c == '%' && i + 2 < value.length() ? Character.digit(value.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(value.charAt(i + 2), 16) : -1;
            if (low >= 0) {
                bytes.write(high * 16 + low);
                i += 2;
            } else {
                bytes.write(c & 0xFF);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    /** The server did not process the call (it closed the connection, went away or refused it): send it again. */
    private static final class NotProcessed extends IOException {
        private static final long serialVersionUID = 1L;

        NotProcessed(String message) {
            super(message);
        }
    }
}
