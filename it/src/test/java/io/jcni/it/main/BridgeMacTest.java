package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.TestNetns;
import java.nio.file.Path;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bridge's own MAC. A Linux bridge whose MAC was never set takes the lowest MAC among its ports, and the kernel
 * zeroes it when the last port leaves. jcni's bridge pins the MAC of a bridge it makes when it makes it, so that a
 * port that joins later (a container's, or anything else's) never changes it and every ADD records the MAC that
 * CHECK finds; and a bridge made elsewhere whose MAC the kernel zeroed gets a random one instead of an ADD that
 * fails. Go libcni drives jcni's launchers; the MAC is read back from the test host's kernel with {@code ip -j}.
 */
class BridgeMacTest {
    /** Lower than any MAC a veth or a bridge picks at random (the first byte of those is {@code x2}, x ≥ 0). */
    private static final String LOW_MAC = "02:00:00:00:00:01";
    private static final String ZERO_MAC = "00:00:00:00:00:00";

    @TempDir
    Path tmp;

    @AutoClose
    private NetWorld world;

    @BeforeEach
    void world() {
        world = new NetWorld(tmp);
    }

    private String mac(String link) {
        return world.host.kernel().link(link).orElseThrow().mac();
    }

    /** A veth end with the lowest MAC becomes a port of {@code bridge}, as another tool's link might. */
    private void attachLowMacPort(String bridge, String name) {
        world.host.exec("ip", "link", "add", name, "address", LOW_MAC, "type", "veth", "peer", "name", name + "p")
                .requireSuccess();
        world.host.exec("ip", "link", "set", name, "master", bridge, "up").requireSuccess();
    }

    /**
     * jcni's ADD on {@code bridge}, then a port with the lowest MAC joins: the bridge keeps the MAC the ADD recorded,
     * CHECK passes, and the MAC stays once every port left (the pod's DEL, the port deleted).
     */
    private void addKeepsTheRecordedMac(String bridge, String keys, int subnet) throws Exception {
        TestNetns netns = world.netns();
        Path conf = world.write("mac.conflist", BridgeTest.conflist("1.0.0", bridge, keys,
                BridgeTest.hostLocal(world.dataDir(), subnet, false, "")));
        LibcniDriver driver = world.libcniWithJcni("cache");
        Attachment pod = Attachment.of("mac-pod", "eth0");
        JsonNode result = driver.add(conf, netns.path(), pod).answer();
        String recorded = result.path("interfaces").get(0).path("mac").asText();
        assertThat(recorded).isNotEqualTo(ZERO_MAC).isEqualTo(mac(bridge));

        attachLowMacPort(bridge, "lowmac0");
        assertThat(mac(bridge)).as("pinned: a port with a lower MAC joined").isEqualTo(recorded);
        assertThat(driver.check(conf, netns.path(), pod).succeeded()).as("CHECK finds the recorded MAC").isTrue();

        world.host.exec("ip", "link", "del", "lowmac0").requireSuccess();
        driver.del(conf, netns.path(), pod).answer();
        assertThat(world.host.kernel().link(bridge)).as("DEL leaves the bridge").isPresent();
        assertThat(mac(bridge)).as("after every port left").isEqualTo(recorded);
    }

    /** Without isGateway: Go's bridge never pins the MAC then, and it follows the ports for the bridge's life. */
    @Test
    void aBridgeItMakesKeepsItsMacWhilePortsComeAndGo() throws Exception {
        addKeepsTheRecordedMac(world.bridge(), "", 40);
    }

    /** The bridge of the test below, without the gateway address, as the kernel leaves it: MAC zeroed. */
    private String zeroedForeignBridge() {
        String bridge = world.bridge();
        world.host.exec("ip", "link", "add", bridge, "type", "bridge").requireSuccess();
        world.host.exec("ip", "link", "set", bridge, "up").requireSuccess();
        attachLowMacPort(bridge, "gone0");
        assertThat(mac(bridge)).as("an unpinned bridge takes its port's MAC").isEqualTo(LOW_MAC);
        world.host.exec("ip", "link", "del", "gone0").requireSuccess();
        assertThat(mac(bridge)).as("the kernel zeroes it once the last port left").isEqualTo(ZERO_MAC);
        return bridge;
    }

    /** What the test below departs from: Go's bridge re-sets the zero MAC, and the kernel refuses it. */
    @Test
    void goFailsOnAForeignBridgeWhoseMacTheKernelZeroed() throws Exception {
        String bridge = zeroedForeignBridge();
        Path conf = world.write("go.conflist", BridgeTest.conflist("1.0.0", bridge, ",\"isGateway\":true",
                BridgeTest.hostLocal(world.dataDir(), 42, false, "")));
        assertThat(BridgeTest.cniMsg(world.libcniWithGo("go-cache").add(conf, world.netns().path(),
                Attachment.of("mac-go", "eth0"))))
                .isEqualTo("failed to set bridge addr: could not set bridge's mac: invalid argument");
    }

    /**
     * A bridge made by another tool, not pinned, whose ports all left: the kernel zeroed its MAC, and refuses to set
     * a zero one. With the gateway address still on it, Go's ADD leaves the MAC unpinned (it follows the ports
     * again); without it, Go's ADD re-sets the zero MAC it read and fails with EINVAL, for every ADD after it.
     */
    @ParameterizedTest(name = "gateway address already on the bridge: {0}")
    @ValueSource(booleans = {false, true})
    void aForeignBridgeWhoseMacTheKernelZeroedGetsAPinnedOne(boolean gatewayPresent) throws Exception {
        String bridge = zeroedForeignBridge();
        if (gatewayPresent) {
            world.host.exec("ip", "addr", "add", "10.216.41.1/24", "dev", bridge).requireSuccess();
        }
        addKeepsTheRecordedMac(bridge, ",\"isGateway\":true", 41);
    }
}
