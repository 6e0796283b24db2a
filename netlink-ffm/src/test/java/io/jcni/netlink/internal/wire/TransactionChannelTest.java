package io.jcni.netlink.internal.wire;

import static io.jcni.netlink.internal.wire.Replies.ack;
import static io.jcni.netlink.internal.wire.Replies.attr;
import static io.jcni.netlink.internal.wire.Replies.cstring;
import static io.jcni.netlink.internal.wire.Replies.error;
import static io.jcni.netlink.internal.wire.TestRequest.req;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.NetlinkException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Channel#transact} against a scripted kernel: the batch framing, one acknowledgement matched to each message,
 * every failure reported on its message, a failed commit, a batch the kernel dropped, lost replies.
 */
class TransactionChannelTest {
    private static final int NEWRULE = MessageTypes.nftables(NfTablesH.NFT_MSG_NEWRULE);
    private final FakeTransport kernel = new FakeTransport();
    private final Channel channel = new Channel(kernel);

    private RequestQueue queue(int n) {
        RequestQueue q = new RequestQueue(1, 64);
        for (int i = 0; i < n; i++) {
            int marker = i;
            q.add(req(NEWRULE, NetlinkH.NLM_F_CREATE, "rule " + i, w -> {
                w.reserve(4);
                w.u32(1, marker);
            }));
        }
        return q;
    }

    /** Answers every message of the datagram that asks for an ACK; {@code errno[i]} for request i (0: success). */
    private static List<byte[]> answer(byte[] datagram, int... errno) {
        List<byte[]> replies = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(datagram).order(ByteOrder.nativeOrder());
        int request = 0;
        for (int off = 0; off + 16 <= datagram.length; off += (b.getInt(off) + 3) & ~3) {
            if ((b.getShort(off + 6) & NetlinkH.NLM_F_ACK) != 0) {
                int e = request < errno.length ? errno[request] : 0;
                replies.add(e == 0 ? ack(b.getInt(off + 8)) : error(b.getInt(off + 8), FakeTransport.PORT_ID, e,
                        attr(NetlinkH.NLMSGERR_ATTR_MSG, cstring("text " + request))));
                request++;
            }
        }
        return replies;
    }

    @Test
    void oneDatagramFramedByBatchBeginAndEndEveryRequestAcked() {
        kernel.responder = d -> answer(d);
        channel.transact(queue(3), NfnetlinkH.NFNL_SUBSYS_NFTABLES);
        assertThat(kernel.sent).hasSize(1);
        byte[] d = kernel.sent.getFirst();
        ByteBuffer b = ByteBuffer.wrap(d).order(ByteOrder.nativeOrder());
        List<Integer> types = new ArrayList<>();
        List<Integer> flags = new ArrayList<>();
        for (int off = 0; off + 16 <= d.length; off += (b.getInt(off) + 3) & ~3) {
            types.add(Short.toUnsignedInt(b.getShort(off + 4)));
            flags.add(Short.toUnsignedInt(b.getShort(off + 6)));
        }
        assertThat(types).containsExactly(NfnetlinkH.NFNL_MSG_BATCH_BEGIN, NEWRULE, NEWRULE, NEWRULE,
                NfnetlinkH.NFNL_MSG_BATCH_END);
        int ackedCreate = NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK | NetlinkH.NLM_F_CREATE;
        assertThat(flags).containsExactly(NetlinkH.NLM_F_REQUEST, ackedCreate, ackedCreate, ackedCreate,
                NetlinkH.NLM_F_REQUEST);
        List<Integer> seqs = Replies.seqs(d);
        for (int i = 1; i < seqs.size(); i++) {
            assertThat(seqs.get(i)).isEqualTo(seqs.getFirst() + i);
        }
        // nfgenmsg of the markers: AF_UNSPEC, NFNETLINK_V0, res_id = NFNL_SUBSYS_NFTABLES big-endian
        assertThat(new byte[] {d[16], d[17], d[18], d[19]}).containsExactly(0, 0, 0, 10);
        assertThat(kernel.queue).isEmpty();
    }

    @Test
    void everyFailureIsReportedOnItsOwnMessage() {
        kernel.responder = d -> answer(d, 0, Errno.ENOENT, 0, Errno.EEXIST);
        assertThatThrownBy(() -> channel.transact(queue(5), NfnetlinkH.NFNL_SUBSYS_NFTABLES))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.getMessage()).isEqualTo("NFT_MSG_NEWRULE rule 1 (message 2 of 5; the transaction was"
                            + " not applied): ENOENT (No such file or directory): text 1");
                    assertThat(e.extAck()).isEqualTo("text 1");
                    assertThat(e.getSuppressed()).singleElement().isInstanceOfSatisfying(NetlinkException.class,
                            s -> assertThat(s.getMessage()).startsWith("NFT_MSG_NEWRULE rule 3 (message 4 of 5")
                                    .contains("EEXIST").endsWith("text 3"));
                });
    }

    @Test
    void aFailedCommitIsAnErrorOnTheBeginMarker() {
        kernel.responder = d -> {
            List<byte[]> replies = new ArrayList<>();
            replies.add(error(Replies.seq(d), FakeTransport.PORT_ID, Errno.ENOMEM, new byte[0]));
            replies.addAll(answer(d));
            return replies;
        };
        assertThatThrownBy(() -> channel.transact(queue(2), NfnetlinkH.NFNL_SUBSYS_NFTABLES))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.errnoName()).isEqualTo("ENOMEM");
                    assertThat(e.operation()).isEqualTo("nf_tables transaction of 2 messages, nothing applied");
                });
    }

    @Test
    void aBatchTheKernelDroppedWithoutAWordFailsAtOnce() {
        kernel.responder = d -> List.of();
        assertThatThrownBy(() -> channel.transact(queue(2), NfnetlinkH.NFNL_SUBSYS_NFTABLES))
                .isInstanceOf(NetlinkException.class)
                .hasMessageContaining("answered 0 of 2 messages").hasMessageContaining("nothing applied");
    }

    @Test
    void lateRepliesOtherPortsAndAnEndMarkerAckAreIgnored() {
        kernel.responder = d -> {
            List<byte[]> replies = new ArrayList<>();
            List<Integer> seqs = Replies.seqs(d);
            replies.add(error(seqs.getFirst() - 1, FakeTransport.PORT_ID, Errno.EINVAL, new byte[0]));
            replies.add(error(seqs.get(1), 4711, Errno.EPERM, new byte[0]));
            replies.addAll(answer(d));
            replies.add(ack(seqs.getLast())); // kernels from 6.10 ack the end marker when it asks: harmless
            return replies;
        };
        channel.transact(queue(2), NfnetlinkH.NFNL_SUBSYS_NFTABLES);
        assertThat(kernel.queue).isEmpty();
    }

    @Test
    void lostRepliesMakeTheOutcomeUnknown() {
        kernel.responder = d -> answer(d);
        kernel.receiveFailure = new NetlinkException("recvfrom netlink", Errno.ENOBUFS, null);
        assertThatThrownBy(() -> channel.transact(queue(2), NfnetlinkH.NFNL_SUBSYS_NFTABLES))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.errnoName()).isEqualTo("ENOBUFS");
                    assertThat(e.getMessage()).contains("outcome is unknown");
                });
        kernel.responder = d -> answer(d);
        channel.transact(queue(1), NfnetlinkH.NFNL_SUBSYS_NFTABLES); // the next exchange drains and works
    }

    @Test
    void anEmptyTransactionSendsNothingAndAnOversizedOneIsRefused() {
        channel.transact(queue(0), NfnetlinkH.NFNL_SUBSYS_NFTABLES);
        assertThat(kernel.sent).isEmpty();
        assertThatThrownBy(() -> channel.transact(queue(Channel.MAX_TRANSACTION_MESSAGES + 1),
                NfnetlinkH.NFNL_SUBSYS_NFTABLES)).isInstanceOf(IllegalArgumentException.class);
        assertThat(kernel.sent).isEmpty();
    }
}
