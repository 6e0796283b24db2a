package io.jcni.it.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Containerd;
import io.jcni.it.support.CriClient;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.Processes;
import io.jcni.spec.IpText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * containerd's leaks, each reproduced and then cleaned up by {@code jcni gc --stale} run as its systemd timer runs it
 * ({@code dist/systemd/jcni-gc-stale.service}'s command and environment, in containerd's node), once per {@link Side}:
 * <ul>
 * <li>containerd killed with SIGKILL between RunPodSandbox and StopPodSandbox, the pod's processes gone and its
 * namespace file removed: no DEL ever comes. Its reservation, port mapping, masquerade, ifb and cache entries (its
 * network's and containerd's loopback's) stay until gc --stale, which removes them and leaves the other pod, still
 * running, whole and serving through its host port.</li>
 * <li>{@code ctr run -d --cni}, then {@code ctr task kill} and {@code ctr task rm}: detached, ctr never sends DEL. The
 * cache entry (Go libcni 1.1.2's: no {@code netns}, the result's sandbox is {@code /proc/PID/ns/net}) is judged by
 * that path: gone once the task is; a running container's is kept (pids are reused) and keeps serving.</li>
 * </ul>
 * Go's bridge leaves its masquerade rule at a DEL without namespace (containernetworking/plugins#810): on Go's side
 * that rule is the one thing allowed to stay.
 */
class ContainerdLeaksTest {
    private static final String TAG = "ctrlk";
    static final String CACHE_NETWORK = Containerd.NETWORK;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @EnumSource(Side.class)
    void containerdKilledBetweenRunAndStopLeavesNothingOnceGcStaleRan(Side side) throws Exception {
        try (Node node = Node.start(side, tmp, TAG, UnaryOperator.identity())) {
            node.podCidr();
            CriClient cri = node.cri();
            String podA = cri.require("RunPodSandbox", "{\"config\": " + podConfig(node, "a", 18081) + "}")
                    .path("podSandboxId").asText();
            String podB = cri.require("RunPodSandbox", "{\"config\": " + podConfig(node, "b", 18080) + "}")
                    .path("podSandboxId").asText();
            startWebServer(node, podB, podConfig(node, "b", 18080));
            JsonNode statusA = status(cri, podA);
            JsonNode statusB = status(cri, podB);
            String ipA = statusA.at("/status/network/ip").asText();
            String ipB = statusB.at("/status/network/ip").asText();
            JsonNode infoA = Json.parse(statusA.at("/info/info").asText());
            String netnsA = networkNamespace(infoA);
            String netnsB = networkNamespace(Json.parse(statusB.at("/info/info").asText()));
            assertThat(Node.awaitPage(node.client.path(), Node.NODE_A, 18080)).endsWith(Node.PAGE);
            assertThat(node.reservations()).containsExactlyInAnyOrder(ipA, ipB);
            assertThat(node.links("bwp")).hasSize(2);

            node.containerd.kill();
            ProcessHandle pause = ProcessHandle.of(infoA.path("pid").asLong()).orElseThrow();
            pause.destroyForcibly();
            pause.onExit().get();
            // containerd's own removal of a sandbox's namespace, which its restart would do for a pod it finds dead.
            Processes.run(node.containerd.inNode(List.of("sh", "-c", "umount " + netnsA + " && rm " + netnsA)),
                    Map.of(), null, Duration.ofSeconds(30)).requireSuccess();
            awaitLinks(node, "veth", 1);
            assertThat(node.reservations()).as("the leak: no DEL came").containsExactlyInAnyOrder(ipA, ipB);
            assertThat(node.cacheEntries()).as("the leak").anyMatch(e -> e.contains(podA));

            List<String> report = gcStaleAsItsTimerRunsIt(node);

            assertThat(report).contains("removed " + CACHE_NETWORK + " " + podA + "/eth0 netns -: sandbox " + netnsA
                    + ": no such file");
            assertThat(report).contains("kept " + CACHE_NETWORK + " " + podB + "/eth0 netns -: sandbox " + netnsB
                    + ": a namespace");
            assertThat(report).as("containerd's loopback attachment of the pod too")
                    .anyMatch(l -> l.startsWith("removed ") && l.contains(" " + podA + "/lo "))
                    .anyMatch(l -> l.startsWith("kept ") && l.contains(" " + podB + "/lo "));
            assertThat(report).noneMatch(l -> l.startsWith("failed"));
            assertThat(node.reservations()).containsExactly(ipB);
            assertThat(node.cacheEntries()).noneMatch(e -> e.contains(podA)).anyMatch(e -> e.contains(podB));
            assertThat(node.links("bwp")).hasSize(1);
            assertThat(node.links("veth")).hasSize(1);
            String ruleset = node.ruleset();
            assertThat(ruleset).as("A's port mapping").doesNotContain("18081").contains("18080");
            assertRulesOf(side, ruleset, ipA);
            assertThat(Node.httpGet(node.client.path(), Node.NODE_A, 18080)).as("B serves through its host port")
                    .endsWith(Node.PAGE);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Side.class)
    void ctrRunDetachedThenKilledAndRemovedLeavesNothingOnceGcStaleRan(Side side) throws Exception {
        try (Node node = Node.start(side, tmp, TAG, UnaryOperator.identity())) {
            node.podCidr();
            runDetached(node, "c1");
            runDetached(node, "c2");
            long pid1 = taskPid(node, "c1");
            long pid2 = taskPid(node, "c2");
            String ip1 = cachedIp(node, "c1");
            String ip2 = cachedIp(node, "c2");
            assertThat(Node.awaitPage(node.host.netns().path(), IpText.parseAddress(ip2, "c2"), 80))
                    .endsWith(Node.PAGE);
            assertThat(node.reservations()).containsExactlyInAnyOrder(ip1, ip2);

            killAndRemove(node, "c1");
            awaitLinks(node, "veth", 1);
            assertThat(node.reservations()).as("the leak: no DEL came").containsExactlyInAnyOrder(ip1, ip2);

            List<String> report = gcStaleAsItsTimerRunsIt(node);

            assertThat(report).contains("removed " + CACHE_NETWORK + " default-c1/eth0 netns -: sandbox /proc/" + pid1
                    + "/ns/net: no such process any more");
            assertThat(report).contains("kept " + CACHE_NETWORK + " default-c2/eth0 netns -: sandbox /proc/" + pid2
                    + "/ns/net: a process's namespace path, and pids are reused: it may name another namespace now");
            assertThat(node.reservations()).containsExactly(ip2);
            assertThat(node.cacheEntries()).containsExactly(CACHE_NETWORK + "-default-c2-eth0");
            assertRulesOf(side, node.ruleset(), ip1);
            assertThat(Node.awaitPage(node.host.netns().path(), IpText.parseAddress(ip2, "c2"), 80))
                    .as("c2 still serves").endsWith(Node.PAGE);

            killAndRemove(node, "c2");
            awaitLinks(node, "veth", 0);
            assertThat(gcStaleAsItsTimerRunsIt(node)).contains("removed " + CACHE_NETWORK + " default-c2/eth0 netns -:"
                    + " sandbox /proc/" + pid2 + "/ns/net: no such process any more");
            assertThat(node.reservations()).isEmpty();
            assertThat(node.cacheEntries()).isEmpty();
            assertRulesOf(side, node.ruleset(), ip2);
        }
    }

    // ------------------------------------------------------------------------------------------ helpers

    /**
     * {@code dist/systemd/jcni-gc-stale.service}'s {@code ExecStart} with its {@code Environment}, in containerd's node
     * (where {@code /etc/cni/net.d}, {@code /opt/cni/bin} and {@code /var/lib/cni} are the node's), plus the side's
     * environment (the service's socket). Its output's lines; it must exit 0.
     */
    static List<String> gcStaleAsItsTimerRunsIt(Node node) throws Exception {
        List<String> unit = Files.readAllLines(Locations.dist().resolve("systemd/jcni-gc-stale.service"));
        String execStart = unit.stream().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow()
                .substring("ExecStart=".length());
        Map<String, String> env = new HashMap<>(node.env);
        for (String line : unit) {
            if (line.startsWith("Environment=")) {
                for (String pair : line.substring("Environment=".length()).split(" ")) {
                    env.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
                }
            }
        }
        assertThat(env).containsEntry("CNI_PATH", "/opt/cni/bin").containsEntry("NETCONFPATH", "/etc/cni/net.d");
        ProcessResult gc = Processes.run(node.containerd.inNode(List.of(execStart.split(" "))), env, null,
                Duration.ofMinutes(5));
        assertThat(gc.exitCode()).as(gc.describe()).isZero();
        System.out.println(node.side + ": gc --stale\n" + gc.stdout());
        return gc.stdout().lines().toList();
    }

    /** Nothing of the attachment with {@code ip} in the ruleset; on Go's side, but its masquerade (plugins#810). */
    static void assertRulesOf(Side side, String ruleset, String ip) {
        List<String> lines = ruleset.lines().filter(l -> l.contains(" " + ip + " ") || l.contains(" " + ip + ":")
                || l.contains(ip + "/")).toList();
        if (side.jcni()) {
            assertThat(lines).as("rules of " + ip).isEmpty();
        } else {
            assertThat(lines).as("rules of " + ip + " but Go's masquerade")
                    .allMatch(l -> l.contains("ip saddr " + ip + " ") && l.contains("jump CNI-"));
        }
    }

    static JsonNode status(CriClient cri, String pod) {
        return cri.require("PodSandboxStatus", "{\"podSandboxId\": \"" + pod + "\", \"verbose\": true}");
    }

    /** The sandbox's network namespace path, from the runtime spec in its verbose status. */
    static String networkNamespace(JsonNode info) {
        for (JsonNode ns : info.at("/runtimeSpec/linux/namespaces")) {
            if (ns.path("type").asText().equals("network")) {
                return ns.path("path").asText();
            }
        }
        throw new AssertionError("no network namespace in " + info);
    }

    static String podConfig(Node node, String name, int hostPort) {
        return """
                {"metadata": {"name": "%1$s", "uid": "jcni-uid-%1$s", "namespace": "jcni"},
                 "hostname": "%1$s",
                 "portMappings": [{"protocol": "TCP", "containerPort": 80, "hostPort": %2$d}],
                 "annotations": {"kubernetes.io/ingress-bandwidth": "8M", "kubernetes.io/egress-bandwidth": "8M"},
                 "linux": {"cgroupParent": "%3$s"}}
                """.formatted(name, hostPort, node.containerd.cgroupParent());
    }

    static void startWebServer(Node node, String pod, String config) {
        String container = node.cri().require("CreateContainer", """
                {"podSandboxId": "%s",
                 "config": {"metadata": {"name": "httpd"}, "image": {"image": "%s"},
                            "command": ["/bin/httpd", "-f", "-p", "80", "-h", "/www"]},
                 "sandboxConfig": %s}
                """.formatted(pod, Containerd.IMAGE, config)).path("containerId").asText();
        node.cri().require("StartContainer", "{\"containerId\": \"" + container + "\"}");
    }

    static void awaitLinks(Node node, String prefix, int count) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (node.links(prefix).size() != count && System.nanoTime() < deadline) {
            Node.sleep(50);
        }
        assertThat(node.links(prefix)).hasSize(count);
    }

    /** {@code ctr run -d --cni}: ctr sets up the network, starts the task and exits without waiting for it. */
    static void runDetached(Node node, String name) {
        List<String> args = new ArrayList<>(List.of("-n", "default", "run", "-d", "--cni", "--cgroup",
                node.containerd.cgroupParent() + "/" + name, Containerd.IMAGE, name, "/bin/httpd", "-f", "-p", "80",
                "-h", "/www"));
        ProcessResult run = Processes.run(node.containerd.inNode(ctr(node, args)), node.env, null,
                Duration.ofSeconds(120));
        assertThat(run.exitCode()).as(run.describe()).isZero();
    }

    static List<String> ctr(Node node, List<String> args) {
        List<String> command = new ArrayList<>(List.of("ctr", "--address", node.containerd.socket().toString()));
        command.addAll(args);
        return command;
    }

    static long taskPid(Node node, String name) {
        for (String line : node.containerd.ctr("-n", "default", "task", "ls").requireSuccess().stdout().lines()
                .toList()) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 3 && f[0].equals(name) && f[2].equals("RUNNING")) {
                return Long.parseLong(f[1]);
            }
        }
        throw new AssertionError("no running task " + name);
    }

    /** The address ctr's go-cni cached for container {@code name}. */
    static String cachedIp(Node node, String name) {
        JsonNode entry = Json.read(node.containerd.cniState().resolve("results/" + CACHE_NETWORK + "-default-" + name
                + "-eth0"));
        String address = entry.at("/result/ips/0/address").asText();
        return address.substring(0, address.indexOf('/'));
    }

    /** {@code ctr task kill -s SIGKILL}, then {@code ctr task rm} and {@code ctr container rm}: no DEL comes. */
    static void killAndRemove(Node node, String name) {
        node.containerd.ctr("-n", "default", "task", "kill", "-s", "SIGKILL", name).requireSuccess();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            ProcessResult rm = node.containerd.ctr("-n", "default", "task", "rm", name);
            if (rm.succeeded()) {
                break;
            }
            assertThat(System.nanoTime()).as(rm.describe()).isLessThan(deadline);
            Node.sleep(100);
        }
        node.containerd.ctr("-n", "default", "container", "rm", name).requireSuccess();
    }
}
