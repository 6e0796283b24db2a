package io.jcni.it.support;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads the kernel's networking state of one namespace with {@code ip -j}, independently of jcni's own netlink layer,
 * so that tests can check what a plugin did through a second, trusted reader.
 */
public final class KernelState {

    private final String netns;

    private KernelState(String netns) {
        this.netns = netns;
    }

    /**
     * The namespace this JVM runs in: the machine's own, which tests only check for leftovers ({@link LeakCheck}).
     * What a plugin did to its host is read from the test's {@link TestHost}.
     */
    public static KernelState host() {
        return new KernelState(null);
    }

    public static KernelState in(TestNetns ns) {
        return new KernelState(ns.name());
    }

    /** A namespace known to {@code ip netns} by name. */
    public static KernelState inNetns(String name) {
        return new KernelState(name);
    }

    /** All links, in ifindex order. */
    public List<IpLink> links() {
        var links = new ArrayList<IpLink>();
        for (JsonNode l : ip("-d", "link", "show")) {
            var flags = new ArrayList<String>();
            l.path("flags").forEach(f -> flags.add(f.asText()));
            links.add(new IpLink(l.path("ifindex").asInt(), l.path("ifname").asText(),
                    text(l.path("linkinfo").path("info_kind")), text(l.path("master")), text(l.path("address")),
                    l.path("mtu").asInt(), flags, text(l.path("operstate")), l.path("link_netnsid").asInt(-1)));
        }
        return links;
    }

    public Optional<IpLink> link(String name) {
        return links().stream().filter(l -> l.name().equals(name)).findFirst();
    }

    /** All addresses of all links, IPv4 and IPv6 (including link-local ones). */
    public List<IpAddress> addresses() {
        var addresses = new ArrayList<IpAddress>();
        for (JsonNode l : ip("addr", "show")) {
            for (JsonNode a : l.path("addr_info")) {
                addresses.add(new IpAddress(l.path("ifname").asText(), a.path("family").asText(),
                        a.path("local").asText(), a.path("prefixlen").asInt(), a.path("scope").asText()));
            }
        }
        return addresses;
    }

    public List<IpAddress> addresses(String ifname) {
        return addresses().stream().filter(a -> a.ifname().equals(ifname)).toList();
    }

    /** The main routing table, IPv4 then IPv6. */
    public List<IpRoute> routes() {
        var routes = new ArrayList<IpRoute>();
        for (String family : List.of("inet", "inet6")) {
            for (JsonNode r : ip(family.equals("inet") ? "-4" : "-6", "route", "show", "table", "main")) {
                routes.add(new IpRoute(family, r.path("dst").asText(), text(r.path("gateway")), text(r.path("dev")),
                        text(r.path("protocol")), text(r.path("scope")), text(r.path("prefsrc"))));
            }
        }
        return routes;
    }

    public List<IpRoute> routes(String dev) {
        return routes().stream().filter(r -> dev.equals(r.dev())).toList();
    }

    /**
     * Reads a sysctl by its path under /proc/sys, e.g. {@code net/ipv4/conf/eth0/accept_ra} (slashes, not dots,
     * because interface names may contain dots).
     */
    public String sysctl(String path) {
        Path file = Path.of("/proc/sys").resolve(path);
        if (netns == null) {
            try {
                return Files.readString(file).strip();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return Processes.check("ip", "netns", "exec", netns, "cat", file.toString()).stdout().strip();
    }

    private JsonNode ip(String... args) {
        var command = new ArrayList<String>(List.of("ip"));
        if (netns != null) {
            command.addAll(List.of("-n", netns));
        }
        command.add("-j");
        command.addAll(List.of(args));
        String out = Processes.check(command.toArray(String[]::new)).stdout();
        // ip prints nothing at all (not "[]") for an empty IPv6 route table in some versions.
        return out.isBlank() ? Json.parse("[]") : Json.parse(out);
    }

    private static String text(JsonNode node) {
        return node.isMissingNode() || node.isNull() ? null : node.asText();
    }

    @Override
    public String toString() {
        return netns == null ? "host namespace" : "namespace " + netns;
    }
}
