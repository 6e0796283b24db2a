package io.jcni.it.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Podman;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.WebProbe;
import io.jcni.netlink.NetNs;
import io.jcni.spec.IpText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A real runtime end to end: Debian's podman 4.3 with its CNI backend runs a container on a network that
 * {@code podman network create} writes (bridge with ipMasq and hairpin, portmap, firewall with {@code backend ""},
 * tuning), from an image the test builds from busybox-static ({@code podman import}; nothing is pulled), with
 * {@code -p 8080:80}: a client namespace on the node's network gets the container's web page through the published
 * port, the container reaches the client through masquerade (the client sees the node's address) and its own
 * published port (hairpin), and after {@code podman rm} no rule, link or reservation of the container is left. Once
 * with Debian's Go plugins (proving the harness), once with jcni's {@code dist/cni/bin}. podman runs in a test host
 * and in a mount namespace of its own ({@link Podman}): nothing lands in /etc, /run or /var/lib of the machine.
 */
class PodmanTest {
    static final String NETWORK = "jcni-podman";
    static final InetAddress HOST = InetAddress.ofLiteral("172.31.251.1");
    static final InetAddress CLIENT = InetAddress.ofLiteral("172.31.251.2");
    static final String PAGE = "hello from a jcni podman test\n";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns client;

    @BeforeEach
    void node() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("podman");
        Prerequisites.assumeCommand("runc");
        host = TestHost.create("pod");
        client = host.linkedClient("172.31.251.1/24", "172.31.251.2/24");
    }

    /** A root filesystem of busybox-static: /bin/busybox and the applets the container runs, and the web page. */
    Path image() throws IOException {
        return image(tmp);
    }

    /** {@link #image()} under {@code tmp}. */
    static Path image(Path tmp) throws IOException {
        return WebProbe.image(tmp, PAGE, List.of("sh", "httpd", "nc", "printf", "cat", "sleep"));
    }

    @ParameterizedTest(name = "plugins from {0}")
    @ValueSource(strings = {"go", "jcni"})
    void podmansOwnNetworkPublishesMasqueradesAndCleansUp(String plugins) throws Exception {
        Path pluginDir = plugins.equals("go") ? Locations.referencePlugins() : Locations.distCniBin();
        if (plugins.equals("go")) {
            Prerequisites.assumeReferencePlugins("bridge", "host-local", "portmap", "firewall", "tuning");
        } else {
            Prerequisites.assumeDistPlugins("bridge", "host-local", "portmap", "firewall", "tuning");
        }
        Path tar = image();
        try (Podman podman = Podman.start(host, tmp.resolve("podman"), List.of(pluginDir))) {
            podman.podman("import", tar.toString(), "jcni-busybox").requireSuccess();
            podman.podman("network", "create", "--subnet", "10.89.31.0/24", NETWORK).requireSuccess();
            JsonNode conflist = Json.read(podman.dir().resolve("net.d").resolve(NETWORK + ".conflist"));
            assertThat(conflist.path("plugins")).extracting(p -> p.path("type").asText())
                    .containsExactly("bridge", "portmap", "firewall", "tuning");
            assertThat(conflist.path("plugins").get(0).path("ipMasq").asBoolean()).isTrue();
            assertThat(conflist.path("plugins").get(0).path("hairpinMode").asBoolean()).isTrue();
            assertThat(conflist.path("plugins").get(2).path("backend").asText("absent")).isEmpty();

            podman.podman("run", "-d", "--name", "web", "--network", NETWORK, "-p", "8080:80",
                    "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096", "jcni-busybox",
                    "/bin/httpd", "-f", "-p", "80", "-h", "/www").requireSuccess();
            try {
                assertThat(httpGet(client, HOST, 8080)).as("the page, from another namespace").endsWith(PAGE);
                assertThat(podman.podman("exec", "web", "/bin/sh", "-c", "printf \"GET / HTTP/1.0\\r\\n\\r\\n\" | nc -w 3 "
                        + IpText.format(HOST) + " 8080").requireSuccess().output())
                        .as("hairpin: the container through its own published port").endsWith(PAGE);
                assertThat(sourceSeenFromContainer(podman)).as("masquerade: the client sees the node's address")
                        .isEqualTo(HOST);
                assertThat(podman.reservations(NETWORK)).containsExactly("10.89.31.2");
            } finally {
                podman.podman("rm", "-f", "-t", "0", "web").requireSuccess();
            }
            assertThat(podman.reservations(NETWORK)).as("no reservation left").isEmpty();
            assertThat(host.kernel().links()).extracting(l -> l.name()).as("no veth left")
                    .noneMatch(n -> n.startsWith("veth"));
            String ruleset = host.exec("nft", "list", "ruleset").requireSuccess().stdout();
            assertThat(ruleset).as("no rule of the container left").doesNotContain("10.89.31.2");
            assertThat(httpGet(client, HOST, 8080)).isEmpty();
            podman.podman("network", "rm", NETWORK).requireSuccess();
            assertThat(host.kernel().links()).extracting(l -> l.name()).containsExactlyInAnyOrder("lo", "up0");
            podman.podman("rmi", "jcni-busybox").requireSuccess();
        }
    }

    /** An HTTP GET through {@code address:port} from {@code from}; the whole answer, or "" if nothing answers. */
    static String httpGet(TestNetns from, InetAddress address, int port) {
        return WebProbe.get(from.path(), address, port, 3000);
    }

    /** The address a listener in the client sees when the container connects to it ({@code nc}). */
    InetAddress sourceSeenFromContainer(Podman podman) throws IOException {
        try (NetNs ns = NetNs.open(client.path());
                ServerSocket server = ns.call(() -> {
                    ServerSocket s = new ServerSocket();
                    s.bind(new InetSocketAddress(CLIENT, 7000));
                    return s;
                })) {
            server.setSoTimeout(10_000);
            // busybox nc waits for the other end to close: accept (and close) while podman exec runs
            CompletableFuture<InetAddress> seen = CompletableFuture.supplyAsync(new Accept(server));
            podman.podman("exec", "web", "/bin/sh", "-c", "echo hi | nc -w 2 " + IpText.format(CLIENT) + " 7000")
                    .requireSuccess();
            return seen.join();
        }
    }

    /** Accepts one connection and closes it: the address it came from. */
    record Accept(ServerSocket server) implements Supplier<InetAddress> {
        @Override
        public InetAddress get() {
            try (Socket accepted = server.accept()) {
                return accepted.getInetAddress();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
