package io.jcni.it.support;

import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.spec.IpText;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A read-only view of one test namespace through jcni's own netlink layer: the second reader next to {@code ip -j}
 * ({@link KernelState}). There is deliberately no view of the machine's own namespace: tests read the host side from
 * their {@link TestHost}. Close it, or use the one-shot helpers.
 */
public final class NetlinkView implements AutoCloseable {
    private final NetNs ns;
    private final NetlinkHandle nl;

    private NetlinkView(NetNs ns) {
        this.ns = ns;
        try {
            this.nl = Netlink.open(ns);
        } catch (RuntimeException | Error e) {
            ns.close();
            throw e;
        }
    }

    public static NetlinkView of(TestNetns netns) {
        return new NetlinkView(NetNs.open(netns.path()));
    }

    public static NetlinkView of(TestHost host) {
        return of(host.netns());
    }

    /** One lookup: the link {@code name} in {@code netns}, if present. */
    public static Optional<Link> findLink(TestNetns netns, String name) {
        try (NetlinkView view = of(netns)) {
            return view.findLink(name);
        }
    }

    /** One lookup: the link {@code name} in {@code netns}; fails if absent. */
    public static Link requireLink(TestNetns netns, String name) {
        try (NetlinkView view = of(netns)) {
            return view.requireLink(name);
        }
    }

    /** One lookup: every link of {@code netns}. */
    public static List<Link> links(TestNetns netns) {
        try (NetlinkView view = of(netns)) {
            return view.links();
        }
    }

    /** One lookup: the names of every link of {@code netns}, sorted. */
    public static List<String> linkNames(TestNetns netns) {
        return links(netns).stream().map(Link::name).sorted().toList();
    }

    /** One read of a sysctl ({@code net.core.somaxconn} or {@code net/core/somaxconn}) inside {@code netns}. */
    public static String sysctl(TestNetns netns, String key) {
        try (NetlinkView view = of(netns)) {
            return view.sysctl(key);
        }
    }

    public Optional<Link> findLink(String name) {
        return nl.findLink(name);
    }

    /** The link {@code name}; fails if absent. */
    public Link requireLink(String name) {
        return nl.link(name);
    }

    public List<Link> links() {
        return nl.links();
    }

    /** The link's addresses as prefixes ({@code 10.1.2.3/24}), link-local ones left out; {@code family} null: all. */
    public List<String> addresses(String link, Family family) {
        return nl.addresses(nl.link(link).index(), family).stream().filter(a -> !a.address().isLinkLocalAddress())
                .map(a -> IpText.format(a.address()) + "/" + a.prefixLength()).toList();
    }

    /** Routes of the main table as {@code dst via gw dev NAME}, via and dev left out when absent. */
    public List<String> routes(Family family) {
        List<Route> routes;
        try {
            routes = nl.routes(family);
        } catch (NetlinkException e) {
            if (e.isNotFound()) {
                return List.of();
            }
            throw e;
        }
        List<String> out = new ArrayList<>();
        for (Route r : routes) {
            StringBuilder s = new StringBuilder(IpText.format(r.destination())).append('/')
                    .append(r.destinationLength());
            if (r.gateway() != null) {
                s.append(" via ").append(IpText.format(r.gateway()));
            }
            if (r.outIndex() != 0) {
                s.append(" dev ").append(nl.findLink(r.outIndex()).map(Link::name).orElse("?"));
            }
            out.add(s.toString());
        }
        return out;
    }

    /** A sysctl of this namespace, read from inside it. */
    public String sysctl(String key) {
        return Sysctl.read(ns, key);
    }

    @Override
    public void close() {
        try {
            nl.close();
        } finally {
            ns.close();
        }
    }
}
