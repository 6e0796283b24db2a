package io.jcni.it.plugins;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.Conflists;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpRoute;
import io.jcni.it.support.KernelState;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestHost;
import io.jcni.it.support.TestNetns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Debian's Go bridge delegating to jcni's host-local (ours first in CNI_PATH), driven by Go libcni in a test host with
 * a container of its own: the addresses come from our launcher (its debug line on stderr says so), land on the
 * container's eth0, and are released by DEL.
 */
class GoBridgeWithJcniHostLocalTest {
    private static final String TAG = "sdk";
    private static final String NETWORK = "jcni-sdk-bridge";

    @TempDir
    Path tmp;

    @AutoClose
    private TestHost host;
    private TestNetns netns;
    private String bridge;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("bridge");
        Prerequisites.assumeDistPlugins("host-local");
        host = TestHost.create(TAG);
        netns = host.container();
        bridge = Names.link(TAG);
    }

    @AfterEach
    void removeLinks() throws java.io.IOException {
        // The symlinks point outside the temp dir; removing them first keeps JUnit's cleanup quiet.
        Files.deleteIfExists(tmp.resolve("bin/bridge"));
        Files.deleteIfExists(tmp.resolve("bin/host-local"));
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void goBridgeGetsItsAddressesFromJcniHostLocal(String cniVersion) throws Exception {
        Path dataDir = tmp.resolve("ipam");
        Path conf = Files.writeString(tmp.resolve("net.conflist"), Conflists.list(cniVersion, NETWORK,
                Conflists.bridge(bridge, "", Conflists.hostLocal(dataDir, List.of("10.214.7.0/24", "fd14:7::/64"),
                        Conflists.route("0.0.0.0/0")))));
        // dist ships a bridge of its own now: CNI_PATH is a directory holding Go's bridge and jcni's host-local.
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        if (!Files.exists(bin.resolve("bridge"), java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.createSymbolicLink(bin.resolve("bridge"), Locations.referencePlugin("bridge"));
            Files.createSymbolicLink(bin.resolve("host-local"), Locations.distPlugin("host-local"));
        }
        LibcniDriver driver = host.libcni(List.of(bin), tmp.resolve("cache")).withEnv(Map.of("JCNI_DEBUG", "1"));
        Attachment attachment = Attachment.of("sdk-" + cniVersion.replace('.', '-'), "eth0");

        var added = driver.add(conf, netns.path(), attachment);
        JsonNode result = added.answer();
        assertThat(added.stderr()).as("our host-local served the bridge")
                .contains("host-local: ADD " + Locations.skelMode() + ", pid");

        assertThat(result.path("ips")).extracting(ip -> ip.path("address").asText())
                .containsExactly("10.214.7.2/24", "fd14:7::2/64");
        assertThat(result.path("ips").get(0).path("gateway").asText()).isEqualTo("10.214.7.1");
        Path reservation = dataDir.resolve(NETWORK).resolve("10.214.7.2");
        assertThat(Files.readString(reservation)).isEqualTo(attachment.containerId() + "\r\neth0");
        assertThat(Files.readString(dataDir.resolve(NETWORK).resolve("fd14:7::2")))
                .isEqualTo(attachment.containerId() + "\r\neth0");

        KernelState inside = netns.kernel();
        assertThat(inside.addresses("eth0")).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.214.7.2/24");
        assertThat(inside.routes("eth0")).filteredOn(r -> r.family().equals("inet"))
                .extracting(IpRoute::dst, IpRoute::gateway)
                .contains(tuple("default", "10.214.7.1"));

        if (!cniVersion.equals("0.3.1")) {
            assertThat(driver.check(conf, netns.path(), attachment).answer()).isEmpty();
        }
        assertThat(driver.del(conf, netns.path(), attachment).answer()).isEmpty();
        assertThat(reservation).doesNotExist();
        assertThat(driver.del(conf, netns.path(), attachment).answer()).as("DEL repeated is DEL once").isEmpty();
    }
}
