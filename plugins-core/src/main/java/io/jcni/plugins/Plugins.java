package io.jcni.plugins;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.runtime.InProcessPlugins;
import java.util.List;

/**
 * jcni's CNI plugins, for a Java runtime that links them: {@link #inProcess()} runs each in the caller's JVM with
 * exactly the inputs and outputs of an exec of {@code dist/cni/bin/<type>} (no fork, no JVM start).
 */
public final class Plugins {
    private Plugins() {
    }

    /** Every jcni plugin by type, for a runtime's in-process option. Thread-safe; plugins keep no state. */
    public static InProcessPlugins inProcess() {
        return PluginRegistry.inProcess();
    }

    /** The plugin types jcni ships, sorted. */
    public static List<String> types() {
        return PluginRegistry.TYPES;
    }
}
