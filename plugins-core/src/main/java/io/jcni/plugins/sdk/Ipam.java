package io.jcni.plugins.sdk;

import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;

/**
 * The IPAM plugin a configuration names in {@code ipam.type}, called as the spec describes delegation: found in
 * CNI_PATH, given this plugin's environment (CNI_COMMAND set to the verb) and exactly this plugin's stdin. Runs
 * in-process when the executable is a jcni launcher (see {@link CniRequest#delegation()}).
 */
public final class Ipam {
    private final String type;
    private final CniRequest request;

    Ipam(String type, CniRequest request) {
        this.type = type;
        this.request = request;
    }

    /** The IPAM plugin's type. */
    public String type() {
        return type;
    }

    /**
     * IPAM ADD. On success the IPAM DEL is registered in the request's {@link CniRequest#rollback() rollback} at once,
     * so an ADD that fails after this point releases the addresses before its error is returned.
     *
     * @return the IPAM result as the delegate printed it (in the configuration's version)
     */
    public CniResult add() throws CniException {
        CniResult result = request.delegation().add(type, request.stdinBytes());
        request.rollback().onFailure("IPAM DEL (" + type + ")", new Release(this));
        Timing.phase("ipam");
        return result;
    }

    /** IPAM DEL: releases what ADD allocated; repeated DEL succeeds. */
    public void del() throws CniException {
        request.delegation().del(type, request.stdinBytes());
        Timing.phase("ipam");
    }

    /** IPAM CHECK. */
    public void check() throws CniException {
        request.delegation().check(type, request.stdinBytes());
        Timing.phase("ipam");
    }

    /** IPAM GC (1.1.0), with the same {@code cni.dev/valid-attachments}. */
    public void gc() throws CniException {
        request.delegation().gc(type, request.stdinBytes());
    }

    /** IPAM STATUS (1.1.0): its error (code 50/51) is this plugin's status too. */
    public void status() throws CniException {
        request.delegation().status(type, request.stdinBytes());
    }

    /** The rollback step of {@link #add}: a named class, not a lambda (start-up path, see StartupPathTest). */
    private static final class Release implements Rollback.Undo {
        private final Ipam ipam;

        Release(Ipam ipam) {
            this.ipam = ipam;
        }

        @Override
        public void undo() throws CniException {
            ipam.del();
        }
    }
}
