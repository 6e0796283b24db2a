package io.jcni.plugins.internal.ipam.hostlocal;

import java.util.function.Consumer;

/**
 * Named points inside an operation where a test can stop a real process (to kill it with SIGKILL there). Unset in
 * production: each point costs one volatile read.
 */
final class Failpoints {

    /** After a reservation file is created and before its content is written: the file is empty. */
    static final String CREATED_EMPTY = "created-empty";
    /** After a reservation file is complete, before the index knows of it. */
    static final String WRITTEN = "written";
    /** After the operation's file changes, before the index commit. */
    static final String BEFORE_COMMIT = "before-commit";

    static volatile Consumer<String> hook;

    private Failpoints() {}

    static void at(String name) {
        Consumer<String> h = hook;
        if (h != null) {
            h.accept(name);
        }
    }
}
