package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Link operations against the kernel, each read back through our API and through {@code ip -j -d link}. */
class LinkOpsTest {
    private TestNamespace t;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    /** Skips (with the kernel's own words) when a link type is not built into this kernel; rethrows otherwise. */
    static void skipIfKernelLacks(NetlinkException e, String kind, String config) {
        if (e.kind() != NetlinkException.Kind.NOT_SUPPORTED) {
            throw e;
        }
        assertThat(e.getMessage()).startsWith("RTM_").contains(kind).contains("EOPNOTSUPP (Operation not supported)");
        Assumptions.abort("kernel lacks " + config + ": " + e.getMessage());
    }

    private static List<String> flags(JsonNode link) {
        return StreamSupport.stream(link.get("flags").spliterator(), false).map(JsonNode::asText).toList();
    }

    @Test
    void listsLinksAndFindsThemByNameAndIndex() {
        Link v0 = t.vethPair("v0", "v1");
        List<Link> links = t.nl.links();
        assertThat(links).extracting(Link::name).containsExactlyInAnyOrder("lo", "v0", "v1");
        assertThat(t.nl.link(v0.index())).isEqualTo(v0);
        assertThat(t.nl.findLink("v1")).get().extracting(Link::name).isEqualTo("v1");
        assertThat(t.nl.findLink("nothere")).isEmpty();
        assertThat(t.nl.findLink(9999)).isEmpty();
        assertThatThrownBy(() -> t.nl.link("nothere")).isInstanceOfSatisfying(NetlinkException.class, e -> {
            assertThat(e.isNotFound()).isTrue();
            assertThat(e.getMessage()).isEqualTo("RTM_GETLINK nothere: ENODEV (No such device)");
        });
        JsonNode ip = t.ip("link", "show");
        assertThat(ip).hasSize(3);
        for (JsonNode j : ip) {
            Link ours = t.nl.link(j.get("ifname").asText());
            assertThat(ours.index()).isEqualTo(j.get("ifindex").asInt());
            assertThat(ours.mtu()).isEqualTo(j.get("mtu").asInt());
        }
    }

    @Test
    void vethPeerIsCreatedDirectlyInAnotherNamespaceByFd() {
        try (TestNamespace host = TestNamespace.create()) {
            t.nl.addVeth(LinkAttrs.named("eth0").mtu(1400).address(MacAddress.parse("02:00:00:00:00:01")),
                    LinkAttrs.named("veth-host").mtu(1400).netns(host.ns));
            host.nl.setUp(host.nl.link("veth-host").index());
            Link eth0 = t.nl.link("eth0");
            Link peer = host.nl.link("veth-host");
            assertThat(t.nl.findLink("veth-host")).isEmpty();
            assertThat(eth0.info()).isEqualTo(new LinkInfo.Veth());
            assertThat(eth0.mtu()).isEqualTo(1400);
            assertThat(eth0.address()).isEqualTo(MacAddress.parse("02:00:00:00:00:01"));
            assertThat(eth0.parentIndex()).isEqualTo(peer.index());
            assertThat(eth0.linkNetnsId()).isGreaterThanOrEqualTo(0);
            assertThat(peer.parentIndex()).isEqualTo(eth0.index());
            assertThat(peer.isUp()).isTrue();
            assertThat(eth0.isUp()).isFalse();

            JsonNode ipEth0 = t.ipLink("eth0");
            assertThat(ipEth0.get("linkinfo").get("info_kind").asText()).isEqualTo("veth");
            assertThat(ipEth0.get("link_netnsid").asInt()).isEqualTo(eth0.linkNetnsId());
            assertThat(ipEth0.get("link_index").asInt()).isEqualTo(peer.index());
            assertThat(ipEth0.get("address").asText()).isEqualTo("02:00:00:00:00:01");
            JsonNode ipPeer = host.ipLink("veth-host");
            assertThat(ipPeer.get("mtu").asInt()).isEqualTo(1400);
            assertThat(flags(ipPeer)).contains("UP");
        }
    }

    @Test
    void vethPeerCannotBeSetUpInTheCreatingRequest() {
        assertThatThrownBy(() -> t.nl.addVeth(LinkAttrs.named("v0"), LinkAttrs.named("v1").up(true)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("setUp");
        assertThat(t.nl.findLink("v0")).isEmpty();
    }

    @Test
    void bridgeIsCreatedAndReadBack() {
        t.nl.addBridge(LinkAttrs.named("br0").mtu(1450).up(true));
        Link br = t.nl.link("br0");
        JsonNode ip = t.ipLink("br0");
        JsonNode data = ip.get("linkinfo").get("info_data");
        // Kernels without CONFIG_BRIDGE_VLAN_FILTERING report neither attribute; we then read false and 0.
        int pvid = data.has("vlan_default_pvid") ? data.get("vlan_default_pvid").asInt() : 0;
        assertThat(br.info()).isEqualTo(new LinkInfo.Bridge(false, pvid, data.get("stp_state").asInt()));
        assertThat(data.path("vlan_filtering").asInt()).isZero();
        assertThat(ip.get("linkinfo").get("info_kind").asText()).isEqualTo("bridge");
        assertThat(br.isUp()).isTrue();
        assertThat(ip.get("mtu").asInt()).isEqualTo(1450);
    }

    @Test
    void bridgeWithVlanFiltering() {
        try {
            t.nl.addBridge(LinkAttrs.named("br0"), true, 0);
        } catch (NetlinkException e) {
            skipIfKernelLacks(e, "br0 type bridge vlan_filtering 1", "CONFIG_BRIDGE_VLAN_FILTERING");
        }
        Link br = t.nl.link("br0");
        assertThat(br.info()).isEqualTo(new LinkInfo.Bridge(true, 0, 0));
        JsonNode data = t.ipLink("br0").get("linkinfo").get("info_data");
        assertThat(data.get("vlan_filtering").asInt()).isEqualTo(1);
        assertThat(data.get("vlan_default_pvid").asInt()).isZero();
    }

    @Test
    void vlanOnAParent() {
        Link parent = t.vethPair("v0", "v1");
        try {
            t.nl.addVlan(LinkAttrs.named("v0.100").mtu(1400), parent.index(), 100);
        } catch (NetlinkException e) {
            skipIfKernelLacks(e, "type vlan id 100", "CONFIG_VLAN_8021Q");
        }
        Link vlan = t.nl.link("v0.100");
        assertThat(vlan.info()).isEqualTo(new LinkInfo.Vlan(100, 0x8100));
        assertThat(vlan.parentIndex()).isEqualTo(parent.index());
        JsonNode ip = t.ipLink("v0.100");
        assertThat(ip.get("linkinfo").get("info_data").get("id").asInt()).isEqualTo(100);
        assertThat(ip.get("linkinfo").get("info_data").get("protocol").asText()).isEqualTo("802.1Q");
    }

    @ParameterizedTest
    @EnumSource(MacvlanMode.class)
    void macvlanInEveryMode(MacvlanMode mode) {
        Link parent = t.vethPair("v0", "v1");
        t.nl.addMacvlan(LinkAttrs.named("mv0").mtu(1400), parent.index(), mode);
        Link mv = t.nl.link("mv0");
        assertThat(mv.info()).isEqualTo(new LinkInfo.Macvlan("macvlan", mode));
        assertThat(mv.parentIndex()).isEqualTo(parent.index());
        assertThat(mv.mtu()).isEqualTo(1400);
        JsonNode ip = t.ipLink("mv0");
        assertThat(ip.get("link").asText()).isEqualTo("v0");
        assertThat(ip.get("linkinfo").get("info_kind").asText()).isEqualTo("macvlan");
        assertThat(ip.get("linkinfo").get("info_data").get("mode").asText())
                .isEqualTo(mode.name().toLowerCase(Locale.ROOT));
    }

    @Test
    void macvlanCreatedInAnotherNamespaceOnAParentHere() {
        Link parent = t.vethPair("v0", "v1");
        try (TestNamespace container = TestNamespace.create()) {
            t.nl.addMacvlan(LinkAttrs.named("mv-tmp").netns(container.ns), parent.index(), MacvlanMode.BRIDGE);
            assertThat(t.nl.findLink("mv-tmp")).isEmpty();
            Link mv = container.nl.link("mv-tmp");
            assertThat(mv.info()).isEqualTo(new LinkInfo.Macvlan("macvlan", MacvlanMode.BRIDGE));
            assertThat(mv.linkNetnsId()).isGreaterThanOrEqualTo(0);
            assertThat(container.ipLink("mv-tmp").get("linkinfo").get("info_data").get("mode").asText())
                    .isEqualTo("bridge");
        }
    }

    @ParameterizedTest
    @EnumSource(IpvlanMode.class)
    void ipvlanInEveryModeAndFlag(IpvlanMode mode) {
        Link parent = t.vethPair("v0", "v1");
        for (IpvlanFlag flag : IpvlanFlag.values()) {
            String name = "iv-" + flag.name().toLowerCase(Locale.ROOT);
            try {
                t.nl.addIpvlan(LinkAttrs.named(name), parent.index(), mode, flag);
            } catch (NetlinkException e) {
                skipIfKernelLacks(e, "type ipvlan", "CONFIG_IPVLAN");
            }
            Link iv = t.nl.link(name);
            assertThat(iv.info()).isEqualTo(new LinkInfo.Ipvlan(mode, flag));
            JsonNode data = t.ipLink(name).get("linkinfo").get("info_data");
            assertThat(data.get("mode").asText()).isEqualTo(mode.name().toLowerCase(Locale.ROOT));
            assertThat(data.get("flags").asText()).isEqualTo(flag.name().toLowerCase(Locale.ROOT));
        }
    }

    @Test
    void dummyFailsClearlyWhereTheKernelLacksIt() {
        try {
            t.nl.addDummy(LinkAttrs.named("d0"));
        } catch (NetlinkException e) {
            assertThat(e.getMessage()).isEqualTo(
                    "RTM_NEWLINK d0 type dummy: EOPNOTSUPP (Operation not supported): Unknown device type");
            skipIfKernelLacks(e, "type dummy", "CONFIG_DUMMY");
        }
        assertThat(t.nl.link("d0").info()).isEqualTo(new LinkInfo.Dummy());
        assertThat(t.ipLink("d0").get("linkinfo").get("info_kind").asText()).isEqualTo("dummy");
    }

    @Test
    void deletesByIndexAndByNameAndReportsMissingAsNotFound() {
        Link v0 = t.vethPair("v0", "v1");
        t.nl.addBridge(LinkAttrs.named("br0"));
        t.nl.deleteLink(v0.index());
        assertThat(t.nl.findLink("v1")).as("deleting one end deletes the pair").isEmpty();
        t.nl.deleteLink("br0");
        assertThat(t.ip("link", "show")).extracting(j -> j.get("ifname").asText()).containsExactly("lo");
        assertThatThrownBy(() -> t.nl.deleteLink("br0")).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.isNotFound()).isTrue());
        assertThatThrownBy(() -> t.nl.deleteLink(v0.index())).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.isNotFound()).isTrue());
    }

    @Test
    void addingAnExistingNameIsExists() {
        t.vethPair("v0", "v1");
        assertThatThrownBy(() -> t.nl.addBridge(LinkAttrs.named("v0")))
                .isInstanceOfSatisfying(NetlinkException.class, e -> {
                    assertThat(e.isExists()).isTrue();
                    assertThat(e.errnoName()).isEqualTo("EEXIST");
                    assertThat(e.getMessage()).startsWith("RTM_NEWLINK v0 type bridge: EEXIST (File exists)");
                });
    }

    @Test
    void setsUpDownMtuAddressNameTxqueuelenPromiscAllmultiAlias() {
        Link v0 = t.vethPair("v0", "v1");
        int i = v0.index();
        t.nl.setDown(i);
        assertThat(t.nl.link(i).isUp()).isFalse();
        assertThat(flags(t.ipLink("v0"))).doesNotContain("UP");
        t.nl.setMtu(i, 1280);
        t.nl.setAddress(i, MacAddress.parse("02:aa:bb:cc:dd:ee"));
        t.nl.setName(i, "renamed0");
        t.nl.setTxQueueLen(i, 77);
        t.nl.setPromisc(i, true);
        t.nl.setAllmulti(i, true);
        t.nl.setAlias(i, "container side");
        t.nl.setUp(i);

        Link l = t.nl.link(i);
        assertThat(l.name()).isEqualTo("renamed0");
        assertThat(l.mtu()).isEqualTo(1280);
        assertThat(l.address()).isEqualTo(MacAddress.parse("02:aa:bb:cc:dd:ee"));
        assertThat(l.txQueueLen()).isEqualTo(77);
        assertThat(l.isPromisc()).isTrue();
        assertThat(l.promiscuity()).isEqualTo(1);
        assertThat(l.isAllmulti()).isTrue();
        assertThat(l.alias()).isEqualTo("container side");
        assertThat(l.isUp()).isTrue();
        assertThat(l.operState()).isEqualTo(OperState.UP);

        JsonNode ip = t.ipLink("renamed0");
        assertThat(ip.get("ifindex").asInt()).isEqualTo(i);
        assertThat(ip.get("mtu").asInt()).isEqualTo(1280);
        assertThat(ip.get("address").asText()).isEqualTo("02:aa:bb:cc:dd:ee");
        assertThat(ip.get("txqlen").asInt()).isEqualTo(77);
        assertThat(ip.get("ifalias").asText()).isEqualTo("container side");
        assertThat(ip.get("operstate").asText()).isEqualTo("UP");
        assertThat(flags(ip)).contains("UP", "PROMISC", "ALLMULTI", "LOWER_UP");
        if (ip.has("allmulti")) {
            assertThat(l.allmulti()).isEqualTo(ip.get("allmulti").asInt());
        }

        t.nl.setPromisc(i, false);
        t.nl.setAllmulti(i, false);
        t.nl.setAlias(i, "");
        Link back = t.nl.link(i);
        assertThat(back.isPromisc()).isFalse();
        assertThat(back.isAllmulti()).isFalse();
        assertThat(back.alias()).isEmpty();
        JsonNode ipBack = t.ipLink("renamed0");
        assertThat(flags(ipBack)).doesNotContain("PROMISC", "ALLMULTI");
        assertThat(ipBack.has("ifalias")).isFalse();
    }

    @Test
    void setsAndClearsMasterAndBridgePortFlags() {
        Link v0 = t.vethPair("v0", "v1");
        t.nl.addBridge(LinkAttrs.named("br0").up(true));
        Link br = t.nl.link("br0");
        t.nl.setMaster(v0.index(), br.index());
        t.nl.setHairpin(v0.index(), true);
        t.nl.setIsolated(v0.index(), true);

        Link port = t.nl.link(v0.index());
        assertThat(port.masterIndex()).isEqualTo(br.index());
        assertThat(port.bridgePort()).isNotNull();
        assertThat(port.bridgePort().hairpin()).isTrue();
        assertThat(port.bridgePort().isolated()).isTrue();
        assertThat(port.bridgePort().learning()).isTrue();
        JsonNode ip = t.ipLink("v0");
        assertThat(ip.get("master").asText()).isEqualTo("br0");
        JsonNode slave = ip.get("linkinfo").get("info_slave_data");
        assertThat(ip.get("linkinfo").get("info_slave_kind").asText()).isEqualTo("bridge");
        assertThat(slave.get("hairpin").asBoolean()).isTrue();
        assertThat(slave.get("isolated").asBoolean()).isTrue();
        assertThat(slave.get("cost").asInt()).isEqualTo(port.bridgePort().cost());
        assertThat(slave.get("priority").asInt()).isEqualTo(port.bridgePort().priority());

        t.nl.setHairpin(v0.index(), false);
        assertThat(t.nl.link(v0.index()).bridgePort().hairpin()).isFalse();
        assertThat(t.ipLink("v0").get("linkinfo").get("info_slave_data").get("hairpin").asBoolean()).isFalse();

        t.nl.setNoMaster(v0.index());
        Link free = t.nl.link(v0.index());
        assertThat(free.masterIndex()).isZero();
        assertThat(free.bridgePort()).isNull();
        assertThat(t.ipLink("v0").has("master")).isFalse();
    }

    @Test
    void hairpinOnALinkThatIsNoBridgePortIsRejected() {
        Link v0 = t.vethPair("v0", "v1");
        assertThatThrownBy(() -> t.nl.setHairpin(v0.index(), true)).isInstanceOf(NetlinkException.class)
                .hasMessageStartingWith("RTM_NEWLINK dev " + v0.index() + " type bridge_slave hairpin on: ");
    }

    @Test
    void bridgeVlansAddAndDelete() {
        Link v0 = t.vethPair("v0", "v1");
        try {
            t.nl.addBridge(LinkAttrs.named("br0"), true, 0);
        } catch (NetlinkException e) {
            skipIfKernelLacks(e, "vlan_filtering", "CONFIG_BRIDGE_VLAN_FILTERING");
        }
        Link br = t.nl.link("br0");
        t.nl.setMaster(v0.index(), br.index());
        t.nl.addBridgeVlan(v0.index(), new BridgeVlan(10, true, true), false);
        t.nl.addBridgeVlan(v0.index(), new BridgeVlan(20, false, false), false);
        t.nl.addBridgeVlan(br.index(), new BridgeVlan(10, false, false), true);
        assertThat(t.nl.bridgeVlans(v0.index())).containsExactlyInAnyOrder(new BridgeVlan(10, true, true),
                new BridgeVlan(20, false, false));
        assertThat(t.nl.bridgeVlans(br.index())).contains(new BridgeVlan(10, false, false));
        JsonNode ip = t.bridge("vlan", "show", "dev", "v0");
        assertThat(ip.get(0).get("vlans")).extracting(j -> j.get("vlan").asInt()).containsExactlyInAnyOrder(10, 20);
        t.nl.deleteBridgeVlan(v0.index(), 20, false);
        assertThat(t.nl.bridgeVlans(v0.index())).containsExactly(new BridgeVlan(10, true, true));
    }

    @Test
    void movesALinkToAnotherNamespaceByFd() {
        Link v0 = t.vethPair("v0", "v1");
        try (TestNamespace other = TestNamespace.create()) {
            t.nl.setNetns(v0.index(), other.ns);
            assertThat(t.nl.findLink("v0")).isEmpty();
            Link moved = other.nl.link("v0");
            assertThat(moved.info()).isEqualTo(new LinkInfo.Veth());
            assertThat(other.ip("link", "show")).extracting(j -> j.get("ifname").asText()).contains("v0");
            assertThat(t.ip("link", "show")).extracting(j -> j.get("ifname").asText()).doesNotContain("v0");
        }
    }
}
