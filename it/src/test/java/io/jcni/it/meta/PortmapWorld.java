package io.jcni.it.meta;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The world a portmap test runs in, all test namespaces: a {@link TestHost} (the node: bridge, NAT rules, forwarding),
 * its containers, and a <b>client</b> outside, linked to the host by a veth pair ({@code up0} in the host,
 * {@link #HOST_V4}/{@link #HOST_V6}; {@code up1} in the client, {@link #CLIENT_V4}/{@link #CLIENT_V6}): the client
 * reaches the host's published ports as a machine on the node's network would. The network is a bridge with
 * host-local (IPv4 and IPv6, the gateway the containers' default route) and portmap after it, run by Go libcni in the
 * host. Closing deletes every namespace, and with the host its bridge, veths and nftables/iptables rules.
 */
final class PortmapWorld implements AutoCloseable {
    static final String TAG = "pm";
    static final InetAddress HOST_V4 = InetAddress.ofLiteral("172.31.250.1");
    static final InetAddress CLIENT_V4 = InetAddress.ofLiteral("172.31.250.2");
    static final InetAddress HOST_V6 = InetAddress.ofLiteral("fd00:250::1");
    static final InetAddress CLIENT_V6 = InetAddress.ofLiteral("fd00:250::2");

    final Path tmp;
    final TestHost host;
    final TestNetns client;
    final String bridge;

    PortmapWorld(Path tmp) {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("nft");
        this.tmp = tmp;
        this.host = TestHost.create(TAG);
        try {
            this.client = host.container();
            host.exec("ip", "link", "add", "up0", "type", "veth", "peer", "name", "up1", "netns", client.name())
                    .requireSuccess();
            host.exec("ip", "addr", "add", "172.31.250.1/24", "dev", "up0").requireSuccess();
            host.exec("ip", "addr", "add", "fd00:250::1/64", "dev", "up0", "nodad").requireSuccess();
            host.exec("ip", "link", "set", "up0", "up").requireSuccess();
            client.exec("ip", "link", "set", "lo", "up").requireSuccess();
            client.exec("ip", "addr", "add", "172.31.250.2/24", "dev", "up1").requireSuccess();
            client.exec("ip", "addr", "add", "fd00:250::2/64", "dev", "up1", "nodad").requireSuccess();
            client.exec("ip", "link", "set", "up1", "up").requireSuccess();
            this.bridge = Names.link(TAG);
        } catch (RuntimeException | Error e) {
            host.close();
            throw e;
        }
    }

    /** A fresh container namespace, with {@code lo} up (hairpin and localhost tests use it). */
    TestNetns container() {
        TestNetns c = host.container();
        c.exec("ip", "link", "set", "lo", "up").requireSuccess();
        return c;
    }

    /** bridge (gateway, default routes, hairpin) with host-local over {@code 10.222.N.0/24} and {@code fd22:N::/64}. */
    String bridgePlugin(int n, String extraKeys) {
        String ipam = Conflists.hostLocal(tmp.resolve("ipam"), List.of("10.222." + n + ".0/24", "fd22:" + n + "::/64"));
        return Conflists.bridge(bridge, ",\"isGateway\":true,\"isDefaultGateway\":true,\"hairpinMode\":true"
                + extraKeys, ipam);
    }

    /** {@code {"type":"portmap","capabilities":{"portMappings":true}<keys>}}. */
    static String portmapPlugin(String keys) {
        return "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}" + keys + "}";
    }

    Path conflist(String name, String network, String... plugins) throws IOException {
        Files.createDirectories(tmp);
        return Files.writeString(tmp.resolve(name + ".conflist"), Conflists.list("1.0.0", network, plugins));
    }

    /** Go libcni in the host with jcni's plugins first in CNI_PATH, then Debian's Go ones. */
    LibcniDriver jcni(String cache) {
        Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap");
        return host.libcni(List.of(Locations.distCniBin(), Locations.referencePlugins()), tmp.resolve(cache));
    }

    /** Go libcni in the host with Debian's Go plugins only (portmap 1.1.1: iptables). */
    LibcniDriver go(String cache) {
        Prerequisites.assumeReferencePlugins("bridge", "host-local", "portmap");
        return host.libcni(List.of(Locations.referencePlugins()), tmp.resolve(cache));
    }

    /** One mapping of the {@code portMappings} capability. */
    static String mapping(int hostPort, int containerPort, String protocol, String hostIp) {
        return "{\"hostPort\":" + hostPort + ",\"containerPort\":" + containerPort + ",\"protocol\":\"" + protocol
                + "\"" + (hostIp == null ? "" : ",\"hostIP\":\"" + hostIp + "\"") + "}";
    }

    /** An attachment with these port mappings as capability arguments. */
    static Attachment withPorts(String containerId, String... mappings) {
        return Attachment.of(containerId, "eth0").withCapabilityArgs("{\"portMappings\":["
                + String.join(",", mappings) + "]}");
    }

    /** The container's address of a family, from an ADD's result. */
    static InetAddress address(JsonNode result, boolean ipv6) {
        for (JsonNode ip : result.path("ips")) {
            String cidr = ip.path("address").asText();
            InetAddress a = InetAddress.ofLiteral(cidr.substring(0, cidr.indexOf('/')));
            if ((a.getAddress().length == 16) == ipv6) {
                return a;
            }
        }
        throw new AssertionError("no " + (ipv6 ? "IPv6" : "IPv4") + " address in " + result);
    }

    /** {@code nft -j list ruleset} in the host. */
    JsonNode ruleset() {
        return Json.parse(host.exec("nft", "-j", "list", "ruleset").requireSuccess().stdout());
    }

    /**
     * Waits (at most 10 s) until no IPv6 address in the world's host is tentative. The first ADD on a bridge gives it
     * its gateway addresses, and until their duplicate address detection ends (1 to 2.5 s measured here) the bridge
     * answers nothing for them, so IPv6 traffic through it is lost; the bridge plugin returns before that. A check of
     * the published ports right after the ADD then measured this timing, not the ports (seen once in CI: "tcp to
     * fd00:250::1:8080" not reached within its 3 s connect timeout).
     */
    void awaitBridgeAddresses() {
        host.awaitNoTentativeAddresses(Duration.ofSeconds(10));
    }

    /** {@code nft list ruleset} in the host, as text. */
    String rulesetText() {
        return host.exec("nft", "list", "ruleset").requireSuccess().stdout();
    }

    /** The objects of one kind ({@code table}, {@code chain}, {@code rule}) of the host's ruleset. */
    List<JsonNode> objects(String kind) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode n : ruleset().path("nftables")) {
            if (n.has(kind)) {
                out.add(n.get(kind));
            }
        }
        return out;
    }

    /** The host's rules whose comment contains {@code text}, as {@code "family chain"} strings. */
    List<String> rulesCommented(String text) {
        List<String> out = new ArrayList<>();
        for (JsonNode rule : objects("rule")) {
            if (rule.path("comment").asText("").contains(text)) {
                out.add(rule.path("family").asText() + " " + rule.path("chain").asText());
            }
        }
        return out;
    }

    @Override
    public void close() {
        host.close();
    }
}
