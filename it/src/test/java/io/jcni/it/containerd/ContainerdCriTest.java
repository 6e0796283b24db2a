package io.jcni.it.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Containerd;
import io.jcni.it.support.CriClient;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.TcpTransfer;
import io.jcni.it.support.Traffic;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * containerd's CRI plugin (Debian's containerd 1.6, as a kubelet drives it) starts and removes a pod on containerd's
 * example network: bridge ({@code isGateway}, {@code ipMasq}, host-local over the node's pod CIDR) then portmap then
 * bandwidth, rendered by containerd from {@code cni-conf-template.json} when the pod CIDR arrives through
 * UpdateRuntimeConfig. The pod has four host ports (TCP and UDP, with and without a host IP), a DNS configuration, and
 * the bandwidth annotations; a web server runs in it as a container of its own. Proven by reading back: the pod's
 * address (PodSandboxStatus and the pod's namespace), its resolv.conf, the web page from the node and through the
 * host ports from another namespace (and not through a host IP the mapping does not name), the shaped rate both ways
 * within 15 %, and after StopPodSandbox and RemovePodSandbox no veth, ifb, reservation, cache entry or rule left.
 * Once per {@link Side}: Go's plugins (the control), jcni's through their JVM launchers, jcni's through the service.
 */
class ContainerdCriTest {
    private static final String TAG = "ctr";
    /** 8 Mbit/s each way: the annotations' "8M", which containerd passes as IngressRate/EgressRate in bit/s. */
    private static final long RATE = 8_000_000;
    private static final double TOLERANCE = 0.15;
    private static final long MEASURED = 3L << 20;
    /** Left out after the bucket is empty (its refill while the transfer started, TCP settling). */
    private static final long SKIP = 512L << 10;

    /** The plugins the CRI plugin runs for a pod: the network's, and loopback for the pod's lo. */
    static final List<String> CRI_TYPES = List.of("loopback", "bridge", "portmap", "bandwidth");

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Side.class)
    void aPodWithHostPortsBandwidthAndDnsStartsServesAndLeavesNothing(Side side) throws Exception {
        try (Node node = Node.start(side, tmp, TAG, UnaryOperator.identity())) {
            CriClient cri = node.cri();
            JsonNode conflist = node.podCidr();
            assertThat(conflist.at("/plugins/0/ipam/ranges/0/0/subnet").asText()).isEqualTo(Node.POD_CIDR);
            assertThat(conflist.path("plugins").valueStream().map(p -> p.path("type").asText()))
                    .containsExactly("bridge", "portmap", "bandwidth");

            String pod = cri.require("RunPodSandbox", "{\"config\": " + podConfig(node) + "}").path("podSandboxId")
                    .asText();
            JsonNode status = cri.require("PodSandboxStatus",
                    "{\"podSandboxId\": \"" + pod + "\", \"verbose\": true}");
            String ip = status.at("/status/network/ip").asText();
            assertThat(IpPrefix.parse(Node.POD_CIDR, "pod CIDR").contains(IpText.parseAddress(ip, "pod ip")))
                    .as("the pod's address %s is in the pod CIDR", ip).isTrue();
            long pid = Json.parse(status.at("/info/info").asText()).path("pid").asLong();
            Path podNetns = Path.of("/proc", String.valueOf(pid), "ns", "net");
            assertThat(Node.addresses(podNetns, "eth0")).containsExactly(ip + "/16");
            assertThat(Files.readString(Path.of("/proc", String.valueOf(pid), "root", "etc", "resolv.conf")))
                    .contains("nameserver 10.96.0.10").contains("search jcni.svc.cluster.local svc.cluster.local")
                    .contains("options ndots:5");
            assertThat(node.reservations()).containsExactly(ip);
            assertPluginsRan(node, node.containerd.log(), "ADD", CRI_TYPES);

            String web = startWebServer(node, pod);
            InetAddress podIp = IpText.parseAddress(ip, "pod ip");
            Path nodeNetns = node.host.netns().path();
            Path clientNetns = node.client.path();
            assertThat(Node.awaitPage(nodeNetns, podIp, 80)).as("node -> pod").endsWith(Node.PAGE);
            // TCP 18080 -> 80 on every node address, TCP 18081 -> 80 on NODE_B only
            assertThat(Node.httpGet(clientNetns, Node.NODE_A, 18080)).as("client -> hostPort 18080")
                    .endsWith(Node.PAGE);
            assertThat(Node.httpGet(nodeNetns, Node.NODE_A, 18080)).as("node -> its own hostPort").endsWith(Node.PAGE);
            assertThat(Node.httpGet(clientNetns, Node.NODE_B, 18081)).as("client -> hostIP B:18081")
                    .endsWith(Node.PAGE);
            assertThat(Node.httpGet(clientNetns, Node.NODE_A, 18081)).as("18081 is bound to B only").isEmpty();
            // UDP 15353 -> 5353 on NODE_A only, UDP 15354 -> 5354 on every address (a listener of the test in the pod)
            assertThat(Traffic.udp(clientNetns, podNetns, Node.NODE_A, 15353, 5353).reached()).isTrue();
            assertThat(Traffic.udp(clientNetns, podNetns, Node.NODE_B, 15353, 5353).reached())
                    .as("15353 is bound to A only").isFalse();
            assertThat(Traffic.udp(clientNetns, podNetns, Node.NODE_B, 15354, 5354).reached()).isTrue();

            assertShaped(node, nodeNetns, podNetns, podIp);

            cri.require("StopContainer", "{\"containerId\": \"" + web + "\", \"timeout\": 0}");
            cri.require("RemoveContainer", "{\"containerId\": \"" + web + "\"}");
            cri.require("StopPodSandbox", "{\"podSandboxId\": \"" + pod + "\"}");
            assertThat(node.links("veth")).as("no host veth after StopPodSandbox").isEmpty();
            assertThat(node.links("bwp")).as("no ifb").isEmpty();
            assertThat(node.reservations()).as("no reservation").isEmpty();
            assertThat(node.cacheEntries()).as("no cache entry").isEmpty();
            String ruleset = node.ruleset();
            assertThat(ruleset).as("no rule of the pod").doesNotContain(ip).doesNotContain(pod);
            assertThat(ruleset).as("no port mapping").doesNotContain("18080").doesNotContain("15353");
            assertThat(Node.httpGet(clientNetns, Node.NODE_A, 18080)).isEmpty();
            assertPluginsRan(node, node.containerd.log(), "DEL", CRI_TYPES);
            // RemovePodSandbox sends the DELs again, without the pod's namespace (GoCniWireTest): they must succeed
            // and find nothing more to remove.
            cri.require("RemovePodSandbox", "{\"podSandboxId\": \"" + pod + "\"}");
            assertThat(cri.sandboxes()).isEmpty();
            assertThat(cri.containers()).isEmpty();
            assertThat(node.reservations()).isEmpty();
            assertThat(node.cacheEntries()).isEmpty();
            assertThat(node.ruleset()).doesNotContain(ip).doesNotContain(pod);
            assertThat(node.host.kernel().links()).extracting(IpLink::name).containsExactlyInAnyOrder("lo", "up0",
                    "cni0");
        }
    }

    /** The pod: metadata, DNS, four host ports, the bandwidth annotations, its cgroups under the harness's parent. */
    static String podConfig(Node node) {
        return """
                {"metadata": {"name": "web", "uid": "jcni-uid-1", "namespace": "jcni"},
                 "hostname": "web",
                 "dnsConfig": {"servers": ["10.96.0.10"], "searches": ["jcni.svc.cluster.local", "svc.cluster.local"],
                               "options": ["ndots:5"]},
                 "portMappings": [
                   {"protocol": "TCP", "containerPort": 80, "hostPort": 18080},
                   {"protocol": "TCP", "containerPort": 80, "hostPort": 18081, "hostIp": "%s"},
                   {"protocol": "UDP", "containerPort": 5353, "hostPort": 15353, "hostIp": "%s"},
                   {"protocol": "UDP", "containerPort": 5354, "hostPort": 15354}],
                 "annotations": {"kubernetes.io/ingress-bandwidth": "8M", "kubernetes.io/egress-bandwidth": "8M"},
                 "linux": {"cgroupParent": "%s"}}
                """.formatted(IpText.format(Node.NODE_B), IpText.format(Node.NODE_A), node.containerd.cgroupParent());
    }

    /** CreateContainer and StartContainer of busybox httpd on port 80 in the pod; its id. */
    static String startWebServer(Node node, String pod) {
        String container = node.cri().require("CreateContainer", """
                {"podSandboxId": "%s",
                 "config": {"metadata": {"name": "httpd"}, "image": {"image": "%s"},
                            "command": ["/bin/httpd", "-f", "-p", "80", "-h", "/www"]},
                 "sandboxConfig": %s}
                """.formatted(pod, Containerd.IMAGE, podConfig(node))).path("containerId").asText();
        node.cri().require("StartContainer", "{\"containerId\": \"" + container + "\"}");
        return container;
    }

    /**
     * How the plugins of this side ran {@code command}: jcni's say it in their {@code JCNI_DEBUG} line on stderr, which
     * the runtime passes on ({@code log}: containerd's log, or ctr's output) — exec'd in their JVM, or via the
     * service, whose own log has the call too; Go's print nothing of the kind.
     */
    static void assertPluginsRan(Node node, String log, String command, List<String> types) {
        if (!node.side.jcni()) {
            assertThat(log).doesNotContain(": " + command + " exec, pid").doesNotContain(" via service, pid");
            return;
        }
        for (String type : types) {
            assertThat(log).as("the runtime's log").contains(type + ": " + command + " " + node.side.skelMode()
                    + ", pid");
        }
        if (node.side == Side.SERVICE) {
            assertThat(log).doesNotContain(command + " exec, pid");
            for (String type : types) {
                assertThat(node.service.log()).contains("jcni serve: " + command + " " + type + " for");
            }
        } else {
            assertThat(log).doesNotContain(" via service, pid");
        }
    }

    /**
     * The pod's traffic both ways at the annotations' rate, ±15 %. containerd sets each burst to 2^32-1 bit, which
     * bandwidth turns into a token bucket of about 250 MB: the transfers run until the bucket is empty and measure
     * 3 MiB after that ({@link TcpTransfer#measureAfterBurst}).
     */
    static void assertShaped(Node node, Path nodeNetns, Path podNetns, InetAddress podIp) {
        String veth = node.links("veth").getFirst();
        String ifb = node.links("bwp").getFirst();
        assertThat(tbf(node, veth).path("rate").asLong() * 8).as("tbf on the host end").isEqualTo(RATE);
        assertThat(tbf(node, ifb).path("rate").asLong() * 8).as("tbf on the ifb").isEqualTo(RATE);
        TcpTransfer.Rate in = TcpTransfer.measureAfterBurst(nodeNetns, podNetns, podIp, MEASURED, SKIP, 120);
        TcpTransfer.Rate out = TcpTransfer.measureAfterBurst(podNetns, nodeNetns, InetAddress.ofLiteral(Node.GATEWAY),
                MEASURED, SKIP, 120);
        System.out.println(node.side + ": node -> pod " + in + "; pod -> node " + out);
        assertThat(in.bitsPerSecond()).as("ingress %s", in).isBetween(RATE * (1 - TOLERANCE), RATE * (1 + TOLERANCE));
        assertThat(out.bitsPerSecond()).as("egress %s", out).isBetween(RATE * (1 - TOLERANCE),
                RATE * (1 + TOLERANCE));
    }

    static JsonNode tbf(Node node, String dev) {
        JsonNode qdiscs = Json.parse(node.host.exec("tc", "-j", "qdisc", "show", "dev", dev).requireSuccess().stdout());
        return qdiscs.valueStream().filter(q -> q.path("kind").asText().equals("tbf")).findFirst()
                .orElseThrow(() -> new AssertionError("no tbf on " + dev + ": " + qdiscs)).path("options");
    }
}
