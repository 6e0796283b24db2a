package io.jcni.netlink.internal.ffm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.rtnl.LinkCodec;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the libc socket hands the decoders: a heap copy of each datagram, in native byte order. Decoding from a direct
 * buffer over the socket's shared arena made the codecs' attribute walks some of the JIT's largest compilations in a
 * fresh plugin service (NetlinkSocket's class comment). And its memory: mappings of its own, no arena (closing a
 * shared arena is a handshake with every thread of the JVM), unmapped at close, after which every use is refused.
 * No root needed: the link dump of the test's own namespace.
 */
class NetlinkSocketTest {

    /** {@code ip link show}: every link of the namespace, each message as the decoder saw it. */
    private static final class LinkDump extends Request {
        LinkDump() {
            super(RtnetlinkH.RTM_GETLINK, 0);
        }

        @Override
        public void encode(MessageWriter w) {
            LinkCodec.getLink(w, 0, null);
        }

        @Override
        protected String subject() {
            return null;
        }
    }

    private static List<Link> dump(Channel channel, List<ByteBuffer> seen) {
        return channel.dump(new LinkDump(), (b, off, len) -> {
            seen.add(b);
            return LinkCodec.decode(b, off, len);
        });
    }

    @Test
    void decodersReadAHeapCopyOfEachDatagramInNativeOrder() {
        NetlinkSocket socket = NetlinkSocket.open(NetlinkH.NETLINK_ROUTE);
        try (Channel channel = new Channel(socket)) {
            List<ByteBuffer> seen = new ArrayList<>();
            List<Link> links = dump(channel, seen);

            assertThat(links).extracting(Link::name).contains("lo");
            assertThat(seen).isNotEmpty().allSatisfy(b -> {
                assertThat(b.isDirect()).isFalse();
                assertThat(b.hasArray()).isTrue();
                assertThat(b.order()).isEqualTo(ByteOrder.nativeOrder());
            });
        }
    }

    @Test
    void aGrownReceiveBufferIsAHeapCopyAsLargeAsTheNativeOne() {
        NetlinkSocket socket = NetlinkSocket.open(NetlinkH.NETLINK_ROUTE);
        try (Channel channel = new Channel(socket)) {
            socket.growReceiveBuffer(100_000);
            ByteBuffer grown = socket.receiveBuffer();
            assertThat(grown.hasArray()).isTrue();
            assertThat(grown.capacity()).isGreaterThanOrEqualTo(100_000);

            List<ByteBuffer> seen = new ArrayList<>();
            assertThat(dump(channel, seen)).extracting(Link::name).contains("lo");
            assertThat(seen).allSatisfy(b -> assertThat(b).isSameAs(grown));
        }
    }

    /** Whether {@code /proc/self/maps} lists a readable, writable mapping holding all of {@code segment}. */
    private static boolean mapped(MemorySegment segment) throws IOException {
        long start = segment.address();
        long end = start + segment.byteSize();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            String[] fields = line.split(" +");
            String[] range = fields[0].split("-");
            if (Long.parseUnsignedLong(range[0], 16) <= start && end <= Long.parseUnsignedLong(range[1], 16)
                    && fields[1].startsWith("rw")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void theBuffersAreMappedWhileTheSocketLivesAndUnmappedWhenItCloses() throws IOException {
        long before = NativeMemory.liveBytes();
        NetlinkSocket socket = NetlinkSocket.open(NetlinkH.NETLINK_ROUTE);
        MemorySegment[] initial = socket.buffers();
        MemorySegment[] grown;
        try (Channel channel = new Channel(socket)) {
            assertThat(initial[0].byteSize()).isEqualTo(16 << 10);
            assertThat(initial[1].byteSize()).isEqualTo(32 << 10);
            assertThat(mapped(initial[0])).as("the send buffer").isTrue();
            assertThat(mapped(initial[1])).as("the receive buffer").isTrue();
            long open = NativeMemory.liveBytes();
            socket.growReceiveBuffer(100_000);
            assertThat(NativeMemory.liveBytes() - open).isEqualTo(128 << 10);
            // The first grown buffer is unmapped when the next replaces it; the initial one stays until close.
            socket.growReceiveBuffer(300_000);
            grown = socket.buffers();
            assertThat(grown[1].byteSize()).isEqualTo(512 << 10);
            assertThat(NativeMemory.liveBytes() - open).isEqualTo(512 << 10);
            assertThat(mapped(grown[1])).as("the grown receive buffer").isTrue();
            // The kernel writes a dump into the grown mapping, and read the request from the send buffer.
            assertThat(dump(channel, new ArrayList<>())).extracting(Link::name).contains("lo");
        }
        assertThat(NativeMemory.liveBytes()).as("every byte counted at open is freed").isEqualTo(before);
        assertThat(mapped(initial[0])).as("the initial send buffer, after close").isFalse();
        assertThat(mapped(initial[1])).as("the initial receive buffer, after close").isFalse();
        assertThat(mapped(grown[1])).as("the grown receive buffer, after close").isFalse();
    }

    @Test
    void aSocketOpensNoArenaAndRefusesEveryUseOnceClosed() throws IOException {
        long arenas = NativeMemory.liveArenas();
        long bytes = NativeMemory.liveBytes();
        NetlinkSocket socket = NetlinkSocket.open(NetlinkH.NETLINK_ROUTE);
        MemorySegment[] buffers = socket.buffers();
        try (Channel channel = new Channel(socket)) {
            assertThat(NativeMemory.liveArenas()).as("arenas held by an open socket").isEqualTo(arenas);
            assertThat(NativeMemory.liveBytes() - bytes).as("the slots' page and the 48 KiB of buffers")
                    .isEqualTo(4096 + (48 << 10));
            assertThat(dump(channel, new ArrayList<>())).extracting(Link::name).contains("lo");
        }
        assertThat(NativeMemory.liveBytes()).isEqualTo(bytes);
        assertThat(mapped(buffers[0])).isFalse();
        assertThat(mapped(buffers[1])).isFalse();
        assertThatThrownBy(() -> socket.send(new byte[16], 0, 16)).isInstanceOf(NetlinkException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> socket.receive(false)).isInstanceOf(NetlinkException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> socket.growReceiveBuffer(100_000)).isInstanceOf(NetlinkException.class)
                .hasMessageContaining("closed");
        socket.close(); // a second close does nothing
        assertThat(NativeMemory.liveBytes()).isEqualTo(bytes);
    }
}
