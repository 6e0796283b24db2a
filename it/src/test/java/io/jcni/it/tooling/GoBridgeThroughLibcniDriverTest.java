package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.IpRoute;
import io.jcni.it.support.KernelState;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Go peer end to end: Go libcni (through the driver, in a test host) runs Debian's Go bridge + host-local into a
 * namespace this test creates, and every effect is read back from the kernel with {@code ip -j}: ADD, CHECK, DEL, DEL
 * again.
 */
class GoBridgeThroughLibcniDriverTest {

    private static final String TAG = "iop";
    private static final String NETWORK = "jcni-iop-bridge";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns netns;
    private String bridge;
    private LibcniDriver driver;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("bridge", "host-local");
        host = TestHost.create(TAG);
        netns = host.container();
        bridge = Names.link(TAG);
        driver = host.libcni(List.of(Locations.referencePlugins()), tmp.resolve("cache"));
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void addCheckDelDelThroughGoLibcni(String cniVersion) throws IOException {
        Path dataDir = tmp.resolve("ipam");
        Path conf = BridgeConflist.write(tmp.resolve("net.conflist"), cniVersion, NETWORK, bridge, dataDir);
        var attachment = Attachment.of("iop-" + cniVersion.replace('.', '-'), "eth0");
        Path reservation = dataDir.resolve(NETWORK).resolve(BridgeConflist.FIRST_ADDRESS.split("/")[0]);
        Path cacheFile = tmp.resolve("cache/results/%s-%s-eth0".formatted(NETWORK, attachment.containerId()));

        JsonNode result = driver.add(conf, netns.path(), attachment).answer();

        assertThat(result.path("cniVersion").asText()).isEqualTo(cniVersion);
        JsonNode interfaces = result.path("interfaces");
        assertThat(interfaces).hasSize(3);
        assertThat(interfaces.get(0).path("name").asText()).isEqualTo(bridge);
        String hostVeth = interfaces.get(1).path("name").asText();
        assertThat(interfaces.get(2).path("name").asText()).isEqualTo("eth0");
        assertThat(interfaces.get(2).path("sandbox").asText()).isEqualTo(netns.path().toString());
        JsonNode ip = result.path("ips").get(0);
        assertThat(ip.path("address").asText()).isEqualTo(BridgeConflist.FIRST_ADDRESS);
        assertThat(ip.path("gateway").asText()).isEqualTo(BridgeConflist.GATEWAY);
        assertThat(ip.path("interface").asInt()).isEqualTo(2);
        assertThat(ip.has("version")).as("0.3.x/0.4.0 ips carry 'version', 1.0.0 dropped it")
                .isEqualTo(!cniVersion.equals("1.0.0"));

        KernelState inside = netns.kernel();
        IpLink eth0 = inside.link("eth0").orElseThrow();
        assertThat(eth0.up()).isTrue();
        assertThat(eth0.kind()).isEqualTo("veth");
        assertThat(eth0.mac()).isEqualTo(interfaces.get(2).path("mac").asText());
        assertThat(inside.addresses("eth0")).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr, IpAddress::scope)
                .containsExactly(tuple(BridgeConflist.FIRST_ADDRESS, "global"));
        assertThat(inside.routes("eth0")).filteredOn(r -> r.family().equals("inet"))
                .extracting(IpRoute::dst, IpRoute::gateway)
                .containsExactlyInAnyOrder(
                        tuple("default", BridgeConflist.GATEWAY),
                        tuple(BridgeConflist.SUBNET, null));
        KernelState onHost = host.kernel();
        assertThat(onHost.link(bridge).orElseThrow().kind()).isEqualTo("bridge");
        IpLink veth = onHost.link(hostVeth).orElseThrow();
        assertThat(veth.kind()).isEqualTo("veth");
        assertThat(veth.master()).isEqualTo(bridge);
        assertThat(onHost.addresses(bridge)).noneMatch(a -> a.family().equals("inet"));
        assertThat(Files.readString(reservation)).isEqualTo(attachment.containerId() + "\r\neth0");
        assertThat(cacheFile).isRegularFile();

        if (cniVersion.equals("0.3.1")) {
            assertThat(driver.check(conf, netns.path(), attachment).error())
                    .isEqualTo("configuration version \"0.3.1\" does not support the CHECK command");
        } else {
            assertThat(driver.check(conf, netns.path(), attachment).answer()).isEmpty();
        }

        assertThat(driver.del(conf, netns.path(), attachment).answer()).isEmpty();

        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
        assertThat(host.kernel().link(hostVeth)).isEmpty();
        assertThat(reservation).doesNotExist();
        assertThat(cacheFile).doesNotExist();

        assertThat(driver.del(conf, netns.path(), attachment).answer()).as("DEL repeated is DEL once").isEmpty();
    }
}
