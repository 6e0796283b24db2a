package io.jcni.plugins.internal;

import io.jcni.plugins.internal.ipam.StaticPlugin;
import io.jcni.plugins.sdk.Skel;
import io.jcni.spec.CniVersion;
import java.util.List;

/**
 * Every jcni plugin by type. A string switch rather than a map of factories: a launcher builds only the plugin it
 * runs, and no lambda or reflection runs at start-up.
 */
public final class PluginRegistry {
    /** The plugin types this module ships, sorted; one launcher each in {@code dist/cni/bin}. */
    public static final List<String> TYPES = List.of("static");

    private PluginRegistry() {
    }

    /** The skeleton running plugin {@code type}, or null if jcni has no such plugin. */
    public static Skel skel(String type) {
        switch (type) {
            case "static":
                return Skel.of(type, new StaticPlugin(), CniVersion.SUPPORTED);
            default:
                return null;
        }
    }
}
