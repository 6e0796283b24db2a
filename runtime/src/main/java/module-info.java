/**
 * The library container runtimes link (Java's libcni) and the jcni CLI.
 *
 * <p>Exports only {@code io.jcni.runtime}: the runtime API ({@code CniRuntime}), configuration loading, and the
 * contract with the plugin SDK ({@code InProcessPlugin}, {@code InProcessPlugins}, {@code JcniLaunchers},
 * {@code Delegation}). The CLI's main class, {@code io.jcni.runtime.internal.cli.JcniCli}, lives in an internal
 * package; {@code java -m io.jcni.runtime/io.jcni.runtime.internal.cli.JcniCli} runs it.
 */
module io.jcni.runtime {
    requires transitive io.jcni.spec;
    /** JFR events for each plugin call ({@code io.jcni.PluginCall}): free unless a recording enables them. */
    requires jdk.jfr;

    exports io.jcni.runtime;
    /** Bounded, kind-checked file reads and I/O failure texts, shared with the plugins. */
    exports io.jcni.runtime.internal.files to io.jcni.plugins;
}
