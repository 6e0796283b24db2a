package io.jcni.it.support;

import io.jcni.netlink.NetNs;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The web server the runtime tests start in their containers and how they reach it: busybox-static's httpd in a root
 * file system made here ({@link #image}), fetched with an HTTP GET from a network namespace ({@link #get},
 * {@link #awaitPage}).
 */
public final class WebProbe {
    private static final int CONNECT_TIMEOUT_MS = 3000;
    private static final int READ_TIMEOUT_MS = 5000;

    private WebProbe() {
    }

    /**
     * A root file system of busybox-static under {@code dir} (/bin/busybox, links for {@code applets}, and
     * {@code /www/index.html} holding {@code page}), as a tar podman imports: {@code dir/rootfs.tar}.
     */
    public static Path image(Path dir, String page, List<String> applets) throws IOException {
        Path busybox = Path.of("/bin/busybox");
        Prerequisites.assumeCommand("tar");
        Prerequisites.require(Files.isExecutable(busybox), () -> "busybox-static (scripts/setup installs it)");
        Path root = dir.resolve("rootfs");
        for (String d : List.of("bin", "www", "tmp", "proc", "sys", "dev", "etc")) {
            Files.createDirectories(root.resolve(d));
        }
        Files.copy(busybox, root.resolve("bin/busybox"));
        for (String applet : applets) {
            Files.createSymbolicLink(root.resolve("bin").resolve(applet), Path.of("busybox"));
        }
        Files.writeString(root.resolve("www/index.html"), page);
        Path tar = dir.resolve("rootfs.tar");
        Processes.check("tar", "-C", root.toString(), "-cf", tar.toString(), ".");
        return tar;
    }

    /** An HTTP GET of {@code /} from {@code from} to {@code address:port}: the whole answer, or "" if none came. */
    public static String get(Path from, InetAddress address, int port) {
        return get(from, address, port, READ_TIMEOUT_MS);
    }

    /** {@link #get(Path, InetAddress, int)} waiting at most {@code readTimeoutMs} for the answer. */
    public static String get(Path from, InetAddress address, int port, int readTimeoutMs) {
        try (NetNs ns = NetNs.open(from)) {
            Socket socket = ns.call(() -> {
                Socket s = new Socket();
                try {
                    s.connect(new InetSocketAddress(address, port), CONNECT_TIMEOUT_MS);
                    return s;
                } catch (IOException e) {
                    s.close();
                    return null;
                }
            });
            if (socket == null) {
                return "";
            }
            try (socket) {
                socket.setSoTimeout(readTimeoutMs);
                OutputStream out = socket.getOutputStream();
                out.write("GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@link #get} until the answer ends with {@code page}, at most 20 s: a web server just started (a container's
     * process) may not listen yet. What came last.
     */
    public static String awaitPage(Path from, InetAddress address, int port, String page) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        String got;
        while (!(got = get(from, address, port)).endsWith(page) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        return got;
    }
}
