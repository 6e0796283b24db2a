package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.Json;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * jcni's tap run by Go libcni, read back with {@code ip -d -j link}. Debian's Go plugins (1.1.1) have no tap (it came
 * in 1.3.0), so the reference is what the latest Go source (1.9.1) does, reproduced with the tool it runs: without
 * both owner and group it execs {@code ip tuntap add mode tap ...}; with both it creates the device through netlink
 * with a virtio-net header and, unless multi-queue, packet information, which {@code ip tuntap add ... vnet_hdr [pi]}
 * makes too. The plugin touches only the container's namespace, so libcni runs in this JVM's (the host-state guard
 * holds it to that).
 */
class TapTest {
    private static final String TAG = "tap";
    private static final String NETWORK = "jcni-tap-net";

    @TempDir
    Path tmp;

    @AutoClose
    private TestNetns container;
    @AutoClose
    private TestNetns reference;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeDistPlugins("tap", "host-local");
        container = TestNetns.create(TAG);
        reference = TestNetns.create(TAG);
    }

    LibcniDriver jcni() {
        return LibcniDriver.create(List.of(Locations.distCniBin(), Locations.referencePlugins()), tmp.resolve("cache"));
    }

    Path conflist(String tapKeys) throws Exception {
        return Files.writeString(tmp.resolve("tap.conflist"), Conflists.list("1.0.0", NETWORK, "{\"type\":\"tap\""
                + tapKeys + "}"));
    }

    /** {@code ip -d -j link show dev tap0} without what differs between two devices by nature (index, MAC). */
    static JsonNode device(TestNetns netns) {
        ObjectNode link = (ObjectNode) Json.parse(netns.exec("ip", "-d", "-j", "link", "show", "dev", "tap0")
                .requireSuccess().stdout()).get(0);
        link.remove(List.of("ifindex", "address"));
        return link;
    }

    /**
     * Go libcni's ADD against the device Go's tap makes for the same keys (the {@code ip} command it runs, or its
     * netlink flags through {@code ip}), MTU, MAC and up as Go sets them: {@code ip -d -j link} reads the same.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "owner and group, multi-queue: Go's netlink device|,\"multiQueue\":true,\"owner\":4242,\"group\":4343"
                + "|vnet_hdr multi_queue user 4242 group 4343",
        "owner and group: Go's netlink device|,\"owner\":4242,\"group\":4343|vnet_hdr pi user 4242 group 4343",
        "owner only, multi-queue: Go's ip tuntap|,\"multiQueue\":true,\"owner\":4242|multi_queue user 4242",
        "group only: Go's ip tuntap|,\"group\":4343|group 4343",
        "neither: Go's ip tuntap||",
    })
    void theDeviceIsWhatGosTapMakes(String what, String keys, String tuntapOptions) throws Exception {
        Path conf = conflist(",\"mtu\":1400,\"mac\":\"02:00:00:12:34:56\"" + (keys == null ? "" : keys));
        Attachment attachment = Attachment.of("tap-cmp", "tap0");
        JsonNode result = jcni().add(conf, container.path(), attachment).answer();
        assertThat(result.path("interfaces").get(0).path("name").asText()).isEqualTo("tap0");
        assertThat(result.path("interfaces").get(0).path("mac").asText()).isEqualTo("02:00:00:12:34:56");
        assertThat(result.path("interfaces").get(0).path("sandbox").asText()).isEqualTo(container.path().toString());

        List<String> add = new ArrayList<>(List.of("ip", "tuntap", "add", "mode", "tap", "name", "tap0"));
        if (tuntapOptions != null) {
            add.addAll(List.of(tuntapOptions.split(" ")));
        }
        reference.exec(add.toArray(String[]::new)).requireSuccess();
        reference.exec("ip", "link", "set", "tap0", "mtu", "1400", "address", "02:00:00:12:34:56", "up")
                .requireSuccess();

        JsonNode ours = device(container);
        assertThat(ours.path("linkinfo").path("info_kind").asText()).isEqualTo("tun");
        assertThat(ours.path("linkinfo").path("info_data").path("type").asText()).isEqualTo("tap");
        assertThat(ours.path("mtu").asInt()).isEqualTo(1400);
        assertThat(ours.toString()).as("jcni (left) against Go's device (right)").isEqualTo(device(reference)
                .toString());

        assertThat(jcni().check(conf, container.path(), attachment).answer()).isEmpty();
        assertThat(jcni().del(conf, container.path(), attachment).answer()).isEmpty();
        assertThat(container.kernel().links()).extracting(l -> l.name()).containsExactly("lo");
        assertThat(jcni().del(conf, container.path(), attachment).answer()).isEmpty();
    }

    /** A bridge in the container gets the device as a port; IPAM's address goes on it; DEL releases it. */
    @Test
    void bridgePortWithAnAddressFromIpam() throws Exception {
        container.exec("ip", "link", "add", "br0", "type", "bridge").requireSuccess();
        container.exec("ip", "link", "set", "br0", "up").requireSuccess();
        Path data = tmp.resolve("ipam");
        Path conf = conflist(",\"bridge\":\"br0\",\"ipam\":" + Conflists.hostLocal(data, List.of("10.219.5.0/24")));
        Attachment attachment = Attachment.of("tap-br", "tap0");

        JsonNode result = jcni().add(conf, container.path(), attachment).answer();
        assertThat(result.path("ips").get(0).path("address").asText()).isEqualTo("10.219.5.2/24");
        assertThat(result.path("ips").get(0).path("interface").asInt()).isZero();
        assertThat(container.kernel().link("tap0").orElseThrow().master()).isEqualTo("br0");
        assertThat(container.kernel().addresses("tap0")).anyMatch(a -> a.cidr().equals("10.219.5.2/24"));
        assertThat(container.exec("sysctl", "-n", "net.ipv4.conf.tap0.arp_notify").requireSuccess().stdout().strip())
                .isEqualTo("1");

        assertThat(jcni().check(conf, container.path(), attachment).answer()).isEmpty();
        assertThat(jcni().del(conf, container.path(), attachment).answer()).isEmpty();
        assertThat(container.kernel().links()).extracting(l -> l.name()).containsExactlyInAnyOrder("lo", "br0");
        assertThat(HostLocalFiles.reservations(data, NETWORK)).isEmpty();
    }

    /** Bad keys through the launcher: the spec's error JSON with the right code, and no device. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown mode|,\"mode\":\"tun\"|7|unknown tap mode: \"tun\"",
        "negative owner|,\"owner\":-5|7|owner: -5 out of range 0-2147483647",
        "owner by name|,\"owner\":\"nobody\"|6|owner: expected integer, got string",
        "group beyond uid_t|,\"group\":99999999999|7|group: 99999999999 out of range 0-2147483647",
        "selinuxContext|,\"selinuxContext\":\"system_u:system_r:container_t:s0\"|2|"
                + "selinuxContext: not supported by jcni's tap",
        "missing bridge|,\"bridge\":\"nobr\"|999|failed to get bridge nobr: Link not found",
    })
    void badInputHasTheRightCodeAndLeavesNoDevice(String what, String keys, int code, String message) {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"" + NETWORK + "\",\"type\":\"tap\"" + keys + "}";
        CniExec.Outcome outcome = CniExec.of(Locations.distPlugin("tap"), List.of(Locations.distCniBin()))
                .add(conf, container.path(), "tap-bad", "tap0");
        assertThat(outcome.code()).isEqualTo(code);
        assertThat(outcome.msg()).isEqualTo(message);
        assertThat(container.kernel().links()).extracting(l -> l.name()).containsExactly("lo");
    }

    @Test
    void versionThroughLibcni() {
        assertThat(jcni().version("tap").answer().path("supportedVersions").toString())
                .isEqualTo("[\"0.1.0\",\"0.2.0\",\"0.3.0\",\"0.3.1\",\"0.4.0\",\"1.0.0\",\"1.1.0\"]");
    }
}
