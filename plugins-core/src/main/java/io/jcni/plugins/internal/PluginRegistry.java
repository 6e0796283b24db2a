package io.jcni.plugins.internal;

import io.jcni.plugins.sdk.Skel;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.spec.CniVersion;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every jcni plugin by type, derived from {@link PluginTable} (the one list). A launcher builds only the plugin it
 * runs, and no lambda or reflection runs at start-up. Every skeleton gets all jcni plugins as in-process delegates, so
 * a jcni plugin delegating to a jcni IPAM plugin in CNI_PATH runs it in the same JVM.
 */
public final class PluginRegistry {
    /** The plugin types this module ships, sorted; one launcher each in {@code dist/cni/bin}. */
    public static final List<String> TYPES = types();

    /** Every AOT group, each trained by its own run in the image build ({@link PluginTable.Group}). */
    public static final List<String> AOT_GROUPS = groups();

    private PluginRegistry() {
    }

    private static List<String> types() {
        List<String> types = new ArrayList<>();
        for (PluginTable plugin : PluginTable.values()) {
            types.add(plugin.type());
        }
        return List.copyOf(types);
    }

    private static List<String> groups() {
        List<String> groups = new ArrayList<>();
        for (PluginTable.Group group : PluginTable.Group.values()) {
            groups.add(group.id());
        }
        return List.copyOf(groups);
    }

    /**
     * The AOT cache a plugin's launcher uses for every call but VERSION (and the about text), which use the {@code
     * version} group; null for a type jcni does not have.
     */
    public static String aotGroup(String type) {
        PluginTable plugin = PluginTable.of(type);
        return plugin == null ? null : plugin.group().id();
    }

    /** Whether plugin {@code type} makes native calls through netlink-ffm (netlink, namespaces, sysctl, flock). */
    public static boolean usesNetlink(String type) {
        PluginTable plugin = PluginTable.of(type);
        return plugin != null && plugin.group().usesNetlink();
    }

    /** The skeleton running plugin {@code type}, or null if jcni has no such plugin. */
    public static Skel skel(String type) {
        PluginTable plugin = PluginTable.of(type);
        if (plugin == null) {
            return null;
        }
        return Skel.of(type, plugin.create(), CniVersion.SUPPORTED).withDelegates(inProcess());
    }

    /** All jcni plugins, in-process. */
    public static InProcessPlugins inProcess() {
        return All.PLUGINS;
    }

    /** Built on first use only (lazy holder): a plugin that never delegates never builds it. */
    private static final class All {
        static final InProcessPlugins PLUGINS = build();

        private static InProcessPlugins build() {
            Map<String, InProcessPlugin> byType = new LinkedHashMap<>();
            for (String type : TYPES) {
                byType.put(type, new ByType(type));
            }
            return InProcessPlugins.of(byType);
        }
    }

    /** Resolves its skeleton per call, so that building the registry constructs no plugin. */
    private static final class ByType implements InProcessPlugin {
        private final String type;

        ByType(String type) {
            this.type = type;
        }

        @Override
        public int run(Map<String, String> env, byte[] stdin, OutputStream stdout, OutputStream stderr) {
            return skel(type).run(env, stdin, stdout, stderr);
        }

        @Override
        public String toString() {
            return "jcni plugin " + type + " (in-process)";
        }
    }
}
