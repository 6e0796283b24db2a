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
import io.jcni.plugins.internal.meta.bandwidth.BandwidthPlugin;
import io.jcni.plugins.internal.meta.firewall.FirewallPlugin;
import io.jcni.plugins.internal.meta.portmap.PortmapPlugin;
import io.jcni.plugins.internal.meta.sbr.SbrPlugin;
import io.jcni.plugins.internal.meta.tuning.TuningPlugin;
import io.jcni.plugins.internal.meta.vrf.VrfPlugin;
import io.jcni.plugins.sdk.CniPlugin;

/**
 * The one list of jcni's plugins: each line names a plugin type, its AOT cache group, its AOT training and its
 * constructor. Everything else derives from it: {@link PluginRegistry#TYPES} (one launcher and one client each in
 * {@code dist/cni/bin}), the skeleton by type (exec, in-process delegation, the plugin service's dispatch), {@code
 * Launcher --aot-groups} (what the image build trains) and the AOT training's scenarios. Adding a plugin is its class
 * and one line here; {@code PluginTableTest} fails for a plugin class this table does not name.
 *
 * <p>Lines are in the order of their type names. Each constructor is a method of its own line's class rather than a
 * method reference: a launcher builds only the plugin it runs, and no lambda is spun at start-up.
 */
public enum PluginTable {
    BANDWIDTH("bandwidth", Group.NETLINK, Training.INTERFACES) {
        @Override public CniPlugin create() { return new BandwidthPlugin(); } },
    BRIDGE("bridge", Group.BRIDGE, Training.BRIDGE) {
        @Override public CniPlugin create() { return new BridgePlugin(); } },
    CLUSTER_IPAM("cluster-ipam", Group.CLUSTER, Training.CLUSTER_IPAM) {
        @Override public CniPlugin create() { return new ClusterIpamPlugin(); } },
    DHCP("dhcp", Group.DHCP, Training.DHCP) {
        @Override public CniPlugin create() { return new DhcpPlugin(); } },
    DUMMY("dummy", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new DummyPlugin(); } },
    FIREWALL("firewall", Group.NETLINK, Training.INTERFACES) {
        @Override public CniPlugin create() { return new FirewallPlugin(); } },
    HOST_DEVICE("host-device", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new HostDevicePlugin(); } },
    HOST_LOCAL("host-local", Group.HOST_LOCAL, Training.HOST_LOCAL) {
        @Override public CniPlugin create() { return new HostLocalPlugin(); } },
    IPVLAN("ipvlan", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new IpvlanPlugin(); } },
    LOOPBACK("loopback", Group.NETLINK, Training.LOOPBACK) {
        @Override public CniPlugin create() { return new LoopbackPlugin(); } },
    MACVLAN("macvlan", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new MacvlanPlugin(); } },
    PORTMAP("portmap", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new PortmapPlugin(); } },
    PTP("ptp", Group.NETLINK, Training.INTERFACES) {
        @Override public CniPlugin create() { return new PtpPlugin(); } },
    SBR("sbr", Group.NETLINK, Training.INTERFACES) {
        @Override public CniPlugin create() { return new SbrPlugin(); } },
    STATIC("static", Group.PLAIN, Training.STATIC) {
        @Override public CniPlugin create() { return new StaticPlugin(); } },
    TAP("tap", Group.NETLINK, Training.INTERFACES) {
        @Override public CniPlugin create() { return new TapPlugin(); } },
    TUNING("tuning", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new TuningPlugin(); } },
    VLAN("vlan", Group.NETLINK, Training.VERSION_ONLY) {
        @Override public CniPlugin create() { return new VlanPlugin(); } },
    VRF("vrf", Group.NETLINK, Training.INTERFACES) {
        @Override public CniPlugin create() { return new VrfPlugin(); } };

    /**
     * The AOT caches of the image, each trained by its own run in the image build. The JVM loads every class of its
     * cache at each start, so a cache holds only what its calls need. Measured on the image (CPU per exec,
     * interleaved): the netlink group's cache costs a VERSION call ~6 ms more than the plain one and the VERSION-only
     * cache ~2.5 ms less; host-local's ADD with a cache of its own (~1,380 classes) ~8 ms less than with the netlink
     * group's (~1,730); bridge's ADD with a cache of its own (~1,700 classes, against the netlink group's ~1,900)
     * ~2.5 ms less wall time (40 interleaved rounds), which is why the plugin of every default network has one.
     */
    public enum Group {
        /** Every plugin's VERSION answer and about text; launchers use it for those calls. */
        VERSION("version", false),
        /** host-local: IPAM with flock(2) through FFM, but no rtnetlink. */
        HOST_LOCAL("host-local", true),
        /** cluster-ipam: etcd over sockets (and TLS when configured), no FFM. */
        CLUSTER("cluster", false),
        /**
         * dhcp: a client of its daemon over a Unix socket (through FFM, no rtnetlink); its training runs the daemon
         * in the same JVM, whose classes only this plugin's cache should carry.
         */
        DHCP("dhcp", true),
        /**
         * bridge alone: the plugin every default network of podman, containerd and Kubernetes' bridge configurations
         * names, with its in-process IPAM and its nf_tables paths (ipMasq, macspoofchk).
         */
        BRIDGE("bridge", true),
        /** The other plugins that configure interfaces through netlink (FFM). */
        NETLINK("netlink", true),
        /** Plugins that do not use FFM. */
        PLAIN("plain", false);

        private final String id;
        private final boolean usesNetlink;

        Group(String id, boolean usesNetlink) {
            this.id = id;
            this.usesNetlink = usesNetlink;
        }

        /** The group's name, as {@code --aot-groups} prints it and the image's cache files are named. */
        public String id() {
            return id;
        }

        /** Whether its plugins make native calls through netlink-ffm (netlink, namespaces, sysctl, flock). */
        public boolean usesNetlink() {
            return usesNetlink;
        }
    }

    /** What the AOT training runs for a plugin, besides the VERSION call every plugin gets. */
    public enum Training {
        /**
         * Nothing more: the plugin starts with the netlink classes bridge's and ptp's training loads (portmap's
         * calls are in the interface training, which needs a bridge in a namespace).
         */
        VERSION_ONLY,
        /** ADD (dual-stack, requested, repeated), CHECK, DEL, GC, STATUS and exhaustion on a data dir. */
        HOST_LOCAL,
        /** The same against the etcd the training was given, and always an unreachable etcd. */
        CLUSTER_IPAM,
        /** ADD at every version, CHECK, DEL, CNI_ARGS. */
        STATIC,
        /** Without its daemon, then against a daemon in the training's JVM. */
        DHCP,
        /** ADD, CHECK, DEL in the training's namespace (root only). */
        LOOPBACK,
        /** bridge's chains in namespaces of their own (root only). */
        BRIDGE,
        /** The interface plugins' chains in namespaces of their own (root only), run once for all of them. */
        INTERFACES
    }

    private final String type;
    private final Group group;
    private final Training training;

    PluginTable(String type, Group group, Training training) {
        this.type = type;
        this.group = group;
        this.training = training;
    }

    /** A new instance of the plugin. */
    public abstract CniPlugin create();

    /** The plugin type, as configurations name it ({@code "type"}) and its launcher is named. */
    public String type() {
        return type;
    }

    public Group group() {
        return group;
    }

    public Training training() {
        return training;
    }

    /** The line of plugin {@code type}, or null if jcni has no such plugin. */
    public static PluginTable of(String type) {
        for (PluginTable plugin : values()) {
            if (plugin.type.equals(type)) {
                return plugin;
            }
        }
        return null;
    }
}
