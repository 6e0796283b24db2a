package io.jcni.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.IpLink;
import io.jcni.it.support.Podman;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.WebProbe;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A node for podman on installed plugins: a test host with a client namespace on its network (172.31.252.0/24), and
 * the scenario every installation must serve: podman's own network ({@code podman network create}: bridge with ipMasq,
 * portmap, firewall, tuning), a container from an image built from busybox-static with {@code -p 8080:80}, its page
 * fetched from the client through the published port, and after {@code podman rm} and {@code podman network rm} no
 * reservation, veth or rule of it left on the node. As {@code PodmanTest} does with the build's {@code dist/cni/bin};
 * here the plugins are those an installation put in {@code /opt/cni/bin}, seen by podman in the installation's mount
 * namespace.
 */
final class PodmanNode implements AutoCloseable {
    static final String NETWORK = "jcni-installed";
    static final InetAddress HOST = InetAddress.ofLiteral("172.31.252.1");
    static final String PAGE = "hello from an installed jcni\n";

    final TestHost host;
    final TestNetns client;

    PodmanNode(String tag) {
        host = TestHost.create(tag);
        client = host.linkedClient("172.31.252.1/24", "172.31.252.2/24");
    }

    /**
     * Runs the scenario with podman in {@code mountNamespace} searching {@code /opt/cni/bin}, the plugins without a
     * plugin service (each runs the installation's JVM launcher).
     */
    void publishAPortAndCleanUp(Path dir, Path mountNamespace) throws IOException {
        Path tar = image(dir.resolve("image"));
        try (Podman podman = Podman.start(host, dir.resolve("podman"), List.of(Path.of("/opt/cni/bin")),
                mountNamespace, Map.of("JCNI_SERVICE_SOCKET", "off"))) {
            podman.podman("import", tar.toString(), "jcni-busybox").requireSuccess();
            podman.podman("network", "create", "--subnet", "10.89.32.0/24", NETWORK).requireSuccess();
            podman.podman("run", "-d", "--name", "web", "--network", NETWORK, "-p", "8080:80",
                    "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=4096:4096", "jcni-busybox",
                    "/bin/httpd", "-f", "-p", "80", "-h", "/www").requireSuccess();
            try {
                assertThat(httpGet(client, HOST, 8080)).as("the page, through the published port").endsWith(PAGE);
                assertThat(podman.reservations(NETWORK)).containsExactly("10.89.32.2");
                assertThat(host.kernel().links()).extracting(IpLink::name).anyMatch(n -> n.startsWith("veth"));
            } finally {
                podman.podman("rm", "-f", "-t", "0", "web").requireSuccess();
            }
            assertThat(podman.reservations(NETWORK)).as("no reservation left").isEmpty();
            assertThat(host.kernel().links()).extracting(IpLink::name).noneMatch(n -> n.startsWith("veth"));
            assertThat(host.exec("nft", "list", "ruleset").requireSuccess().stdout()).doesNotContain("10.89.32.2");
            assertThat(httpGet(client, HOST, 8080)).isEmpty();
            podman.podman("network", "rm", NETWORK).requireSuccess();
            podman.podman("rmi", "jcni-busybox").requireSuccess();
        }
        assertThat(host.kernel().links()).extracting(IpLink::name).containsExactlyInAnyOrder("lo", "up0");
    }

    /** A root file system of busybox-static with httpd and the page, as a tar podman imports. */
    static Path image(Path dir) throws IOException {
        return WebProbe.image(dir, PAGE, List.of("sh", "httpd"));
    }

    /** An HTTP GET through {@code address:port} from {@code from}: the whole answer, or "" if nothing answers. */
    static String httpGet(TestNetns from, InetAddress address, int port) {
        return WebProbe.get(from.path(), address, port);
    }

    @Override
    public void close() {
        host.close();
    }
}
