package io.jcni.plugins.internal.main.bridge;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ip.Checks;
import io.jcni.plugins.internal.pkg.ip.PrevResults;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.util.Optional;

/**
 * The bridge plugin's CHECK of the host side, with Go's error texts: the bridge recorded in prevResult
 * ({@link #bridge}) and the host end of the container's veth on it ({@link #hostVeth}).
 */
final class BridgeChecks {
    private BridgeChecks() {
    }

    static Link bridge(Namespace host, Result result, BridgeConfig conf) throws CniException {
        Optional<Interface> recorded = PrevResults.hostInterface(result, conf.bridge());
        if (recorded.isEmpty()) {
            throw new CniException(CniError.INTERNAL,
                    "CNI created bridge " + conf.bridge() + " in host namespace was not found",
                    "prevResult has no host interface named " + conf.bridge());
        }
        Optional<Link> link;
        try {
            link = host.nl().findLink(conf.bridge());
        } catch (NetlinkException e) {
            throw NetErrors.failure("failed to look up bridge " + conf.bridge(), e);
        }
        if (link.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "Interface name " + conf.bridge() + " not found");
        }
        Link bridge = link.get();
        if (!(bridge.info() instanceof LinkInfo.Bridge)) {
            throw new CniException(CniError.INTERNAL,
                    "Interface " + conf.bridge() + " does not have link type of bridge");
        }
        Checks.mac(recorded.get(), bridge,
                "Bridge interface " + conf.bridge() + " Mac doesn't match: " + recorded.get().mac());
        if (bridge.isPromisc() != conf.promiscMode()) {
            throw new CniException(CniError.INTERNAL, "Bridge interface " + conf.bridge()
                    + " configured Promisc Mode " + conf.promiscMode() + " doesn't match current state: "
                    + bridge.isPromisc());
        }
        return bridge;
    }

    /** The host end: the recorded interface that is the container veth's peer and a port of the bridge. */
    static Link hostVeth(Namespace host, Result result, BridgeConfig conf, Link bridge, Link contVeth)
            throws CniException {
        for (Interface recorded : result.interfaces()) {
            if (!recorded.sandbox().isEmpty() || recorded.name().equals(conf.bridge())) {
                continue;
            }
            Optional<Link> found;
            try {
                found = host.nl().findLink(recorded.name());
            } catch (NetlinkException e) {
                throw NetErrors.failure("failed to look up " + recorded.name(), e);
            }
            if (found.isEmpty()) {
                throw new CniException(CniError.INTERNAL, "Interface name " + recorded.name() + " not found");
            }
            Link link = found.get();
            if (!(link.info() instanceof LinkInfo.Veth) || link.index() != contVeth.parentIndex()
                    || link.parentIndex() != contVeth.index() || link.masterIndex() != bridge.index()) {
                continue;
            }
            Checks.mac(recorded, link, "Interface " + recorded.name() + " Mac doesn't match: " + recorded.mac()
                    + " not found");
            if (link.bridgePort() != null) {
                if (link.bridgePort().hairpin() != conf.hairpinMode()) {
                    throw new CniException(CniError.INTERNAL, "Interface " + recorded.name() + " hairpin mode "
                            + link.bridgePort().hairpin() + " doesn't match configured " + conf.hairpinMode());
                }
                if (conf.portIsolation() && !link.bridgePort().isolated()) {
                    throw new CniException(CniError.INTERNAL,
                            "Interface " + recorded.name() + " is not an isolated bridge port");
                }
            }
            return link;
        }
        throw new CniException(CniError.INTERNAL, "CNI veth created for bridge " + conf.bridge() + " was not found");
    }
}
