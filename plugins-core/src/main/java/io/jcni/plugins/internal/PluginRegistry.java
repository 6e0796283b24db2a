package io.jcni.plugins.internal;

import io.jcni.plugins.internal.ipam.cluster.ClusterIpamPlugin;
import io.jcni.plugins.internal.ipam.dhcp.DhcpPlugin;
import io.jcni.plugins.internal.ipam.hostlocal.HostLocalPlugin;
import io.jcni.plugins.internal.ipam.staticip.StaticPlugin;
import io.jcni.plugins.internal.main.bridge.BridgePlugin;
import io.jcni.plugins.internal.main.dummy.DummyPlugin;
import io.jcni.plugins.internal.main.hostdevice.HostDevicePlugin;
import io.jcni.plugins.internal.main.ipvlan.IpvlanPlugin;
import io.jcni.plugins.internal.main.loopback.LoopbackPlugin;
import io.jcni.plugins.internal.main.macvlan.MacvlanPlugin;
import io.jcni.plugins.internal.main.ptp.PtpPlugin;
import io.jcni.plugins.internal.main.tap.TapPlugin;
import io.jcni.plugins.internal.main.vlan.VlanPlugin;
import io.jcni.plugins.internal.meta.firewall.FirewallPlugin;
import io.jcni.plugins.internal.meta.bandwidth.BandwidthPlugin;
import io.jcni.plugins.internal.meta.sbr.SbrPlugin;
import io.jcni.plugins.internal.meta.portmap.PortmapPlugin;
import io.jcni.plugins.internal.meta.tuning.TuningPlugin;
import io.jcni.plugins.internal.meta.vrf.VrfPlugin;
import io.jcni.plugins.sdk.Skel;
import io.jcni.runtime.InProcessPlugin;
import io.jcni.runtime.InProcessPlugins;
import io.jcni.spec.CniVersion;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every jcni plugin by type. A string switch rather than a map of factories: a launcher builds only the plugin it
 * runs, and no lambda or reflection runs at start-up. Every skeleton gets all jcni plugins as in-process delegates,
 * so a jcni plugin delegating to a jcni IPAM plugin in CNI_PATH runs it in the same JVM.
 */
public final class PluginRegistry {
    /** The plugin types this module ships, sorted; one launcher each in {@code dist/cni/bin}. */
    public static final List<String> TYPES = List.of("bandwidth", "bridge", "cluster-ipam", "dhcp", "dummy",
            "firewall", "host-device", "host-local", "ipvlan", "loopback", "macvlan", "portmap", "ptp", "sbr", "static",
            "tap", "tuning", "vlan", "vrf");

    /**
     * The types that use netlink-ffm (host-local too: flock(2), Go's lock on its data directory; firewall and portmap:
     * nf_tables; dhcp: the Unix socket to its daemon).
     */
    private static final List<String> NETLINK_TYPES = List.of("bandwidth", "bridge", "dhcp", "dummy", "firewall",
            "host-device", "host-local", "ipvlan", "loopback", "macvlan", "portmap", "ptp", "sbr", "tap", "tuning",
            "vlan", "vrf");

    /**
     * AOT cache of every plugin's VERSION answer and about text; launchers use it for those calls (see
     * {@link #aotGroup}).
     */
    public static final String VERSION_GROUP = "version";
    /** AOT cache group of host-local: IPAM with flock(2) through FFM, but no rtnetlink. */
    public static final String HOST_LOCAL_GROUP = "host-local";
    /** AOT cache group of cluster-ipam: etcd over sockets (and TLS when configured), no FFM. */
    public static final String CLUSTER_GROUP = "cluster";
    /**
     * AOT cache group of the dhcp plugin: a client of its daemon over a Unix socket (through FFM, no rtnetlink); its
     * training runs the daemon in the same JVM, whose classes only this plugin's cache should carry.
     */
    public static final String DHCP_GROUP = "dhcp";
    /**
     * AOT cache group of the bridge plugin alone: the one every default network of podman, containerd and Kubernetes'
     * bridge configurations names, with its in-process IPAM and its nf_tables paths (ipMasq, macspoofchk).
     */
    public static final String BRIDGE_GROUP = "bridge";
    /** AOT cache group of the other plugins that configure interfaces through netlink (FFM). */
    public static final String NETLINK_GROUP = "netlink";
    /** AOT cache group of plugins that do not use FFM. */
    public static final String PLAIN_GROUP = "plain";
    /** Every AOT group, each trained by its own run in the image build. */
    public static final List<String> AOT_GROUPS = List.of(VERSION_GROUP, HOST_LOCAL_GROUP, CLUSTER_GROUP, DHCP_GROUP,
            BRIDGE_GROUP, NETLINK_GROUP, PLAIN_GROUP);

    private PluginRegistry() {
    }

    /**
     * The AOT cache a plugin's launcher uses for every call but VERSION (and the about text), which use
     * {@link #VERSION_GROUP}. The JVM loads every class of its cache at each start, so a cache holds only what its
     * calls need. Measured on the image (CPU per exec, interleaved): the netlink group's cache costs a VERSION call
     * ~6 ms more than the plain one and the VERSION-only cache ~2.5 ms less; host-local's ADD with a cache of its own
     * (~1,380 classes) ~8 ms less than with the netlink group's (~1,730); bridge's ADD with a cache of its own
     * (~1,700 classes, against the netlink group's ~1,900) ~2.5 ms less wall time (40 interleaved rounds), which is
     * why the plugin of every default network has one.
     */
    public static String aotGroup(String type) {
        if (type.equals("host-local")) {
            return HOST_LOCAL_GROUP;
        }
        if (type.equals("bridge")) {
            return BRIDGE_GROUP;
        }
        if (type.equals("cluster-ipam")) {
            return CLUSTER_GROUP;
        }
        if (type.equals("dhcp")) {
            return DHCP_GROUP;
        }
        return usesNetlink(type) ? NETLINK_GROUP : PLAIN_GROUP;
    }

    /** Whether plugin {@code type} makes native calls through netlink-ffm (netlink, namespaces, sysctl, flock). */
    public static boolean usesNetlink(String type) {
        return NETLINK_TYPES.contains(type);
    }

    /** The skeleton running plugin {@code type}, or null if jcni has no such plugin. */
    public static Skel skel(String type) {
        Skel skel;
        switch (type) {
            case "bandwidth":
                skel = Skel.of(type, new BandwidthPlugin(), CniVersion.SUPPORTED);
                break;
            case "bridge":
                skel = Skel.of(type, new BridgePlugin(), CniVersion.SUPPORTED);
                break;
            case "cluster-ipam":
                skel = Skel.of(type, new ClusterIpamPlugin(), CniVersion.SUPPORTED);
                break;
            case "dhcp":
                skel = Skel.of(type, new DhcpPlugin(), CniVersion.SUPPORTED);
                break;
            case "dummy":
                skel = Skel.of(type, new DummyPlugin(), CniVersion.SUPPORTED);
                break;
            case "firewall":
                skel = Skel.of(type, new FirewallPlugin(), CniVersion.SUPPORTED);
                break;
            case "host-device":
                skel = Skel.of(type, new HostDevicePlugin(), CniVersion.SUPPORTED);
                break;
            case "host-local":
                skel = Skel.of(type, new HostLocalPlugin(), CniVersion.SUPPORTED);
                break;
            case "ipvlan":
                skel = Skel.of(type, new IpvlanPlugin(), CniVersion.SUPPORTED);
                break;
            case "macvlan":
                skel = Skel.of(type, new MacvlanPlugin(), CniVersion.SUPPORTED);
                break;
            case "vlan":
                skel = Skel.of(type, new VlanPlugin(), CniVersion.SUPPORTED);
                break;
            case "loopback":
                skel = Skel.of(type, new LoopbackPlugin(), CniVersion.SUPPORTED);
                break;
            case "portmap":
                skel = Skel.of(type, new PortmapPlugin(), CniVersion.SUPPORTED);
                break;
            case "ptp":
                skel = Skel.of(type, new PtpPlugin(), CniVersion.SUPPORTED);
                break;
            case "sbr":
                skel = Skel.of(type, new SbrPlugin(), CniVersion.SUPPORTED);
                break;
            case "static":
                skel = Skel.of(type, new StaticPlugin(), CniVersion.SUPPORTED);
                break;
            case "tap":
                skel = Skel.of(type, new TapPlugin(), CniVersion.SUPPORTED);
                break;
            case "tuning":
                skel = Skel.of(type, new TuningPlugin(), CniVersion.SUPPORTED);
                break;
            case "vrf":
                skel = Skel.of(type, new VrfPlugin(), CniVersion.SUPPORTED);
                break;
            default:
                return null;
        }
        return skel.withDelegates(inProcess());
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
