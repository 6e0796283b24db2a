package io.jcni.it.containerd;

import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Whose plugins containerd runs, and how: each containerd test runs once per side. Go's are the control that proves
 * the harness (Debian's reference plugins, 1.1.1); jcni's run from copies of {@code dist/cni/bin}, their clients
 * either running their JVM launchers ({@code JCNI_SERVICE_SOCKET=off} in containerd's environment, which the plugins
 * inherit) or handing every call to a plugin service the test starts in containerd's own mount namespace (a service
 * elsewhere would see other files than containerd and refuse: see the README's plugin service).
 */
enum Side {
    GO("Go's plugins"),
    LAUNCHERS("jcni's plugins, JVM launchers"),
    SERVICE("jcni's plugins, through the plugin service");

    /** The plugin types containerd's example network and its CRI plugin use (loopback: the pod's lo). */
    static final List<String> TYPES = List.of("bridge", "host-local", "portmap", "bandwidth", "loopback");

    private final String label;

    Side(String label) {
        this.label = label;
    }

    /** The directory whose plugins go into the node's /opt/cni/bin. */
    Path plugins() {
        return this == GO ? Locations.referencePlugins() : Locations.distCniBin();
    }

    boolean jcni() {
        return this != GO;
    }

    /** How jcni's skel names a call of this side in its {@code JCNI_DEBUG} line: "exec" or "via service". */
    String skelMode() {
        return this == SERVICE ? "via service" : "exec";
    }

    /** Fails (never skips) when a plugin of {@link #TYPES} is missing. */
    void requirePlugins() {
        if (jcni()) {
            Prerequisites.assumeDistPlugins(TYPES.toArray(String[]::new));
        } else {
            Prerequisites.assumeReferencePlugins(TYPES.toArray(String[]::new));
        }
    }

    /** containerd's environment on this side; {@code socket}: the service's, for {@link #SERVICE}. */
    Map<String, String> env(Path socket) {
        return Map.of("JCNI_DEBUG", "1", "JCNI_SERVICE_SOCKET", this == SERVICE ? socket.toString() : "off");
    }

    @Override
    public String toString() {
        return label;
    }
}
