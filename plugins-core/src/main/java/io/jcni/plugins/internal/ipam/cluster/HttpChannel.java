package io.jcni.plugins.internal.ipam.cluster;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One HTTP/1.1 connection to one etcd endpoint's JSON gateway, kept open across requests (keep-alive), reopened when
 * the server closed it. Only what etcd's gateway needs: {@code POST} of a JSON body, a response with {@code
 * Content-Length} or chunked transfer coding.
 *
 * <p>Why not {@code java.net.http.HttpClient}: an exec'd plugin is a fresh JVM, and the JDK client's first request
 * initializes its selector thread, executor, HTTP/2 and cookie machinery; measured in this image (see the package
 * documentation) it costs an ADD more than the whole of this class and its socket. A request is bounded by the
 * caller's deadline: connect by {@code min(dialTimeout, remaining)}, every read by the remaining time.
 *
 * <p>Not thread-safe: one request at a time ({@link EtcdClient} serializes).
 */
final class HttpChannel implements AutoCloseable {
    /** Largest response body accepted (the JSON codec's own limit is 4 MiB). */
    static final int MAX_BODY = 4 << 20;

    private final String host;
    private final int port;
    private final String hostHeader;
    private final SSLSocketFactory tls;
    private final long dialTimeoutNanos;
    private Socket socket;
    private InputStream in;
    private OutputStream out;

    HttpChannel(String host, int port, SSLSocketFactory tls, long dialTimeoutNanos) {
        this.host = host;
        this.port = port;
        this.hostHeader = (host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
        this.tls = tls;
        this.dialTimeoutNanos = dialTimeoutNanos;
    }

    /** An HTTP response: status and body. */
    static final class Response {
        final int status;
        final byte[] body;

        Response(int status, byte[] body) {
            this.status = status;
            this.body = body;
        }
    }

    /**
     * POSTs {@code body} to {@code path}; {@code token} (etcd's auth token) goes in the {@code Authorization} header
     * when not null. A connection the server closed between requests is reopened once.
     *
     * @throws SocketTimeoutException when the deadline passes
     */
    Response post(String path, byte[] body, String token, long deadline) throws IOException {
        boolean reused = socket != null;
        try {
            return exchange(path, body, token, deadline);
        } catch (StaleConnection e) {
            close();
            if (!reused) {
                throw e;
            }
            return exchange(path, body, token, deadline);
        }
    }

    private Response exchange(String path, byte[] body, String token, long deadline) throws IOException {
        if (socket == null) {
            open(deadline);
        }
        StringBuilder head = new StringBuilder(160);
        head.append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(hostHeader)
                .append("\r\nContent-Type: application/json\r\nContent-Length: ").append(body.length).append("\r\n");
        if (token != null) {
            head.append("Authorization: ").append(token).append("\r\n");
        }
        head.append("\r\n");
        boolean sent = false;
        try {
            socket.setSoTimeout(remainingMillis(deadline));
            // One write, one segment: the server reads the request in one wakeup.
            byte[] headBytes = head.toString().getBytes(StandardCharsets.ISO_8859_1);
            byte[] request = Arrays.copyOf(headBytes, headBytes.length + body.length);
            System.arraycopy(body, 0, request, headBytes.length, body.length);
            out.write(request);
            out.flush();
            sent = true;
            return readResponse(deadline);
        } catch (StaleConnection e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            if (sent) {
                abort();
            } else {
                close();
            }
            if (!sent && !(e instanceof SocketTimeoutException)) {
                throw new StaleConnection(e.getMessage());
            }
            throw e;
        }
    }

    /**
     * Closes a connection whose request went unanswered with a reset (linger 0), so that what of it the kernel has
     * not delivered yet is dropped. A plain close would keep retransmitting it: to a member cut off by a partition
     * that heals later, a write the caller gave up on (and answered code 11 for) would arrive and could commit then.
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
                ssl.setSSLParameters(params);
                ssl.setSoTimeout(remainingMillis(deadline));
                ssl.startHandshake();
                s = ssl;
            }
            socket = s;
            in = new BufferedInputStream(s.getInputStream(), 8192);
            out = s.getOutputStream();
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private Response readResponse(long deadline) throws IOException {
        String statusLine = readLine(true);
        if (!statusLine.startsWith("HTTP/1.")) {
            throw new IOException("not an HTTP response: " + printable(statusLine));
        }
        int status;
        try {
            status = Integer.parseInt(statusLine.substring(9, Math.min(12, statusLine.length())).trim());
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new IOException("bad HTTP status line: " + printable(statusLine));
        }
        long length = -1;
        boolean chunked = false;
        boolean closeAfter = statusLine.startsWith("HTTP/1.0");
        for (String line = readLine(false); !line.isEmpty(); line = readLine(false)) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            if (name.equalsIgnoreCase("Content-Length")) {
                try {
                    length = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw new IOException("bad Content-Length: " + printable(value));
                }
            } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                chunked = value.toLowerCase(java.util.Locale.ROOT).contains("chunked");
            } else if (name.equalsIgnoreCase("Connection")) {
                closeAfter = value.equalsIgnoreCase("close");
            }
        }
        byte[] body;
        if (chunked) {
            body = readChunked();
        } else if (length >= 0) {
            if (length > MAX_BODY) {
                throw new IOException("response of " + length + " bytes exceeds " + MAX_BODY);
            }
            body = in.readNBytes((int) length);
            if (body.length != length) {
                throw new IOException("connection closed in the response body");
            }
        } else {
            body = readToEnd();
            closeAfter = true;
        }
        if (closeAfter) {
            close();
        }
        if (System.nanoTime() - deadline > 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return new Response(status, body);
    }

    private byte[] readChunked() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(4096);
        while (true) {
            String sizeLine = readLine(false);
            int semi = sizeLine.indexOf(';');
            int size;
            try {
                size = Integer.parseInt((semi >= 0 ? sizeLine.substring(0, semi) : sizeLine).trim(), 16);
            } catch (NumberFormatException e) {
                throw new IOException("bad chunk size: " + printable(sizeLine));
            }
            if (size < 0 || body.size() + (long) size > MAX_BODY) {
                throw new IOException("chunked response exceeds " + MAX_BODY + " bytes");
            }
            if (size == 0) {
                for (String trailer = readLine(false); !trailer.isEmpty(); trailer = readLine(false)) {
                    // trailers are ignored
                }
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            if (chunk.length != size) {
                throw new IOException("connection closed in a chunk");
            }
            body.write(chunk);
            readLine(false);
        }
    }

    private byte[] readToEnd() throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(4096);
        byte[] buf = new byte[8192];
        for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
            if (body.size() + n > MAX_BODY) {
                throw new IOException("response exceeds " + MAX_BODY + " bytes");
            }
            body.write(buf, 0, n);
        }
        return body.toByteArray();
    }

    /** A CRLF-terminated header line (at most 8 KiB). At the start of a response, EOF means a stale connection. */
    private String readLine(boolean first) throws IOException {
        StringBuilder line = new StringBuilder(64);
        while (true) {
            int c = in.read();
            if (c < 0) {
                if (first && line.isEmpty()) {
                    throw new StaleConnection("connection closed by the server");
                }
                throw new IOException("connection closed in the response head");
            }
            if (c == '\n') {
                int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') {
                    line.setLength(end - 1);
                }
                return line.toString();
            }
            if (line.length() >= 8192) {
                throw new IOException("response header line too long");
            }
            line.append((char) c);
        }
    }

    private static int remainingMillis(long deadline) throws SocketTimeoutException {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
            throw new SocketTimeoutException("deadline passed");
        }
        return (int) Math.min(Integer.MAX_VALUE, left);
    }

    private static String printable(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    /** Whether a connection is open (it may still turn out closed by the server: {@link #post} reopens it then). */
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

    /** The server closed a kept-alive connection before answering: the request was not processed; send it again. */
    private static final class StaleConnection extends IOException {
        private static final long serialVersionUID = 1L;

        StaleConnection(String message) {
            super(message);
        }
    }
}
