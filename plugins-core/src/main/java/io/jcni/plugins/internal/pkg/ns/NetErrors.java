package io.jcni.plugins.internal.pkg.ns;

import io.jcni.netlink.KernelException;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;

/**
 * Turns netlink-ffm's failures (netlink requests, namespaces, sysctls: every {@link KernelException}) into CNI errors
 * at the plugin edge. The message says what the plugin was doing and carries the kernel's words ({@code failed to
 * create veth pair eth0/veth1a2b3c4d: RTM_NEWLINK ...: EEXIST (File exists): <extended ACK>}); the details say what
 * usually causes that kind of failure.
 *
 * <p>Codes: EBUSY is 11 (try again later), everything else 999 as Go's plugins report kernel failures. Callers that
 * know better (a missing namespace is 8, a refused configuration 7) map those cases themselves.
 */
public final class NetErrors {
    private NetErrors() {
    }

    /** {@code what} failed with {@code e}. */
    public static CniException failure(String what, KernelException e) {
        int code = e.kind() == KernelException.Kind.BUSY ? CniError.TRY_AGAIN_LATER : CniError.INTERNAL;
        return new CniException(code, what + ": " + e.getMessage(), hint(e));
    }

    /** What usually causes a failure of this kind, for the error's details ("" when nothing useful can be said). */
    static String hint(KernelException e) {
        switch (e.kind()) {
            case PERMISSION_DENIED:
                return "the plugin needs CAP_NET_ADMIN in the network namespace (run it as root)";
            case NOT_SUPPORTED:
                return "the running kernel refused the request as unsupported (a feature not built into this kernel"
                        + " or its module not loaded)";
            case BUSY:
                return "the kernel reported the object busy; retrying the operation may succeed";
            case UNAVAILABLE:
                return "the plugin cannot use netlink in this process";
            default:
                return "";
        }
    }
}
