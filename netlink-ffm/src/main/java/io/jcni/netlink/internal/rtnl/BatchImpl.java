package io.jcni.netlink.internal.rtnl;

import io.jcni.netlink.Batch;
import io.jcni.netlink.BatchResult;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.internal.wire.Channel;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.RequestQueue;
import java.util.ArrayList;
import java.util.List;

/** {@link Batch}: requests encoded into a private queue as they are submitted, sent by the handle's channel. */
public final class BatchImpl extends Ops implements Batch {
    private final Channel channel;
    private final RequestQueue queue = new RequestQueue(16, 8192);

    BatchImpl(Channel channel) {
        this.channel = channel;
    }

    @Override
    protected void submit(Request request) {
        queue.add(request);
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public BatchResult execute() {
        try {
            NetlinkException[] errors = channel.executeBatch(queue);
            List<BatchResult.Outcome> outcomes = new ArrayList<>(errors.length);
            for (int i = 0; i < errors.length; i++) {
                outcomes.add(new BatchResult.Outcome(i, errors[i]));
            }
            return new BatchResult(outcomes);
        } finally {
            queue.clear();
        }
    }
}
