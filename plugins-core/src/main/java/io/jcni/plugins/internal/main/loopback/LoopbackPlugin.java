package io.jcni.plugins.internal.main.loopback;

import io.jcni.netlink.Address;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.pkg.ip.Prefixes;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code loopback} plugin: brings {@code lo} up in the container's namespace, as Go's {@code loopback} does.
 * CNI_IFNAME is ignored (it only ever acts on {@code lo}).
 *
 * <p>ADD sets {@code lo} up and returns, unless the config carries a {@code prevResult} (which is passed through), an
 * interface {@code lo} with MAC {@code 00:00:00:00:00:00} and the first IPv4 and IPv6 address of {@code lo}
 * (normally 127.0.0.1/8 and ::1/128), failing if {@code lo} holds a non-loopback address. If {@code lo} was down and
 * the ADD fails afterwards, it is set down again. DEL sets {@code lo} down and succeeds when there is no namespace
 * (CNI_NETNS absent, or gone). CHECK fails unless {@code lo} is up.
 */
public final class LoopbackPlugin implements CniPlugin {
    private static final String LO = "lo";

    @Override
    public CniResult add(CniRequest request) throws CniException {
        List<IpConfig> ips = new ArrayList<>(2);
        try (Namespace container = Namespace.container(request.netns())) {
            NetlinkHandle nl = container.nl();
            Link lo = nl.link(LO);
            if (!lo.isUp()) {
                nl.setUp(lo.index());
                request.rollback().onFailure("set lo down in " + request.netns(), new SetDown(container));
            }
            IpPrefix v4 = null;
            IpPrefix v6 = null;
            for (Address address : nl.addresses(lo.index(), null)) {
                InetAddress ip = address.address();
                if (!ip.isLoopbackAddress()) {
                    throw new CniException(CniError.INTERNAL,
                            "loopback interface found with non-loopback address \"" + IpText.format(ip) + "\"");
                }
                IpPrefix prefix = Prefixes.of(address);
                if (ip instanceof Inet4Address) {
                    v4 = v4 == null ? prefix : v4;
                } else {
                    v6 = v6 == null ? prefix : v6;
                }
            }
            if (v4 != null) {
                ips.add(new IpConfig(0, v4, null));
            }
            if (v6 != null) {
                ips.add(new IpConfig(0, v6, null));
            }
        } catch (NetlinkException e) {
            throw failure("failed to set up lo in " + request.netns(), e);
        }
        Optional<CniResult> previous = request.config().prevResult();
        if (previous.isPresent()) {
            return previous.get();
        }
        Interface lo = new Interface(LO, "00:00:00:00:00:00", request.netns());
        return new Result(List.of(lo), ips, List.of(), Dns.EMPTY);
    }

    @Override
    public void del(CniRequest request) throws CniException {
        Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
        if (container.isEmpty()) {
            return;
        }
        try (Namespace ns = container.get()) {
            setDown(ns);
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                request.log().debug("DEL: " + e.getMessage() + ": nothing to do");
                return;
            }
            throw failure("failed to set lo down in " + request.netns(), e);
        }
    }

    @Override
    public void check(CniRequest request) throws CniException {
        try (Namespace container = Namespace.container(request.netns())) {
            if (!container.nl().link(LO).isUp()) {
                throw new CniException(CniError.INTERNAL, "loopback interface is down");
            }
        } catch (NetlinkException e) {
            throw failure("failed to check lo in " + request.netns(), e);
        }
    }

    /** {@code ip -n NETNS link set lo down}; NOT_FOUND when lo is gone. */
    private static void setDown(Namespace ns) {
        ns.nl().setDown(ns.nl().link(LO).index());
    }

    private static CniException failure(String what, NetlinkException e) {
        return new CniException(CniError.INTERNAL, what + ": " + e.getMessage());
    }

    /** Rollback step of ADD: lo down again (a gone namespace has nothing to undo). */
    private static final class SetDown extends Undos.InNamespace {
        SetDown(Namespace container) {
            super(container);
        }

        @Override
        protected void apply(Namespace open) {
            setDown(open);
        }
    }
}
