package io.jcni.plugins.internal.main;

import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniException;

/**
 * A main (interface) plugin with an optional IPAM delegate, as Go's {@code plugins/main/*}: it keeps nothing between
 * calls itself, so GC and STATUS are its IPAM plugin's answer ({@link IpamDelegation}; without {@code ipam.type}
 * there is nothing to collect and the plugin is ready). A plugin that knows more (kernel support) overrides
 * {@link #status}.
 */
public interface MainPlugin extends CniPlugin {

    @Override
    default void gc(CniRequest request) throws CniException {
        IpamDelegation.gc(request);
    }

    @Override
    default void status(CniRequest request) throws CniException {
        IpamDelegation.status(request);
    }
}
