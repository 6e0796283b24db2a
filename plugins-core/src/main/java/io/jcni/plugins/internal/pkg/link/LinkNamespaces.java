package io.jcni.plugins.internal.pkg.link;

import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniException;

/**
 * The namespaces of a call of a plugin whose link sits on a lower device (macvlan, ipvlan, vlan): the host, the
 * container ({@code CNI_NETNS}, opened now so a bad path fails before any side effect), and the one holding the lower
 * device, which is the host or, with {@code linkInContainer}, the container. Closing closes both.
 */
public record LinkNamespaces(Namespace host, Namespace container, Namespace lower) implements AutoCloseable {

    /** What the namespaces depend on in a configuration. */
    public interface LowerDevice {
        /** {@code linkInContainer}: the lower device is in the container's namespace, not the host's. */
        boolean linkInContainer();
    }

    public static LinkNamespaces open(CniRequest request, LowerDevice config) throws CniException {
        Namespace host = Namespace.host();
        Namespace container = Namespace.container(request.netns());
        return new LinkNamespaces(host, container, config.linkInContainer() ? container : host);
    }

    @Override
    public void close() {
        try {
            container.close();
        } finally {
            host.close();
        }
    }
}
