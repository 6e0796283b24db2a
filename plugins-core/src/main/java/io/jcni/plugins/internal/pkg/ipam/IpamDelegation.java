package io.jcni.plugins.internal.pkg.ipam;

import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniException;
import io.jcni.spec.Result;

/**
 * GC and STATUS for a main plugin: it holds nothing between calls itself, so both verbs are its IPAM plugin's answer
 * (spec 1.1.0: "plugins should forward GC/STATUS to their delegates"). Without {@code ipam.type} there is nothing to
 * ask, and the plugin is ready. Also CHECK's IPAM part, for plugins whose {@code ipam} is optional.
 */
public final class IpamDelegation {
    private IpamDelegation() {
    }

    /**
     * CHECK's IPAM part: the IPAM plugin's CHECK, when the configuration has one. Go's plugins run it before their own
     * checks, prevResult's presence included; plugins that require {@code ipam} call {@code request.ipam().check()}.
     */
    public static void check(CniRequest request) throws CniException {
        if (!request.config().ipamType().isEmpty()) {
            request.ipam().check();
        }
    }

    /**
     * CHECK's first step in a main plugin, in Go's order: the IPAM plugin's CHECK (when the configuration has one),
     * then the prevResult this plugin checks the kernel against (code 7 "Required prevResult missing" without one).
     */
    public static Result checkThenPrevResult(CniRequest request) throws CniException {
        check(request);
        return PrevResults.require(request);
    }

    /** GC: the IPAM plugin releases what is not in {@code cni.dev/valid-attachments}. */
    public static void gc(CniRequest request) throws CniException {
        if (!request.config().ipamType().isEmpty()) {
            request.ipam().gc();
        }
    }

    /** STATUS: the IPAM plugin's error (50, 51) is this plugin's. */
    public static void status(CniRequest request) throws CniException {
        if (!request.config().ipamType().isEmpty()) {
            request.ipam().status();
        }
    }
}
