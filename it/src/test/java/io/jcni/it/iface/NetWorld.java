package io.jcni.it.iface;

import io.jcni.it.support.HostLinks;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.netlink.Address;
import io.jcni.netlink.Family;
import io.jcni.netlink.Link;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Route;
import io.jcni.netlink.Sysctl;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What one interface-plugin test makes and must remove: namespaces ({@code jcni-net-*}), host bridges
 * ({@code jcni-net-xxxxxx}), IPAM data and cache dirs under the test's temp dir. Closing deletes the namespaces (and
 * with them their veth pairs) and the bridges, also when the test failed. Also reads kernel state through jcni's own
 * netlink layer, the second reader next to {@code ip -j} ({@link io.jcni.it.support.KernelState}).
 */
final class NetWorld implements AutoCloseable {
    static final String TAG = "net";

    final Path tmp;
    private final List<TestNetns> namespaces = new ArrayList<>();
    private final List<String> bridges = new ArrayList<>();

    NetWorld(Path tmp) {
        Prerequisites.assumeRoot();
        this.tmp = tmp;
    }

    TestNetns netns() {
        TestNetns ns = TestNetns.create(TAG);
        namespaces.add(ns);
        return ns;
    }

    /** A unique bridge name, deleted at close: {@code jcni-net-} and 6 hex digits. */
    String bridge() {
        String name = Names.link(TAG);
        bridges.add(name);
        return name;
    }

    Path dataDir() {
        return tmp.resolve("ipam");
    }

    /** Go libcni with jcni's launchers first in CNI_PATH, Debian's reference plugins after them. */
    LibcniDriver libcniWithJcni(String cacheName) {
        Prerequisites.assumeDistPlugins("bridge", "ptp");
        return LibcniDriver.create(List.of(Locations.distCniBin(), Locations.referencePlugins()),
                tmp.resolve(cacheName));
    }

    /** Go libcni with Debian's reference plugins only. */
    LibcniDriver libcniWithGo(String cacheName) {
        Prerequisites.assumeReferencePlugins("bridge", "ptp", "host-local");
        return LibcniDriver.create(List.of(Locations.referencePlugins()), tmp.resolve(cacheName));
    }

    Path write(String name, String json) throws IOException {
        return Files.writeString(tmp.resolve(name), json);
    }

    /** The reservation files host-local keeps for {@code network} (its lock and last-reserved markers excluded). */
    List<String> reservations(String network) throws IOException {
        Path dir = dataDir().resolve(network);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> !n.equals("lock") && !n.startsWith("last_reserved_ip")).sorted().toList();
        }
    }

    @Override
    public void close() {
        AssertionError failure = null;
        for (TestNetns ns : namespaces) {
            try {
                ns.close();
            } catch (AssertionError e) {
                failure = failure == null ? e : failure;
            }
        }
        for (String bridge : bridges) {
            try {
                HostLinks.deleteIfPresent(bridge);
            } catch (AssertionError e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    // ---- kernel state through jcni's netlink layer ----------------------------------------------------------

    /** A read-only view of one namespace through netlink-ffm; {@code path} null for the host. */
    static final class View implements AutoCloseable {
        private final NetNs ns;
        private final NetlinkHandle nl;

        private View(Path path) {
            this.ns = path == null ? null : NetNs.open(path);
            this.nl = ns == null ? Netlink.open() : Netlink.open(ns);
        }

        static View host() {
            return new View(null);
        }

        static View of(TestNetns netns) {
            return new View(netns.path());
        }

        Optional<Link> link(String name) {
            return nl.findLink(name);
        }

        Link requireLink(String name) {
            return nl.link(name);
        }

        Optional<Link> link(int index) {
            return nl.findLink(index);
        }

        List<Link> links() {
            return nl.links();
        }

        List<String> addresses(String link, Family family) {
            return nl.addresses(nl.link(link).index(), family).stream().map(Address::prefix)
                    .filter(p -> !p.address().isLinkLocalAddress()).map(Object::toString).toList();
        }

        /** Routes of the main table as {@code dst via gw dev NAME}, via and dev left out when absent. */
        List<String> routes(Family family) {
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
                StringBuilder s = new StringBuilder(r.destination().toString());
                if (r.gateway() != null) {
                    s.append(" via ").append(format(r.gateway()));
                }
                if (r.outIndex() != 0) {
                    s.append(" dev ").append(nl.findLink(r.outIndex()).map(Link::name).orElse("?"));
                }
                out.add(s.toString());
            }
            return out;
        }

        static String format(java.net.InetAddress address) {
            String text = io.jcni.netlink.IpPrefix.host(address).toString();
            return text.substring(0, text.indexOf('/'));
        }

        String sysctl(String key) {
            return ns == null ? Sysctl.read(key) : Sysctl.read(ns, key);
        }

        @Override
        public void close() {
            nl.close();
            if (ns != null) {
                ns.close();
            }
        }
    }
}
