/** The plugin SDK and the CNI plugins, shipped as one jlink image with a launcher per plugin type. */
@SuppressWarnings("module") // io.jcni.benchmarks is built after this module, so javac cannot see it here
module io.jcni.plugins {
    requires transitive io.jcni.runtime;
    requires io.jcni.netlink;

    /** {@code Plugins.inProcess()}: every jcni plugin for a runtime's in-process option. */
    exports io.jcni.plugins;
    /** The plugin skeleton, for jcni's plugins and anyone writing a plugin in Java. */
    exports io.jcni.plugins.sdk;

    // The host-local engine and its range model are internal; the benchmarks measure them directly.
    exports io.jcni.plugins.internal.ipam.hostlocal to io.jcni.benchmarks;
    exports io.jcni.plugins.internal.pkg.ipam.ranges to io.jcni.benchmarks;
}
