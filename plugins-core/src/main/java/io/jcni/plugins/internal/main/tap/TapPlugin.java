package io.jcni.plugins.internal.main.tap;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.TunTap;
import io.jcni.plugins.internal.main.MainPlugin;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.ContainerLink;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code tap} plugin: a persistent TAP device named CNI_IFNAME in the container's namespace (for a VM monitor or
 * user-space stack to attach to), optionally a port of a bridge there, with addresses from IPAM or none (layer 2).
 * Go's tap plugin is newer than Debian's reference plugins (it appeared in containernetworking/plugins 1.3.0; 1.1.1
 * has none), so jcni follows the latest release's source (1.9.1), read, not run.
 *
 * <p>Keys, Go's: {@code mac} (overridden by CNI_ARGS {@code MAC}, then by the {@code mac} capability), {@code mtu}
 * (0: the kernel's), {@code multiQueue}, {@code owner} and {@code group} (the uid and gid allowed to attach; unset:
 * anyone), {@code bridge} (a bridge in the container's namespace to make the device a port of), {@code ipam},
 * {@code dns} (replaces IPAM's when set; Go always replaces it, with nothing when unset). Refused:
 * {@code selinuxContext} (any spelling, as Go's JSON decoding matches keys without case), code 2: Go labels the
 * device by exec'ing {@code ip} under that SELinux label, and jcni neither execs tools nor can it label the device
 * from its own process; creating it unlabelled would pass ADD and fail the consumer later. jcni's addition:
 * {@code mode}, absent or {@code "tap"}; anything else is code 7 (Go has no such key and always makes a TAP device).
 *
 * <p>The device's flags are Go's: with both {@code owner} and {@code group} Go creates it through netlink with a
 * virtio-net header and, unless multi-queue, packet information; otherwise through {@code ip tuntap}, with neither.
 * The process that attaches sets those two again for its queue; only multi-queue must match.
 *
 * <p>ADD: the device is created directly in the container through {@code /dev/net/tun} on a thread switched into the
 * namespace (so no temporary name is needed, unlike Go), deleted again if the ADD fails; MTU and MAC set, the bridge
 * port set, up, then IPAM's addresses and routes ({@code arp_notify} first, as Go). Result: the device (name, MAC,
 * sandbox) and IPAM's addresses on it. DEL: IPAM released, then the device deleted; a missing namespace or device is
 * success (the configuration's own keys are not checked there, so a refused one never blocks a DEL). CHECK: Go's (IPAM's CHECK, the prevResult's interface in CNI_NETNS, addresses and routes) plus the device
 * being a TAP of the configured multi-queue, owner and group. GC and STATUS: IPAM's; STATUS is code 50 without
 * {@code /dev/net/tun}.
 */
public final class TapPlugin implements MainPlugin {
    static final Path TUN_DEVICE = Path.of("/dev/net/tun");

    /** The configuration (Go's {@code NetConf}); {@code owner}/{@code group} -1 when unset, {@code mtu} 0. */
    record Config(boolean multiQueue, int mtu, MacAddress mac, int owner, int group, String bridge, Dns dns) {

        static Config load(CniRequest request) throws CniException {
            ConfigNode root = request.config().node();
            refuseSelinuxContext(root);
            String mode = root.string("mode").orElse("tap");
            if (!mode.equals("tap")) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "unknown tap mode: \"" + mode + "\"",
                        "the tap plugin creates TAP devices only: leave mode out or set it to \"tap\"");
            }
            boolean multiQueue = root.bool("multiQueue").orElse(false);
            int mtu = (int) root.integer("mtu", 0, 65535).orElse(0L).longValue();
            int owner = (int) root.integer("owner", 0, Integer.MAX_VALUE).orElse(-1L).longValue();
            int group = (int) root.integer("group", 0, Integer.MAX_VALUE).orElse(-1L).longValue();
            String bridge = root.string("bridge").orElse("");
            MacAddress mac = ContainerLink.requestedMac(request, root);
            return new Config(multiQueue, mtu, mac, owner, group,
                    bridge, request.config().dns());
        }

        /** A non-empty {@code selinuxContext} is refused (see the class comment). */
        private static void refuseSelinuxContext(ConfigNode root) throws CniException {
            Optional<ConfigNode> context = root.field("selinuxContext");
            if (context.isPresent() && !context.get().asString().isEmpty()) {
                throw new CniException(CniError.UNSUPPORTED_FIELD, context.get().path()
                        + ": not supported by jcni's tap", "Go's tap labels the device by running ip under that"
                        + " SELinux context; jcni runs no tools and cannot label the device from its own process."
                        + " Leave it out, or use Go's tap for this network");
            }
        }

        /** The device to create, with Go's flags (see the class comment). */
        TunTap device(String name) {
            boolean throughNetlink = owner >= 0 && group >= 0;
            return TunTap.tap(name).multiQueue(multiQueue).vnetHeader(throughNetlink)
                    .packetInfo(throughNetlink && !multiQueue).owner(owner).group(group);
        }
    }

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        Timing.phase("config");
        String ifName = request.ifName();
        try (Namespace container = Namespace.container(request.netns())) {
            Link tap = createTap(container, conf, ifName, request);
            Result result;
            if (request.config().ipamType().isEmpty()) {
                up(container, tap);
                result = new Result(List.of(Links.describe(tap, request.netns())), List.of(), List.of(), Dns.EMPTY);
            } else {
                result = configureFromIpam(request, container, tap);
            }
            return conf.dns().isEmpty() ? result : result.withDns(conf.dns());
        }
    }

    /** The TAP device in the container, its MTU, MAC and bridge set; deleted again if the ADD fails. */
    private static Link createTap(Namespace container, Config conf, String ifName, CniRequest request)
            throws CniException {
        TunTap device = conf.device(ifName);
        try {
            device.create(container.netns());
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "failed to create tap: " + e.getMessage(),
                        "the kernel has no TUN/TAP support (CONFIG_TUN) or " + TUN_DEVICE + " is missing");
            }
            throw NetErrors.failure("failed to create tap " + device, e);
        } catch (IllegalArgumentException e) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "failed to create tap: " + e.getMessage());
        }
        request.rollback().onFailure("delete tap " + ifName + " in " + container,
                new Undos.DeleteLink(container, ifName));
        try {
            Link link = container.nl().link(ifName);
            if (conf.mtu() != 0) {
                container.nl().setMtu(link.index(), conf.mtu());
            }
            if (conf.mac() != null) {
                container.nl().setAddress(link.index(), conf.mac());
            }
            if (!conf.bridge().isEmpty()) {
                attach(container, link, conf.bridge());
            }
            Timing.phase("tap");
            return container.nl().link(link.index());
        } catch (NetlinkException e) {
            int code = e.kind() == KernelException.Kind.INVALID ? CniError.INVALID_NETWORK_CONFIG : CniError.INTERNAL;
            throw new CniException(code, "failed to configure tap " + ifName + ": " + e.getMessage());
        }
    }

    /** {@code ip link set IFNAME master BRIDGE}, the bridge looked up in the container as Go does. */
    private static void attach(Namespace container, Link tap, String bridge) throws CniException {
        Optional<Link> master = container.nl().findLink(bridge);
        if (master.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to get bridge " + bridge + ": Link not found",
                    "the bridge must exist in the container's namespace " + container.path());
        }
        try {
            container.nl().setMaster(tap.index(), master.get().index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set tap " + tap.name() + " as a port of bridge " + bridge, e);
        }
    }

    private static void up(Namespace container, Link tap) throws CniException {
        try {
            container.nl().setUp(tap.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set \"" + tap.name() + "\" UP", e);
        }
    }

    /**
     * Go's layer 3 path: IPAM's ADD (which registers its own release), every address on the device (index 0),
     * {@code arp_notify} on (failures ignored, as Go), then addresses, up, routes ({@link IfaceConfig}).
     */
    private static Result configureFromIpam(CniRequest request, Namespace container, Link tap) throws CniException {
        Result ipam = Result.from(request.ipam().add());
        if (ipam.ips().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
        }
        List<IpConfig> ips = new ArrayList<>(ipam.ips().size());
        for (IpConfig ip : ipam.ips()) {
            ips.add(ip.withInterfaceIndex(0));
        }
        Result result = ipam.withInterfaces(List.of(Links.describe(tap, request.netns()))).withIps(ips);
        try {
            container.exchangeSysctls(List.of(new Namespace.SysctlWrite("net/ipv4/conf/" + tap.name()
                    + "/arp_notify", "1", false)));
        } catch (KernelException e) {
            request.log().warn("could not set arp_notify on " + tap.name() + ": " + e.getMessage());
        }
        IfaceConfig.configure(container, tap.name(), result, request.rollback(), request.log());
        return result;
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    /** Go's order: IPAM released first, then the device deleted in CNI_NETNS if both are still there. */
    @Override
    public void del(CniRequest request) throws CniException {
        ContainerLink.delete(request);
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        try (Namespace container = Namespace.container(request.netns())) {
            Result previous = IpamDelegation.checkThenPrevResult(request);
            Optional<Interface> recorded = PrevResults.containerInterface(previous, request.ifName(),
                    request.netns());
            if (recorded.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Sandbox in prevResult  doesn't match configured netns: "
                        + request.netns(), "prevResult has no interface " + request.ifName() + " with sandbox "
                        + request.netns());
            }
            checkDevice(container, conf, recorded.get(), request.ifName());
            Checks.addressing(container, previous, request.ifName());
        }
    }

    /** jcni's addition to Go's CHECK: CNI_IFNAME is a TAP device with the configured queues, owner and group. */
    private static void checkDevice(Namespace container, Config conf, Interface recorded, String ifName)
            throws CniException {
        Optional<Link> link;
        try {
            link = container.nl().findLink(ifName);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up \"" + ifName + "\" in " + container, e);
        }
        if (link.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Container Interface name in prevResult: " + ifName
                    + " not found");
        }
        if (!(link.get().info() instanceof LinkInfo.Tun tun) || !tun.tap()) {
            throw new CniException(CniError.INTERNAL, "Error: Container interface " + ifName + " is not a tap device",
                    "its kind is \"" + link.get().kind() + "\"");
        }
        Checks.mac(recorded, link.get(), "Interface " + ifName + " Mac " + recorded.mac()
                + " doesn't match container Mac: " + link.get().address());
        if (tun.multiQueue() != conf.multiQueue() || tun.owner() != conf.owner() || tun.group() != conf.group()) {
            throw new CniException(CniError.INTERNAL, "tap " + ifName + " is not as configured",
                    "multi_queue " + tun.multiQueue() + " user " + tun.owner() + " group " + tun.group()
                            + "; configured multi_queue " + conf.multiQueue() + " user " + conf.owner() + " group "
                            + conf.group());
        }
    }

    // ---- STATUS ----------------------------------------------------------------------------------------------

    /** IPAM's status, and code 50 when there is no {@code /dev/net/tun} to create devices through. */
    @Override
    public void status(CniRequest request) throws CniException {
        if (!Files.exists(TUN_DEVICE)) {
            throw new CniException(CniError.PLUGIN_NOT_AVAILABLE, "tap: " + TUN_DEVICE + " is missing",
                    "the kernel needs TUN/TAP support (CONFIG_TUN) and the device node must exist");
        }
        IpamDelegation.status(request);
    }
}
