package io.jcni.plugins.internal.pkg.link;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacvlanMode;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * macvlan, ipvlan, vlan and dummy against a real kernel without touching the host: {@code linkInContainer} puts the
 * master (a veth end, {@code master0}) in a fresh anonymous container namespace, so the plugins run in-process and
 * create nothing outside it. No IPAM here (the it module covers IPAM, the Go plugins and {@code ip -j}).
 */
class LinkInContainerTest {
    private NetNs netns;
    private String path;

    @BeforeEach
    void containerWithAMaster() throws Exception {
        assumeTrue(root(), "needs root: creates a network namespace");
        netns = NetNs.create();
        path = netns.path().toString();
        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.addVeth(LinkAttrs.named("master0").mtu(1500), LinkAttrs.named("peer0"));
            nl.setUp(nl.link("master0").index());
            nl.setUp(nl.link("peer0").index());
        }
    }

    @AfterEach
    void close() {
        if (netns != null) {
            netns.close();
        }
    }

    static boolean root() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("Uid:")) {
                return line.split("\\s+")[2].equals("0");
            }
        }
        return false;
    }

    List<Link> links() {
        try (NetlinkHandle nl = Netlink.open(netns)) {
            return nl.links();
        }
    }

    List<String> names() {
        return links().stream().map(Link::name).sorted().toList();
    }

    PluginCall call(String command, String conf) {
        return PluginCall.of(command).netns(path).containerId("ctr-if").ifName("net1").stdin(conf);
    }

    @ParameterizedTest(name = "mode {0}")
    @ValueSource(strings = {"bridge", "private", "vepa", "passthru"})
    void macvlanOnAMasterInTheContainer(String mode) throws Exception {
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"macvlan\",\"master\":\"master0\","
                + "\"linkInContainer\":true,\"mode\":\"" + mode + "\",\"mtu\":1400,\"mac\":\"02:11:22:33:44:55\"}";
        Result result = (Result) call("ADD", conf).run(PluginRegistry.skel("macvlan")).result();

        Link net1 = links().stream().filter(l -> l.name().equals("net1")).findFirst().orElseThrow();
        Link master = links().stream().filter(l -> l.name().equals("master0")).findFirst().orElseThrow();
        // passthru: the kernel gives the macvlan its lower device's MAC, whatever was asked.
        String mac = mode.equals("passthru") ? master.address().toString() : "02:11:22:33:44:55";
        assertThat(result.interfaces()).containsExactly(new Interface("net1", mac, path));
        assertThat(net1.address()).hasToString(mac);
        assertThat(result.ips()).isEmpty();
        assertThat(net1.info()).isEqualTo(new LinkInfo.Macvlan("macvlan", MacvlanMode.valueOf(
                mode.toUpperCase(java.util.Locale.ROOT))));
        assertThat(net1.parentIndex()).isEqualTo(master.index());
        assertThat(net1.mtu()).isEqualTo(1400);
        assertThat(net1.isUp()).as("L2 only: up without addresses").isTrue();
        assertThat(names()).containsExactly("lo", "master0", "net1", "peer0");

        String withPrev = conf.substring(0, conf.length() - 1) + ",\"prevResult\":"
                + new String(CniJson.encode(result), StandardCharsets.UTF_8) + "}";
        call("CHECK", withPrev).run(PluginRegistry.skel("macvlan")).ok();
        String otherMode = withPrev.replace("\"mode\":\"" + mode + "\"",
                "\"mode\":\"" + (mode.equals("vepa") ? "bridge" : "vepa") + "\"");
        assertThat(call("CHECK", otherMode).run(PluginRegistry.skel("macvlan")).error().msg())
                .startsWith("Container macvlan mode " + mode + " does not match expected value: ");

        call("DEL", conf).run(PluginRegistry.skel("macvlan")).ok();
        assertThat(names()).containsExactly("lo", "master0", "peer0");
        call("DEL", conf).run(PluginRegistry.skel("macvlan")).ok();
    }

    @Test
    void anMtuAboveTheMastersLeavesNothing() throws Exception {
        String conf = """
                {"cniVersion":"1.1.0","name":"n","type":"macvlan","master":"master0",\
                "linkInContainer":true,"mtu":9000}""";
        CniError error = call("ADD", conf).run(PluginRegistry.skel("macvlan")).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("invalid MTU 9000, must be [0, master MTU(1500)]");
        assertThat(names()).containsExactly("lo", "master0", "peer0");
    }

    @Test
    void aContainerNameThatIsTakenLeavesOnlyWhatWasThere() throws Exception {
        String conf = """
                {"cniVersion":"1.1.0","name":"n","type":"macvlan","master":"master0",\
                "linkInContainer":true}""";
        CniError error = PluginCall.of("ADD").netns(path).ifName("peer0").stdin(conf)
                .run(PluginRegistry.skel("macvlan")).error();
        assertThat(error.msg()).startsWith("failed to rename macvlan to \"peer0\": RTM_NEWLINK");
        assertThat(names()).as("the temporary link is gone, peer0 untouched")
                .containsExactly("lo", "master0", "peer0");
    }

    @Test
    void aMissingMasterIsNamed() throws Exception {
        String conf = """
                {"cniVersion":"1.1.0","name":"n","type":"macvlan","master":"nope0",\
                "linkInContainer":true}""";
        assertThat(call("ADD", conf).run(PluginRegistry.skel("macvlan")).error().msg())
                .isEqualTo("failed to lookup master \"nope0\": Link not found");
    }

    @Test
    void theDefaultMasterIsTheContainersDefaultRouteInterface() throws Exception {
        try (NetlinkHandle nl = Netlink.open(netns)) {
            int master = nl.link("master0").index();
            nl.addAddress(master, java.net.InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 2}), 24);
            nl.addRoute(io.jcni.netlink.Route.defaultVia(java.net.InetAddress.getByName("192.0.2.1")).dev(master));
        }
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"macvlan\",\"linkInContainer\":true}";
        call("ADD", conf).run(PluginRegistry.skel("macvlan")).ok();
        Link net1 = links().stream().filter(l -> l.name().equals("net1")).findFirst().orElseThrow();
        assertThat(net1.parentIndex()).isEqualTo(
                links().stream().filter(l -> l.name().equals("master0")).findFirst().orElseThrow().index());
    }

    /** Whether this kernel can create {@code kind} links: the probe STATUS uses. */
    static boolean supported(String kind) {
        try {
            KernelSupport.require(kind);
            return true;
        } catch (io.jcni.spec.CniException e) {
            assertThat(e.code()).as(e.getMessage()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
            return false;
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"vlan", "ipvlan", "dummy"})
    void withoutKernelSupportAddFailsWithCode50AndLeavesNothing(String type) throws Exception {
        String kind = type;
        assumeTrue(!supported(kind), () -> "this kernel supports " + kind + ": the missing-support path cannot run");
        String conf = "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"" + type + "\",\"master\":\"master0\","
                + "\"linkInContainer\":true,\"vlanId\":10,\"ipam\":{\"type\":\"never-called\"}}";
        CniError error = call("ADD", conf).run(PluginRegistry.skel(type)).error();
        assertThat(error.code()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
        assertThat(error.msg()).isEqualTo("failed to create " + kind + ": the running kernel has no " + kind
                + " support (" + KernelSupport.option(kind) + ")");
        assertThat(error.details()).contains("EOPNOTSUPP");
        assertThat(names()).containsExactly("lo", "master0", "peer0");

        String status = "{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"" + type + "\"}";
        CniError statusError = PluginCall.of("STATUS").stdin(status).run(PluginRegistry.skel(type)).error();
        assertThat(statusError.code()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
        assertThat(statusError.msg()).isEqualTo(error.msg());
    }

    @Test
    void macvlanIsSupportedHereAndStatusSaysSo() throws Exception {
        assertThat(supported("macvlan")).isTrue();
        PluginCall.of("STATUS").stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"n\",\"type\":\"macvlan\"}")
                .run(PluginRegistry.skel("macvlan")).ok();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"vlan", "ipvlan", "dummy"})
    void withKernelSupportTheLinkIsMadeAndRemoved(String type) throws Exception {
        assumeTrue(supported(type), () -> "this kernel lacks " + KernelSupport.option(type) + " (EOPNOTSUPP "
                + "\"Unknown device type\"): " + type + " links cannot be created here");
        try (NetlinkHandle nl = Netlink.open(netns)) {
            LinkAttrs attrs = LinkAttrs.named("probe1");
            if (type.equals("dummy")) {
                nl.addDummy(attrs);
            } else {
                new NewLink(type, nl.link("master0").index(), MacvlanMode.BRIDGE, io.jcni.netlink.IpvlanMode.L2, 7)
                        .create(nl, attrs);
            }
            assertThat(nl.link("probe1").kind()).isEqualTo(type);
            nl.deleteLink("probe1");
        } catch (NetlinkException e) {
            throw new AssertionError(e);
        }
    }
}
