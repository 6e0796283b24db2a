package io.jcni.plugins.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.Skel;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** {@link PluginTable} is the only list of plugins, and everything that lists them derives from it. */
class PluginTableTest {

    /** Adding a plugin class without its table line fails here (it would get no launcher, no client, no cache). */
    @Test
    void everyPluginClassOfTheModuleIsNamedByTheTable() throws Exception {
        Set<Class<?>> named = new HashSet<>();
        for (PluginTable plugin : PluginTable.values()) {
            named.add(plugin.create().getClass());
        }
        List<String> unnamed = new ArrayList<>();
        int seen = 0;
        for (Class<?> c : mainClasses()) {
            if (CniPlugin.class.isAssignableFrom(c) && !c.isInterface() && !Modifier.isAbstract(c.getModifiers())
                    && !c.isAnonymousClass()) {
                seen++;
                if (!named.contains(c)) {
                    unnamed.add(c.getName());
                }
            }
        }
        assertThat(seen).as("the scan must see the plugin classes").isGreaterThanOrEqualTo(PluginTable.values().length);
        assertThat(unnamed).as("plugin classes missing from PluginTable").isEmpty();
        assertThat(named).hasSize(PluginTable.values().length);
    }

    @Test
    void typesAreTheTableInOrderAndEachHasASkel() {
        List<String> types = new ArrayList<>();
        for (PluginTable plugin : PluginTable.values()) {
            types.add(plugin.type());
            Skel skel = PluginRegistry.skel(plugin.type());
            assertThat(skel).as(plugin.type()).isNotNull();
            assertThat(PluginTable.of(plugin.type())).isSameAs(plugin);
        }
        assertThat(PluginRegistry.TYPES).isEqualTo(types).isSorted().doesNotHaveDuplicates();
        assertThat(PluginRegistry.skel("no-such-plugin")).isNull();
        assertThat(PluginRegistry.usesNetlink("no-such-plugin")).isFalse();
    }

    /**
     * The image build reads {@code Launcher --aot-groups}: the same mapping as before the table, and the netlink
     * types as before (all but cluster-ipam and static).
     */
    @Test
    void aotGroupsAndNetlinkUseAreWhatTheImageBuildExpects() {
        StringBuilder groups = new StringBuilder();
        List<String> plain = new ArrayList<>();
        for (String type : PluginRegistry.TYPES) {
            groups.append(type).append(' ').append(PluginRegistry.aotGroup(type)).append('\n');
            if (!PluginRegistry.usesNetlink(type)) {
                plain.add(type);
            }
        }
        assertThat(groups.toString()).isEqualTo("""
                bandwidth netlink
                bridge bridge
                cluster-ipam cluster
                dhcp dhcp
                dummy netlink
                firewall netlink
                host-device netlink
                host-local host-local
                ipvlan netlink
                loopback netlink
                macvlan netlink
                portmap netlink
                ptp netlink
                sbr netlink
                static plain
                tap netlink
                tuning netlink
                vlan netlink
                vrf netlink
                """);
        assertThat(plain).containsExactly("cluster-ipam", "static");
        assertThat(PluginRegistry.AOT_GROUPS)
                .containsExactly("version", "host-local", "cluster", "dhcp", "bridge", "netlink", "plain");
    }

    /** Every class compiled from the module's main tree. */
    private static List<Class<?>> mainClasses() throws Exception {
        Path root = Path.of(PluginTable.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertThat(root).isDirectory();
        List<Class<?>> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = root.relativize(file).toString().replace('/', '.');
                name = name.substring(0, name.length() - ".class".length());
                if (!name.equals("module-info") && !name.endsWith("package-info")) {
                    out.add(Class.forName(name, false, PluginTable.class.getClassLoader()));
                }
            }
        }
        return out;
    }
}
