package io.jcni.it.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.GoKeySpellings;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.Json;
import io.jcni.it.support.KernelState;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * containerd's network, the way go-cni drives it, on Go's plugins and on jcni's: Go libcni runs bridge (isGateway,
 * host-local) → tuning → bandwidth → portmap with go-cni's capability arguments, whose keys are Go field names
 * ({@code {"HostPort":18080,"ContainerPort":8080,"Protocol":"tcp","HostIP":""}}, {@code IngressRate} ...: go-cni's
 * types have no JSON tags), and with the configuration's keys respelled as Go's encoding/json still matches them
 * ({@link GoKeySpellings}, seeded; spelling 0 is the documented one with the lower-case capability keys cnitool users
 * write). Both sides get the same stdins (libcni builds them); what they leave must read the same: the result, the
 * container's interface (address, MTU, MAC, promiscuity, a sysctl), the bridge's gateway address, the tc layout
 * bandwidth makes, the ports portmap publishes (Go's iptables rules and jcni's nftables rules, both read as
 * {@code nft} prints them), and after DEL, nothing of the attachment on the host.
 */
class GoKeyMatchingChainTest {
    private static final String TAG = "keyc";
    private static final Set<String> MAP_KEYS = Set.of("capabilities", "sysctl");
    private static final String MAC = "02:42:0a:e7:14:99";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;

    @BeforeEach
    void setUp() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeReferencePlugins("bridge", "host-local", "tuning", "bandwidth", "portmap");
        Prerequisites.assumeDistPlugins("bridge", "host-local", "tuning", "bandwidth", "portmap");
        Prerequisites.assumeCommand("nft");
        Prerequisites.assumeCommand("tc");
        host = TestHost.create(TAG);
    }

    private String conflist(String bridge, int seed) {
        String plugins = """
            [{"type":"bridge","bridge":"BRIDGE","isGateway":true,"mtu":1400,"hairpinMode":true,\
            "ipam":{"type":"host-local","dataDir":"IPAM","ranges":[[{"subnet":"10.231.20.0/24",\
            "gateway":"10.231.20.1"}]],"routes":[{"dst":"0.0.0.0/0"}]}},\
            {"type":"tuning","dataDir":"TUNING","mtu":1380,"promisc":true,"mac":"MAC",\
            "sysctl":{"net.ipv4.conf.eth0.arp_filter":"1"}},\
            {"type":"bandwidth","capabilities":{"bandwidth":true}},\
            {"type":"portmap","snat":true,"capabilities":{"portMappings":true}}]"""
                .replace("BRIDGE", bridge).replace("IPAM", tmp.resolve("ipam").toString())
                .replace("TUNING", tmp.resolve("tuning").toString()).replace("MAC", MAC);
        JsonNode list = Json.parse(plugins);
        if (seed > 1) {
            Random random = new Random(seed);
            com.fasterxml.jackson.databind.node.ArrayNode respelled = Json.object().arrayNode();
            for (JsonNode plugin : list) {
                ObjectNode spelled = GoKeySpellings.respell(plugin, MAP_KEYS, random);
                respelled.add(spelled);
            }
            list = respelled;
        }
        ObjectNode conf = Json.object();
        conf.put("cniVersion", "1.0.0");
        conf.put("name", "jcni-keys-chain");
        conf.set("plugins", list);
        return Json.write(conf);
    }

    /** The capability arguments: cnitool's documented keys (spelling 0), go-cni's field names, or respelled. */
    private static String capabilityArgs(int seed) {
        String documented = """
            {"portMappings":[{"hostPort":18080,"containerPort":8080,"protocol":"tcp","hostIP":""},\
            {"hostPort":18053,"containerPort":53,"protocol":"udp","hostIP":""}],\
            "bandwidth":{"ingressRate":8000000,"ingressBurst":80000,"egressRate":4000000,"egressBurst":40000}}""";
        if (seed == 0) {
            return documented;
        }
        if (seed == 1) {
            return """
                {"portMappings":[{"HostPort":18080,"ContainerPort":8080,"Protocol":"tcp","HostIP":""},\
                {"HostPort":18053,"ContainerPort":53,"Protocol":"udp","HostIP":""}],\
                "bandwidth":{"IngressRate":8000000,"IngressBurst":80000,"EgressRate":4000000,"EgressBurst":40000}}""";
        }
        // libcni looks the capability names up in a map: they stay; what is inside them is decoded into structs.
        Random random = new Random(seed * 31L);
        ObjectNode args = (ObjectNode) Json.parse(documented);
        ObjectNode spelled = Json.object();
        for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> capability = it.next();
            spelled.set(capability.getKey(), GoKeySpellings.respellValue(capability.getValue(), Set.of(), random));
        }
        return Json.write(spelled);
    }

    @ParameterizedTest(name = "spelling {0}")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void containerdsNetworkReadsTheSameOnGosPluginsAndJcnis(int seed) throws Exception {
        String bridge = Names.link(TAG);
        Path conf = Files.writeString(tmp.resolve("chain.conflist"), conflist(bridge, seed));
        String capabilityArgs = capabilityArgs(seed);
        List<String> observed = new ArrayList<>();
        for (boolean go : new boolean[] {true, false}) {
            deleteTree(tmp.resolve("ipam")); // the same stdin, and the same empty data dir: the same address
            TestNetns netns = host.container();
            LibcniDriver driver = host.libcni(List.of(go ? Locations.referencePlugins() : Locations.distCniBin()),
                    tmp.resolve(go ? "cache-go" : "cache-jcni"));
            Attachment attachment = Attachment.of("keys-" + seed, "eth0").withCapabilityArgs(capabilityArgs);
            DriverOutcome added = driver.add(conf, netns.path(), attachment);
            assertThat(added.succeeded()).as("%s ADD of %s with %s: %s", go ? "Go" : "jcni",
                    Files.readString(conf), capabilityArgs, added.process().describe()).isTrue();
            JsonNode result = added.answer();
            StringBuilder s = new StringBuilder(normalized(result, netns)).append('\n');
            s.append(containerState(netns)).append(hostState(bridge, result));
            DriverOutcome deleted = driver.del(conf, netns.path(), attachment);
            assertThat(deleted.succeeded()).as("%s DEL: %s", go ? "Go" : "jcni", deleted.process().describe())
                    .isTrue();
            s.append("after DEL: ").append(leftovers(bridge));
            observed.add(s.toString());
            host.exec("ip", "link", "del", bridge).requireSuccess();
        }
        assertThat(observed.get(1)).as("jcni (below) against Go (above), %s with %s", Files.readString(conf),
                capabilityArgs).isEqualTo(observed.get(0));
        assertThat(observed.get(0)).as("the ports and rate were applied").contains("tcp 18080 -> 10.231.20.2:8080")
                .contains("udp 18053 -> 10.231.20.2:53").contains("\"kind\":\"tbf\"").contains("mtu 1380");
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        if (Files.exists(dir)) {
            try (var files = Files.walk(dir)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The result with what is random by nature replaced (MACs of veths, veth and ifb names, the netns path). */
    private static String normalized(JsonNode result, TestNetns netns) {
        ObjectNode copy = result.deepCopy();
        for (JsonNode i : copy.path("interfaces")) {
            ObjectNode iface = (ObjectNode) i;
            String name = iface.path("name").asText();
            if (!name.equals("eth0") && iface.has("mac")) {
                iface.put("mac", "MAC");
            }
            if (name.matches("veth[0-9a-f]{8}")) {
                iface.put("name", "VETH");
            }
            if (name.matches("bwp[0-9a-f]+")) {
                iface.put("name", "IFB");
            }
            if (iface.path("sandbox").asText().equals(netns.path().toString())) {
                iface.put("sandbox", "NETNS");
            }
        }
        if (copy.path("dns").isObject() && copy.path("dns").isEmpty()) {
            copy.remove("dns"); // Go 1.1.1 prints an empty dns; jcni, as later Go releases, does not
        }
        return copy.toString();
    }

    private static String containerState(TestNetns netns) {
        KernelState inside = netns.kernel();
        StringBuilder s = new StringBuilder();
        IpLink eth0 = inside.link("eth0").orElseThrow();
        s.append("eth0 mtu ").append(eth0.mtu()).append(" mac ").append(eth0.mac())
                .append(" promisc ").append(netns.exec("ip", "-d", "link", "show", "eth0").requireSuccess().stdout()
                        .contains("PROMISC")).append('\n');
        inside.addresses("eth0").stream().filter(a -> !a.scope().equals("link")).map(IpAddress::cidr).sorted()
                .forEach(a -> s.append("eth0 addr ").append(a).append('\n'));
        inside.routes().stream().map(Object::toString).sorted().forEach(r -> s.append("route ").append(r)
                .append('\n'));
        s.append("arp_filter=").append(inside.sysctl("net/ipv4/conf/eth0/arp_filter")).append('\n');
        return s.toString();
    }

    private String hostState(String bridge, JsonNode result) {
        KernelState kernel = host.kernel();
        StringBuilder s = new StringBuilder();
        s.append("bridge mtu ").append(kernel.link(bridge).orElseThrow().mtu()).append('\n');
        kernel.addresses(bridge).stream().filter(a -> !a.scope().equals("link")).map(IpAddress::cidr).sorted()
                .forEach(a -> s.append("bridge addr ").append(a).append('\n'));
        String veth = null;
        String ifb = null;
        for (JsonNode i : result.path("interfaces")) {
            String name = i.path("name").asText();
            veth = name.matches("veth[0-9a-f]{8}") ? name : veth;
            ifb = name.matches("bwp[0-9a-f]+") ? name : ifb;
        }
        for (String dev : new String[] {veth, ifb}) {
            if (dev != null) {
                s.append("qdiscs ").append(dev.equals(veth) ? "VETH " : "IFB ")
                        .append(Json.parse(host.exec("tc", "-j", "-d", "qdisc", "show", "dev", dev)
                                .requireSuccess().stdout()).toString().replace(dev, "DEV")).append('\n');
            }
        }
        s.append("published ").append(publishedPorts()).append('\n');
        return s.toString();
    }

    /**
     * The DNAT rules of the host as {@code nft} prints them, both Go's (iptables-nft) and jcni's (nftables), each as
     * {@code tcp 18080 -> 10.231.20.2:8080}.
     */
    private Set<String> publishedPorts() {
        Pattern dnat = Pattern.compile("(tcp|udp|sctp) dport (\\d+)\\b.*?dnat (?:ip )?to ([0-9.]+:\\d+)");
        Set<String> ports = new TreeSet<>();
        for (String line : host.exec("nft", "list", "ruleset").requireSuccess().stdout().lines().toList()) {
            Matcher m = dnat.matcher(line);
            if (m.find()) {
                ports.add(m.group(1) + " " + m.group(2) + " -> " + m.group(3));
            }
        }
        return ports;
    }

    /** What is left on the host after DEL: links other than lo and the bridge, DNAT rules, reservations. */
    private String leftovers(String bridge) throws Exception {
        List<String> links = host.kernel().links().stream().map(IpLink::name)
                .filter(n -> !n.equals("lo") && !n.equals(bridge)).sorted().toList();
        List<String> reserved = new ArrayList<>();
        Path network = tmp.resolve("ipam").resolve("jcni-keys-chain");
        if (Files.isDirectory(network)) {
            try (var files = Files.list(network)) {
                files.map(p -> p.getFileName().toString()).filter(n -> n.matches("[0-9.]+")).sorted()
                        .forEach(reserved::add);
            }
        }
        return "links " + links + " published " + publishedPorts() + " reserved " + reserved;
    }
}
