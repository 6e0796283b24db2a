package io.jcni.plugins.internal.meta.vrf;

import io.jcni.netlink.Address;
import io.jcni.netlink.Family;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import io.jcni.netlink.Scope;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.link.KernelSupport;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.plugins.sdk.Timing;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code vrf} meta plugin, chained after the plugin that created CNI_IFNAME: puts the interface into a VRF device
 * of the container's namespace, creating the VRF when it is not there yet, as Go's vrf plugin (1.1.1 to 1.9.1).
 *
 * <p>Keys, Go's: {@code vrfname} (required, a valid interface name), {@code table} (the VRF's routing table; 0 or
 * absent: for a new VRF the lowest table from 1 that no other VRF of the namespace uses; for an existing one, any).
 *
 * <p>ADD: the VRF found (it must be a VRF, and of the configured table if one is set) or created and set up (deleted
 * again if the ADD fails); the interface, which must have no master, enslaved to it (undone on failure); the global
 * IPv6 addresses the kernel drops when enslaving put back (and their local routes awaited in the VRF's table, 2.5 s at
 * most, as Go); the interface's global-scope main-table routes, saved before, replaced into the VRF's table. The
 * result is the prevResult, unchanged.
 *
 * <p>Kernels without {@code CONFIG_NET_VRF} (this project's test machines): ADD fails creating the VRF, its first
 * side effect, with code 50 naming the option, and leaves nothing; STATUS probes and says the same. On such a kernel
 * no VRF can exist, so the steps after the creation cannot run there; their requests are covered by byte vectors.
 *
 * <p>DEL: the interface taken out of the VRF (only if the VRF is its master: Go takes any master away), then the VRF
 * deleted if no interface is left in it; a missing namespace, VRF or interface is success, and a link of that name
 * that is not a VRF is left alone (a warning; Go fails). CHECK: the VRF exists and is the interface's master (Go's).
 * GC: the plugin keeps nothing outside the container's namespace, which takes the VRF with it: nothing to collect.
 */
public final class VrfPlugin implements CniPlugin {
    /** Go's backoff for an IPv6 address's local route in the VRF table: 10 ms doubled, 9 tries, about 2.5 s. */
    static final int ROUTE_WAIT_TRIES = 9;

    /** The configuration: {@code vrfname} and {@code table} (0: choose). */
    record Config(String vrfName, int table) {
        static Config load(CniRequest request) throws CniException {
            ConfigNode root = request.config().node();
            String name = root.string("vrfname").orElse("");
            if (name.isEmpty()) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                        "configuration is expected to have a valid vrf name");
            }
            try {
                LinkAttrs.checkName(name);
            } catch (IllegalArgumentException e) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "vrfname: " + e.getMessage());
            }
            int table = (int) root.integer("table", 0, Integer.MAX_VALUE).orElse(0L).longValue();
            return new Config(name, table);
        }
    }

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        Optional<Result> previous = PrevResults.find(request);
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "missing prevResult from earlier plugin");
        }
        try (Namespace container = Namespace.container(request.netns())) {
            Link vrf = findOrCreateVrf(container, conf, request.rollback());
            addInterface(container, vrf, request.ifName(), request.rollback());
        } catch (NetlinkException e) {
            throw NetErrors.failure("cmdAdd failed", e);
        }
        return previous.get();
    }

    /** Go's {@code findVRF}, then {@code createVRF} when there is none of that name. */
    private static Link findOrCreateVrf(Namespace container, Config conf, Rollback rollback) throws CniException {
        NetlinkHandle nl = container.nl();
        Optional<Link> existing = nl.findLink(conf.vrfName());
        if (existing.isPresent()) {
            int table = vrfTable(existing.get(), conf.vrfName());
            if (conf.table() != 0 && table != conf.table()) {
                throw new CniException(CniError.INVALID_NETWORK_CONFIG, "VRF " + conf.vrfName()
                        + " already exist with different routing table " + table, "configured table " + conf.table());
            }
            return existing.get();
        }
        int table = conf.table() != 0 ? conf.table() : freeTable(nl.links());
        try {
            nl.addVrf(LinkAttrs.named(conf.vrfName()).up(true), table);
        } catch (NetlinkException e) {
            throw KernelSupport.createFailed("vrf", e);
        }
        rollback.onFailure("delete vrf " + conf.vrfName() + " in " + container,
                new Undos.DeleteLink(container, conf.vrfName()));
        Timing.phase("vrf");
        return nl.link(conf.vrfName());
    }

    /** The VRF's table; code 7 if the link is no VRF. */
    private static int vrfTable(Link link, String name) throws CniException {
        if (link.info() instanceof LinkInfo.Vrf vrf) {
            return vrf.table();
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "Netlink " + name + " is not a VRF",
                "the link " + name + " in the container is a " + (link.kind().isEmpty() ? "device" : link.kind())
                        + " link");
    }

    /** Go's {@code findFreeRoutingTableID}: the lowest table from 1 that no VRF of the namespace uses. */
    static int freeTable(List<Link> links) {
        List<Integer> taken = new ArrayList<>();
        for (Link link : links) {
            if (link.info() instanceof LinkInfo.Vrf vrf) {
                taken.add(vrf.table());
            }
        }
        int table = 1;
        while (taken.contains(table)) {
            table++;
        }
        return table;
    }

    /** Go's {@code addInterface} (see the class comment). */
    private static void addInterface(Namespace container, Link vrf, String ifName, Rollback rollback)
            throws CniException {
        NetlinkHandle nl = container.nl();
        Optional<Link> found = nl.findLink(ifName);
        if (found.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "could not get link by name " + ifName);
        }
        Link link = found.get();
        if (link.masterIndex() != 0) {
            Optional<Link> master = nl.findLink(link.masterIndex());
            throw new CniException(CniError.INTERNAL, "interface " + ifName + " has already a master set: "
                    + (master.isPresent() ? master.get().name() : "index " + link.masterIndex()));
        }
        List<Address> before = globalIpv6(nl, link.index());
        List<Route> saved = globalRoutes(container, link.index());
        int table = ((LinkInfo.Vrf) vrf.info()).table();
        try {
            nl.setMaster(link.index(), vrf.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("could not set vrf " + vrf.name() + " as master of " + ifName, e);
        }
        rollback.onFailure("take " + ifName + " out of vrf " + vrf.name(),
                new Release(container, ifName, vrf.name(), before, saved));
        List<Address> after = globalIpv6(nl, link.index());
        for (Address address : before) {
            if (!contains(after, address)) {
                try {
                    nl.addAddress(Address.of(link.index(), address.address(), address.prefixLength()));
                } catch (NetlinkException e) {
                    throw NetErrors.failure("could not restore address " + address + " to " + ifName + " @ "
                            + vrf.name(), e);
                }
                awaitLocalRoute(nl, link, address, table);
            }
        }
        for (Route route : saved) {
            Route moved = route.table(table);
            try {
                nl.replaceRoute(moved);
            } catch (NetlinkException e) {
                throw NetErrors.failure("could not add route '" + moved + "'", e);
            }
        }
        Timing.phase("enslave");
    }

    /** The link's IPv6 addresses of global scope (the kernel drops them when enslaving unless keep_addr_on_down). */
    private static List<Address> globalIpv6(NetlinkHandle nl, int index) {
        List<Address> global = new ArrayList<>();
        for (Address address : nl.addresses(index, Family.V6)) {
            if (address.scope() != null && address.scope().value() == Scope.UNIVERSE.value()) {
                global.add(address);
            }
        }
        return global;
    }

    /** The main table's routes of global scope through the link, which enslaving deletes. */
    private static List<Route> globalRoutes(Namespace container, int index) {
        List<Route> routes = new ArrayList<>();
        for (Family family : Family.values()) {
            for (Route route : container.mainRoutes(family)) {
                if (route.outIndex() == index && route.scope() != null
                        && route.scope().value() == Scope.UNIVERSE.value()) {
                    routes.add(route);
                }
            }
        }
        return routes;
    }

    private static boolean contains(List<Address> addresses, Address wanted) {
        for (Address address : addresses) {
            if (address.address().equals(wanted.address()) && address.prefixLength() == wanted.prefixLength()) {
                return true;
            }
        }
        return false;
    }

    /** Waits until the VRF's table has the address's route through the link, backing off as Go does. */
    private static void awaitLocalRoute(NetlinkHandle nl, Link link, Address address, int table) throws CniException {
        long sleep = 10;
        for (int attempt = 0; attempt < ROUTE_WAIT_TRIES; attempt++) {
            for (Route route : nl.routes(Family.V6, table)) {
                if (route.outIndex() == link.index() && route.destinationLength() == 128
                        && route.destination().equals(address.address())) {
                    return;
                }
            }
            if (attempt + 1 < ROUTE_WAIT_TRIES) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
                sleep *= 2;
            }
        }
        throw new CniException(CniError.INTERNAL, "failed getting local/host addresses for " + link.name()
                + " in table " + table + " with dst " + IpText.format(address.address()) + "/128");
    }

    /**
     * ADD rollback of the enslaving: the interface out of the VRF (if it is still in it), then what enslaving took
     * from it put back in the main table: its IPv6 global addresses and its routes. What is there already is fine.
     */
    private static final class Release extends Undos.InNamespace {
        private final String ifName;
        private final String vrfName;
        private final List<Address> addresses;
        private final List<Route> routes;

        Release(Namespace ns, String ifName, String vrfName, List<Address> addresses, List<Route> routes) {
            super(ns);
            this.ifName = ifName;
            this.vrfName = vrfName;
            this.addresses = List.copyOf(addresses);
            this.routes = List.copyOf(routes);
        }

        @Override
        protected void apply(Namespace open) {
            NetlinkHandle nl = open.nl();
            Optional<Link> link = nl.findLink(ifName);
            Optional<Link> vrf = nl.findLink(vrfName);
            if (link.isEmpty()) {
                return;
            }
            if (vrf.isPresent() && link.get().masterIndex() == vrf.get().index()) {
                nl.setNoMaster(link.get().index());
            }
            for (Address address : addresses) {
                try {
                    nl.addAddress(Address.of(link.get().index(), address.address(), address.prefixLength()));
                } catch (KernelException e) {
                    if (!e.isExists()) {
                        throw e;
                    }
                }
            }
            for (Route route : routes) {
                try {
                    nl.addRoute(route);
                } catch (KernelException e) {
                    if (!e.isExists()) {
                        throw e;
                    }
                }
            }
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        Optional<Namespace> found = Namespace.containerIfPresent(request.netns());
        if (found.isEmpty()) {
            return;
        }
        try (Namespace container = found.get()) {
            NetlinkHandle nl = container.nl();
            Optional<Link> vrf = nl.findLink(conf.vrfName());
            if (vrf.isEmpty()) {
                return;
            }
            if (!(vrf.get().info() instanceof LinkInfo.Vrf)) {
                request.log().warn("DEL: " + conf.vrfName() + " is a " + vrf.get().kind() + " link, not a VRF: left "
                        + "alone");
                return;
            }
            Optional<Link> link = nl.findLink(request.ifName());
            if (link.isPresent() && link.get().masterIndex() == vrf.get().index()) {
                nl.setNoMaster(link.get().index());
            }
            for (Link other : nl.links()) {
                if (other.masterIndex() == vrf.get().index()) {
                    return;
                }
            }
            nl.deleteLink(vrf.get().index());
        } catch (NetlinkException e) {
            if (!e.isNotFound()) {
                throw NetErrors.failure("cmdDel failed", e);
            }
        }
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        Config conf = Config.load(request);
        if (PrevResults.find(request).isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "missing prevResult from earlier plugin");
        }
        try (Namespace container = Namespace.container(request.netns())) {
            NetlinkHandle nl = container.nl();
            Optional<Link> vrf = nl.findLink(conf.vrfName());
            if (vrf.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Link not found", "no VRF " + conf.vrfName() + " in "
                        + request.netns());
            }
            vrfTable(vrf.get(), conf.vrfName());
            Optional<Link> link = nl.findLink(request.ifName());
            if (link.isEmpty() || link.get().masterIndex() != vrf.get().index()) {
                throw new CniException(CniError.INTERNAL, "failed to find " + request.ifName()
                        + " associated to vrf " + conf.vrfName());
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to check vrf " + conf.vrfName(), e);
        }
    }

    // ---- STATUS ----------------------------------------------------------------------------------------------

    /** Code 50 when the kernel cannot create VRF devices (probed in a namespace of its own). */
    @Override
    public void status(CniRequest request) throws CniException {
        KernelSupport.require("vrf");
    }
}
