package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.GoKeySpellings;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every plugin reads every key of its configuration in any spelling Go's encoding/json matches: for each key a
 * plugin decodes, a value of the wrong JSON type under that key must fail the ADD with code 6 (decoding failure),
 * under the documented spelling and under each respelling ({@code Mtu}, {@code MTU}, {@code mtu} with U+017F/U+212A
 * for s/k), and the same configuration without it must not. A key jcni did not find under a spelling would let that
 * ADD through, or fail it otherwise. Go's plugin of the same type (Debian's 1.1.1, where it has the key) gets the
 * same stdins and must refuse them too: the proof that Go reads that spelling. Every plugin runs in a test host, on
 * a container namespace of its own; a configuration that passes is deleted again.
 */
class GoKeyMatchingPerPluginTest {
    private static final String TAG = "keyp";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns container;
    private String hostLink;
    private String peerLink;

    @BeforeEach
    void setUp() {
        Prerequisites.assumeRoot();
        host = TestHost.create(TAG);
        container = host.container();
        hostLink = Names.link(TAG);
        peerLink = Names.link(TAG);
        host.exec("ip", "link", "add", hostLink, "type", "veth", "peer", "name", peerLink).requireSuccess();
    }

    /** The base configuration of a type, valid, for the plugin to find every key of the probe in. */
    private String base(String type) {
        String hostLocal = "{\"type\":\"host-local\",\"dataDir\":\"" + tmp.resolve("ipam")
                + "\",\"ranges\":[[{\"subnet\":\"10.231.40.0/24\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}";
        String prev = ",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\""
                + container.path() + "\"}],\"ips\":[{\"interface\":0,\"address\":\"10.231.40.2/24\","
                + "\"gateway\":\"10.231.40.1\"}]}";
        String head = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-keyp\",\"type\":\"" + type + "\"";
        return switch (type) {
            case "bridge" -> head + ",\"bridge\":\"" + Names.link(TAG) + "\",\"ipam\":" + hostLocal + "}";
            case "ptp", "dummy" -> head + ",\"ipam\":" + hostLocal + "}";
            case "macvlan", "ipvlan" -> head + ",\"master\":\"" + hostLink + "\",\"mode\":\""
                    + (type.equals("macvlan") ? "bridge" : "l2") + "\",\"ipam\":" + hostLocal + "}";
            case "vlan" -> head + ",\"master\":\"" + hostLink + "\",\"vlanId\":7,\"ipam\":" + hostLocal + "}";
            case "host-device" -> head + ",\"device\":\"" + peerLink + "\"}";
            case "tap" -> head + ",\"mtu\":1400}";
            case "loopback" -> head + "}";
            case "tuning" -> head + ",\"dataDir\":\"" + tmp.resolve("tuning") + "\",\"mtu\":1400" + prev + "}";
            case "bandwidth" -> head + ",\"ingressRate\":8000000,\"ingressBurst\":80000" + prev + "}";
            case "portmap" -> head + ",\"snat\":true,\"runtimeConfig\":{\"portMappings\":[{\"hostPort\":18081,"
                    + "\"containerPort\":80,\"protocol\":\"tcp\"}]}" + prev + "}";
            case "firewall" -> head + ",\"backend\":\"iptables\"" + prev + "}";
            case "sbr", "vrf" -> head + (type.equals("vrf") ? ",\"vrfname\":\"jcni-vrf\"" : "") + prev + "}";
            case "host-local" -> head + ",\"ipam\":" + hostLocal + "}";
            case "static" -> head + ",\"ipam\":{\"type\":\"static\",\"addresses\":[{\"address\":\"10.231.41.5/24\","
                    + "\"gateway\":\"10.231.41.1\"}],\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"dns\":"
                    + "{\"nameservers\":[\"10.231.41.53\"]}}}";
            case "dhcp" -> head + ",\"ipam\":{\"type\":\"dhcp\",\"daemonSocketPath\":\"" + tmp.resolve("no-daemon")
                    + "\"}}";
            case "cluster-ipam" -> head + ",\"ipam\":{\"type\":\"cluster-ipam\",\"ranges\":[[{\"subnet\":"
                    + "\"10.231.42.0/24\"}]],\"nodeName\":\"n1\",\"etcd\":{\"endpoints\":[\"http://127.0.0.1:9\"],"
                    + "\"dialTimeoutSeconds\":1,\"requestTimeoutSeconds\":1}}}";
            default -> throw new IllegalArgumentException(type);
        };
    }

    /**
     * {@code type | path | wrong value | whether Debian's Go plugin (1.1.1) has the key}. A path's segments are keys,
     * {@code [0]} an array element; ipam keys are the IPAM plugin's (the main plugin hands its ipam on).
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', textBlock = """
        bridge       | bridge                              | 7         | go
        bridge       | isGateway                           | "yes"     | go
        bridge       | isDefaultGateway                    | "yes"     | go
        bridge       | forceAddress                        | "yes"     | go
        bridge       | ipMasq                              | "yes"     | go
        bridge       | mtu                                 | "big"     | go
        bridge       | hairpinMode                         | "yes"     | go
        bridge       | promiscMode                         | "yes"     | go
        bridge       | vlan                                | "x"       | go
        bridge       | macspoofchk                         | "yes"     | go
        bridge       | ipam                                | []        | go
        bridge       | ipam.type                           | 7         | go
        bridge       | ipam.ranges                         | {}        | go
        bridge       | ipam.dataDir                        | 7         | go
        bridge       | ipam.routes                         | {}        | go
        bridge       | ipam.ranges[0][0].subnet            | 7         | go
        ptp          | ipMasq                              | "yes"     | go
        ptp          | mtu                                 | "big"     | go
        ptp          | ipam                                | []        | go
        macvlan      | master                              | 7         | go
        macvlan      | mode                                | 7         | go
        macvlan      | mtu                                 | "big"     | go
        macvlan      | ipam.ranges                         | {}        | go
        ipvlan       | master                              | 7         | go
        ipvlan       | mode                                | 7         | go
        ipvlan       | mtu                                 | "big"     | go
        vlan         | master                              | 7         | go
        vlan         | vlanId                              | "x"       | go
        vlan         | mtu                                 | "big"     | go
        host-device  | device                              | 7         | go
        host-device  | hwaddr                              | 7         | go
        host-device  | kernelpath                          | 7         | go
        host-device  | pciBusID                            | 7         | go
        loopback     | cniVersion                          | 7         | go
        tap          | mtu                                 | "big"     |
        tap          | mac                                 | 7         |
        tap          | multiQueue                          | "yes"     |
        tap          | owner                               | "x"       |
        tap          | bridge                              | 7         |
        dummy        | ipam                                | []        |
        tuning       | mtu                                 | "big"     | go
        tuning       | promisc                             | "yes"     | go
        tuning       | mac                                 | 7         | go
        tuning       | sysctl                              | []        | go
        tuning       | dataDir                             | 7         | go
        tuning       | runtimeConfig                       | []        | go
        tuning       | runtimeConfig.mac                   | 7         | go
        bandwidth    | ingressRate                         | "x"       | go
        bandwidth    | ingressBurst                        | "x"       | go
        bandwidth    | egressRate                          | "x"       | go
        bandwidth    | egressBurst                         | "x"       | go
        bandwidth    | runtimeConfig.bandwidth             | []        | go
        bandwidth    | runtimeConfig.bandwidth.ingressRate | "x"       | go
        portmap      | snat                                | "yes"     | go
        portmap      | markMasqBit                         | "x"       | go
        portmap      | externalSetMarkChain                | 7         | go
        portmap      | conditionsV4                        | {}        | go
        portmap      | runtimeConfig.portMappings          | {}        | go
        portmap      | runtimeConfig.portMappings[0].hostPort      | "x" | go
        portmap      | runtimeConfig.portMappings[0].containerPort | "x" | go
        portmap      | runtimeConfig.portMappings[0].protocol      | 7   | go
        portmap      | runtimeConfig.portMappings[0].hostIP        | 7   | go
        firewall     | backend                             | 7         | go
        firewall     | iptablesAdminChainName              | 7         | go
        firewall     | firewalldZone                       | 7         | go
        sbr          | table                               | "x"       |
        vrf          | vrfname                             | 7         | go
        host-local   | ipam.ranges                         | {}        | go
        host-local   | ipam.routes                         | {}        | go
        host-local   | ipam.dataDir                        | 7         | go
        host-local   | ipam.resolvConf                     | 7         | go
        host-local   | ipam.ranges[0][0].rangeStart        | 7         | go
        host-local   | ipam.ranges[0][0].gateway           | 7         | go
        host-local   | runtimeConfig.ipRanges              | {}        | go
        host-local   | args.cni.ips                        | {}        | go
        static       | ipam.addresses                      | {}        | go
        static       | ipam.addresses[0].address           | 7         | go
        static       | ipam.addresses[0].gateway           | 7         | go
        static       | ipam.routes                         | {}        | go
        static       | ipam.dns                            | []        | go
        static       | ipam.dns.nameservers                | {}        | go
        dhcp         | ipam.daemonSocketPath               | 7         | go
        cluster-ipam | ipam.nodeName                       | 7         |
        cluster-ipam | ipam.exclude                        | {}        |
        cluster-ipam | ipam.etcd                           | []        |
        cluster-ipam | ipam.etcd.endpoints                 | {}        |
        """)
    void everyKeyIsReadInEverySpellingGoReads(String type, String path, String wrong, String go) throws Exception {
        Prerequisites.assumeDistPlugins(type);
        boolean withGo = "go".equals(go);
        if (withGo) {
            Prerequisites.assumeReferencePlugins(type);
        }
        String base = base(type);
        Outcome control = add(Locations.distPlugin(type), base);
        assertThat(control.code).as("jcni's %s without a wrong %s: %s", type, path, control.text).isNotEqualTo(6);

        List<String> spellings = spellings(path);
        for (String spelled : spellings) {
            String stdin = Json.write(with(Json.parse(base), path.split("\\."), spelled.split("\\."),
                    Json.parse(wrong)));
            Outcome jcni = add(Locations.distPlugin(type), stdin);
            assertThat(jcni.code).as("jcni's %s with %s = %s: %s", type, spelled, wrong, jcni.text).isEqualTo(6);
            if (withGo) {
                Outcome reference = add(Locations.referencePlugin(type), stdin);
                assertThat(reference.code).as("Go's %s with %s = %s, proving Go reads that spelling: %s", type,
                        spelled, wrong, reference.text).isNotZero();
            }
        }
    }

    /** The path as documented, capitalized as a Go field name, in upper case, and with Go's two folding letters. */
    private static List<String> spellings(String path) {
        List<String> spellings = new ArrayList<>(List.of(path));
        spellings.add(respell(path, GoKeySpellings::capitalized));
        spellings.add(respell(path, s -> s.toUpperCase(Locale.ROOT)));
        String folding = respell(path, GoKeySpellings::foldingLetters);
        if (!folding.equals(path)) {
            spellings.add(folding);
        }
        return spellings;
    }

    private static String respell(String path, java.util.function.UnaryOperator<String> spelling) {
        List<String> parts = new ArrayList<>();
        for (String segment : path.split("\\.")) {
            int bracket = segment.indexOf('[');
            parts.add(bracket < 0 ? spelling.apply(segment)
                    : spelling.apply(segment.substring(0, bracket)) + segment.substring(bracket));
        }
        return String.join(".", parts);
    }

    /**
     * {@code config} with the value at {@code path} set to {@code value}, every key along the path renamed to its
     * spelling in {@code spelled} (in place, keeping the order of the members).
     */
    private static JsonNode with(JsonNode config, String[] path, String[] spelled, JsonNode value) {
        ObjectNode root = config.deepCopy();
        JsonNode node = root;
        for (int i = 0; i < path.length; i++) {
            String segment = path[i];
            int bracket = segment.indexOf('[');
            String key = bracket < 0 ? segment : segment.substring(0, bracket);
            String spelledKey = bracket < 0 ? spelled[i] : spelled[i].substring(0, spelled[i].indexOf('['));
            ObjectNode object = (ObjectNode) node;
            boolean last = i == path.length - 1;
            JsonNode child = last && bracket < 0 ? value
                    : object.has(key) ? object.get(key) : Json.object(); // a missing parent is created
            rename(object, key, spelledKey, child);
            node = object.get(spelledKey);
            if (bracket >= 0) {
                for (String index : segment.substring(bracket + 1, segment.length() - 1).split("]\\[")) {
                    node = ((ArrayNode) node).get(Integer.parseInt(index));
                }
            }
        }
        return root;
    }

    /** Replaces {@code key} by {@code spelled} with {@code value}, at the same position (appended when new). */
    private static void rename(ObjectNode object, String key, String spelled, JsonNode value) {
        List<Map.Entry<String, JsonNode>> members = new ArrayList<>();
        boolean found = false;
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> member = it.next();
            if (member.getKey().equals(key)) {
                members.add(Map.entry(spelled, value));
                found = true;
            } else {
                members.add(member);
            }
        }
        if (!found) {
            members.add(Map.entry(spelled, value));
        }
        object.removeAll();
        for (Map.Entry<String, JsonNode> member : members) {
            object.set(member.getKey(), member.getValue());
        }
    }

    private record Outcome(int code, String text) {}

    /**
     * ADD in the test host, on a fresh container namespace (Go's bridge 1.1.1 leaves its veth there when IPAM fails);
     * a configuration that passed is deleted at once. Code 0 for success.
     */
    private Outcome add(Path plugin, String stdin) throws Exception {
        TestNetns container = host.container();
        CniExec exec = CniExec.of(plugin, List.of(plugin.getParent())).inNetns(host.name());
        CniExec.Outcome add = exec.add(stdin, container.path(), "keyp-ctr", "eth0");
        if (add.succeeded()) {
            exec.del(stdin, container.path(), "keyp-ctr", "eth0");
            return new Outcome(0, "accepted");
        }
        String out = add.process().stdout();
        int code = out.isBlank() ? -1 : add.code();
        return new Outcome(code, add.process().describe() + "\nstdin " + stdin);
    }
}
