package io.jcni.netlink.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.rtnl.AddressCodec;
import io.jcni.netlink.internal.rtnl.LinkCodec;
import io.jcni.netlink.internal.rtnl.NeighborCodec;
import io.jcni.netlink.internal.rtnl.RouteCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input never escapes as anything but {@link NetlinkException}: real kernel dumps (the recorded vectors), cut at
 * every length and with bytes flipped at random (fixed seed), are fed to a channel as replies; each read either
 * decodes or fails with a NetlinkException, never with an index, buffer or argument exception.
 */
class CorruptRepliesTest {
    private static final Map<String, Channel.Decoder<?>> DECODERS = Map.of(
            "links", LinkCodec::decode, "addresses", AddressCodec::decode, "routes", RouteCodec::decode,
            "neighbors", NeighborCodec::decode);

    private static List<byte[]> recorded(String name) throws IOException {
        try (InputStream in = Objects.requireNonNull(
                CorruptRepliesTest.class.getResourceAsStream("/io/jcni/netlink/vectors/" + name + ".hex"))) {
            List<byte[]> out = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                if (!line.isBlank()) {
                    out.add(HexFormat.of().parseHex(line.strip()));
                }
            }
            return out;
        }
    }

    /** Rewrites sequence and port of every message that still has a readable header, as replies to {@code seq}. */
    private static byte[] readdress(byte[] datagram, int seq) {
        byte[] copy = datagram.clone();
        ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder());
        for (int off = 0; off + 16 <= copy.length; ) {
            int len = b.getInt(off);
            b.putInt(off + 8, seq);
            b.putInt(off + 12, FakeTransport.PORT_ID);
            if (len < 16) {
                break;
            }
            off += (len + 3) & ~3;
        }
        return copy;
    }

    private static int outcomes(List<byte[]> reply, Channel.Decoder<?> decoder) {
        FakeTransport kernel = new FakeTransport();
        kernel.responder = req -> {
            List<byte[]> out = new ArrayList<>();
            for (byte[] d : reply) {
                out.add(readdress(d, Replies.seq(req)));
            }
            out.add(Replies.done(Replies.seq(req), 0)); // so a read that skips the damage still ends
            return out;
        };
        try {
            new Channel(kernel).dump(TestRequest.req(RtnetlinkH.RTM_GETLINK, null, w -> w.reserve(16)), decoder);
            return 0;
        } catch (NetlinkException e) {
            return 1;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"links", "addresses", "routes", "neighbors"})
    void truncatedAndCorruptedDumpsFailOnlyWithNetlinkException(String name) throws IOException {
        Channel.Decoder<?> decoder = DECODERS.get(name);
        byte[] first = recorded(name).getFirst();
        int failures = 0;
        for (int cut = 0; cut < first.length; cut++) {
            failures += outcomes(List.of(Arrays.copyOf(first, cut)), decoder);
        }
        Random random = new Random(42);
        for (int round = 0; round < 2_000; round++) {
            byte[] bad = first.clone();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
            }
            failures += outcomes(List.of(bad), decoder);
        }
        assertThat(failures).as("some damage is detected, not silently accepted").isPositive();
    }
}
