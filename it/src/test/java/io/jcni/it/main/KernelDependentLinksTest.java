package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.NetlinkView;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.ProcessResult;
import io.jcni.netlink.IpvlanMode;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkInfo;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * vlan, ipvlan and dummy, whose link types this machine's kernel lacks (no CONFIG_VLAN_8021Q, CONFIG_IPVLAN,
 * CONFIG_DUMMY: RTM_NEWLINK fails with EOPNOTSUPP "Unknown device type"). Support is detected per type by asking
 * {@code ip} to create such a link in a test namespace. Without it, ADD must fail with code 50 naming the option and
 * leave no link and no allocation, and STATUS must say the same; with it (another kernel), the link is made, checked
 * and removed as Go does it. Each test that cannot run here is skipped with that reason.
 */
class KernelDependentLinksTest {
    static final String TAG = "tun";
    static final String MASTER = "mst0";
    static final Map<String, String> MISSING = new ConcurrentHashMap<>();

    @TempDir
    Path tmp;

    @AutoClose
    private Topology world;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeReferencePlugins("host-local");
        Prerequisites.assumeDistPlugins("vlan", "ipvlan", "dummy");
        world = Topology.create(TAG, MASTER);
    }

    /** Why this kernel cannot create {@code type} links ({@code ip}'s error), or null if it can. */
    String missing(String type) {
        return MISSING.computeIfAbsent(type, t -> {
            List<String> add = switch (t) {
                case "vlan" -> List.of("ip", "link", "add", "link", MASTER, "name", "probe0", "type", "vlan", "id", "9");
                case "ipvlan" -> List.of("ip", "link", "add", "link", MASTER, "name", "probe0", "type", "ipvlan");
                default -> List.of("ip", "link", "add", "probe0", "type", "dummy");
            };
            ProcessResult result = world.host.exec(add.toArray(String[]::new));
            if (result.succeeded()) {
                world.host.exec("ip", "link", "del", "probe0").requireSuccess();
                return "";
            }
            return result.stderr().strip();
        });
    }

    static String option(String type) {
        return switch (type) {
            case "vlan" -> "CONFIG_VLAN_8021Q";
            case "ipvlan" -> "CONFIG_IPVLAN";
            default -> "CONFIG_DUMMY";
        };
    }

    CniExec plugin(String type) {
        return world.jcniPlugin(type);
    }

    String conf(String type, String cniVersion) {
        return "{\"cniVersion\":\"" + cniVersion + "\",\"name\":\"jcni-tun-kd\",\"type\":\"" + type
                + "\",\"master\":\"" + MASTER + "\",\"vlanId\":42,\"mode\":\"l2\",\"ipam\":{\"type\":\"host-local\","
                + "\"dataDir\":\"" + tmp.resolve("data") + "\",\"ranges\":[[{\"subnet\":\"10.77.1.0/24\","
                + "\"rangeStart\":\"10.77.1.10\",\"gateway\":\"10.77.1.1\"}]],\"routes\":[{\"dst\":\"0.0.0.0/0\"}]}}";
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"vlan", "ipvlan", "dummy"})
    void withoutKernelSupportAddIsCode50AndLeavesNothing(String type) throws Exception {
        String reason = missing(type);
        Prerequisites.assumeKernel(!reason.isEmpty(), () -> "has " + option(type) + ": the missing-support path "
                + "cannot be exercised");
        assertThat(reason).contains("Unknown device type");

        CniExec.Outcome add = plugin(type).add(conf(type, "1.0.0"), world.container.path(), "ctr-kd", "net1");

        assertThat(add.code()).isEqualTo(50);
        assertThat(add.msg()).isEqualTo("failed to create " + type + ": the running kernel has no " + type
                + " support (" + option(type) + ")");
        assertThat(add.error().path("details").asText()).contains("EOPNOTSUPP").contains("Unknown device type");
        assertThat(NetlinkView.linkNames(world.container)).containsExactly("lo");
        assertThat(NetlinkView.linkNames(world.host)).containsExactly("lo", MASTER);
        assertThat(HostLocalFiles.reservations(tmp.resolve("data"), "jcni-tun-kd")).as("IPAM never ran").isEmpty();

        CniExec.Outcome status = plugin(type).call("STATUS", conf(type, "1.1.0"), null, "", "");
        assertThat(status.code()).isEqualTo(50);
        assertThat(status.msg()).isEqualTo(add.msg());
        assertThat(plugin(type).del(conf(type, "1.0.0"), world.container.path(), "ctr-kd", "net1").succeeded())
                .as("DEL of what was never made succeeds").isTrue();
    }

    /** On a kernel that has the type: ADD, kernel state, CHECK, a broken state, DEL twice. Skipped here. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"vlan", "ipvlan", "dummy"})
    void withKernelSupportTheLinkIsMadeCheckedAndRemoved(String type) throws Exception {
        String reason = missing(type);
        Prerequisites.assumeKernel(reason.isEmpty(), () -> "lacks " + option(type) + " (" + reason + "): " + type
                + " links cannot be created here");
        String conf = conf(type, "1.0.0");
        JsonNode result = plugin(type).add(conf, world.container.path(), "ctr-kd", "net1").result();

        assertThat(result.path("interfaces").get(0).path("name").asText()).isEqualTo("net1");
        assertThat(result.path("ips").get(0).path("address").asText()).isEqualTo("10.77.1.10/24");
        Link link = NetlinkView.findLink(world.container, "net1").orElseThrow();
        assertThat(link.kind()).isEqualTo(type);
        switch (type) {
            case "vlan" -> assertThat(((LinkInfo.Vlan) link.info()).id()).isEqualTo(42);
            case "ipvlan" -> assertThat(((LinkInfo.Ipvlan) link.info()).mode()).isEqualTo(IpvlanMode.L2);
            default -> assertThat(link.isUp()).isTrue();
        }
        assertThat(world.container.kernel().addresses("net1")).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.77.1.10/24");
        if (!type.equals("dummy")) {
            assertThat(Topology.reaches(world.container, world.peer, Topology.PEER_ADDRESS)).isTrue();
        }
        String withPrev = conf.substring(0, conf.length() - 1) + ",\"prevResult\":" + result + "}";
        assertThat(plugin(type).check(withPrev, world.container.path(), "ctr-kd", "net1").succeeded()).isTrue();
        world.container.exec("ip", "addr", "del", "10.77.1.10/24", "dev", "net1").requireSuccess();
        assertThat(plugin(type).check(withPrev, world.container.path(), "ctr-kd", "net1").msg())
                .isEqualTo("Failed to match addr 10.77.1.10/24 on interface net1");

        plugin(type).del(conf, world.container.path(), "ctr-kd", "net1").result();
        assertThat(NetlinkView.linkNames(world.container)).containsExactly("lo");
        assertThat(HostLocalFiles.reservations(tmp.resolve("data"), "jcni-tun-kd")).isEmpty();
        plugin(type).del(conf, world.container.path(), "ctr-kd", "net1").result();
    }

    /** ipvlan chained after a plugin with one interface, without ipam: the prevResult's addresses. Skipped here. */
    @Test
    void ipvlanChainedTakesThePrevResultsInterfaceAndAddresses() throws Exception {
        String reason = missing("ipvlan");
        Prerequisites.assumeKernel(reason.isEmpty(), () -> "lacks CONFIG_IPVLAN (" + reason + ")");
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-kd\",\"type\":\"ipvlan\",\"prevResult\":{"
                + "\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"" + MASTER + "\"}],\"ips\":[{\"address\":"
                + "\"10.77.1.20/24\",\"gateway\":\"10.77.1.1\",\"interface\":0}]}}";
        JsonNode result = plugin("ipvlan").add(conf, world.container.path(), "ctr-kd", "net1").result();
        assertThat(result.path("interfaces")).hasSize(1);
        assertThat(result.path("ips").get(0).path("address").asText()).isEqualTo("10.77.1.20/24");
        assertThat(result.path("ips").get(0).path("interface").asInt()).isZero();
        assertThat(NetlinkView.findLink(world.container, "net1").orElseThrow().parentIndex())
                .isEqualTo(NetlinkView.findLink(world.host, MASTER).orElseThrow().index());
        assertThat(Topology.reaches(world.container, world.peer, Topology.PEER_ADDRESS)).isTrue();
    }
}
