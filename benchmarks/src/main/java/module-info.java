/** JMH benchmarks. Compiled as a module; the shaded benchmarks.jar runs on the class path. */
module io.jcni.benchmarks {
    requires io.jcni.plugins;
    requires io.jcni.spec;
    requires io.jcni.netlink;
    requires jmh.core;
}
