package io.jcni.netlink.internal.wire;

import static io.jcni.netlink.internal.wire.Replies.ack;
import static io.jcni.netlink.internal.wire.Replies.attr;
import static io.jcni.netlink.internal.wire.Replies.concat;
import static io.jcni.netlink.internal.wire.Replies.cstring;
import static io.jcni.netlink.internal.wire.Replies.data;
import static io.jcni.netlink.internal.wire.Replies.done;
import static io.jcni.netlink.internal.wire.Replies.error;
import static io.jcni.netlink.internal.wire.Replies.seq;
import static io.jcni.netlink.internal.wire.Replies.u32;
import static io.jcni.netlink.internal.wire.TestRequest.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.NetlinkException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The request/reply engine against a scripted kernel: sequence and sender checks, dumps, errors, batches. */
class ChannelTest {
    private static final int TYPE = RtnetlinkH.RTM_NEWADDR;
    private final FakeTransport kernel = new FakeTransport();
    private final Channel channel = new Channel(kernel);

    private static final java.util.function.Consumer<MessageWriter> FOUR_ATTRS = w -> {
        w.reserve(8);
        w.u32(1, 11);
        w.u32(2, 22);
        w.u32(4, 44);
        w.u32(8, 88);
    };

    private static final Channel.Decoder<Integer> MARKER = (b, off, len) -> b.getInt(off + 16);

    @Test
    void anAcknowledgedRequestReturnsAndCarriesRequestAckAndTheFlags() {
        kernel.responder = req -> List.of(ack(seq(req)));
        channel.execute(req(TYPE, NetlinkH.NLM_F_CREATE, "x", FOUR_ATTRS));
        byte[] sent = kernel.sent.getFirst();
        assertThat(sent).hasSize(16 + 8 + 32);
        int flags = (sent[6] & 0xff) | (sent[7] & 0xff) << 8;
        assertThat(flags).isEqualTo(NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK | NetlinkH.NLM_F_CREATE);
    }

    @Test
    void anErrorCarriesTheKernelsTextAndTheAttributeItBlames() {
        // offset 40 = header 16 + struct 8 + attributes 8 + 8: the third attribute, type 4
        kernel.responder = req -> List.of(error(seq(req), FakeTransport.PORT_ID, Errno.EINVAL, concat(
                attr(NetlinkH.NLMSGERR_ATTR_MSG, cstring("bad broadcast")),
                attr(NetlinkH.NLMSGERR_ATTR_OFFS, u32(40)))));
        assertThatThrownBy(() -> channel.execute(req(TYPE, 0, "10.1.2.3/24 dev 7", FOUR_ATTRS)))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("RTM_NEWADDR 10.1.2.3/24 dev 7: EINVAL (Invalid argument): "
                            + "bad broadcast (attribute type 4 at offset 40)");
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.kind()).isEqualTo(NetlinkException.Kind.INVALID);
                    assertThat(e.operation()).isEqualTo("RTM_NEWADDR 10.1.2.3/24 dev 7");
                });
    }

    @Test
    void aMissingAttributeIsNamed() {
        kernel.responder = req -> List.of(error(seq(req), FakeTransport.PORT_ID, Errno.EINVAL,
                attr(NetlinkH.NLMSGERR_ATTR_MISS_TYPE, u32(3))));
        assertThatThrownBy(() -> channel.execute(req(TYPE, 0, null, FOUR_ATTRS)))
                .hasMessage("RTM_NEWADDR: EINVAL (Invalid argument): (missing attribute type 3)");
    }

    @Test
    void repliesOfOtherRequestsOrFromOtherPortsAreSkipped() {
        kernel.responder = req -> List.of(
                error(seq(req) - 1, FakeTransport.PORT_ID, Errno.EEXIST, new byte[0]), // late reply of an old request
                error(seq(req), 999, Errno.EPERM, new byte[0]), // not addressed to our port
                concat(data(RtnetlinkH.RTM_NEWLINK, 0, 0, 1), ack(seq(req))));
        channel.execute(req(TYPE, 0, "x", FOUR_ATTRS));
        assertThat(kernel.queue).isEmpty();
    }

    @Test
    void aDumpCollectsMessagesAcrossDatagramsUntilDone() {
        kernel.responder = req -> List.of(
                concat(data(20, seq(req), 0, 1), data(20, seq(req), 0, 2)),
                data(20, seq(req), 0, 3),
                concat(data(20, seq(req), 0, 4), done(seq(req), 0)));
        assertThat(channel.dump(req(RtnetlinkH.RTM_GETADDR, null, w -> w.reserve(8)), MARKER))
                .containsExactly(1, 2, 3, 4);
        byte[] sent = kernel.sent.getFirst();
        int flags = (sent[6] & 0xff) | (sent[7] & 0xff) << 8;
        assertThat(flags).isEqualTo(NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_DUMP);
    }

    @Test
    void anInterruptedDumpIsDiscardedAndRepeated() {
        AtomicInteger attempt = new AtomicInteger();
        kernel.responder = req -> attempt.incrementAndGet() == 1
                ? List.of(concat(data(20, seq(req), 0, 1), data(20, seq(req), NetlinkH.NLM_F_DUMP_INTR, 2)),
                        done(seq(req), NetlinkH.NLM_F_DUMP_INTR))
                : List.of(concat(data(20, seq(req), 0, 7), done(seq(req), 0)));
        assertThat(channel.dump(req(RtnetlinkH.RTM_GETADDR, null, w -> w.reserve(8)), MARKER)).containsExactly(7);
        assertThat(kernel.sent).hasSize(2);
        assertThat(seq(kernel.sent.get(1))).isNotEqualTo(seq(kernel.sent.get(0)));
    }

    @Test
    void aDumpThatIsAlwaysInterruptedFailsAfterFortyAttempts() {
        kernel.responder = req -> List.of(concat(data(20, seq(req), NetlinkH.NLM_F_DUMP_INTR, 1),
                done(seq(req), NetlinkH.NLM_F_DUMP_INTR)));
        assertThatThrownBy(() -> channel.dump(req(RtnetlinkH.RTM_GETROUTE, "table all", w -> w.reserve(12)), MARKER))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.errnoName()).isEqualTo("EINTR");
                    assertThat(e.getMessage()).startsWith("RTM_GETROUTE table all: EINTR").contains("40 times");
                });
        assertThat(kernel.sent).hasSize(Channel.MAX_INTERRUPTED_DUMPS);
    }

    @Test
    void anInterruptedDumpIsRepeatedAfterARandomPauseThatGrowsAndStaysBounded() {
        long total = 0;
        for (int attempt = 1; attempt < Channel.MAX_INTERRUPTED_DUMPS; attempt++) {
            long ceiling = 1_000_000L << Math.min(attempt - 1, 6);
            long shortest = Long.MAX_VALUE;
            long longest = 0;
            for (int i = 0; i < 200; i++) {
                long pause = Channel.interruptedDumpPause(attempt);
                assertThat(pause).isBetween(ceiling / 4, ceiling);
                shortest = Math.min(shortest, pause);
                longest = Math.max(longest, pause);
            }
            assertThat(longest).as("random, so that writers interrupting each other's dumps fall apart")
                    .isGreaterThan(shortest);
            total += ceiling;
        }
        assertThat(total).as("the longest wait of all attempts together").isLessThanOrEqualTo(2_600_000_000L);
    }

    @Test
    void aTruncatedDatagramGrowsTheBufferAndTheReadIsRepeated() {
        FakeTransport small = new FakeTransport(64);
        Channel c = new Channel(small);
        small.responder = req -> {
            List<byte[]> big = new ArrayList<>();
            byte[] chunk = new byte[0];
            for (int i = 0; i < 10; i++) {
                chunk = concat(chunk, data(20, seq(req), 0, i));
            }
            big.add(chunk); // 200 bytes: does not fit 64
            big.add(done(seq(req), 0));
            return big;
        };
        assertThat(c.dump(req(RtnetlinkH.RTM_GETADDR, null, w -> w.reserve(8)), MARKER))
                .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(small.grownTo).isEqualTo(200);
        assertThat(small.sent).hasSize(2);
    }

    @Test
    void aBadLengthIsANetlinkExceptionNotAnIndexError() {
        kernel.responder = req -> {
            byte[] bad = data(20, seq(req), 0, 1);
            bad[0] = (byte) 200; // nlmsg_len beyond the datagram
            return List.of(bad);
        };
        assertThatThrownBy(() -> channel.dump(req(RtnetlinkH.RTM_GETADDR, null, w -> w.reserve(8)), MARKER))
                .isInstanceOf(NetlinkException.class).hasMessageContaining("malformed reply: nlmsg_len 200");
    }

    @Test
    void aDecoderFailureIsReportedAndTheNextRequestDrainsTheRestOfTheDump() {
        kernel.responder = req -> List.of(data(20, seq(req), 0, 1), data(20, seq(req), 0, 2), done(seq(req), 0));
        Channel.Decoder<Integer> failing = (b, off, len) -> {
            throw new MalformedMessageException("attribute 3 has 1 bytes, needs 4");
        };
        assertThatThrownBy(() -> channel.dump(req(RtnetlinkH.RTM_GETLINK, null, w -> w.reserve(16)), failing))
                .isInstanceOf(NetlinkException.class)
                .hasMessage("RTM_GETLINK: malformed RTM_NEWADDR reply: attribute 3 has 1 bytes, needs 4");
        assertThat(kernel.queue).hasSize(2);
        kernel.responder = req -> List.of(ack(seq(req)));
        channel.execute(req(TYPE, 0, "x", FOUR_ATTRS));
        assertThat(kernel.queue).isEmpty();
    }

    @Test
    void doneWithAnErrorCodeFailsTheDump() {
        kernel.responder = req -> List.of(Replies.message(NetlinkH.NLMSG_DONE, NetlinkH.NLM_F_MULTI, seq(req),
                FakeTransport.PORT_ID, u32(-Errno.EMSGSIZE)));
        assertThatThrownBy(() -> channel.dump(req(RtnetlinkH.RTM_GETLINK, null, w -> w.reserve(16)), MARKER))
                .isInstanceOfSatisfying(NetlinkException.class,
                        e -> assertThat(e.errnoName()).isEqualTo("EMSGSIZE"));
    }

    @Test
    void getReturnsTheSingleReplyOrThrowsTheKernelsError() {
        kernel.responder = req -> List.of(Replies.message(RtnetlinkH.RTM_NEWLINK, 0, seq(req), FakeTransport.PORT_ID,
                u32(5)));
        assertThat(channel.get(req(RtnetlinkH.RTM_GETLINK, "eth0", w -> w.reserve(16)), MARKER)).isEqualTo(5);
        kernel.responder = req -> List.of(error(seq(req), FakeTransport.PORT_ID, Errno.ENODEV, new byte[0]));
        assertThatThrownBy(() -> channel.get(req(RtnetlinkH.RTM_GETLINK, "eth9", w -> w.reserve(16)), MARKER))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.isNotFound()).isTrue();
                    assertThat(e.getMessage()).isEqualTo("RTM_GETLINK eth9: ENODEV (No such device)");
                });
    }

    @Test
    void aBatchIsSentInChunksAndEachErrorLandsOnItsRequest() {
        RequestQueue batch = new RequestQueue(1, 64);
        int count = 130;
        for (int i = 0; i < count; i++) {
            int marker = i;
            batch.add(req(TYPE, 0, "request " + i, w -> {
                w.reserve(8);
                w.u32(1, marker);
            }));
        }
        List<Integer> seen = new ArrayList<>();
        kernel.responder = datagram -> {
            List<byte[]> replies = new ArrayList<>();
            for (int s : Replies.seqs(datagram)) {
                int index = seen.size();
                seen.add(s);
                replies.add(index == 5 || index == 100
                        ? error(s, FakeTransport.PORT_ID, Errno.EEXIST, new byte[0]) : ack(s));
            }
            return replies;
        };
        NetlinkException[] errors = channel.executeBatch(batch);
        assertThat(kernel.sent).hasSize(3);
        assertThat(kernel.sent).extracting(d -> Replies.seqs(d).size()).containsExactly(64, 64, 2);
        assertThat(seen).doesNotHaveDuplicates().hasSize(count);
        for (int i = 0; i < count; i++) {
            if (i == 5 || i == 100) {
                assertThat(errors[i]).isNotNull().hasMessage("RTM_NEWADDR request " + i + ": EEXIST (File exists)");
            } else {
                assertThat(errors[i]).as("request %d", i).isNull();
            }
        }
    }

    @Test
    void aClosedChannelClosesItsTransportAndRefusesRequests() {
        channel.close();
        channel.close();
        assertThat(kernel.closed).isTrue();
        assertThatThrownBy(() -> channel.execute(req(TYPE, 0, "x", FOUR_ATTRS))).isInstanceOf(NetlinkException.class)
                .hasMessageContaining("closed");
    }
}
