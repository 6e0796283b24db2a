package io.jcni.plugins.internal.meta.bandwidth;

import io.jcni.netlink.Filter;
import io.jcni.netlink.FilterInfo;
import io.jcni.netlink.KernelException;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.QdiscInfo;
import io.jcni.netlink.TcAction;
import io.jcni.netlink.TcHandle;
import io.jcni.plugins.internal.meta.bandwidth.BandwidthConfig.Shaping;
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
import io.jcni.spec.Dns;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.Interface;
import io.jcni.spec.Json;
import io.jcni.spec.JsonNull;
import io.jcni.spec.PluginConfig;
import io.jcni.spec.Result;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code bandwidth} meta plugin, chained after a plugin that gives the container a veth (bridge, ptp): shapes the
 * attachment's traffic with token buckets on the host side, laid out exactly as Go's bandwidth plugin (1.1.1 to
 * 1.9.1) does. Keys and checks: {@link BandwidthConfig}.
 *
 * <p>ADD, for traffic to the container ({@code ingressRate}): a tbf as the root qdisc of the host end of the veth
 * ({@code tc qdisc add dev HOSTVETH root handle 1: tbf ...}). For traffic from it ({@code egressRate}): an ifb device
 * ({@link Ifb}: Go's name, the host end's MTU, queue length 0, up), an ingress qdisc on the host end with a u32 filter
 * matching everything that redirects it to the ifb (two mirred actions, as the Go netlink library builds Go's
 * filter), and a tbf as the ifb's root qdisc. Both buckets use Go's arithmetic (25 ms of queue, no rate table). The
 * result is the prevResult with the ifb appended as a host interface. Each step's undo is registered as it is made: a
 * failed ADD leaves no qdisc and no ifb (Go's leaves what it made).
 *
 * <p>The host end is found as Go finds it: the peer of CNI_IFNAME in the container, which must be listed in the
 * prevResult as a host interface; jcni also checks that the peer found is a veth pointing back at CNI_IFNAME (Go takes
 * whatever link has that index in the plugin's namespace).
 *
 * <p>DEL removes the ifb (by Go's name: also one Go's plugin made), and only if it is an ifb; a missing one is
 * success. The qdiscs on the host end go with it when the interface plugin's DEL deletes the veth, as with Go.
 * CHECK compares the host end's and the ifb's token buckets (rate, limit, buffer, Go's comparison; Go stops at the
 * first qdisc that is not a tbf, jcni fails) and, jcni's addition, that a filter on the host end redirects to the ifb.
 * GC (1.1.0; Go has none) removes the ifbs that jcni's bandwidth made for this network ({@link Ifb#containerOf}) whose
 * container is not among {@code cni.dev/valid-attachments}, and refuses to run without that list (code 7). STATUS
 * (1.1.0; Go has none) probes, in a namespace of its own, what ADD needs from the kernel: ifb, tbf, ingress, u32,
 * mirred; a missing piece is code 50 naming its kernel option.
 */
public final class BandwidthPlugin implements CniPlugin {
    /** {@code 1:}, the handle Go gives both token buckets. */
    static final int TBF_HANDLE = TcHandle.make(1, 0);
    /** {@code ffff:}, the ingress qdisc's handle and the filter's parent. */
    static final int INGRESS_HANDLE = TcHandle.make(0xffff, 0);
    /** {@code 1:1}, the class id Go's filter carries (the ingress qdisc has no classes; tc prints it as flowid). */
    static final int FLOW_ID = TcHandle.make(1, 1);

    // ---- ADD -------------------------------------------------------------------------------------------------

    @Override
    public CniResult add(CniRequest request) throws CniException {
        BandwidthConfig conf = BandwidthConfig.load(request);
        Optional<Result> previous = PrevResults.find(request);
        if (!conf.shapes()) {
            return previous.isPresent() ? previous.get() : new Result(List.of(), List.of(), List.of(), Dns.EMPTY);
        }
        Result result = requireChained(previous);
        Timing.phase("config");
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            Link hostVeth = hostInterface(host, container, result, request.ifName());
            if (conf.ingress().isSet()) {
                shapeIngress(host, hostVeth, conf.ingress(), request.rollback());
            }
            if (conf.egress().isSet()) {
                Link ifb = createIfb(host, hostVeth, request, request.rollback());
                shapeEgress(host, hostVeth, ifb, conf.egress(), request.rollback());
                result = withIfb(result, ifb);
            }
            return result;
        }
    }

    private static Result requireChained(Optional<Result> previous) throws CniException {
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "must be called as chained plugin",
                    "bandwidth shapes the veth a previous plugin (bridge, ptp) created; the configuration has no "
                            + "prevResult");
        }
        return previous.get();
    }

    /**
     * Go's {@code getHostInterface}: the veth peer of CNI_IFNAME, which must be a host interface of the prevResult.
     * Go's messages (code 999: the attachment is not what bandwidth shapes).
     */
    static Link hostInterface(Namespace host, Namespace container, Result previous, String ifName)
            throws CniException {
        if (previous.interfaces().isEmpty()) {
            throw new CniException(CniError.INTERNAL, "no interfaces provided");
        }
        Link inside;
        Optional<Link> peer;
        try {
            Optional<Link> found = container.nl().findLink(ifName);
            if (found.isEmpty() || !found.get().kind().equals("veth") || found.get().parentIndex() <= 0) {
                throw new CniException(CniError.INTERNAL, "container interface " + ifName + " has no veth peer",
                        found.isEmpty() ? "no link " + ifName + " in " + container.path()
                                : "its kind is \"" + found.get().kind() + "\"");
            }
            inside = found.get();
            peer = host.nl().findLink(inside.parentIndex());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to find the veth peer of " + ifName, e);
        }
        if (peer.isEmpty() || !peer.get().kind().equals("veth") || peer.get().parentIndex() != inside.index()) {
            throw new CniException(CniError.INTERNAL, "veth peer with index " + inside.parentIndex()
                    + " is not in host ns", peer.isEmpty() ? "" : "the link with that index, " + peer.get().name()
                    + ", is not the peer of " + ifName);
        }
        if (PrevResults.hostInterface(previous, peer.get().name()).isEmpty()) {
            throw new CniException(CniError.INTERNAL, "no veth peer of container interface found in host ns",
                    "the prevResult lists no host interface " + peer.get().name());
        }
        return peer.get();
    }

    /** {@code tc qdisc add dev HOSTVETH root handle 1: tbf ...}: what reaches the container. */
    private static void shapeIngress(Namespace host, Link hostVeth, Shaping shaping, Rollback rollback)
            throws CniException {
        try {
            host.nl().addQdisc(Qdisc.root(hostVeth.index(), TBF_HANDLE, shaping.tbf()));
        } catch (NetlinkException e) {
            throw tcFailed("create qdisc", "CONFIG_NET_SCH_TBF", e);
        }
        rollback.onFailure("delete the tbf qdisc of " + hostVeth.name(),
                new DeleteQdisc(host, hostVeth.name(), TcHandle.ROOT, TBF_HANDLE));
        Timing.phase("ingress");
    }

    /** ADD rollback: {@code tc qdisc del dev LINK parent PARENT handle HANDLE}; link or qdisc already gone is fine. */
    private static final class DeleteQdisc extends Undos.InNamespace {
        private final String link;
        private final int parent;
        private final int handle;

        DeleteQdisc(Namespace ns, String link, int parent, int handle) {
            super(ns);
            this.link = link;
            this.parent = parent;
            this.handle = handle;
        }

        @Override
        protected void apply(Namespace open) {
            Optional<Link> found = open.nl().findLink(link);
            if (found.isPresent()) {
                open.nl().deleteQdisc(found.get().index(), parent, handle);
            }
        }

        @Override
        protected boolean tolerates(KernelException e) {
            return e.isNotFound();
        }
    }

    /**
     * Go's {@code CreateIfb}: the ifb named for the attachment, with the host end's MTU, queue length 0 and up, then
     * jcni's alias for GC ({@link Ifb}). An ifb of that name that exists already is an error, and is not touched.
     */
    private static Link createIfb(Namespace host, Link hostVeth, CniRequest request, Rollback rollback)
            throws CniException {
        String network = request.config().name();
        String name = Ifb.name(network, request.containerId());
        try {
            host.nl().addIfb(LinkAttrs.named(name).mtu(hostVeth.mtu()).txQueueLen(0).up(true));
        } catch (NetlinkException e) {
            if (KernelSupport.isUnknownKind(e)) {
                throw KernelSupport.unsupported("ifb", e.getMessage());
            }
            throw NetErrors.failure("adding link " + name, e);
        }
        rollback.onFailure("delete ifb " + name, new Undos.DeleteLink(host, name));
        try {
            Link ifb = host.nl().link(name);
            String alias = Ifb.alias(network, request.containerId());
            if (!alias.isEmpty()) {
                host.nl().setAlias(ifb.index(), alias); // goes with the ifb
            }
            Timing.phase("ifb");
            return host.nl().link(ifb.index());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to set up ifb " + name, e);
        }
    }

    /**
     * Go's {@code CreateEgressQdisc}: an ingress qdisc on the host end, a filter redirecting all of its traffic to the
     * ifb, a tbf on the ifb. The filter goes with the ingress qdisc and the tbf with the ifb, whose undos are
     * registered.
     */
    private static void shapeEgress(Namespace host, Link hostVeth, Link ifb, Shaping shaping, Rollback rollback)
            throws CniException {
        NetlinkHandle nl = host.nl();
        try {
            nl.addQdisc(Qdisc.ingress(hostVeth.index()));
        } catch (NetlinkException e) {
            throw tcFailed("create ingress qdisc", "CONFIG_NET_SCH_INGRESS", e);
        }
        rollback.onFailure("delete the ingress qdisc of " + hostVeth.name(),
                new DeleteQdisc(host, hostVeth.name(), TcHandle.INGRESS, INGRESS_HANDLE));
        try {
            nl.addFilter(redirect(hostVeth.index(), ifb.index()));
        } catch (NetlinkException e) {
            throw tcFailed("add filter", "CONFIG_NET_CLS_U32 and CONFIG_NET_ACT_MIRRED", e);
        }
        try {
            nl.addQdisc(Qdisc.root(ifb.index(), TBF_HANDLE, shaping.tbf()));
        } catch (NetlinkException e) {
            throw tcFailed("create ifb qdisc: create qdisc", "CONFIG_NET_SCH_TBF", e);
        }
        Timing.phase("egress");
    }

    /**
     * The filter Go's plugin puts on the host end's ingress qdisc, as the Go netlink library encodes it: {@code tc
     * filter add dev HOSTVETH parent ffff: protocol all prio 1 u32 match u32 0 0 flowid 1:1 action mirred egress
     * redirect dev IFB action mirred egress redirect dev IFB pass} (the library prepends a redirect for the filter's
     * {@code RedirIndex} to the plugin's own, whose verdict is 0, pass).
     */
    static Filter redirect(int hostIndex, int ifbIndex) {
        TcAction.Mirred toIfb = TcAction.Mirred.egressRedirect(ifbIndex);
        return new Filter(hostIndex, INGRESS_HANDLE, 0, 1, Filter.PROTOCOL_ALL,
                FilterInfo.U32.matchAll(FLOW_ID, List.of(toIfb, toIfb.verdict(TcAction.PASS))));
    }

    /**
     * A tc request refused: code 50 naming the kernel option when the kernel does not know the qdisc, classifier or
     * action ("Specified qdisc kind is unknown", "Failed to load TC action module"), else as {@link NetErrors}.
     */
    private static CniException tcFailed(String what, String option, NetlinkException e) {
        String said = e.extAck();
        if (said.contains("kind is unknown") || said.contains("Failed to load TC action module")) {
            return new CniException(CniError.PLUGIN_NOT_AVAILABLE, what + ": the running kernel lacks traffic "
                    + "control support (" + option + ")", "the kernel answered: " + e.getMessage());
        }
        return NetErrors.failure(what, e);
    }

    /** The prevResult with the ifb appended as a host interface (Go's result). */
    private static Result withIfb(Result result, Link ifb) {
        List<Interface> interfaces = new ArrayList<>(result.interfaces());
        interfaces.add(new Interface(ifb.name(), ifb.address() == null ? "" : ifb.address().toString(), ""));
        return result.withInterfaces(interfaces);
    }

    // ---- DEL -------------------------------------------------------------------------------------------------

    @Override
    public void del(CniRequest request) throws CniException {
        String name = Ifb.name(request.config().name(), request.containerId());
        try (Namespace host = Namespace.host()) {
            Optional<Link> ifb = host.nl().findLink(name);
            if (ifb.isEmpty()) {
                return;
            }
            if (!ifb.get().kind().equals("ifb")) {
                request.log().warn("DEL: " + name + " is a " + ifb.get().kind() + " link, not an ifb: left alone");
                return;
            }
            host.nl().deleteLink(ifb.get().index());
        } catch (NetlinkException e) {
            if (!e.isNotFound()) {
                throw NetErrors.failure("failed to delete ifb " + name, e);
            }
        }
    }

    // ---- CHECK -----------------------------------------------------------------------------------------------

    @Override
    public void check(CniRequest request) throws CniException {
        BandwidthConfig conf = BandwidthConfig.load(request);
        Optional<Result> previous = PrevResults.find(request);
        if (previous.isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "must be called as a chained plugin");
        }
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            Link hostVeth = hostInterface(host, container, previous.get(), request.ifName());
            if (conf.ingress().isSet()) {
                checkTbf(host.nl(), hostVeth, conf.ingress());
            }
            if (conf.egress().isSet()) {
                String name = Ifb.name(request.config().name(), request.containerId());
                Optional<Link> ifb = host.nl().findLink(name);
                if (ifb.isEmpty()) {
                    throw new CniException(CniError.INTERNAL, "get ifb device: Link not found",
                            "no link " + name + " in the host namespace");
                }
                checkTbf(host.nl(), ifb.get(), conf.egress());
                checkRedirect(host.nl(), hostVeth, ifb.get());
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to read the qdiscs of the attachment", e);
        }
    }

    /** The link's root qdisc is the tbf ADD made: Go's comparison (rate, limit, buffer) in Go's words. */
    private static void checkTbf(NetlinkHandle nl, Link link, Shaping shaping) throws CniException {
        Optional<Qdisc> root = nl.findQdisc(link.index(), TcHandle.ROOT);
        if (root.isEmpty() || !(root.get().info() instanceof QdiscInfo.Tbf tbf)) {
            throw new CniException(CniError.INTERNAL, "Failed to find qdisc", "the root qdisc of " + link.name()
                    + " is " + (root.isEmpty() ? "missing" : root.get().kind() + ", not tbf"));
        }
        QdiscInfo.Tbf expected = shaping.tbf();
        if (tbf.rate() != expected.rate()) {
            throw mismatch("Rate", link, tbf.rate(), expected.rate(), " bytes/s");
        }
        if (tbf.limit() != expected.limit()) {
            throw mismatch("Limit", link, Integer.toUnsignedLong(tbf.limit()), Integer.toUnsignedLong(expected.limit()),
                    " bytes");
        }
        if (tbf.buffer() != expected.buffer()) {
            throw mismatch("Buffer", link, Integer.toUnsignedLong(tbf.buffer()),
                    Integer.toUnsignedLong(expected.buffer()), " ticks");
        }
    }

    private static CniException mismatch(String what, Link link, long actual, long expected, String unit) {
        return new CniException(CniError.INTERNAL, what + " doesn't match", "tbf on " + link.name() + ": " + actual
                + unit + ", configured " + expected + unit);
    }

    /** jcni's addition: a filter on the host end's ingress redirects to the ifb (without it nothing is shaped). */
    private static void checkRedirect(NetlinkHandle nl, Link hostVeth, Link ifb) throws CniException {
        for (Filter filter : nl.filters(hostVeth.index(), INGRESS_HANDLE)) {
            if (filter.info() instanceof FilterInfo.U32 u32) {
                for (TcAction action : u32.actions()) {
                    if (action instanceof TcAction.Mirred mirred
                            && mirred.direction() == TcAction.Mirred.EGRESS_REDIRECT
                            && mirred.ifindex() == ifb.index()) {
                        return;
                    }
                }
            }
        }
        throw new CniException(CniError.INTERNAL, "no filter redirects the traffic of " + hostVeth.name() + " to "
                + ifb.name(), "the ingress qdisc of " + hostVeth.name() + " has no u32 filter with a mirred "
                + "redirect to " + ifb.name());
    }

    // ---- GC, STATUS ------------------------------------------------------------------------------------------

    @Override
    public void gc(CniRequest request) throws CniException {
        PluginConfig config = request.config();
        Optional<Json> valid = config.get(PluginConfig.VALID_ATTACHMENTS);
        Optional<Json> legacy = config.get(PluginConfig.LEGACY_ATTACHMENTS);
        if ((valid.isEmpty() || valid.get() instanceof JsonNull) && (legacy.isEmpty()
                || legacy.get() instanceof JsonNull)) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "GC needs " + PluginConfig.VALID_ATTACHMENTS,
                    "without the list of attachments that are still valid, bandwidth cannot tell which ifb devices "
                            + "to remove; nothing was removed");
        }
        Set<String> containers = new HashSet<>();
        for (GcAttachment attachment : config.validAttachments()) {
            containers.add(attachment.containerId());
        }
        CniException first = null;
        try (Namespace host = Namespace.host()) {
            for (Link link : host.nl().links()) {
                String owner = Ifb.containerOf(link, config.name());
                if (owner == null || containers.contains(owner)) {
                    continue;
                }
                try {
                    host.nl().deleteLink(link.index());
                    request.log().debug("GC removed ifb " + link.name() + " of \"" + owner + "\"");
                } catch (NetlinkException e) {
                    if (!e.isNotFound() && first == null) {
                        first = NetErrors.failure("failed to delete ifb " + link.name(), e);
                    }
                }
            }
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to list the host's links", e);
        }
        if (first != null) {
            throw first;
        }
    }

    @Override
    public void status(CniRequest request) throws CniException {
        Netlink.checkAvailable();
        try (NetNs probe = NetNs.create();
                NetlinkHandle nl = Netlink.open(probe)) {
            nl.addVeth(LinkAttrs.named("probe0"), LinkAttrs.named("probe1"));
            Link veth = nl.link("probe0");
            Link ifb;
            try {
                nl.addIfb(LinkAttrs.named("probe2"));
                ifb = nl.link("probe2");
            } catch (NetlinkException e) {
                if (KernelSupport.isUnknownKind(e)) {
                    throw KernelSupport.unsupported("ifb", e.getMessage());
                }
                throw e;
            }
            QdiscInfo.Tbf tbf = QdiscInfo.Tbf.goBandwidth(125000, 1250, BandwidthConfig.LATENCY_MILLIS);
            try {
                nl.addQdisc(Qdisc.root(veth.index(), TBF_HANDLE, tbf));
            } catch (NetlinkException e) {
                throw tcFailed("create qdisc", "CONFIG_NET_SCH_TBF", e);
            }
            try {
                nl.addQdisc(Qdisc.ingress(veth.index()));
            } catch (NetlinkException e) {
                throw tcFailed("create ingress qdisc", "CONFIG_NET_SCH_INGRESS", e);
            }
            try {
                nl.addFilter(redirect(veth.index(), ifb.index()));
            } catch (NetlinkException e) {
                throw tcFailed("add filter", "CONFIG_NET_CLS_U32 and CONFIG_NET_ACT_MIRRED", e);
            }
        } catch (KernelException e) {
            throw NetErrors.failure("failed to probe the kernel's traffic control support", e);
        }
    }
}
