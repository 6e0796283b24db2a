package io.jcni.runtime;

/**
 * How {@link CniRuntime#gcStale} runs.
 *
 * @param dryRun             judge and report, change nothing: what would be removed is reported as
 *                           {@link StaleReport.Action#WOULD_REMOVE}, and no plugin gets DEL or GC
 * @param everyCachedNetwork also judge the cached attachments (and unfinished ADDs) of networks that are not among
 *                           those given, with the configuration each was added with (a network whose configuration
 *                           file was removed still has attachments to clean up); the plugins' GC still runs only for
 *                           the networks given
 */
public record StaleOptions(boolean dryRun, boolean everyCachedNetwork) {

    /** Remove what is stale; judge the attachments of the given networks only. */
    public static StaleOptions of() {
        return new StaleOptions(false, false);
    }

    public StaleOptions withDryRun(boolean enabled) {
        return new StaleOptions(enabled, everyCachedNetwork);
    }

    public StaleOptions withEveryCachedNetwork(boolean enabled) {
        return new StaleOptions(dryRun, enabled);
    }
}
