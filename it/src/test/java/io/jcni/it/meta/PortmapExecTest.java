package io.jcni.it.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Json;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * jcni's portmap launcher exec'd directly in a test host, as a runtime execs it, with a {@code prevResult} written by
 * the test (portmap needs no interface to exist: it writes rules for the addresses it is given): the error JSON of bad
 * input and of a refused transaction, with nothing left behind; many containers added and deleted at once; GC and
 * STATUS. The host's ruleset is read back with {@code nft -j list ruleset}.
 */
class PortmapExecTest {
    static final String NETWORK = "jcni-pm-exec";

    @AutoClose
    private TestHost host;

    @BeforeEach
    void host() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeCommand("nft");
        Prerequisites.assumeDistPlugins("portmap");
        host = TestHost.create(PortmapWorld.TAG);
    }

    CniExec portmap() {
        return CniExec.of(Locations.distPlugin("portmap"), List.of(Locations.distCniBin())).inNetns(host.name());
    }

    /** A prevResult for container {@code n}: {@code 10.223.N/256.N%256/16} and {@code fd23::N/64} on eth0. */
    static String prevResult(int n) {
        return ",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/x\"}],"
                + "\"ips\":[{\"interface\":0,\"address\":\"10.223." + (n / 256) + "." + (n % 256) + "/16\"},"
                + "{\"interface\":0,\"address\":\"fd23::" + Integer.toHexString(n) + "/64\"}]}";
    }

    static String conf(String network, String keys, String mappings, String prev) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"portmap\"" + keys
                + ",\"runtimeConfig\":{\"portMappings\":[" + mappings + "]}" + prev + "}";
    }

    static final String TCP = "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"tcp\"}";

    String ruleset() {
        return host.exec("nft", "list", "ruleset").requireSuccess().stdout();
    }

    /** Every rule of the host's ruleset, as {@code nft -j} has it. */
    List<JsonNode> rules() {
        JsonNode all = Json.parse(host.exec("nft", "-j", "list", "ruleset").requireSuccess()
                .stdout());
        List<JsonNode> rules = new ArrayList<>();
        for (JsonNode n : all.path("nftables")) {
            if (n.has("rule")) {
                rules.add(n.get("rule"));
            }
        }
        return rules;
    }

    long tagged(String text) {
        return rules().stream().filter(r -> r.path("comment").asText("").contains(text)).count();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown protocol|" + "{\"hostPort\":8080,\"containerPort\":80,\"protocol\":\"icmp\"}||true|7|"
                + "runtimeConfig.portMappings[1].protocol: unknown protocol \"icmp\"",
        "host port 0|{\"hostPort\":0,\"containerPort\":80,\"protocol\":\"tcp\"}||true|7|Invalid host port number: 0",
        "host port above 65535|{\"hostPort\":65536,\"containerPort\":80,\"protocol\":\"udp\"}||true|7|"
                + "Invalid host port number: 65536",
        "container port above 65535|{\"hostPort\":1,\"containerPort\":99999,\"protocol\":\"udp\"}||true|7|"
                + "Invalid container port number: 99999",
        "hostIP of a family the container lacks|{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\","
                + "\"hostIP\":\"2001:db8::1\"}||false|7|runtimeConfig.portMappings[1].hostIP: 2001:db8::1 is an IPv6"
                + " address, and the container has no IPv6 address to forward tcp 1 -> 2 (hostIP 2001:db8::1) to",
        "missing prevResult|{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\"}|none|true|7|"
                + "must be called as chained plugin",
        "chain name with spaces|{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\"}|"
                + ",\"externalSetMarkChain\":\"MY CHAIN\"|true|2|nftables backend was requested but configuration"
                + " contains iptables-specific options [externalSetMarkChain]",
        "chain name with quotes|{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\"}|"
                + ",\"externalSetMarkChain\":\"x\\\";flush ruleset;\\\"\"|true|2|nftables backend was requested but"
                + " configuration contains iptables-specific options [externalSetMarkChain]",
        "jump to a quoted chain in a condition|{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\"}|"
                + ",\"conditionsV4\":[\"jump \\\"my chain\\\"\"]|true|2|conditionsV4: \"jump\" is not supported",
        "iptables backend|{\"hostPort\":1,\"containerPort\":2,\"protocol\":\"tcp\"}|,\"backend\":\"iptables\"|true|2|"
                + "backend: \"iptables\" is not supported",
    })
    void badInputGetsTheSpecsErrorWithItsCodeAndLeavesNothing(String name, String mapping, String keys,
            boolean dualStack, int code, String msg) {
        String prev = "none".equals(keys) ? "" : dualStack ? prevResult(7) : prevResult(7).replace(
                ",{\"interface\":0,\"address\":\"fd23::7/64\"}", "");
        String extra = keys == null || "none".equals(keys) ? "" : keys;
        CniExec.Outcome add = portmap().add(conf(NETWORK, extra, TCP + "," + mapping, prev), Path.of("/x"), "bad",
                "eth0");
        assertThat(add.succeeded()).as(name).isFalse();
        assertThat(add.process().exitCode()).isNotZero();
        assertThat(add.code()).as(name).isEqualTo(code);
        assertThat(add.msg()).as(name).isEqualTo(msg);
        assertThat(add.error().path("cniVersion").asText()).isEqualTo("1.1.0");
        assertThat(add.process().stdout()).doesNotContain("Exception").doesNotContain("\tat ");
        assertThat(ruleset()).as("nothing left by: " + name).isBlank();
    }

    @Test
    void aTransactionTheKernelRefusesLeavesNoTableChainOrRule() {
        // The IPv6 table has a regular chain where portmap's NAT base chain goes: the kernel refuses that part, and
        // with it the whole transaction, the IPv4 table included.
        host.exec("nft", "add table ip6 cni_hostport").requireSuccess();
        host.exec("nft", "add chain ip6 cni_hostport prerouting_after_dstnat").requireSuccess();
        String before = ruleset();
        CniExec.Outcome add = portmap().add(conf(NETWORK, "", TCP, prevResult(3)), Path.of("/x"), "refused", "eth0");
        assertThat(add.code()).isEqualTo(999);
        assertThat(add.msg()).startsWith("unable to set up nftables rules for port mappings: NFT_MSG_NEWCHAIN ip6"
                + " cni_hostport prerouting_after_dstnat").contains("the transaction was not applied");
        assertThat(ruleset()).isEqualTo(before).doesNotContain("table ip ");
        assertThat(tagged("id: refused")).isZero();
    }

    /** {@code n} TCP mappings, host ports from 20000 on. */
    static String manyMappings(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"hostPort\":").append(20000 + i)
                    .append(",\"containerPort\":80,\"protocol\":\"tcp\"}");
        }
        return sb.toString();
    }

    /**
     * Issue 23, harm 5: a podman port range of 3,000 ports, dual-stack, is published in one transaction and removed
     * in one: 6,000 DNAT rules and the masquerade rules, then none. Before, anything above about 985 mappings was
     * code 999 ("a transaction holds at most 2000 messages"); Go 1.1.1 published 3,000. All or nothing: with the
     * IPv6 half refused by the kernel, none of the 3,000 IPv4 rules is there either.
     */
    @Test
    void threeThousandMappingsArePublishedAndRemovedAllOrNothing() {
        String conf = conf(NETWORK, "", manyMappings(3000), prevResult(5));
        host.exec("nft", "add table ip6 cni_hostport").requireSuccess();
        host.exec("nft", "add chain ip6 cni_hostport prerouting_after_dstnat").requireSuccess();
        CniExec.Outcome refused = portmap().add(conf, Path.of("/x"), "range", "eth0");
        assertThat(refused.code()).as(refused.process().describe()).isEqualTo(999);
        assertThat(refused.msg()).contains("the transaction was not applied");
        assertThat(tagged("id: range")).as("nothing of the IPv4 half either").isZero();
        host.exec("nft", "delete table ip6 cni_hostport").requireSuccess();

        CniExec.Outcome add = portmap().add(conf, Path.of("/x"), "range", "eth0");
        assertThat(add.succeeded()).as(add.process().describe()).isTrue();
        assertThat(ruleset()).contains("tcp dport 22999 dnat to 10.223.0.5:80")
                .contains("tcp dport 22999 dnat to [fd23::5]:80");
        assertThat(tagged("id: range")).as("3,000 DNAT rules per family, 2 + 1 masquerade").isEqualTo(6003);
        assertThat(portmap().check(conf, Path.of("/x"), "range", "eth0").succeeded()).isTrue();

        CniExec.Outcome del = portmap().del(conf, Path.of("/x"), "range", "eth0");
        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(tagged("id: range")).isZero();
        assertThat(ruleset()).as("the last DEL removed the tables").isBlank();
    }

    /**
     * Decided in issue 23 (shared with Go): a DEL whose runtimeConfig carries no {@code portMappings} (a runtime that
     * lost them, or sends them only on ADD) still removes the attachment's rules, found by their comment. Go's DEL
     * (and jcni's before) did nothing then, leaving DNAT rules to the released address: the next container given it
     * received the published ports.
     */
    @Test
    void aDelWithoutPortMappingsStillRemovesTheAttachmentsRules() {
        portmap().add(conf(NETWORK, "", TCP, prevResult(6)), Path.of("/x"), "lost", "eth0").result();
        assertThat(tagged("id: lost")).isEqualTo(5);
        String noMappings = "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK + "\",\"type\":\"portmap\"}";
        CniExec.Outcome del = portmap().del(noMappings, Path.of("/x"), "lost", "eth0");
        assertThat(del.succeeded()).as(del.process().describe()).isTrue();
        assertThat(tagged("id: lost")).isZero();
        assertThat(ruleset()).isBlank();
        assertThat(portmap().del(noMappings, Path.of("/x"), "lost", "eth0").succeeded()).as("idempotent").isTrue();
    }

    /**
     * 50 containers added at once (8 plugin processes at a time), then deleted at once, then added and deleted again
     * interleaved: every ADD's transaction flushes and refills the shared entry chains while others add and delete
     * their rules, and DELs delete by handle what concurrent DELs may have changed around them.
     */
    @Test
    void fiftyContainersAddedAndDeletedInParallelLeaveNoRuleOfTheirs() throws Exception {
        int n = 50;
        List<String> confs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            confs.add(conf(NETWORK, "", "{\"hostPort\":" + (10000 + i) + ",\"containerPort\":80,\"protocol\":\"tcp\"},"
                    + "{\"hostPort\":" + (20000 + i) + ",\"containerPort\":53,\"protocol\":\"udp\"}", prevResult(i + 1)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<String> failures = run(pool, confs, "ADD");
            assertThat(failures).isEmpty();
            assertThat(tagged("net: " + NETWORK + ",")).as("2 DNAT + 2 masquerade rules (IPv4), 2 + 1 (IPv6) each")
                    .isEqualTo(n * 7L);
            for (int i = 0; i < n; i += 7) {
                CniExec.Outcome check = portmap().check(confs.get(i), Path.of("/x"), "par-" + i, "eth0");
                assertThat(check.succeeded()).as(check.process().describe()).isTrue();
            }
            assertThat(ruleset()).contains("tcp dport 10049 dnat to 10.223.0.50:80")
                    .contains("udp dport 20000 dnat to [fd23::1]:53");
            assertThat(run(pool, confs, "DEL")).isEmpty();
            assertThat(tagged("net: " + NETWORK + ",")).isZero();

            assertThat(ruleset()).as("the last DEL removed the tables").isBlank();
            assertThat(run(pool, confs, "ADD+DEL")).isEmpty();
            assertThat(ruleset()).isBlank();
        } finally {
            pool.shutdownNow();
        }
    }

    private List<String> run(ExecutorService pool, List<String> confs, String verbs) throws Exception {
        List<Future<String>> results = new ArrayList<>();
        for (int i = 0; i < confs.size(); i++) {
            String conf = confs.get(i);
            String id = "par-" + i;
            results.add(pool.submit(() -> {
                for (String verb : verbs.split("\\+")) {
                    CniExec.Outcome outcome = portmap().call(verb, conf, Path.of("/x"), id, "eth0");
                    if (!outcome.succeeded()) {
                        return id + " " + verb + ": " + outcome.process().describe();
                    }
                }
                return null;
            }));
        }
        List<String> failures = new ArrayList<>();
        for (Future<String> f : results) {
            if (f.get() != null) {
                failures.add(f.get());
            }
        }
        return failures;
    }

    @Test
    void gcRemovesTheRulesOfThisNetworksAttachmentsThatAreNotValidAndNothingElse() {
        String other = "jcni-pm-other";
        portmap().add(conf(NETWORK, "", TCP, prevResult(1)), Path.of("/x"), "keep", "eth0").result();
        portmap().add(conf(NETWORK, "", TCP, prevResult(2)), Path.of("/x"), "gone", "eth0").result();
        portmap().add(conf(NETWORK, "", TCP, prevResult(3).replace("\"eth0\"", "\"eth1\"")), Path.of("/x"), "keep",
                "eth1").result();
        portmap().add(conf(other, "", TCP, prevResult(4)), Path.of("/x"), "gone", "eth0").result();
        // a rule tagged as Go's portmap tags (the container ID): it names no network, GC leaves it
        host.exec("nft", "add rule ip cni_hostport hostports tcp dport 9999 dnat to 10.223.0.9:80 comment \"gone\"")
                .requireSuccess();
        String gc = "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK + "\",\"type\":\"portmap\","
                + "\"cni.dev/valid-attachments\":[{\"containerID\":\"keep\",\"ifname\":\"eth0\"},"
                + "{\"containerID\":\"keep\",\"ifname\":\"eth1\"}]}";
        CniExec.Outcome outcome = portmap().call("GC", gc, null, "", "");
        assertThat(outcome.succeeded()).as(outcome.process().describe()).isTrue();

        assertThat(tagged("net: " + NETWORK + ", if: eth0, id: keep")).isEqualTo(5);
        assertThat(tagged("net: " + NETWORK + ", if: eth1, id: keep")).isEqualTo(5);
        assertThat(tagged("net: " + NETWORK + ", if: eth0, id: gone")).isZero();
        assertThat(tagged("net: " + other + ", if: eth0, id: gone")).as("another network's").isEqualTo(5);
        assertThat(ruleset()).contains("comment \"gone\"");

        // DEL of the attachment also removes what Go's portmap tagged with its container ID
        assertThat(portmap().del(conf(other, "", TCP, ""), null, "gone", "eth0").succeeded()).isTrue();
        assertThat(tagged("id: gone")).isZero();
        assertThat(ruleset()).doesNotContain("comment \"gone\"");
    }

    @Test
    void statusIsReadyWhereNfTablesWorks() {
        CniExec.Outcome status = portmap().call("STATUS", "{\"cniVersion\":\"1.1.0\",\"name\":\"" + NETWORK
                + "\",\"type\":\"portmap\"}", null, "", "");
        assertThat(status.succeeded()).as(status.process().describe()).isTrue();
        CniExec.Outcome version = portmap().call("VERSION", "{\"cniVersion\":\"1.1.0\"}", null, "", "");
        assertThat(version.result().path("supportedVersions")).extracting(JsonNode::asText)
                .containsExactly("0.1.0", "0.2.0", "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0");
    }
}
