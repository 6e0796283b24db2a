package io.jcni.netlink.internal.rtnl;

import io.jcni.netlink.Batch;
import io.jcni.netlink.BatchResult;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** {@link Batch}: requests encoded into a private buffer as they are queued, sent by the handle's channel. */
public final class BatchImpl extends Ops implements Batch {
    private final Channel channel;
    private final MessageWriter writer = new MessageWriter(8192);
    private int[] offsets = new int[16];
    private int[] types = new int[16];
    private Object[] subjects = new Object[16];
    private int count;

    BatchImpl(Channel channel) {
        this.channel = channel;
    }

    @Override
    protected void submit(int type, int flags, Object subject, Channel.Encoder encoder) {
        if (count == offsets.length) {
            offsets = Arrays.copyOf(offsets, count * 2);
            types = Arrays.copyOf(types, count * 2);
            subjects = Arrays.copyOf(subjects, count * 2);
        }
        int start = writer.position();
        try {
            writer.begin(type, flags | NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK, 0);
            encoder.encode(writer);
            writer.end();
        } catch (RuntimeException | Error e) {
            writer.truncate(start); // a request that failed to encode is not queued
            throw e;
        }
        offsets[count] = start;
        types[count] = type;
        subjects[count] = subject;
        count++;
    }

    @Override
    public int size() {
        return count;
    }

    @Override
    public BatchResult execute() {
        try {
            NetlinkException[] errors = channel.executeBatch(writer, offsets, count,
                    i -> Channel.describe(types[i], subjects[i]));
            List<BatchResult.Outcome> outcomes = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                outcomes.add(new BatchResult.Outcome(i, errors[i]));
            }
            return new BatchResult(outcomes);
        } finally {
            writer.clear();
            Arrays.fill(subjects, 0, count, null);
            count = 0;
        }
    }
}
