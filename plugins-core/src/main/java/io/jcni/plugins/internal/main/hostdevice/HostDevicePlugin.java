package io.jcni.plugins.internal.main.hostdevice;

import io.jcni.netlink.Link;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.main.MainPlugin;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.Macs;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.ContainerLink;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.PluginLog;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code host-device} plugin: moves an existing device of the host into the container as CNI_IFNAME, and back
 * under its original name on DEL, as upstream's host-device does (newer than Go 1.1.1: through a temporary namespace).
 *
 * <p>Keys, one of which selects the device, in this order: {@code device} (its name), {@code hwaddr} (its MAC),
 * {@code kernelpath} (a device directory under /sys/devices/: its first interface), {@code pciBusID} (a PCI function:
 * its first interface; the runtime's {@code runtimeConfig.deviceID} overrides it). A PCI function bound to a user-space
 * driver (vfio-pci, uio_pci_generic, igb_uio) is DPDK mode: nothing is moved and the result has no interface. Also
 * {@code ipam} (optional: addresses for the moved device) and {@code dns} (reported with IPAM's addresses).
 *
 * <p>ADD: the device goes into a new, empty namespace, is renamed CNI_IFNAME there and its original name saved as its
 * alias ({@code IFLA_IFALIAS}), then it goes into the container and is set up. Renaming in a namespace of its own
 * leaves no trace under a temporary name on the host, and lets the container name exist on the host. Every step
 * registers its undo; a failure puts the device back on the host under its name, up again if it was.
 *
 * <p>DEL: releases the IPAM allocation, then moves the device out the same way (renamed from its alias, alias
 * cleared, left down as upstream leaves it). When the container namespace is gone, the kernel has already moved a
 * physical device back to the initial namespace under its container name (or {@code devN} if that was taken), still
 * carrying the alias: DEL finds it there by the configured selector and restores its name (Go's DEL fails when the
 * namespace is gone). Virtual devices (veth) are destroyed with a namespace instead. A device renamed inside the
 * container is found by its alias. CHECK verifies the prevResult's interface (present, MAC), addresses and routes.
 */
public final class HostDevicePlugin implements MainPlugin {
    /** Fixed roots (tests), or null for the call's own sysfs, found when a handler runs ({@link #devices()}). */
    private final HostDevices devices;

    public HostDevicePlugin() {
        this(null);
    }

    HostDevicePlugin(HostDevices devices) {
        this.devices = devices;
    }

    /** Where this call finds devices by path: the sysfs of its caller's namespace (see {@link HostDevices}). */
    private HostDevices devices() {
        return devices != null ? devices : HostDevices.system();
    }

    /**
     * The configuration: exactly what selects the device (the first non-empty of device, hwaddr, kernelpath,
     * pciBusID, as Go's switch), and the DNS to report.
     */
    record Config(String device, MacAddress hwaddr, String kernelPath, String pciBusId, Dns dns) {
    }

    static Config load(CniRequest request) throws CniException {
        ConfigNode root = request.config().node();
        String device = root.string("device").orElse("");
        String hwaddr = root.string("hwaddr").orElse("");
        String kernelPath = root.string("kernelpath").orElse("");
        String pci = root.string("pciBusID").orElse("");
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        if (runtime.isPresent()) {
            String deviceId = runtime.get().string("deviceID").orElse("");
            if (!deviceId.isEmpty()) {
                pci = HostDevices.requirePciAddress(deviceId, "runtimeConfig.deviceID");
            }
        }
        if (device.isEmpty() && hwaddr.isEmpty() && kernelPath.isEmpty() && pci.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "specify either \"device\", \"hwaddr\", \"kernelpath\" or \"pciBusID\"");
        }
        MacAddress mac = null;
        if (!device.isEmpty()) {
            hwaddr = "";
            kernelPath = "";
            pci = "";
        } else if (!hwaddr.isEmpty()) {
            mac = Macs.parse(hwaddr, "hwaddr");
            kernelPath = "";
            pci = "";
        } else if (!kernelPath.isEmpty()) {
            HostDevices.requireKernelPath(kernelPath);
            pci = "";
        } else {
            HostDevices.requirePciAddress(pci, "pciBusID");
        }
        return new Config(device, mac, kernelPath, pci, request.config().dns());
    }

    // ------------------------------------------------------------------------------------------ ADD

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config config = load(request);
        boolean dpdk = !config.pciBusId().isEmpty() && devices().isDpdk(config.pciBusId());
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            List<Interface> interfaces = List.of();
            if (!dpdk) {
                Link device = find(host, config);
                Link moved = moveIn(host, container, device, request.ifName(), request.rollback());
                interfaces = List.of(Links.describe(moved, request.netns()));
            }
            if (request.config().ipamType().isEmpty()) {
                return new Result(interfaces, List.of(), List.of(), Dns.EMPTY);
            }
            Result from = Result.from(request.ipam().add());
            if (from.ips().isEmpty()) {
                throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config");
            }
            List<IpConfig> ips = new ArrayList<>(from.ips().size());
            for (IpConfig ip : from.ips()) {
                ips.add(dpdk ? new IpConfig(null, ip.address(), ip.gateway()) : ip.withInterfaceIndex(0));
            }
            Result result = from.withInterfaces(interfaces).withIps(ips);
            if (!dpdk) {
                IfaceConfig.configure(container, request.ifName(), result, request.rollback(), request.log());
            }
            return result.withDns(config.dns());
        }
    }

    /** The selected device on the host. */
    Link find(Namespace host, Config config) throws CniException {
        try {
            if (!config.device().isEmpty()) {
                return require(host.nl().findLink(config.device()), config.device());
            }
            if (config.hwaddr() != null) {
                for (Link link : host.nl().links()) {
                    if (config.hwaddr().equals(link.address())) {
                        return link;
                    }
                }
                throw new CniException(CniError.INTERNAL, "failed to find host device: failed to find physical "
                        + "interface", "no link has MAC " + config.hwaddr());
            }
            List<String> names = config.kernelPath().isEmpty() ? devices().byPci(config.pciBusId())
                    : devices().byKernelPath(config.kernelPath());
            for (String name : names) {
                Optional<Link> link = host.nl().findLink(name);
                if (link.isPresent()) {
                    return link.get();
                }
            }
            throw new CniException(CniError.INTERNAL, "failed to find host device: failed to find physical interface",
                    "none of " + names + " is a link of the host");
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to find host device", e);
        }
    }

    private static Link require(Optional<Link> link, String name) throws CniException {
        if (link.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to find host device: Link not found",
                    "no link " + name + " on the host");
        }
        return link.get();
    }

    /**
     * Host to container through a temporary namespace (see the class comment). Until the device has reached the
     * container, a failure moves it back here and now: the temporary namespace is closed when this method returns,
     * and a namespace that goes away destroys the virtual devices in it (and sends physical ones to the initial
     * namespace, not necessarily the host's). From then on the rollback moves it out like DEL.
     */
    static Link moveIn(Namespace host, Namespace container, Link device, String ifName, Rollback rollback)
            throws CniException {
        String hostName = device.name();
        boolean wasUp = device.isUp();
        try (NetNs temp = NetNs.create();
                NetlinkHandle tnl = Netlink.open(temp)) {
            try {
                host.nl().setNetns(device.index(), temp);
            } catch (NetlinkException e) {
                throw NetErrors.failure("failed to move \"" + hostName + "\" to tempNS", e);
            }
            int index = -1;
            String step = "find \"" + hostName + "\" in tempNS";
            try {
                index = tnl.link(hostName).index();
                step = "rename host device \"" + hostName + "\" to \"" + ifName + "\"";
                tnl.setName(index, ifName);
                step = "set alias to \"" + hostName + "\"";
                tnl.setAlias(index, hostName);
                step = "move \"" + ifName + "\" (host: \"" + hostName + "\") to container NS";
                tnl.setNetns(index, container.netns());
            } catch (NetlinkException e) {
                CniException failure = NetErrors.failure("failed to " + step, e);
                backToHost(tnl, index, hostName, host, wasUp, failure);
                throw failure;
            }
        }
        rollback.onFailure("move " + ifName + " in " + container + " back to the host as " + hostName,
                new MoveOut(container, ifName, wasUp));
        try {
            Link moved = container.nl().link(ifName);
            container.nl().setUp(moved.index());
            return container.nl().link(moved.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set \"" + ifName + "\" up", e);
        }
    }

    /** Undo of a move that stopped in the temporary namespace; failures are added to {@code failure}. */
    private static void backToHost(NetlinkHandle tnl, int index, String hostName, Namespace host, boolean wasUp,
            CniException failure) {
        try {
            int at = index >= 0 ? index : tnl.link(hostName).index();
            tnl.setAlias(at, "");
            Link link = tnl.link(at);
            if (!link.name().equals(hostName)) {
                tnl.setName(at, hostName);
            }
            tnl.setNetns(at, host.netns());
            if (wasUp) {
                host.nl().setUp(host.nl().link(hostName).index());
            }
        } catch (NetlinkException e) {
            failure.addSuppressed(e);
        }
    }

    // ------------------------------------------------------------------------------------------ DEL

    /**
     * IPAM first, whatever else happens (a broken configuration included), then the device; a PCI function that is
     * gone is not DPDK (there is nothing to skip for it), and the move out then finds nothing or the returned device.
     */
    @Override
    public void del(CniRequest request) throws CniException {
        ContainerLink.delete(request, new MoveOutOrRecover());
    }

    /** DEL's part for the device, after IPAM's. */
    private final class MoveOutOrRecover implements ContainerLink.Removal {
        @Override
        public void remove(CniRequest request) throws CniException {
            Config config = load(request);
            if (!isDpdkIfPresent(config)) {
                moveOutOrRecover(request, config);
            }
        }
    }

    private boolean isDpdkIfPresent(Config config) {
        if (config.pciBusId().isEmpty()) {
            return false;
        }
        try {
            return devices().isDpdk(config.pciBusId());
        } catch (CniException gone) {
            return false;
        }
    }

    private void moveOutOrRecover(CniRequest request, Config config) throws CniException {
        Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
        if (container.isEmpty()) {
            try (Namespace host = Namespace.host()) {
                recoverReturned(host, config, request.log());
            }
            return;
        }
        try (Namespace ns = container.get();
                Namespace host = Namespace.host()) {
            Optional<Link> device = ns.nl().findLink(request.ifName());
            if (device.isEmpty() && !config.device().isEmpty()) {
                device = byAlias(ns.nl().links(), config.device());
            }
            if (device.isEmpty()) {
                request.log().debug("DEL: no " + request.ifName() + " in " + request.netns() + ": nothing to move");
                return;
            }
            moveOut(ns, host, device.get());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to move \"" + request.ifName() + "\" out of " + request.netns(), e);
        }
    }

    private static Optional<Link> byAlias(List<Link> links, String alias) {
        for (Link link : links) {
            if (link.alias().equals(alias)) {
                return Optional.of(link);
            }
        }
        return Optional.empty();
    }

    /**
     * Container to host: into a temporary namespace, renamed to its alias (the original name), alias cleared, into
     * the host; left down. A failure in between puts it back into the container under its container name.
     */
    static void moveOut(Namespace container, Namespace host, Link device) throws CniException {
        String hostName = device.alias();
        if (hostName.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to find original ifname for \"" + device.name()
                    + "\" (alias is not set)", "the device was not moved in by host-device, or its alias was changed");
        }
        String name = device.name();
        try (NetNs temp = NetNs.create();
                NetlinkHandle tnl = Netlink.open(temp)) {
            try {
                container.nl().setNetns(device.index(), temp);
            } catch (NetlinkException e) {
                throw NetErrors.failure("failed to move \"" + name + "\" to tempNS", e);
            }
            int index = -1;
            String step = "find \"" + name + "\" in tempNS";
            try {
                index = tnl.link(name).index();
                step = "rename device \"" + name + "\" to \"" + hostName + "\"";
                tnl.setName(index, hostName);
                step = "unset alias of \"" + hostName + "\"";
                tnl.setAlias(index, "");
                step = "move \"" + hostName + "\" to hostNS";
                tnl.setNetns(index, host.netns());
            } catch (NetlinkException e) {
                CniException failure = NetErrors.failure("failed to " + step, e);
                try {
                    int at = index >= 0 ? index : tnl.link(name).index();
                    tnl.setAlias(at, hostName);
                    if (!tnl.link(at).name().equals(name)) {
                        tnl.setName(at, name);
                    }
                    tnl.setNetns(at, container.netns());
                } catch (NetlinkException again) {
                    failure.addSuppressed(again);
                }
                throw failure;
            }
        }
    }

    /**
     * DEL after the container's namespace is gone: a physical device the kernel sent back to this namespace still has
     * its container name (or devN) and, as alias, its original name; found by the configured selector, it gets that
     * name back. Nothing found is success (a virtual device was destroyed with the namespace, or DEL ran before).
     */
    void recoverReturned(Namespace host, Config config, PluginLog log) throws CniException {
        try {
            Link found = null;
            if (!config.device().isEmpty()) {
                if (host.nl().findLink(config.device()).isEmpty()) {
                    found = byAlias(host.nl().links(), config.device()).orElse(null);
                }
            } else if (config.hwaddr() != null) {
                for (Link link : host.nl().links()) {
                    if (config.hwaddr().equals(link.address()) && !link.alias().isEmpty()
                            && !link.alias().equals(link.name())) {
                        found = link;
                    }
                }
            } else {
                List<String> names;
                try {
                    names = config.kernelPath().isEmpty() ? devices().byPci(config.pciBusId())
                            : devices().byKernelPath(config.kernelPath());
                } catch (CniException e) {
                    names = List.of();
                }
                for (String name : names) {
                    Optional<Link> link = host.nl().findLink(name);
                    if (link.isPresent() && !link.get().alias().isEmpty()
                            && !link.get().alias().equals(link.get().name())) {
                        found = link.get();
                        break;
                    }
                }
            }
            if (found == null) {
                return;
            }
            String original = found.alias();
            log.debug("DEL: the namespace is gone; " + found.name() + " came back to the host, renaming it "
                    + original);
            host.nl().setDown(found.index());
            host.nl().setName(found.index(), original);
            host.nl().setAlias(found.index(), "");
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to restore the name of the device returned to the host", e);
        }
    }

    // ------------------------------------------------------------------------------------------ CHECK

    @Override
    public void check(CniRequest request) throws CniException {
        Config config = load(request);
        try (Namespace container = Namespace.container(request.netns())) {
            Result previous = IpamDelegation.checkThenPrevResult(request);
            if (!config.pciBusId().isEmpty() && devices().isDpdk(config.pciBusId())) {
                return;
            }
            Optional<Interface> recorded = PrevResults.containerInterface(previous, request.ifName(),
                    request.netns());
            if (recorded.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Sandbox in prevResult  doesn't match configured netns: "
                        + request.netns());
            }
            Optional<Link> link;
            try {
                link = container.nl().findLink(request.ifName());
            } catch (NetlinkException e) {
                throw NetErrors.failure("failed to look up \"" + request.ifName() + "\"", e);
            }
            if (link.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Container Interface name in prevResult: "
                        + request.ifName() + " not found");
            }
            Checks.mac(recorded.get(), link.get(), "Interface " + request.ifName() + " Mac " + recorded.get().mac()
                    + " doesn't match container Mac: " + link.get().address());
            Checks.addressing(container, previous, request.ifName());
        }
    }

    /** ADD rollback: the device back to the host, up again if it was. */
    private static final class MoveOut extends Undos.InNamespace {
        private final String ifName;
        private final boolean wasUp;

        MoveOut(Namespace container, String ifName, boolean wasUp) {
            super(container);
            this.ifName = ifName;
            this.wasUp = wasUp;
        }

        @Override
        protected void apply(Namespace ns) throws CniException {
            try (Namespace host = Namespace.host()) {
                Optional<Link> device = ns.nl().findLink(ifName);
                if (device.isEmpty()) {
                    return;
                }
                String hostName = device.get().alias();
                moveOut(ns, host, device.get());
                if (wasUp) {
                    host.nl().setUp(host.nl().link(hostName).index());
                }
            }
        }
    }
}
