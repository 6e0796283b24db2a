package io.jcni.netlink;

import java.util.ArrayList;
import java.util.List;

/**
 * What happened to each request of a {@link Batch}, in the order they were queued.
 *
 * @param outcomes one per request
 */
public record BatchResult(List<Outcome> outcomes) {

    /**
     * One request's fate.
     *
     * @param index the request's position in the batch, from 0
     * @param error null if the kernel applied it, else why not; its {@link NetlinkException#operation()} names the
     *     request ({@code "RTM_NEWADDR 10.0.0.2/24 dev 3"})
     */
    public record Outcome(int index, NetlinkException error) {
        public boolean succeeded() {
            return error == null;
        }
    }

    public BatchResult {
        outcomes = List.copyOf(outcomes);
    }

    public boolean allSucceeded() {
        return failures().isEmpty();
    }

    /** The errors of the requests that failed, in order. */
    public List<NetlinkException> failures() {
        List<NetlinkException> failures = new ArrayList<>();
        for (Outcome outcome : outcomes) {
            if (!outcome.succeeded()) {
                failures.add(outcome.error());
            }
        }
        return List.copyOf(failures);
    }

    /** Throws the first failure (the others added as suppressed), if any. */
    public void throwIfFailed() {
        List<NetlinkException> failures = failures();
        if (!failures.isEmpty()) {
            NetlinkException first = failures.getFirst();
            for (int i = 1; i < failures.size(); i++) {
                first.addSuppressed(failures.get(i));
            }
            throw first;
        }
    }
}
