package io.jcni.plugins.internal.pkg.ns;

import io.jcni.netlink.Batch;
import io.jcni.netlink.BatchResult;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.spec.CniException;
import java.util.ArrayList;
import java.util.List;

/**
 * A netlink {@link Batch} whose requests each carry what a failure of it means to the plugin ("failed to set
 * \"eth0\" up"), so that one datagram can carry a step's requests and a failure still reads like a single call's.
 *
 * <pre>{@code
 * NetBatch b = new NetBatch(nl);
 * b.on("failed to add IP addr 10.1.0.5/24 to \"eth0\"").addAddress(index, prefix);
 * b.on("failed to set \"eth0\" up").setUp(index);
 * b.execute();   // throws the first failure, described
 * }</pre>
 *
 * <p>As with {@link Batch}, the kernel applies every request on its own, in order: a failure does not stop the
 * requests after it. Callers roll back the whole step.
 */
public final class NetBatch {
    private final Batch batch;
    private final List<String> descriptions = new ArrayList<>();

    public NetBatch(NetlinkHandle nl) {
        this.batch = nl.batch();
    }

    /** The batch to queue the next request on; {@code failure} describes it if the kernel refuses it. */
    public Batch on(String failure) {
        descriptions.add(failure);
        return batch;
    }

    public int size() {
        return batch.size();
    }

    /** Sends everything queued; throws the first refused request's error (code per {@link NetErrors}). */
    public void execute() throws CniException {
        if (batch.size() == 0) {
            return;
        }
        String what = descriptions.isEmpty() ? "netlink batch" : descriptions.get(0);
        BatchResult result;
        try {
            result = batch.execute();
        } catch (NetlinkException e) {
            throw NetErrors.failure(what, e);
        }
        for (BatchResult.Outcome outcome : result.outcomes()) {
            if (outcome.error() != null) {
                int i = outcome.index();
                throw NetErrors.failure(i < descriptions.size() ? descriptions.get(i) : what, outcome.error());
            }
        }
    }
}
