package io.jcni.it.containerd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CriClient;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What containerd 1.6's go-cni hands the plugins, recorded by the Go trivial plugin at the end of the example network
 * (it declares every well-known capability and passes the previous result on): the facts jcni's plugins must accept.
 * go-cni's capability structs have no JSON tags, so the keys are Go's field names ({@code HostPort},
 * {@code IngressRate}, {@code Servers}); the CRI plugin sends the port mappings, the bandwidth (burst 2^32-1 bit), the
 * DNS configuration and the pod's annotations, never {@code ipRanges} (the pod CIDR reaches the plugins through the
 * rendered configuration instead). StopPodSandbox's DEL names the pod's namespace; RemovePodSandbox sends a second
 * DEL with {@code CNI_NETNS=""} (the namespace is gone) and no {@code prevResult} (the first DEL removed the cache
 * entry); ctr's DEL after its task is gone has {@code CNI_NETNS=""} too, with the cached result. Go's plugins run the
 * network, so the record is containerd's alone.
 */
class GoCniWireTest {
    private static final String RECORDER = "trivial-plugin";

    @TempDir
    Path tmp;

    @Test
    void goCniSendsCapabilitiesUnderGoFieldNamesAndAnEmptyNetnsAfterTheTask() throws Exception {
        Prerequisites.assumeGoTools();
        Path trivial = Locations.trivialPlugin();
        Path record = tmp.resolve("record.jsonl");
        String harness = Files.readString(Locations.containerdSupport().resolve("cni-conf-template.json"));
        String recorder = ",\n    {\"type\": \"" + RECORDER + "\", \"recordFile\": \"" + record + "\", "
                + "\"capabilities\": "
                + "{\"portMappings\": true, \"bandwidth\": true, \"ipRanges\": true, \"dns\": true, "
                + "\"io.kubernetes.cri.pod-annotations\": true}}\n  ]\n}";
        assertThat(harness).endsWith("\n  ]\n}\n");
        Path template = Files.writeString(tmp.resolve("template.json"),
                harness.substring(0, harness.length() - "\n  ]\n}\n".length()) + recorder + "\n");

        try (Node node = Node.start(Side.GO, tmp, "ctrwire",
                o -> o.withPlugins(List.of(trivial)).withTemplate(template))) {
            node.podCidr();
            CriClient cri = node.cri();
            String pod = cri.require("RunPodSandbox", "{\"config\": " + ContainerdCriTest.podConfig(node) + "}")
                    .path("podSandboxId").asText();
            String netns = Json.parse(cri.require("PodSandboxStatus", "{\"podSandboxId\": \"" + pod
                    + "\", \"verbose\": true}").at("/info/info").asText()).at("/runtimeSpec/linux/namespaces")
                    .valueStream().filter(n -> n.path("type").asText().equals("network")).findFirst().orElseThrow()
                    .path("path").asText();
            cri.require("StopPodSandbox", "{\"podSandboxId\": \"" + pod + "\"}");
            cri.require("RemovePodSandbox", "{\"podSandboxId\": \"" + pod + "\"}");

            CtrRun run = CtrRun.start(node, "web", tmp.resolve("ctr-run.log"));
            run.address();
            long pid = run.pid();
            run.kill();

            List<JsonNode> calls = new ArrayList<>();
            for (String line : Files.readAllLines(record)) {
                calls.add(Json.parse(line));
            }
            for (JsonNode call : calls) {
                System.out.println("go-cni -> plugin: " + call.path("command").asText() + " env "
                        + call.path("env") + " stdin " + call.path("stdin").asText());
            }
            assertThat(calls).extracting(c -> c.path("command").asText())
                    .containsExactly("ADD", "DEL", "DEL", "ADD", "DEL");

            JsonNode add = calls.get(0);
            JsonNode runtimeConfig = Json.parse(add.path("stdin").asText()).path("runtimeConfig");
            assertThat(runtimeConfig.path("portMappings")).isEqualTo(Json.parse("""
                    [{"HostPort": 18080, "ContainerPort": 80, "Protocol": "tcp", "HostIP": ""},
                     {"HostPort": 18081, "ContainerPort": 80, "Protocol": "tcp", "HostIP": "172.31.250.3"},
                     {"HostPort": 15353, "ContainerPort": 5353, "Protocol": "udp", "HostIP": "172.31.250.1"},
                     {"HostPort": 15354, "ContainerPort": 5354, "Protocol": "udp", "HostIP": ""}]"""));
            assertThat(runtimeConfig.path("bandwidth")).isEqualTo(Json.parse("""
                    {"IngressRate": 8000000, "IngressBurst": 4294967295,
                     "EgressRate": 8000000, "EgressBurst": 4294967295}"""));
            assertThat(runtimeConfig.path("dns")).isEqualTo(Json.parse("""
                    {"Servers": ["10.96.0.10"], "Searches": ["jcni.svc.cluster.local", "svc.cluster.local"],
                     "Options": ["ndots:5"]}"""));
            assertThat(runtimeConfig.path("io.kubernetes.cri.pod-annotations").path("kubernetes.io/ingress-bandwidth")
                    .asText()).isEqualTo("8M");
            assertThat(runtimeConfig.has("ipRanges")).as("containerd 1.6 never sends ipRanges").isFalse();
            assertThat(add.at("/env/CNI_NETNS").asText()).isEqualTo(netns);
            assertThat(add.at("/env/CNI_CONTAINERID").asText()).isEqualTo(pod);
            assertThat(add.at("/env/CNI_ARGS").asText().split(";")).contains("IgnoreUnknown=1",
                    "K8S_POD_NAMESPACE=jcni", "K8S_POD_NAME=web", "K8S_POD_INFRA_CONTAINER_ID=" + pod,
                    "K8S_POD_UID=jcni-uid-1");

            JsonNode stop = calls.get(1);
            assertThat(stop.at("/env/CNI_NETNS").asText()).as("StopPodSandbox: the pod's namespace still exists")
                    .isEqualTo(netns);
            assertThat(Json.parse(stop.path("stdin").asText()).path("runtimeConfig")).isEqualTo(runtimeConfig);

            JsonNode remove = calls.get(2);
            assertThat(remove.path("env").has("CNI_NETNS")).isTrue();
            assertThat(remove.at("/env/CNI_NETNS").asText()).as("RemovePodSandbox: DEL again, the namespace gone")
                    .isEmpty();
            JsonNode removeStdin = Json.parse(remove.path("stdin").asText());
            assertThat(removeStdin.has("prevResult")).as("no cached result after the first DEL").isFalse();
            assertThat(removeStdin.path("runtimeConfig")).isEqualTo(runtimeConfig);

            JsonNode ctrAdd = calls.get(3);
            assertThat(ctrAdd.at("/env/CNI_NETNS").asText()).isEqualTo("/proc/" + pid + "/ns/net");
            assertThat(ctrAdd.at("/env/CNI_CONTAINERID").asText()).isEqualTo("default-web");
            assertThat(ctrAdd.at("/env/CNI_PATH").asText()).as("Debian's ctr also searches /usr/lib/cni")
                    .isEqualTo("/opt/cni/bin:/usr/lib/cni");
            assertThat(Json.parse(ctrAdd.path("stdin").asText()).has("runtimeConfig")).as("ctr sends no capability")
                    .isFalse();
            JsonNode ctrDel = calls.get(4);
            assertThat(ctrDel.path("env").has("CNI_NETNS")).isTrue();
            assertThat(ctrDel.at("/env/CNI_NETNS").asText()).as("ctr's DEL after its task is gone").isEmpty();
            assertThat(Json.parse(ctrDel.path("stdin").asText()).has("prevResult")).as("from libcni's cache")
                    .isTrue();
        }
    }
}
