package io.jcni.plugins;

import io.jcni.netlink.Netlink;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.runtime.InProcessPlugins;
import java.util.List;
import java.util.Optional;

/**
 * jcni's CNI plugins, for a Java runtime that links them: {@link #inProcess()} runs each in the caller's JVM with
 * exactly the inputs and outputs of an exec of {@code dist/cni/bin/<type>} (no fork, no JVM start).
 *
 * <p>The plugins call the kernel through the Foreign Function &amp; Memory API (module {@code io.jcni.netlink}), which
 * JDK 25 allows only to modules granted native access: start the JVM with
 * {@code --enable-native-access=io.jcni.netlink} when jcni's jars are on the module path, or
 * {@code --enable-native-access=ALL-UNNAMED} when they are on the class path.
 */
public final class Plugins {
    private Plugins() {
    }

    /**
     * Every jcni plugin by type, for a runtime's in-process option ({@code CniRuntime.Options.withInProcess}).
     * Thread-safe; plugins keep no state. In-process plugins cannot be killed: a runtime's deadline or an interrupt
     * stops them at their interruptible points (see {@code io.jcni.runtime.CniRuntime}, "Deadlines and cancellation").
     *
     * @throws IllegalStateException at once, naming the JVM flag to add, when the plugins could not work in this JVM:
     *                               native access not granted to {@code io.jcni.netlink} (or the class path), or not
     *                               Linux on amd64, aarch64 or riscv64
     */
    public static InProcessPlugins inProcess() {
        Optional<String> problem = Netlink.unavailability();
        if (problem.isPresent()) {
            throw new IllegalStateException("jcni's plugins cannot run in this JVM: " + problem.get());
        }
        return PluginRegistry.inProcess();
    }

    /** The plugin types jcni ships, sorted. */
    public static List<String> types() {
        return PluginRegistry.TYPES;
    }
}
