package io.jcni.runtime.internal.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * JFR: one plugin call a {@code CniRuntime} made (exec'd or in-process), from its stdin's derivation to its output or
 * failure; a list ADD of three plugins is three of these, a rollback's DELs are more. Disabled unless a recording
 * enables it (the default and profile settings do, with no threshold): then {@code begin}/{@code commit} cost
 * nothing and the JIT removes the allocation. See the README's "Operating jcni" for {@code jfr print --events}.
 */
@Name(PluginCallEvent.NAME)
@Label("CNI Plugin Call")
@Category({"jcni", "Runtime"})
@Description("A plugin call made by the jcni runtime: network, plugin type, command, attachment, outcome")
@StackTrace(false)
public final class PluginCallEvent extends Event {
    /** The event's name in recordings. */
    public static final String NAME = "io.jcni.PluginCall";

    @Label("Network")
    public String network;

    @Label("Plugin Type")
    public String pluginType;

    @Label("Command")
    public String command;

    @Label("Container ID")
    public String containerId;

    @Label("Interface")
    public String ifName;

    @Label("Error Code")
    @Description("The CNI error code of a failed call; 0 when the plugin succeeded")
    public int errorCode;

    @Label("Error")
    @Description("The failure's message, or null")
    public String error;
}
