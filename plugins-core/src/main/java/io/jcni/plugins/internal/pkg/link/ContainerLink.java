package io.jcni.plugins.internal.pkg.link;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.Links;
import io.jcni.plugins.internal.pkg.ip.Macs;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ipam.IfaceConfig;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniRequest;
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
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The container's link of macvlan, ipvlan, vlan and dummy through its life: created (under a temporary name, then
 * renamed), given its IPAM result, deleted, checked. host-device, whose link is moved in rather than created, shares
 * the description, the DEL order and the addressing check.
 */
public final class ContainerLink {
    private ContainerLink() {
    }

    /**
     * Creates {@code link} in the container under a temporary name and renames it {@code ifName} there, as Go's
     * plugins do (a name that exists on the host could otherwise collide while the link is created). The delete of
     * each name is registered as soon as the name exists, and the final name's only once this ADD owns it: a link
     * {@code ifName} that was there before is never deleted by the rollback.
     *
     * @param creator the namespace whose handle creates the link and in which the lower device is looked up: the host
     *                (the link is created directly in the container) or {@code container} itself
     *                ({@code linkInContainer})
     * @return the link, renamed, as the container sees it
     */
    public static Link create(Namespace creator, Namespace container, NewLink link, int mtu, MacAddress mac,
            String ifName, Rollback rollback) throws CniException {
        String temporary = temporaryName();
        LinkAttrs attrs = LinkAttrs.named(temporary).mtu(mtu).address(mac);
        if (creator != container) {
            attrs = attrs.netns(container.netns());
        }
        try {
            link.create(creator.nl(), attrs);
        } catch (NetlinkException e) {
            throw KernelSupport.createFailed(link.kind(), e);
        }
        rollback.onFailure("delete " + link.kind() + " " + temporary + " in " + container,
                new Undos.DeleteLink(container, temporary));
        int index;
        try {
            index = container.nl().link(temporary).index();
            container.nl().setName(index, ifName);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to rename " + link.kind() + " to \"" + ifName + "\"", e);
        }
        rollback.onFailure("delete " + link.kind() + " " + ifName + " in " + container,
                new Undos.DeleteLink(container, ifName));
        try {
            return container.nl().link(index);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to refetch " + link.kind() + " \"" + ifName + "\"", e);
        }
    }

    /**
     * ADD of a link on a lower device, as Go's macvlan and vlan go: the link {@linkplain #create created} in the
     * container (from {@code ns.lower()}), then {@linkplain #configureFromIpam configured from IPAM}.
     */
    public static Result createAndConfigure(CniRequest request, LinkNamespaces ns, NewLink link, int mtu,
            MacAddress mac) throws CniException {
        Link created = create(ns.lower(), ns.container(), link, mtu, mac, request.ifName(), request.rollback());
        return configureFromIpam(request, ns.container(), created);
    }

    /**
     * The container link's MAC as Go's macvlan and tap read it: {@code mac}, overridden by CNI_ARGS {@code MAC}, then
     * by the {@code mac} capability ({@code runtimeConfig.mac}); null for none (the kernel picks one).
     */
    public static MacAddress requestedMac(CniRequest request, ConfigNode root) throws CniException {
        String mac = root.string("mac").orElse("");
        if (!request.cniArgsText().isEmpty()) {
            String fromArgs = request.cniArgs().requireKnown(List.of("MAC")).get("MAC").orElse("");
            if (!fromArgs.isEmpty()) {
                mac = fromArgs;
            }
        }
        Optional<ConfigNode> runtime = root.object("runtimeConfig");
        if (runtime.isPresent()) {
            String fromCapability = runtime.get().string("mac").orElse("");
            if (!fromCapability.isEmpty()) {
                mac = fromCapability;
            }
        }
        return mac.isEmpty() ? null : Macs.parseUnicast(mac, "mac");
    }

    /** {@code tmp} and 8 hex digits: unique enough for the moment it exists, and a valid interface name. */
    public static String temporaryName() {
        String hex = Integer.toHexString(ThreadLocalRandom.current().nextInt());
        return "tmp" + "00000000".substring(hex.length()) + hex;
    }

    /**
     * Applies an IPAM result to the link, as Go's plugins do after creating it: no addresses is an error
     * ({@code IPAM plugin returned missing IP config}), every address goes on this interface (index 0), and the
     * result reports only this interface. On a macvlan or ipvlan link, {@code arp_notify} and {@code ndisc_notify} are
     * set first so the kernel announces the addresses when the link comes up (newer upstream macvlan and ipvlan do;
     * failures ignored as there).
     */
    public static Result configure(CniRequest request, Namespace container, Link link, CniResult ipam)
            throws CniException {
        Interface iface = Links.describe(link, request.netns());
        Result from = Result.from(ipam);
        if (from.ips().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "IPAM plugin returned missing IP config",
                    "IPAM plugin " + request.config().ipamType() + " returned no addresses");
        }
        List<IpConfig> ips = new ArrayList<>(from.ips().size());
        for (IpConfig ip : from.ips()) {
            ips.add(ip.withInterfaceIndex(0));
        }
        Result result = from.withInterfaces(List.of(iface)).withIps(ips);
        if (link.kind().equals("macvlan") || link.kind().equals("ipvlan")) {
            try {
                container.exchangeSysctls(List.of(
                        new Namespace.SysctlWrite("net/ipv4/conf/" + iface.name() + "/arp_notify", "1", false),
                        new Namespace.SysctlWrite("net/ipv6/conf/" + iface.name() + "/ndisc_notify", "1", false)));
            } catch (KernelException e) {
                request.log().warn("could not enable address announcements on " + iface.name() + ": "
                        + e.getMessage());
            }
        }
        IfaceConfig.configure(container, iface.name(), result, request.rollback(), request.log());
        return result;
    }

    /**
     * ADD once the link exists, as Go's macvlan, ipvlan, vlan and dummy go on: with {@code ipam}, IPAM's ADD (which
     * registers its own release) and its result {@linkplain #configure configured} on the link; without (macvlan's L2
     * mode), the link only set up and a result of just the interface. Plugins that require {@code ipam} have refused
     * a configuration without it before any side effect. The configuration's {@code dns} is the caller's to apply.
     */
    public static Result configureFromIpam(CniRequest request, Namespace container, Link link)
            throws CniException {
        if (request.config().ipamType().isEmpty()) {
            up(container, link);
            return new Result(List.of(Links.describe(link, request.netns())), List.of(), List.of(), Dns.EMPTY);
        }
        return configure(request, container, link, request.ipam().add());
    }

    /** {@code ip link set dev IFNAME up}, for a link without addresses (L2 mode). */
    private static void up(Namespace container, Link link) throws CniException {
        try {
            container.nl().setUp(link.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set \"" + link.name() + "\" UP", e);
        }
    }

    /** DEL's part for the link, which runs once IPAM has been released (see {@link #delete(CniRequest, Removal)}). */
    public interface Removal {
        void remove(CniRequest request) throws CniException;
    }

    /**
     * DEL of a link this plugin created (macvlan, ipvlan, vlan, dummy): IPAM released, then CNI_IFNAME deleted in the
     * container; no namespace, a gone namespace or a gone link is success (repeated DEL, DEL after the container was
     * removed).
     */
    public static void delete(CniRequest request) throws CniException {
        delete(request, DeleteByName.INSTANCE);
    }

    /**
     * DEL in the order of Go's macvlan, ipvlan, vlan, dummy and host-device: releases the IPAM allocation (if any),
     * then runs {@code removal}, attempting both whatever the other did. The first failure is reported after both
     * were tried, a second one attached to it as suppressed.
     */
    public static void delete(CniRequest request, Removal removal) throws CniException {
        CniException first = null;
        if (!request.config().ipamType().isEmpty()) {
            try {
                request.ipam().del();
            } catch (CniException e) {
                first = e;
            }
        }
        try {
            removal.remove(request);
        } catch (CniException e) {
            if (first == null) {
                first = e;
            } else {
                first.addSuppressed(e);
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** CNI_IFNAME deleted in CNI_NETNS, if both are still there. A named class: no lambdas on the start-up path. */
    private static final class DeleteByName implements Removal {
        static final DeleteByName INSTANCE = new DeleteByName();

        @Override
        public void remove(CniRequest request) throws CniException {
            Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
            if (container.isPresent()) {
                Links.deleteAndClose(container.get(), request.ifName());
            }
        }
    }

    /**
     * CHECK's part common to the plugins, in Go's order and words: the prevResult's interface of this attachment
     * (CNI_IFNAME in CNI_NETNS), present in the container, of {@code kind}, with its recorded MAC.
     *
     * @return the container's link
     */
    public static Link check(Namespace container, Result previous, String ifName, String netns, String kind)
            throws CniException {
        Optional<Interface> recorded = PrevResults.containerInterface(previous, ifName, netns);
        if (recorded.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Sandbox in prevResult  doesn't match configured netns: "
                    + netns, "prevResult has no interface " + ifName + " with sandbox " + netns);
        }
        Interface expected = recorded.get();
        Optional<Link> found;
        try {
            found = container.nl().findLink(ifName);
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up \"" + ifName + "\" in " + container, e);
        }
        if (found.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Container Interface name in prevResult: " + ifName
                    + " not found");
        }
        Link link = found.get();
        if (!link.kind().equals(kind)) {
            throw new CniException(CniError.INTERNAL, "Error: Container interface " + ifName + " not of type " + kind,
                    "its kind is \"" + link.kind() + "\"");
        }
        Checks.mac(expected, link, "Interface " + ifName + " Mac " + expected.mac() + " doesn't match container Mac: "
                + link.address());
        return link;
    }

    /**
     * CHECK of the link's mode against the configuration's, in Go's words ({@code Container macvlan mode private does
     * not match expected value: bridge}); {@code what} names the kind as Go's message does, and a null {@code actual}
     * (the link has no such mode) reads "unknown".
     */
    public static void checkMode(String what, Enum<?> actual, Enum<?> expected) throws CniException {
        if (actual != expected) {
            throw new CniException(CniError.INTERNAL, "Container " + what + " mode " + modeName(actual)
                    + " does not match expected value: " + modeName(expected));
        }
    }

    /**
     * Go's {@code modeFromString} of macvlan and ipvlan: "" is {@code fallback}, else the lower-case name of one of
     * {@code modes}; anything else is code 7 naming {@code kind} and the choices ({@code unknown macvlan mode:
     * "source"}).
     */
    public static <M extends Enum<M>> M mode(String text, String kind, M fallback, M[] modes) throws CniException {
        if (text.isEmpty()) {
            return fallback;
        }
        StringBuilder choices = new StringBuilder();
        for (M mode : modes) {
            if (modeName(mode).equals(text)) {
                return mode;
            }
            choices.append(choices.isEmpty() ? "" : ", ").append(modeName(mode));
        }
        throw new CniException(CniError.INVALID_NETWORK_CONFIG, "unknown " + kind + " mode: \"" + text + "\"",
                "mode is one of " + choices);
    }

    private static String modeName(Enum<?> mode) {
        return mode == null ? "unknown" : mode.name().toLowerCase(Locale.ROOT);
    }
}
