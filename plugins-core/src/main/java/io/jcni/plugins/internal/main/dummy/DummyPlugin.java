package io.jcni.plugins.internal.main.dummy;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.NetlinkException;
import io.jcni.plugins.internal.pkg.ipam.IpamDelegation;
import io.jcni.plugins.internal.pkg.link.ContainerLink;
import io.jcni.plugins.internal.pkg.link.ContainerLinkPlugin;
import io.jcni.plugins.internal.pkg.link.KernelSupport;
import io.jcni.plugins.internal.pkg.link.NewLink;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.NetErrors;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Result;

/**
 * The {@code dummy} plugin: a dummy link named CNI_IFNAME created in the container, with addresses from IPAM (which
 * is required), as Go's dummy. Keys: {@code ipam}, {@code dns} is IPAM's (Go's dummy does not apply the
 * configuration's).
 *
 * <p>Kernels without dummy links (CONFIG_DUMMY, this machine's) fail ADD at the link's creation, before any other side
 * effect, with code 50 naming the option; STATUS probes for it and answers the same.
 *
 * <p>DEL releases the IPAM allocation and deletes the link; a gone namespace or link is success. CHECK verifies the
 * prevResult's interface (kind dummy, MAC, up) and its addresses, as Go does (routes are not checked there either).
 */
public final class DummyPlugin implements ContainerLinkPlugin {

    static void requireIpam(CniRequest request) throws CniException {
        if (request.config().ipamType().isEmpty()) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "dummy interface requires an IPAM configuration");
        }
    }

    @Override
    public CniResult add(CniRequest request) throws CniException {
        requireIpam(request);
        String ifName = request.ifName();
        try (Namespace host = Namespace.host();
                Namespace container = Namespace.container(request.netns())) {
            try {
                NewLink.dummy().create(host.nl(), LinkAttrs.named(ifName).netns(container.netns()));
            } catch (NetlinkException e) {
                throw KernelSupport.createFailed("dummy", e);
            }
            request.rollback().onFailure("delete dummy " + ifName + " in " + container,
                    new Undos.DeleteLink(container, ifName));
            Link link;
            try {
                link = container.nl().link(ifName);
            } catch (NetlinkException e) {
                throw NetErrors.failure("failed to fetch dummy \"" + ifName + "\"", e);
            }
            return ContainerLink.configureFromIpam(request, container, link);
        }
    }

    @Override
    public void check(CniRequest request) throws CniException {
        requireIpam(request);
        try (Namespace container = Namespace.container(request.netns())) {
            Result previous = IpamDelegation.checkThenPrevResult(request);
            Link link = ContainerLink.check(container, previous, request.ifName(), request.netns(), "dummy");
            if (!link.isUp()) {
                throw new CniException(CniError.INTERNAL, "Interface " + request.ifName() + " is down");
            }
            io.jcni.plugins.internal.pkg.ip.Checks.interfaceIps(container, request.ifName(), previous.ips());
        }
    }

    /** IPAM's status, and code 50 when the kernel cannot create dummy links. */
    @Override
    public void status(CniRequest request) throws CniException {
        KernelSupport.require("dummy");
        IpamDelegation.status(request);
    }
}
