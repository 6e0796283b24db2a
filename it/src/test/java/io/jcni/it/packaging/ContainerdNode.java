package io.jcni.it.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Containerd;
import io.jcni.it.support.CriClient;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.it.support.WebProbe;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.Map;

/**
 * A node for containerd on installed plugins: a test host with a client namespace on its network (172.31.253.0/24),
 * and the scenario every installation must serve for a Kubernetes node: containerd's CRI plugin, given a pod CIDR,
 * renders its example network (bridge with isGateway and ipMasq, host-local, portmap, bandwidth) and runs it with
 * loopback for a pod with a hostPort; the pod's web page is fetched from the client through the hostPort; after
 * StopPodSandbox and RemovePodSandbox no reservation, veth or rule of the pod is left. As {@code ContainerdCriTest}
 * does with the build's {@code dist/cni/bin}; here containerd runs in the installation's mount namespace and execs
 * what the installation put in {@code /opt/cni/bin} (Debian's Go plugins in {@code /usr/lib/cni} are hidden from it),
 * through their JVM launchers (no plugin service).
 */
final class ContainerdNode implements AutoCloseable {
    static final InetAddress HOST = InetAddress.ofLiteral("172.31.253.1");
    static final String POD_CIDR = "10.88.0.0/16";
    /** What the harness image's web server answers with. */
    static final String PAGE = "hello from a jcni containerd test\n";

    final TestHost host;
    final TestNetns client;

    ContainerdNode(String tag) {
        host = TestHost.create(tag);
        client = host.linkedClient("172.31.253.1/24", "172.31.253.2/24");
    }

    /** Runs the scenario with containerd in {@code mountNamespace}, its files under {@code dir}. */
    void runAPodWithAHostPortAndCleanUp(Path dir, Path mountNamespace) throws Exception {
        try (Containerd containerd = Containerd.start(host, dir.resolve("containerd"),
                Containerd.Options.installedIn(mountNamespace).withEnv(Map.of("JCNI_SERVICE_SOCKET", "off",
                        "JCNI_DEBUG", "1")))) {
            CriClient cri = containerd.cri();
            cri.require("UpdateRuntimeConfig",
                    "{\"runtimeConfig\": {\"networkConfig\": {\"podCidr\": \"" + POD_CIDR + "\"}}}");
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!cri.networkReady()) {
                assertThat(System.nanoTime()).as("containerd's network ready:\n%s", containerd.log())
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
            String config = """
                    {"metadata": {"name": "web", "uid": "jcni-installed-1", "namespace": "jcni"},
                     "hostname": "web",
                     "portMappings": [{"protocol": "TCP", "containerPort": 80, "hostPort": 18080}],
                     "linux": {"cgroupParent": "%s"}}
                    """.formatted(containerd.cgroupParent());
            String pod = cri.require("RunPodSandbox", "{\"config\": " + config + "}").path("podSandboxId").asText();
            JsonNode status = cri.require("PodSandboxStatus", "{\"podSandboxId\": \"" + pod + "\"}");
            String ip = status.at("/status/network/ip").asText();
            assertThat(ip).as("the pod's address").startsWith("10.88.");
            assertThat(reservations(containerd)).containsExactly(ip);
            // The installation's plugins ran, in their JVM (JCNI_DEBUG's line on stderr, which containerd logs).
            for (String type : new String[] {"loopback", "bridge", "portmap", "bandwidth"}) {
                assertThat(containerd.log()).contains(type + ": ADD exec, pid");
            }

            String web = cri.require("CreateContainer", """
                    {"podSandboxId": "%s",
                     "config": {"metadata": {"name": "httpd"}, "image": {"image": "%s"},
                                "command": ["/bin/httpd", "-f", "-p", "80", "-h", "/www"]},
                     "sandboxConfig": %s}
                    """.formatted(pod, Containerd.IMAGE, config)).path("containerId").asText();
            cri.require("StartContainer", "{\"containerId\": \"" + web + "\"}");
            String page = WebProbe.awaitPage(client.path(), HOST, 18080, PAGE);
            assertThat(page).as("the pod's page, from the client through hostPort 18080").endsWith(PAGE);

            cri.require("StopContainer", "{\"containerId\": \"" + web + "\", \"timeout\": 0}");
            cri.require("RemoveContainer", "{\"containerId\": \"" + web + "\"}");
            cri.require("StopPodSandbox", "{\"podSandboxId\": \"" + pod + "\"}");
            cri.require("RemovePodSandbox", "{\"podSandboxId\": \"" + pod + "\"}");
            assertThat(cri.sandboxes()).isEmpty();
            assertThat(reservations(containerd)).as("no reservation left").isEmpty();
            String ruleset = host.exec("nft", "list", "ruleset").requireSuccess().stdout();
            assertThat(ruleset).as("no rule of the pod").doesNotContain(ip).doesNotContain("18080");
            assertThat(PodmanNode.httpGet(client, HOST, 18080)).isEmpty();
            assertThat(host.kernel().links()).extracting(IpLink::name).containsExactlyInAnyOrder("lo", "up0",
                    "cni0");
            for (String type : new String[] {"loopback", "bridge", "portmap", "bandwidth"}) {
                assertThat(containerd.log()).contains(type + ": DEL exec, pid");
            }
        }
    }

    private static java.util.List<String> reservations(Containerd containerd) {
        return HostLocalFiles.reservations(containerd.cniState().resolve("networks"), Containerd.NETWORK);
    }

    @Override
    public void close() {
        host.close();
    }
}
