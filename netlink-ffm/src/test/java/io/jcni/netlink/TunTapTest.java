package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** TUN/TAP devices created through {@code /dev/net/tun} inside a test namespace, read back with {@code ip -d -j link}. */
class TunTapTest {
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

    @Test
    void multiQueueTapWithOwnerAndGroupInTheTargetNamespace() {
        assertThat(TunTap.tap("tap0").multiQueue(true).owner(54321).group(54322).create(t.ns)).isEqualTo("tap0");
        Link tap = t.nl.link("tap0");
        assertThat(tap.info()).isEqualTo(new LinkInfo.Tun(true, 54321, 54322, false, false, true, true, 0));
        assertThat(Kernel.run("ip", "link", "show", "dev", "tap0").exit()).as("not in the test's own namespace")
                .isNotZero();
        JsonNode data = t.ipLink("tap0").get("linkinfo");
        assertThat(data.get("info_kind").asText()).isEqualTo("tun");
        JsonNode info = data.get("info_data");
        assertThat(info.get("type").asText()).isEqualTo("tap");
        assertThat(info.get("pi").asBoolean()).isFalse();
        assertThat(info.get("multi_queue").asBoolean()).isTrue();
        assertThat(info.get("persist").asBoolean()).isTrue();
        assertThat(info.get("user").asText()).isEqualTo("54321");
        assertThat(info.get("group").asText()).isEqualTo("54322");

        // configured afterwards like any link, and deleted like one
        t.nl.setMtu(tap.index(), 9000);
        t.nl.setAddress(tap.index(), MacAddress.parse("02:00:00:00:00:42"));
        t.nl.setUp(tap.index());
        assertThat(t.ipLink("tap0").get("mtu").asInt()).isEqualTo(9000);
        assertThat(t.ipLink("tap0").get("address").asText()).isEqualTo("02:00:00:00:00:42");
        t.nl.deleteLink(tap.index());
        assertThat(t.nl.findLink("tap0")).isEmpty();
    }

    @Test
    void tunWithPacketInfoAndVnetHeaderAndANameTemplate() {
        String name = TunTap.tun("tun%d").packetInfo(true).vnetHeader(true).create(t.ns);
        assertThat(name).isEqualTo("tun0");
        assertThat(t.nl.link(name).info()).isEqualTo(new LinkInfo.Tun(false, -1, -1, true, true, true, false, 0));
        JsonNode info = t.ipLink(name).get("linkinfo").get("info_data");
        assertThat(info.get("type").asText()).isEqualTo("tun");
        assertThat(info.get("pi").asBoolean()).isTrue();
        assertThat(info.get("vnet_hdr").asBoolean()).isTrue();
        assertThat(info.has("user")).isFalse();
    }

    @Test
    void anExistingNameIsExistsAndIsNeverAttachedTo() {
        TunTap.tap("tap0").create(t.ns);
        assertThatThrownBy(() -> TunTap.tap("tap0").create(t.ns)).isInstanceOfSatisfying(NetlinkException.class,
                e -> {
                    assertThat(e.isExists()).as(e.getMessage()).isTrue();
                    assertThat(e.getMessage()).startsWith("TUNSETIFF tap0: EEXIST");
                });
        t.vethPair("v0", "v1");
        assertThatThrownBy(() -> TunTap.tap("v0").create(t.ns)).isInstanceOfSatisfying(NetlinkException.class,
                e -> assertThat(e.isExists()).as(e.getMessage()).isTrue());
        assertThat(t.nl.links()).extracting(Link::name).containsExactlyInAnyOrder("lo", "tap0", "v0", "v1");
    }
}
