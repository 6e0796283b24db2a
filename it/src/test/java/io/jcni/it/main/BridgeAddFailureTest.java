package io.jcni.it.main;

import static io.jcni.it.main.BridgeTest.NETWORK;
import static io.jcni.it.main.BridgeTest.conflist;
import static io.jcni.it.main.BridgeTest.hostLocal;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.DriverOutcome;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Names;
import io.jcni.it.support.ProcessResult;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ADDs of jcni's bridge that fail, through Go libcni (which does not run DEL after a failed ADD, so whatever is left
 * is the plugin's own doing): each leaves no veth (the namespace holds only {@code lo}), no reservation, no bridge or
 * bridge address it made in the test host, and an existing bridge as it was.
 */
class BridgeAddFailureTest {
    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;
    private TestHost host;
    private TestNetns netns;
    private String bridge;
    private LibcniDriver driver;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
        host = world.host;
        netns = world.netns();
        bridge = world.bridge();
        driver = world.libcniWithJcni("cache");
    }

    DriverOutcome add(String keys, String ipam) throws Exception {
        Path conf = world.write("bad.conflist", conflist("1.0.0", bridge, keys, ipam));
        DriverOutcome outcome = driver.add(conf, netns.path(), Attachment.of("bad", "eth0"));
        assertThat(outcome.succeeded()).as("ADD must fail").isFalse();
        return outcome;
    }

    void assertNothingLeftInTheContainerOrIpam() throws Exception {
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    boolean bridgeExists() {
        return host.kernel().link(bridge).isPresent();
    }

    @Test
    void anUnknownIpMasqBackendIsRefusedWithCode7BeforeAnything() throws Exception {
        JsonNode error = add(",\"ipMasq\":true,\"ipMasqBackend\":\"pf\"", hostLocal(world.dataDir(), 10, false, ""))
                .cniError();
        assertThat(error.path("code").asInt()).isEqualTo(7);
        assertThat(error.path("msg").asText()).isEqualTo("unknown ipmasq backend \"pf\"");
        assertThat(bridgeExists()).isFalse();
        assertNothingLeftInTheContainerOrIpam();
        assertThat(host.exec("nft", "list", "ruleset").requireSuccess().stdout()).isBlank();
    }

    /**
     * macspoofchk's chains are set up before IPAM: a failure after IPAM (an unreachable route) takes them back, and
     * the {@code bridge nat} table this ADD created with them.
     */
    @Test
    void aFailureAfterTheSpoofCheckRemovesItsChainsAndTheTableItMade() throws Exception {
        JsonNode error = add(",\"isGateway\":true,\"macspoofchk\":true,\"ipMasq\":true", hostLocal(world.dataDir(),
                10, false, "{\"dst\":\"10.50.0.0/16\",\"gw\":\"10.99.0.1\"}")).cniError();
        assertThat(error.path("msg").asText()).startsWith("failed to add route '10.50.0.0/16 via 10.99.0.1");
        assertThat(bridgeExists()).isFalse();
        assertNothingLeftInTheContainerOrIpam();
        assertThat(host.exec("nft", "list", "ruleset").requireSuccess().stdout()).isBlank();
    }

    @Test
    void aFailureAfterIpamAndTheFirstGatewayAddressUndoesEverything() throws Exception {
        // Two IPv4 ranges with isGateway: the bridge gets the first gateway, then refuses the second (Go's
        // ensureAddr rule: one IPv4 address per bridge). By then the bridge, the veth, both reservations and the
        // first gateway address exist; the rollback must take them all back.
        String ipam = "{\"type\":\"host-local\",\"dataDir\":\"" + world.dataDir() + "\",\"ranges\":["
                + "[{\"subnet\":\"10.216.11.0/24\"}],[{\"subnet\":\"10.216.12.0/24\"}]]}";
        JsonNode error = add(",\"isGateway\":true", ipam).cniError();
        assertThat(error.path("msg").asText()).startsWith("\"" + bridge
                + "\" already has an IP address different from 10.216.12.1/24");
        assertThat(bridgeExists()).as("the bridge this ADD created").isFalse();
        assertNothingLeftInTheContainerOrIpam();
    }

    @Test
    void anUnreachableRouteUndoesEverythingIncludingTheBridgeItCreated() throws Exception {
        JsonNode error = add(",\"isGateway\":true", hostLocal(world.dataDir(), 13, true,
                "{\"dst\":\"10.50.0.0/16\",\"gw\":\"10.99.0.1\"}")).cniError();
        assertThat(error.path("msg").asText())
                .startsWith("failed to add route '10.50.0.0/16 via 10.99.0.1 dev eth0': RTM_NEWROUTE")
                .contains("ENETUNREACH");
        assertThat(bridgeExists()).isFalse();
        assertNothingLeftInTheContainerOrIpam();
    }

    @Test
    void anExistingBridgeKeepsItsAddressAndAnotherSubnetIsRefusedWithoutForceAddress() throws Exception {
        host.exec("ip", "link", "add", bridge, "type", "bridge").requireSuccess();
        host.exec("ip", "addr", "add", "10.216.14.1/24", "dev", bridge).requireSuccess();
        host.exec("sysctl", "-qw", "net.ipv6.conf." + bridge + ".accept_ra=2").requireSuccess();
        JsonNode error = add(",\"isGateway\":true", hostLocal(world.dataDir(), 15, false, "")).cniError();
        assertThat(error.path("msg").asText()).startsWith("\"" + bridge
                + "\" already has an IP address different from 10.216.15.1/24");
        assertThat(bridgeExists()).as("not ours to delete").isTrue();
        assertThat(host.kernel().addresses(bridge)).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.216.14.1/24");
        assertThat(host.kernel().sysctl("net/ipv6/conf/" + bridge + "/accept_ra")).as("restored")
                .isEqualTo("2");
        assertThat(host.kernel().links()).noneMatch(l -> bridge.equals(l.master()));
        assertNothingLeftInTheContainerOrIpam();
    }

    @Test
    void forceAddressReplacesTheExistingGatewayAddress() throws Exception {
        host.exec("ip", "link", "add", bridge, "type", "bridge").requireSuccess();
        host.exec("ip", "addr", "add", "10.216.16.1/24", "dev", bridge).requireSuccess();
        Path conf = world.write("force.conflist", conflist("1.0.0", bridge, ",\"isGateway\":true,\"forceAddress\":true",
                hostLocal(world.dataDir(), 17, false, "")));
        driver.add(conf, netns.path(), Attachment.of("force", "eth0")).answer();
        assertThat(host.kernel().addresses(bridge)).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.216.17.1/24");
        driver.del(conf, netns.path(), Attachment.of("force", "eth0")).answer();
    }

    @Test
    void anExistingContainerInterfaceIsNamedAndNothingIsLeft() throws Exception {
        netns.exec("ip", "link", "add", "eth0", "type", "veth", "peer", "name", "peer0").requireSuccess();
        JsonNode error = add("", hostLocal(world.dataDir(), 18, false, "")).cniError();
        assertThat(error.path("msg").asText()).isEqualTo("container veth name provided (eth0) already exists");
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactlyInAnyOrder("lo", "eth0", "peer0");
        assertThat(bridgeExists()).isFalse();
        assertThat(world.reservations(NETWORK)).isEmpty();
    }

    @Test
    void aHostLinkOfTheBridgesNameThatIsNoBridgeIsRefused() throws Exception {
        host.exec("ip", "link", "add", bridge, "type", "veth", "peer", "name", world.bridge()).requireSuccess();
        JsonNode error = add("", hostLocal(world.dataDir(), 19, false, "")).cniError();
        assertThat(error.path("msg").asText()).isEqualTo("\"" + bridge + "\" already exists but is not a bridge");
        assertNothingLeftInTheContainerOrIpam();
    }

    @Test
    void aMalformedMacIsRefusedBeforeAnything() throws Exception {
        JsonNode error = add(",\"args\":{\"cni\":{\"mac\":\"0a:58:0a\"}}", hostLocal(world.dataDir(), 20, false, ""))
                .cniError();
        assertThat(error.path("code").asInt()).isEqualTo(7);
        assertThat(bridgeExists()).isFalse();
        assertNothingLeftInTheContainerOrIpam();
    }

    /** Whether this kernel can make a VLAN-filtering bridge (this machine's cannot: EOPNOTSUPP), asked in the host. */
    ProcessResult probeVlanFiltering() {
        String probe = Names.link(NetWorld.TAG);
        ProcessResult made = host.exec("ip", "link", "add", probe, "type", "bridge", "vlan_filtering", "1");
        host.exec("ip", "link", "del", probe);
        return made;
    }

    @Test
    void vlanOnAKernelWithoutBridgeVlanFilteringFailsNamingTheKernelsRefusal() throws Exception {
        ProcessResult probe = probeVlanFiltering();
        Prerequisites.assumeKernel(!probe.succeeded(), () -> "has bridge VLAN filtering: the refusal path cannot occur");
        JsonNode error = add(",\"vlan\":100", hostLocal(world.dataDir(), 21, false, "")).cniError();
        assertThat(error.path("msg").asText()).startsWith("failed to create bridge \"" + bridge
                + "\" with VLAN filtering (needed by vlan/vlanTrunk): the kernel refused it: RTM_NEWLINK")
                .contains("EOPNOTSUPP");
        assertThat(error.path("details").asText()).contains("not built into this kernel");
        assertThat(bridgeExists()).isFalse();
        assertNothingLeftInTheContainerOrIpam();
    }

    @Test
    void vlanTagsTheHostPort() throws Exception {
        ProcessResult probe = probeVlanFiltering();
        Prerequisites.assumeKernel(probe.succeeded(), () -> "lacks bridge VLAN filtering: `ip link add type bridge "
                + "vlan_filtering 1` answers: " + probe.stderr().strip());
        Path conf = world.write("vlan.conflist", conflist("1.0.0", bridge, ",\"vlan\":100,\"preserveDefaultVlan\":false",
                hostLocal(world.dataDir(), 22, false, "")));
        JsonNode result = driver.add(conf, netns.path(), Attachment.of("vlan", "eth0")).answer();
        String port = result.path("interfaces").get(1).path("name").asText();
        String vlans = host.exec("bridge", "-j", "vlan", "show", "dev", port).requireSuccess().stdout();
        assertThat(vlans).contains("\"vlan\":100").contains("PVID").doesNotContain("\"vlan\":1,");
        driver.del(conf, netns.path(), Attachment.of("vlan", "eth0")).answer();
    }
}
