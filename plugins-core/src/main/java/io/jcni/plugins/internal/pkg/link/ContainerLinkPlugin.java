package io.jcni.plugins.internal.pkg.link;

import io.jcni.plugins.internal.main.MainPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniException;

/**
 * A plugin that creates the container's link itself ({@code macvlan}, {@code ipvlan}, {@code vlan}, {@code dummy}):
 * its DEL is {@link ContainerLink#delete(CniRequest)}, as in Go's four plugins: IPAM released, then CNI_IFNAME
 * deleted in CNI_NETNS, a gone namespace or link being success. GC and STATUS go to IPAM ({@link MainPlugin}).
 */
public interface ContainerLinkPlugin extends MainPlugin {

    @Override
    default void del(CniRequest request) throws CniException {
        ContainerLink.delete(request);
    }
}
