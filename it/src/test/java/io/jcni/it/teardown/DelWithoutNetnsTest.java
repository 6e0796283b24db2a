package io.jcni.it.teardown;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.EtcdCluster;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import io.jcni.netlink.NetNs;
import io.jcni.runtime.CniRuntime;
import io.jcni.runtime.RuntimeConf;
import io.jcni.spec.CniArgs;
import io.jcni.spec.CniJson;
import io.jcni.spec.JsonObject;
import io.jcni.spec.NetworkConfigList;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 22, item 5: containerd's go-cni removes a sandbox whose network namespace is gone with {@code CNI_NETNS=""},
 * and every plugin's DEL must still remove what the attachment made on the node. Each test stands a node up
 * ({@link TestHost}), attaches a container with a real namespace, deletes that namespace as containerd does when the
 * sandbox is gone ({@code ip netns del}), then runs DEL with {@code CNI_NETNS=""} and reads the node back
 * ({@link NodeState}: links, addresses, routes of every table, the nftables ruleset with iptables-nft's tables, qdiscs,
 * the files of host-local, tuning and the runtime's cache).
 *
 * <p>The same scenario runs with Debian's Go plugins (1.1.1, {@code /usr/lib/cni}) as the control, and what they leave
 * is asserted as it is: Go's bridge returns from DEL before its masquerade teardown when {@code CNI_NETNS} is empty
 * or names a namespace that is gone (containernetworking/plugins#810; its macspoofchk chains are left the same way),
 * and Go's tuning cannot restore, and so keeps its backup file. With a namespace that a process still holds after its
 * file was removed, Go's bridge and ptp also leave the host end of the veth pair (and ptp its host route to an address
 * IPAM has released). Go's sbr fails the DEL, and libcni then never runs the plugins before it in the list. jcni
 * leaves nothing of the attachment, through Go libcni, jcni's runtime and the {@code jcni} CLI alike, and in both runs
 * of the suite (JVM launchers, plugin service).
 */
class DelWithoutNetnsTest {
    static final String TAG = "nons";
    static final String NETWORK = "jcni-nons";
    static final String PORTS = "{\"portMappings\":[{\"hostPort\":18080,\"containerPort\":80,\"protocol\":\"tcp\"}]}";

    @TempDir
    Path tmp;

    @AutoClose
    TestHost host;

    /** Who drives the attachment: Go libcni with jcni's plugins, jcni's runtime, the jcni CLI, or Go's plugins. */
    enum Driver {
        GO_LIBCNI, JCNI_RUNTIME, JCNI_CLI, GO_PLUGINS_CONTROL;

        boolean jcniPlugins() {
            return this != GO_PLUGINS_CONTROL;
        }
    }

    /** One node with one runtime on it: ADD with a namespace, DEL without, as the driver does them. */
    final class Node {
        final Driver driver;
        final Path dir;
        final Path conf;
        final NetworkConfigList list;
        final CniRuntime runtime;
        final LibcniDriver libcni;

        /** A fresh node (the test's {@link #host}) whose files go to {@link #dir(Driver, String)}. */
        Node(Driver driver, String scenario, String conflist) throws Exception {
            Peers.require(driver.jcniPlugins());
            this.driver = driver;
            this.dir = Files.createDirectories(dir(driver, scenario));
            host = TestHost.create(TAG);
            this.conf = Files.writeString(Files.createDirectories(dir.resolve("net.d")).resolve("net.conflist"),
                    conflist);
            this.list = CniJson.decodeNetworkConfigList(conflist.getBytes(StandardCharsets.UTF_8));
            List<Path> cniPath = driver.jcniPlugins() ? List.of(Locations.distCniBin())
                    : List.of(Locations.referencePlugins());
            this.libcni = host.libcni(cniPath, cache());
            this.runtime = driver == Driver.JCNI_RUNTIME ? CniRuntime.create(CniRuntime.Options.of(
                    host.runtimeCniPath(dir.resolve("host-bin"), cniPath)).withCacheDir(cache())) : null;
        }

        Path cache() {
            return dir.resolve("cache");
        }

        Path ipam() {
            return dir.resolve("ipam");
        }

        Path tuning() {
            return dir.resolve("tuning");
        }

        NodeState state() {
            return NodeState.read(host, ipam(), tuning(), cache());
        }

        JsonNode add(TestNetns netns, Attachment a) {
            return switch (driver) {
                case GO_LIBCNI, GO_PLUGINS_CONTROL -> libcni.add(conf, netns.path(), a).answer();
                case JCNI_RUNTIME -> Json.parse(new String(CniJson.encode(runtime.addNetworkList(list,
                        runtimeConf(a, netns.path().toString()))), StandardCharsets.UTF_8));
                case JCNI_CLI -> Json.parse(cli(a, "add", netns.path().toString()).requireSuccess().stdout());
            };
        }

        /** DEL with {@code CNI_NETNS=""}; fails the test unless it succeeded. */
        void delWithoutNetns(Attachment a) {
            switch (driver) {
                case GO_LIBCNI, GO_PLUGINS_CONTROL -> {
                    assertThat(libcni.delWithoutNetns(conf, a).answer()).as("%s DEL", driver).isEmpty();
                }
                case JCNI_RUNTIME -> runtime.delNetworkList(list, runtimeConf(a, ""));
                case JCNI_CLI -> cli(a, "del", "").requireSuccess();
            }
        }

        /** DEL with {@code CNI_NETNS} naming the namespace's path, deleted since (Go libcni only). */
        void delAtGonePath(Attachment a, Path netns) {
            assertThat(Files.exists(netns)).as(netns.toString()).isFalse();
            assertThat(libcni.del(conf, netns, a).answer()).as("%s DEL", driver).isEmpty();
        }

        private RuntimeConf runtimeConf(Attachment a, String netns) {
            JsonObject caps = a.capabilityArgs() == null ? JsonObject.EMPTY
                    : (JsonObject) io.jcni.spec.Json.parse(a.capabilityArgs());
            return new RuntimeConf(a.containerId(), netns, a.ifName(), CniArgs.empty(), caps);
        }

        /** {@code jcni --container-id ID --ifname IF --cache-dir C VERB NETWORK NETNS} in the node. */
        private ProcessResult cli(Attachment a, String verb, String netns) {
            Map<String, String> env = a.capabilityArgs() == null ? Map.of() : Map.of("CAP_ARGS", a.capabilityArgs());
            return host.run(List.of(Locations.distJcni().toString(), "--container-id", a.containerId(), "--ifname",
                    a.ifName(), "--cache-dir", cache().toString(), "--conf-dir", conf.getParent().toString(),
                    "--cni-path", Locations.distCniBin().toString(), verb, NETWORK, netns), env, null,
                    Duration.ofSeconds(60));
        }
    }

    Path dir(Driver driver, String scenario) {
        return tmp.resolve(driver.name().toLowerCase() + "-" + scenario);
    }

    /** bridge (gateway, ipMasq, macspoofchk), portmap, bandwidth (both ways), firewall, tuning: dual-stack. */
    String chain(Path ipam, Path tuning, String bridge) {
        String hostLocal = Conflists.hostLocal(ipam, List.of("10.231.7.0/24", "fd31:7::/64"));
        return Conflists.list("1.0.0", NETWORK,
                Conflists.bridge(bridge, ",\"isGateway\":true,\"ipMasq\":true,\"macspoofchk\":true", hostLocal),
                "{\"type\":\"portmap\",\"capabilities\":{\"portMappings\":true}}",
                "{\"type\":\"bandwidth\",\"ingressRate\":8000000,\"ingressBurst\":80000,\"egressRate\":8000000,"
                        + "\"egressBurst\":80000}",
                "{\"type\":\"firewall\"}",
                "{\"type\":\"tuning\",\"mtu\":1400,\"dataDir\":\"" + tuning + "\","
                        + "\"sysctl\":{\"net.ipv4.conf.eth0.arp_filter\":\"1\"}}");
    }

    /** The host ends (veth) and ifb devices a result names. */
    static List<String> hostLinks(JsonNode result) {
        return result.path("interfaces").valueStream().filter(i -> i.path("sandbox").asText().isEmpty())
                .map(i -> i.path("name").asText()).filter(n -> n.startsWith("veth") || n.startsWith("bwp")).toList();
    }

    /** Waits until the kernel has destroyed the namespace's veth pair (it does so asynchronously). */
    void awaitGone(String link) throws InterruptedException {
        for (int i = 0; i < 250 && host.kernel().link(link).isPresent(); i++) {
            Thread.sleep(20);
        }
        assertThat(host.kernel().link(link)).as("%s after its namespace was deleted", link).isEmpty();
    }

    /**
     * The chain of the brief, container B attached beside container A (so the network's shared state, the bridge, the
     * tables, the gateway, exists before and after): B's namespace deleted, DEL with {@code CNI_NETNS=""}. What the
     * node holds afterwards, compared with what it held before B's ADD.
     *
     * @return what was added since and left (removed: asserted empty here, A is untouched)
     */
    List<String> chainLeftovers(Driver driver) throws Exception {
        return chainLeftovers(driver, false);
    }

    /** As {@link #chainLeftovers(Driver)}; with {@code atGonePath}, DEL names the deleted namespace's path instead. */
    List<String> chainLeftovers(Driver driver, boolean atGonePath) throws Exception {
        String bridge = Names.link(TAG);
        Path dir = dir(driver, "chain");
        Node node = new Node(driver, "chain", chain(dir.resolve("ipam"), dir.resolve("tuning"), bridge));
        Attachment a = Attachment.of("nons-a", "eth0").withCapabilityArgs(PORTS.replace("18080", "18081"));
        Attachment b = Attachment.of("nons-b", "eth0").withCapabilityArgs(PORTS);
        node.add(host.container(), a);
        NodeState before = node.state();

        TestNetns sandbox = host.container();
        JsonNode result = node.add(sandbox, b);
        List<String> made = hostLinks(result);
        assertThat(made).as("B's host end and ifb in " + result).hasSize(2);
        assertThat(node.state().lines()).as("B's reservation, tuning backup, cache entry")
                .anyMatch(l -> l.startsWith("file " + node.tuning()))
                .anyMatch(l -> l.startsWith("file " + node.cache()) && l.contains("nons-b"))
                .anyMatch(l -> l.startsWith("file " + node.ipam()) && l.endsWith("10.231.7.3"));

        sandbox.close();
        awaitGone(made.getFirst());
        if (atGonePath) {
            node.delAtGonePath(b, sandbox.path());
            node.delAtGonePath(b, sandbox.path());
        } else {
            node.delWithoutNetns(b);
            node.delWithoutNetns(b); // DEL repeated is DEL once: the cache entry is gone, the plugins find nothing
        }
        NodeState after = node.state();

        assertThat(before.removedIn(after)).as("%s: what DEL of B took from the network or from A", driver).isEmpty();
        return before.addedIn(after);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Driver.class, names = {"GO_LIBCNI", "JCNI_RUNTIME", "JCNI_CLI"})
    void theWholeChainLeavesNothingOfTheAttachment(Driver driver) throws Exception {
        assertThat(chainLeftovers(driver)).as("what B left on the node").isEmpty();
    }

    /** The same chain when {@code CNI_NETNS} names the path of the deleted namespace (a runtime that keeps it). */
    @Test
    void theWholeChainLeavesNothingWhenCniNetnsNamesAGonePath() throws Exception {
        assertThat(chainLeftovers(Driver.GO_LIBCNI, true)).as("what B left on the node").isEmpty();
    }

    /** Go's plugins leave the same with {@code CNI_NETNS} empty and naming the deleted namespace's path. */
    @ParameterizedTest(name = "CNI_NETNS names the gone path: {0}")
    @ValueSource(booleans = {false, true})
    void goPluginsLeaveTheirMasqueradeSpoofCheckAndTuningBackupInTheSameScenario(boolean atGonePath)
            throws Exception {
        List<String> left = chainLeftovers(Driver.GO_PLUGINS_CONTROL, atGonePath);

        assertThat(left).as("Go's bridge: masquerade chain and jump, IPv4 and IPv6 (plugins#810)")
                .anyMatch(l -> l.startsWith("nft ip nat POSTROUTING: ip saddr 10.231.7.3 ") && l.contains("jump CNI-"))
                .anyMatch(l -> l.startsWith("nft ip6 nat POSTROUTING: ip6 saddr fd31:7::3 ") && l.contains("jump CNI-"))
                .anyMatch(l -> l.startsWith("nft ip nat CNI-") && l.contains("masquerade"));
        assertThat(left).as("Go's bridge: the spoof check's chains and the jump to them")
                .anyMatch(l -> l.equals("nft bridge nat chain cni-br-iface-nons-b-eth0"))
                .anyMatch(l -> l.startsWith("nft bridge nat PREROUTING: ") && l.contains("macspoofchk-nons-b-eth0"));
        assertThat(left).as("Go's tuning: the backup it could not restore")
                .anyMatch(l -> l.startsWith("file " + dir(Driver.GO_PLUGINS_CONTROL, "chain").resolve("tuning")));
        assertThat(left).as("nothing else than rules and that file")
                .allMatch(l -> l.startsWith("nft ") || l.startsWith("file "));
    }

    // ---- a namespace that lives on after its file is gone ------------------------------------------------------

    /**
     * bridge or ptp with ipMasq and bandwidth's ingress qdisc on the host end: B's namespace file is removed while a
     * descriptor still holds the namespace, so the veth pair survives; DEL with {@code CNI_NETNS=""}.
     *
     * @return what the node holds that it did not before B's ADD
     */
    List<String> heldNamespaceLeftovers(Driver driver, String type) throws Exception {
        String ipam = Conflists.hostLocal(dir(driver, type).resolve("ipam"), List.of("10.231.8.0/24"));
        String first = type.equals("bridge")
                ? Conflists.bridge(Names.link(TAG), ",\"isGateway\":true,\"ipMasq\":true", ipam)
                : "{\"type\":\"ptp\",\"ipMasq\":true,\"ipam\":" + ipam + "}";
        Node node = new Node(driver, type, Conflists.list("1.0.0", NETWORK, first,
                "{\"type\":\"bandwidth\",\"ingressRate\":8000000,\"ingressBurst\":80000}"));
        Attachment a = Attachment.of("held-a", "eth0");
        Attachment b = Attachment.of("held-b", "eth0");
        node.add(host.container(), a);
        NodeState before = node.state();

        TestNetns sandbox = host.container();
        JsonNode result = node.add(sandbox, b);
        String hostEnd = hostLinks(result).getFirst();
        try (NetNs held = NetNs.open(sandbox.path())) {
            sandbox.close();
            assertThat(host.kernel().link(hostEnd)).as("held, the pair survives its file").isPresent();
            node.delWithoutNetns(b);
            NodeState after = node.state();
            assertThat(before.removedIn(after)).as("what DEL of B took from A").isEmpty();
            assertThat(held.fd()).isPositive();
            return before.addedIn(after);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Driver.class, names = {"GO_LIBCNI", "JCNI_RUNTIME"})
    void bridgeDeletesTheHostEndOfANamespaceThatLivesOn(Driver driver) throws Exception {
        assertThat(heldNamespaceLeftovers(driver, "bridge")).isEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Driver.class, names = {"GO_LIBCNI", "JCNI_RUNTIME"})
    void ptpDeletesTheHostEndAndItsRouteToAnAddressIpamReleased(Driver driver) throws Exception {
        assertThat(heldNamespaceLeftovers(driver, "ptp")).isEmpty();
    }

    @Test
    void goBridgeAndPtpLeaveTheHostEndOfANamespaceThatLivesOn() throws Exception {
        List<String> bridge = heldNamespaceLeftovers(Driver.GO_PLUGINS_CONTROL, "bridge");
        assertThat(bridge).as("Go's bridge: the port, its qdisc, its masquerade")
                .anyMatch(l -> l.matches("link veth[0-9a-f]{8} kind=veth master=jcni-nons-.*"))
                .anyMatch(l -> l.matches("qdisc dev veth[0-9a-f]{8} tbf .*"))
                .anyMatch(l -> l.startsWith("nft ip nat POSTROUTING: ip saddr 10.231.8.3 "));
        host.close();

        List<String> ptp = heldNamespaceLeftovers(Driver.GO_PLUGINS_CONTROL, "ptp");
        assertThat(ptp).as("Go's ptp: the host end, its gateway address and the host route to 10.231.8.3, which"
                        + " host-local has released")
                .anyMatch(l -> l.matches("link veth[0-9a-f]{8} kind=veth master=null"))
                .anyMatch(l -> l.startsWith("route 10.231.8.3 dev veth"))
                .noneMatch(l -> l.endsWith("/10.231.8.3"));
        assertThat(HostLocalFiles.reservations(dir(Driver.GO_PLUGINS_CONTROL, "ptp").resolve("ipam"), NETWORK))
                .containsExactly("10.231.8.2");
    }


    // ---- a chained plugin that works in the container only ---------------------------------------------------------

    /** ptp (ipMasq, host-local), then sbr, whose work is all inside the container: B attached beside A, then gone. */
    Node ptpThenSbr(Driver driver, Attachment a, Attachment b) throws Exception {
        String ipam = Conflists.hostLocal(dir(driver, "sbr").resolve("ipam"), List.of("10.231.11.0/24"));
        Node node = new Node(driver, "sbr", Conflists.list("1.0.0", NETWORK,
                "{\"type\":\"ptp\",\"ipMasq\":true,\"ipam\":" + ipam + "}", "{\"type\":\"sbr\"}"));
        node.add(host.container(), a);
        return node;
    }

    /**
     * sbr's DEL without a namespace has nothing to tidy and succeeds, so libcni goes on to ptp's DEL, which releases
     * the address and the masquerade rule. (Go's sbr fails that DEL: see the control below.)
     */
    @Test
    void sbrLetsTheChainsDelReachPtp() throws Exception {
        Attachment a = Attachment.of("sbr-a", "eth0");
        Attachment b = Attachment.of("sbr-b", "eth0");
        Node node = ptpThenSbr(Driver.GO_LIBCNI, a, b);
        NodeState before = node.state();
        TestNetns sandbox = host.container();
        String hostEnd = hostLinks(node.add(sandbox, b)).getFirst();
        sandbox.close();
        awaitGone(hostEnd);

        node.delWithoutNetns(b);

        NodeState after = node.state();
        assertThat(before.addedIn(after)).isEmpty();
        assertThat(before.removedIn(after)).isEmpty();
    }

    /**
     * Go's sbr 1.1.1 fails DEL when {@code CNI_NETNS} is empty (it opens the namespace to lock it), and libcni stops
     * the list's DEL there: Go's ptp never runs, so the reservation, the masquerade rules and libcni's cache entry
     * stay, and every retry fails the same way.
     */
    @Test
    void goSbrFailsTheDelAndSoLeavesPtpsState() throws Exception {
        Attachment a = Attachment.of("sbr-a", "eth0");
        Attachment b = Attachment.of("sbr-b", "eth0");
        Node node = ptpThenSbr(Driver.GO_PLUGINS_CONTROL, a, b);
        NodeState before = node.state();
        TestNetns sandbox = host.container();
        String hostEnd = hostLinks(node.add(sandbox, b)).getFirst();
        sandbox.close();
        awaitGone(hostEnd);

        DriverOutcome del = node.libcni.delWithoutNetns(node.conf, b);

        assertThat(del.succeeded()).isFalse();
        assertThat(del.error()).startsWith("plugin type=\"sbr\" failed (delete): ");
        List<String> left = before.addedIn(node.state());
        assertThat(left).as("Go's ptp never ran: the reservation, the masquerade, libcni's cache entry")
                .anyMatch(l -> l.startsWith("file ") && l.endsWith("/10.231.11.3"))
                .anyMatch(l -> l.startsWith("nft ip nat POSTROUTING: ip saddr 10.231.11.3 "))
                .anyMatch(l -> l.startsWith("file " + node.cache()) && l.contains("sbr-b"));
        assertThat(node.libcni.delWithoutNetns(node.conf, b).succeeded()).as("a retry fails the same way").isFalse();
    }

    // ---- plugins whose only node-side state is IPAM's ------------------------------------------------------------

    /**
     * macvlan and tap (the container's link is destroyed with its namespace; what stays on the node is host-local's
     * reservation): released by DEL with {@code CNI_NETNS=""}, by jcni's plugins as by Go's macvlan (Go 1.1.1 has no
     * tap).
     */
    @ParameterizedTest(name = "{0} by {1}")
    @CsvSource({"macvlan, GO_LIBCNI", "macvlan, GO_PLUGINS_CONTROL", "tap, GO_LIBCNI"})
    void linkPluginsReleaseTheirAddress(String type, Driver driver) throws Exception {
        Path ipam = dir(driver, type).resolve("ipam");
        String master = type.equals("macvlan") ? ",\"master\":\"mvm0\"" : "";
        Node node = new Node(driver, type, Conflists.list("1.0.0", NETWORK, "{\"type\":\"" + type + "\"" + master
                + ",\"ipam\":" + Conflists.hostLocal(ipam, List.of("10.231.9.0/24")) + "}"));
        host.exec("ip", "link", "add", "mvm0", "type", "veth", "peer", "name", "mvm1").requireSuccess();
        host.exec("ip", "link", "set", "mvm0", "up").requireSuccess();
        Attachment a = Attachment.of("link-b", "net1");
        NodeState before = node.state();

        TestNetns sandbox = host.container();
        node.add(sandbox, a);
        assertThat(HostLocalFiles.reservations(ipam, NETWORK)).containsExactly("10.231.9.2");
        sandbox.close();
        node.delWithoutNetns(a);

        assertThat(HostLocalFiles.reservations(ipam, NETWORK)).isEmpty();
        NodeState after = node.state();
        assertThat(before.addedIn(after)).as("left by %s", driver)
                .allMatch(l -> l.startsWith("file " + ipam)).noneMatch(l -> l.endsWith("10.231.9.2"));
        assertThat(before.removedIn(after)).isEmpty();
    }

    /**
     * cluster-ipam's reservation lives in etcd: the owner key and the address key of the attachment go with a DEL
     * that has no {@code CNI_NETNS} (the plugin is exec'd as an interface plugin delegates to it; etcd listens on
     * this machine's loopback, so no test host).
     */
    @Test
    void clusterIpamDeletesTheAttachmentsKeysInEtcd() throws Exception {
        Peers.require(true);
        assertThat(Files.isExecutable(Path.of("/usr/bin/etcd"))).as("etcd (scripts/setup installs etcd-server)")
                .isTrue();
        try (EtcdCluster etcd = EtcdCluster.start(tmp.resolve("etcd"), 1)) {
            String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"bridge\",\"ipam\":{"
                    + "\"type\":\"cluster-ipam\",\"subnet\":\"10.231.10.0/24\",\"etcd\":{\"endpoints\":["
                    + etcd.endpointsJson() + "]}}}";
            CniExec ipam = CniExec.of(Locations.distPlugin("cluster-ipam"), List.of(Locations.distCniBin()))
                    .withEnv("JCNI_NODE_NAME", "node-1");
            String prefix = "/jcni/ipam/" + NETWORK;
            try (TestNetns sandbox = TestNetns.create(TAG)) {
                JsonNode result = ipam.add(conf, sandbox.path(), "cl-b", "eth0").result();
                assertThat(result.path("ips").get(0).path("address").asText()).startsWith("10.231.10.");
            }
            assertThat(etcd.keys(prefix + "/owner/")).containsExactly(prefix + "/owner/node-1/cl-b/eth0");
            assertThat(etcd.keys(prefix + "/ip/")).hasSize(1);

            CniExec.Outcome del = ipam.del(conf, null, "cl-b", "eth0");
            assertThat(del.succeeded()).as(del.process().describe()).isTrue();

            assertThat(etcd.keys(prefix + "/owner/")).isEmpty();
            assertThat(etcd.keys(prefix + "/ip/")).isEmpty();
            assertThat(etcd.entries(prefix + "/")).noneMatch(e -> e.contains("cl-b"));
        }
    }
}
