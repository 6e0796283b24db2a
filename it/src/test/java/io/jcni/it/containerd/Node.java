package io.jcni.it.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Containerd;
import io.jcni.it.support.CriClient;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.PluginServiceProcess;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.WebProbe;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * The world of one containerd test on one {@link Side}: a test host (the node) with a client namespace on a link
 * (the node has {@link #NODE_A} and {@link #NODE_B} on it, the client {@link #CLIENT}), containerd on the side's
 * plugins, and on the service side a plugin service started in containerd's mount namespace. Closed in reverse: the
 * service, containerd (and everything it left running), the host.
 */
final class Node implements AutoCloseable {
    static final InetAddress NODE_A = InetAddress.ofLiteral("172.31.250.1");
    static final InetAddress NODE_B = InetAddress.ofLiteral("172.31.250.3");
    static final InetAddress CLIENT = InetAddress.ofLiteral("172.31.250.2");
    /** The node's pod CIDR, sent with UpdateRuntimeConfig (containerd's example network's). */
    static final String POD_CIDR = "10.88.0.0/16";
    static final String GATEWAY = "10.88.0.1";
    /** What the image's web server answers with (busybox-image.sh's index.html). */
    static final String PAGE = "hello from a jcni containerd test\n";

    final Side side;
    final TestHost host;
    final TestNetns client;
    final Containerd containerd;
    final PluginServiceProcess service;
    /** The environment containerd runs with (and ctr needs: it execs the plugins of {@code ctr run --cni} itself). */
    final Map<String, String> env;

    private Node(Side side, TestHost host, TestNetns client, Containerd containerd, PluginServiceProcess service,
            Map<String, String> env) {
        this.side = side;
        this.host = host;
        this.client = client;
        this.containerd = containerd;
        this.service = service;
        this.env = env;
    }

    /** Starts the node of {@code side}; {@code options} adapts what containerd gets (more plugins, a template). */
    static Node start(Side side, Path dir, String tag, UnaryOperator<Containerd.Options> options) {
        side.requirePlugins();
        TestHost host = TestHost.create(tag);
        Containerd containerd = null;
        PluginServiceProcess service = null;
        try {
            TestNetns client = host.container();
            host.exec("ip", "link", "add", "up0", "type", "veth", "peer", "name", "up1", "netns", client.name())
                    .requireSuccess();
            host.exec("ip", "addr", "add", "172.31.250.1/24", "dev", "up0").requireSuccess();
            host.exec("ip", "addr", "add", "172.31.250.3/24", "dev", "up0").requireSuccess();
            host.exec("ip", "link", "set", "up0", "up").requireSuccess();
            client.exec("ip", "link", "set", "lo", "up").requireSuccess();
            client.exec("ip", "addr", "add", "172.31.250.2/24", "dev", "up1").requireSuccess();
            client.exec("ip", "link", "set", "up1", "up").requireSuccess();

            Path socket = dir.resolve("service/plugins.sock");
            Map<String, String> env = side.env(socket);
            containerd = Containerd.start(host, dir.resolve("containerd"),
                    options.apply(Containerd.Options.plugins(side.plugins()).withEnv(env)));
            if (side == Side.SERVICE) {
                // In containerd's mount namespace and network namespace: the clients it execs are served there.
                service = PluginServiceProcess.start(containerd.inNode(List.of(Locations.distJcni().toString(),
                        "serve", "--socket", socket.toString())), socket, Map.of("JCNI_DEBUG", "1"));
            }
            return new Node(side, host, client, containerd, service, env);
        } catch (RuntimeException | Error e) {
            closeAll(service, containerd, host, e);
            throw e;
        }
    }

    CriClient cri() {
        return containerd.cri();
    }

    /** Sends the pod CIDR (UpdateRuntimeConfig) and waits until containerd has rendered and loaded the network. */
    JsonNode podCidr() {
        assertThat(cri().networkReady()).as("the network is not ready before containerd has a pod CIDR").isFalse();
        cri().require("UpdateRuntimeConfig",
                "{\"runtimeConfig\": {\"networkConfig\": {\"podCidr\": \"" + POD_CIDR + "\"}}}");
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!cri().networkReady()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("containerd's network did not become ready:\n" + containerd.log());
            }
            sleep(100);
        }
        return Json.read(containerd.cniConfDir().resolve(Containerd.RENDERED_CONFLIST));
    }

    /** The node's links whose names start with {@code prefix} (the bridge's host ends "veth", bandwidth's "bwp"). */
    List<String> links(String prefix) {
        return host.kernel().links().stream().map(IpLink::name).filter(n -> n.startsWith(prefix)).toList();
    }

    /** host-local's reservations of the network in the node's /var/lib/cni. */
    List<String> reservations() {
        return HostLocalFiles.reservations(containerd.cniState().resolve("networks"),
                Containerd.NETWORK);
    }

    /** The entries of the runtime's result cache in the node's /var/lib/cni/results. */
    List<String> cacheEntries() {
        Path results = containerd.cniState().resolve("results");
        if (!Files.isDirectory(results)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(results)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The node's whole netfilter state: {@code nft list ruleset} (iptables-nft's rules, Go's, are in it too). */
    String ruleset() {
        return host.exec("nft", "list", "ruleset").requireSuccess().stdout();
    }

    /** The IPv4 addresses of {@code ifname} in the namespace {@code netns} (a pod's: /proc/PID/ns/net). */
    static List<String> addresses(Path netns, String ifname) {
        ProcessResult ip = Processes.check("nsenter", "--net=" + netns, "ip", "-j", "-4", "addr", "show", "dev",
                ifname);
        List<String> addresses = new ArrayList<>();
        for (JsonNode link : Json.parse(ip.stdout())) {
            for (JsonNode a : link.path("addr_info")) {
                addresses.add(a.path("local").asText() + "/" + a.path("prefixlen").asInt());
            }
        }
        return addresses;
    }

    /** An HTTP GET of {@code /} from {@code from} to {@code address:port}: the whole answer, or "" if none came. */
    static String httpGet(Path from, InetAddress address, int port) {
        return WebProbe.get(from, address, port);
    }

    /** {@link WebProbe#awaitPage} of {@link #PAGE}: a started container's web server may not listen yet. */
    static String awaitPage(Path from, InetAddress address, int port) {
        return WebProbe.awaitPage(from, address, port, PAGE);
    }

    @Override
    public void close() {
        closeAll(service, containerd, host, null);
    }

    private static void closeAll(PluginServiceProcess service, Containerd containerd, TestHost host,
            Throwable failure) {
        Throwable first = failure;
        for (AutoCloseable c : new AutoCloseable[] {service, containerd, host}) {
            if (c == null) {
                continue;
            }
            try {
                c.close();
            } catch (Exception | Error e) {
                if (first == null) {
                    first = e;
                } else if (first != e) {
                    first.addSuppressed(e);
                }
            }
        }
        if (failure == null && first != null) {
            if (first instanceof RuntimeException r) {
                throw r;
            }
            if (first instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException(first);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
