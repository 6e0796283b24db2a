package io.jcni.plugins.internal.main.ipvlan;

import io.jcni.netlink.IpvlanMode;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.ContainerLink;
import io.jcni.plugins.internal.pkg.link.ContainerLinkPlugin;
import io.jcni.plugins.internal.pkg.link.KernelSupport;
import io.jcni.plugins.internal.pkg.link.LinkNamespaces;
import io.jcni.plugins.internal.pkg.link.Masters;
import io.jcni.plugins.internal.pkg.link.NewLink;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.ConfigNode;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.util.List;
import java.util.Optional;

/**
 * The {@code ipvlan} plugin: an ipvlan link on a lower device ({@code master}) moved into the container as
 * CNI_IFNAME, as Go's ipvlan. It also runs chained: after a plugin whose result holds exactly one interface, that
 * interface is the default master, and without {@code ipam} the previous result's addresses are put on the ipvlan
 * link.
 *
 * <p>Keys: {@code master} (default: the prevResult's single interface when chained, else the interface of the default
 * route, in the host or with {@code linkInContainer} in the container), {@code mode} ({@code l2} default, {@code l3},
 * {@code l3s}), {@code mtu} (0 = the kernel's choice), {@code linkInContainer}, {@code ipam}, {@code dns}. An ipvlan
 * link has its master's MAC, so there is no {@code mac}.
 *
 * <p>Kernels without ipvlan (CONFIG_IPVLAN, this machine's) fail ADD at the link's creation, before any other side
 * effect, with code 50 naming the option; STATUS probes for it and answers the same.
 *
 * <p>DEL releases the IPAM allocation (when {@code ipam} is set) and deletes the link; a gone namespace or link is
 * success. CHECK verifies the prevResult's interface (kind ipvlan, mode, MAC), its addresses and routes, and the master
 * when one is configured (Go looks up an empty name, and fails, when the master was defaulted).
 */
public final class IpvlanPlugin implements ContainerLinkPlugin {

    record Config(String master, IpvlanMode mode, int mtu, boolean linkInContainer, Dns dns)
            implements LinkNamespaces.LowerDevice {
    }

    static Config load(CniRequest request) throws CniException {
        ConfigNode root = request.config().node();
        String master = root.string("master").orElse("");
        IpvlanMode mode = mode(root.string("mode").orElse(""));
        int mtu = (int) root.integer("mtu", 0, Integer.MAX_VALUE).orElse(0L).longValue();
        boolean inContainer = root.bool("linkInContainer").orElse(false);
        return new Config(master, mode, mtu, inContainer, request.config().dns());
    }

    /** Go's {@code modeFromString}: "" and {@code l2} are L2. */
    static IpvlanMode mode(String text) throws CniException {
        return ContainerLink.mode(text, "ipvlan", IpvlanMode.L2, IpvlanMode.values());
    }

    /**
     * The master: configured, else the single named interface of a prevResult (chained use; code 7 if it has more or
     * none, Go's "chained master failure"), else the default route's.
     */
    static String masterName(Config config, Optional<Result> previous, Namespace lower) throws CniException {
        if (!config.master().isEmpty()) {
            return config.master();
        }
        if (previous.isPresent()) {
            List<Interface> interfaces = previous.get().interfaces();
            if (interfaces.size() == 1 && !interfaces.get(0).name().isEmpty()) {
                return interfaces.get(0).name();
            }
            throw new CniException(CniError.INVALID_NETWORK_CONFIG,
                    "chained master failure. PrevResult lacks a single named interface",
                    "set \"master\", or chain ipvlan after a plugin that reports exactly one interface");
        }
        return Masters.name("", lower);
    }

    @Override
    public CniResult add(CniRequest request) throws CniException {
        Config config = load(request);
        Optional<Result> previous = PrevResults.find(request);
        boolean fromPrevious = request.config().ipamType().isEmpty() && previous.isPresent()
                && !previous.get().ips().isEmpty();
        if (!fromPrevious) {
            request.ipam(); // code 7 now, before any side effect, when there is neither ipam nor a usable prevResult
        }
        try (LinkNamespaces ns = LinkNamespaces.open(request, config)) {
            Link master = Masters.lookup(ns.lower(), masterName(config, previous, ns.lower()));
            Link link = ContainerLink.create(ns.lower(), ns.container(), NewLink.ipvlan(master.index(), config.mode()),
                    config.mtu(), null, request.ifName(), request.rollback());
            Result result;
            if (fromPrevious) {
                result = ContainerLink.configure(request, ns.container(), link, previous.get());
            } else {
                result = ContainerLink.configureFromIpam(request, ns.container(), link);
            }
            return result.withDns(config.dns());
        }
    }

    @Override
    public void check(CniRequest request) throws CniException {
        Config config = load(request);
        try (LinkNamespaces ns = LinkNamespaces.open(request, config)) {
            Result previous = IpamDelegation.checkThenPrevResult(request);
            if (!config.master().isEmpty()) {
                Masters.lookup(ns.lower(), config.master());
            }
            Link link = ContainerLink.check(ns.container(), previous, request.ifName(), request.netns(), "ipvlan");
            IpvlanMode actual = link.info() instanceof LinkInfo.Ipvlan i ? i.mode() : null;
            ContainerLink.checkMode("IPVlan", actual, config.mode());
            Checks.addressing(ns.container(), previous, request.ifName());
        }
    }

    /** IPAM's status, and code 50 when the kernel cannot create ipvlan links. */
    @Override
    public void status(CniRequest request) throws CniException {
        KernelSupport.require("ipvlan");
        IpamDelegation.status(request);
    }
}
