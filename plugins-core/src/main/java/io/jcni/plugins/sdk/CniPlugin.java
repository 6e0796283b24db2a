package io.jcni.plugins.sdk;

import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;

/**
 * A CNI plugin's handlers, one per verb. Hand an implementation to {@link Skel#of}; the skel alone reads the
 * environment and stdin, negotiates the version, prints results and errors, and sets the exit status.
 *
 * <p>A handler reports failures by throwing {@link CniException} with the spec's code (or 100+ for plugin-specific
 * ones); any other exception is a bug and becomes code 999 with the stack trace on stderr. Handlers must not write to
 * {@code System.out}: the skel owns stdout. Log through {@link CniRequest#log()}.
 *
 * <p>Contracts the spec sets, which the skel cannot enforce: ADD registers an undo for every side effect as it makes
 * it (see {@link Rollback}) so a failed ADD leaves nothing behind; DEL succeeds when what it should remove is already
 * gone (namespace, link, allocation), and DEL repeated is DEL once.
 */
public interface CniPlugin {

    /**
     * ADD: set up the attachment and return what was set up. The skel converts the result to the configuration's
     * {@code cniVersion} before printing it, so a plugin may return a result of any version.
     */
    CniResult add(CniRequest request) throws CniException;

    /** DEL: release everything ADD set up; tolerant of anything already gone. {@code netns()} may be empty. */
    void del(CniRequest request) throws CniException;

    /** CHECK (configurations of 0.4.0 and later): fail if the attachment is not as ADD left it. */
    void check(CniRequest request) throws CniException;

    /**
     * GC (1.1.0): release resources of attachments not in {@code config().validAttachments()}, continuing past
     * individual failures. The default has nothing to collect.
     */
    default void gc(CniRequest request) throws CniException {
    }

    /**
     * STATUS (1.1.0): throw code 50 (plugin not available) or 51 (limited connectivity) when ADD cannot be served.
     * The default is always ready.
     */
    default void status(CniRequest request) throws CniException {
    }
}
