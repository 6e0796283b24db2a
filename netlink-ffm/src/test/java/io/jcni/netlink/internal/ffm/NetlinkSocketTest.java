package io.jcni.netlink.internal.ffm;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.Link;
import io.jcni.netlink.internal.rtnl.LinkCodec;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the libc socket hands the decoders: a heap copy of each datagram, in native byte order. Decoding from a direct
 * buffer over the socket's shared arena made the codecs' attribute walks some of the JIT's largest compilations in a
 * fresh plugin service (NetlinkSocket's class comment). No root needed: the link dump of the test's own namespace.
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
}
