package io.jcni.runtime;

import io.jcni.spec.GcAttachment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@link CniRuntime#gcStale} found and did: one {@link Entry} per attachment it judged (cached attachments, and
 * ADDs whose rollback was left unfinished), one {@link NetworkGc} per network whose plugins it asked to collect.
 *
 * @param dryRun      nothing was changed; the actions say what would have been done
 * @param attachments in the order judged (cache file name order, then the journals)
 * @param networks    in the order given
 */
public record StaleReport(boolean dryRun, List<Entry> attachments, List<NetworkGc> networks) {
    public StaleReport {
        attachments = List.copyOf(attachments);
        networks = List.copyOf(networks);
    }

    /** Where an attachment was found. */
    public enum Source {
        /** In the result cache: an attachment that was added and not deleted. */
        CACHE,
        /** In an ADD journal: an ADD that failed (or whose runtime died) and whose rollback did not finish. */
        JOURNAL
    }

    /** What was done with an attachment. */
    public enum Action {
        /** Deleted: its namespace is gone (or it is a failed ADD), its plugins got DEL, its cache entry went. */
        REMOVED,
        /** Dry run: would have been removed. */
        WOULD_REMOVE,
        /** Left as it is: live, cannot be judged, or busy; it counts as valid for the plugins' GC. */
        KEPT,
        /** Should have been removed, but a DEL failed; it is left (and counts as valid) for the next run. */
        FAILED
    }

    /** What was done with a network's plugins' GC. */
    public enum GcAction {
        COLLECTED, WOULD_COLLECT, SKIPPED, FAILED
    }

    /**
     * One attachment judged.
     *
     * @param netns   the namespace path recorded for it ("" if none)
     * @param reason  why it was removed or kept ("netns /var/run/netns/x: no such file", "busy: ...")
     * @param failure the DEL's failure when {@code action} is {@link Action#FAILED}, else null
     */
    public record Entry(Source source, String network, String containerId, String ifName, String netns,
            Action action, String reason, CniRuntimeException failure) {
        public Entry {
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(network, "network");
            Objects.requireNonNull(containerId, "containerId");
            Objects.requireNonNull(ifName, "ifName");
            Objects.requireNonNull(netns, "netns");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(reason, "reason");
        }

        /** The attachment as GC's valid attachments name it. */
        public GcAttachment attachment() {
            return new GcAttachment(containerId, ifName);
        }

        /** One line of {@code jcni gc --stale}'s report. */
        public String line() {
            String verb = switch (action) {
                case REMOVED -> "removed";
                case WOULD_REMOVE -> "would remove";
                case KEPT -> "kept";
                case FAILED -> "failed";
            };
            return verb + " " + network + " " + containerId + "/" + ifName
                    + (source == Source.JOURNAL ? " (unfinished ADD)" : "")
                    + " netns " + (netns.isEmpty() ? "-" : netns) + ": " + reason;
        }
    }

    /**
     * One network's GC.
     *
     * @param valid   the attachments handed to its plugins as {@code cni.dev/valid-attachments}
     * @param reason  why it was skipped, or what failed; "" when collected
     * @param failure the GC's failure when {@code action} is {@link GcAction#FAILED}, else null
     */
    public record NetworkGc(String network, GcAction action, List<GcAttachment> valid, String reason,
            CniRuntimeException failure) {
        public NetworkGc {
            Objects.requireNonNull(network, "network");
            Objects.requireNonNull(action, "action");
            valid = List.copyOf(valid);
            Objects.requireNonNull(reason, "reason");
        }

        public String line() {
            return switch (action) {
                case COLLECTED -> "gc " + network + ": collected, " + valid.size() + " valid attachment"
                        + (valid.size() == 1 ? "" : "s");
                case WOULD_COLLECT -> "gc " + network + ": would collect, " + valid.size() + " valid attachment"
                        + (valid.size() == 1 ? "" : "s");
                case SKIPPED -> "gc " + network + ": skipped: " + reason;
                case FAILED -> "gc " + network + ": failed: " + reason;
            };
        }
    }

    /** Whether a DEL or a GC failed (the CLI then exits 1). */
    public boolean failed() {
        return attachments.stream().anyMatch(e -> e.action() == Action.FAILED)
                || networks.stream().anyMatch(n -> n.action() == GcAction.FAILED);
    }

    /** The entries with {@code action}. */
    public List<Entry> with(Action action) {
        return attachments.stream().filter(e -> e.action() == action).toList();
    }

    /** The report as {@code jcni gc --stale} prints it, one line per attachment and network. */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Entry entry : attachments) {
            lines.add(entry.line());
        }
        for (NetworkGc gc : networks) {
            lines.add(gc.line());
        }
        return lines;
    }
}
