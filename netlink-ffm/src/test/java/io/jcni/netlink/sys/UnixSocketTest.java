package io.jcni.netlink.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.internal.ffm.NativeMemory;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link UnixSocket} against the JDK's own Unix-domain server channel: bytes both ways (more than its transfer buffer),
 * the end of the stream, a read that times out, the failures of connect (no file, nobody listening, a path too long)
 * and of a write to a peer that left, and its native memory freed on close. Needs no root.
 */
class UnixSocketTest {
    @TempDir
    Path dir;

    @Test
    void bytesGoBothWaysAndTheEndOfTheStreamIsMinusOne() throws Exception {
        Path path = dir.resolve("s.sock");
        long before = NativeMemory.liveBytes();
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            byte[] big = new byte[100_000];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) (i * 31);
            }
            try (UnixSocket client = UnixSocket.connect(path); SocketChannel peer = server.accept()) {
                Thread writer = new Thread(() -> client.write(big, 0, big.length));
                writer.start();
                ByteBuffer received = ByteBuffer.allocate(big.length);
                while (received.hasRemaining()) {
                    peer.read(received);
                }
                writer.join();
                assertThat(received.array()).isEqualTo(big);

                peer.write(ByteBuffer.wrap(big));
                byte[] back = new byte[big.length];
                assertThat(client.readFully(back, 0, back.length, System.currentTimeMillis() + 5000)).isTrue();
                assertThat(back).isEqualTo(big);

                long start = System.nanoTime();
                assertThat(client.read(new byte[8], 0, 8, 200)).as("nothing within 200 ms").isZero();
                assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(150);
                assertThatThrownBy(() -> client.readFully(new byte[8], 0, 8, System.currentTimeMillis() + 100))
                        .hasMessage("receive: no answer in time");

                peer.write(ByteBuffer.wrap(new byte[] {7}));
                peer.close();
                byte[] one = new byte[4];
                assertThat(client.read(one, 0, 4, 1000)).isEqualTo(1);
                assertThat(one[0]).isEqualTo((byte) 7);
                assertThat(client.read(one, 0, 4, 1000)).as("the peer closed").isEqualTo(-1);
                assertThat(client.readFully(one, 0, 4, System.currentTimeMillis() + 1000)).isFalse();
                byte[] chunk = new byte[1 << 20];
                assertThatThrownBy(() -> {
                    for (int i = 0; i < 10; i++) {
                        client.write(chunk, 0, chunk.length);
                    }
                }).as("a peer that left: EPIPE, no signal").isInstanceOfSatisfying(KernelException.class,
                        e -> assertThat(e.getMessage()).startsWith("send to " + path + ": EPIPE"));
            }
        }
        assertThat(NativeMemory.liveBytes()).isEqualTo(before);
    }

    @Test
    void connectFailuresNameThePathAndTheReason() throws Exception {
        Path missing = dir.resolve("missing.sock");
        assertThatThrownBy(() -> UnixSocket.connect(missing)).isInstanceOfSatisfying(KernelException.class, e -> {
            assertThat(e.isNotFound()).isTrue();
            assertThat(e.getMessage()).isEqualTo("connect " + missing + ": ENOENT (No such file or directory)");
        });
        Path stale = dir.resolve("stale.sock");
        try (ServerSocketChannel gone = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            gone.bind(UnixDomainSocketAddress.of(stale));
        }
        assertThatThrownBy(() -> UnixSocket.connect(stale)).hasMessage("connect " + stale
                + ": ECONNREFUSED (Connection refused)");
        char[] longName = new char[120];
        Arrays.fill(longName, 'x');
        Path tooLong = dir.resolve(new String(longName));
        assertThatThrownBy(() -> UnixSocket.connect(tooLong)).hasMessageContaining("ENAMETOOLONG");
    }
}
