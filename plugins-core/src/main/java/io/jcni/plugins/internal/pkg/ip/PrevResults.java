package io.jcni.plugins.internal.pkg.ip;

import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.util.List;
import java.util.Optional;

/** Reading a configuration's {@code prevResult}: what CHECK verifies and what a chained plugin builds on. */
public final class PrevResults {
    private PrevResults() {
    }

    /** The prevResult as a current (0.3.0+) result; code 7 "Required prevResult missing" when there is none. */
    public static Result require(CniRequest request) throws CniException {
        Optional<Result> previous = find(request);
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Required prevResult missing",
                    "the runtime passes the previous result in prevResult for CHECK and for chained plugins");
        }
        return previous.get();
    }

    /** The prevResult as a current (0.3.0+) result, if the configuration carries one. */
    public static Optional<Result> find(CniRequest request) throws CniException {
        Optional<CniResult> previous = request.config().prevResult();
        if (previous.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(Result.from(previous.get()));
    }

    /** The index of the interface named {@code name} whose sandbox is {@code sandbox} ("" for the host), or -1. */
    public static int indexOf(List<Interface> interfaces, String name, String sandbox) {
        for (int i = 0; i < interfaces.size(); i++) {
            Interface candidate = interfaces.get(i);
            if (candidate.name().equals(name) && candidate.sandbox().equals(sandbox)) {
                return i;
            }
        }
        return -1;
    }

    /** The container's interface of this call: named CNI_IFNAME, sandbox CNI_NETNS (as Go's plugins match it). */
    public static Optional<Interface> containerInterface(Result result, String ifName, String netns) {
        int i = indexOf(result.interfaces(), ifName, netns);
        return i < 0 ? Optional.empty() : Optional.of(result.interfaces().get(i));
    }

    /** The first host-side interface (no sandbox) named {@code name}. */
    public static Optional<Interface> hostInterface(Result result, String name) {
        int i = indexOf(result.interfaces(), name, "");
        return i < 0 ? Optional.empty() : Optional.of(result.interfaces().get(i));
    }
}
