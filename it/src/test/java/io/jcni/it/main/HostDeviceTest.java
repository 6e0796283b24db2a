package io.jcni.it.main;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.HostLocalFiles;
import io.jcni.it.support.IpAddress;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.NetlinkView;
import io.jcni.it.support.Prerequisites;
import io.jcni.netlink.Link;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's host-device launcher next to Debian's Go host-device 1.1.1, each in its own {@link Topology}: the device is
 * the host's veth end {@code dev0} (its other end, in the peer namespace, is the gateway), moved into the container as
 * {@code net1} and back. IPAM is Go's host-local with a data dir of the test's.
 *
 * <p>A veth is what this machine offers as a movable device (no dummy, no spare NIC), and a veth is destroyed, not
 * returned, when its namespace goes away: the kernel's return of a physical device to the initial namespace cannot
 * happen here, so {@link #delAfterTheKernelReturnedThePhysicalDeviceRestoresItsName} builds the state it leaves
 * (container name, original name as alias) by hand.
 */
class HostDeviceTest {
    static final String TAG = "tun";
    static final String DEVICE = "dev0";

    @TempDir
    Path tmp;

    @AutoClose
    private Topology ours;
    @AutoClose
    private Topology theirs;

    @BeforeEach
    void worlds() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeReferencePlugins("host-device", "host-local");
        Prerequisites.assumeDistPlugins("host-device");
        ours = Topology.create(TAG, DEVICE);
        theirs = Topology.create(TAG, DEVICE);
    }

    static CniExec ourHostDevice(Topology world) {
        return world.jcniPlugin("host-device");
    }

    static CniExec goHostDevice(Topology world) {
        return world.goPlugin("host-device");
    }

    String conf(String dataDir, String selector) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-hd\",\"type\":\"host-device\"," + selector
                + ",\"ipam\":{\"type\":\"host-local\",\"dataDir\":\"" + tmp.resolve(dataDir) + "\",\"ranges\":[[{"
                + "\"subnet\":\"10.77.1.0/24\",\"rangeStart\":\"10.77.1.10\",\"gateway\":\"10.77.1.1\"}]],"
                + "\"routes\":[{\"dst\":\"0.0.0.0/0\"}]},\"dns\":{\"nameservers\":[\"10.77.1.53\"]}}";
    }

    static String selector(String kind, Topology world) {
        switch (kind) {
            case "device":
                return "\"device\":\"" + DEVICE + "\"";
            case "hwaddr":
                return "\"hwaddr\":\"" + world.host.kernel().link(DEVICE).orElseThrow().mac().toUpperCase() + "\"";
            default:
                // Inside the host namespace (ip netns exec remounts sysfs) /sys/devices/virtual/net lists dev0, lo.
                return "\"kernelpath\":\"/sys/devices/virtual\"";
        }
    }

    static List<String> allocations(Path dataDir) throws Exception {
        return HostLocalFiles.reservations(dataDir, "jcni-tun-hd");
    }

    @ParameterizedTest(name = "selected by {0}")
    @ValueSource(strings = {"device", "hwaddr", "kernelpath"})
    void movedInAsGoMovesItAndBackUnderItsNameOnDel(String kind) throws Exception {
        String ourConf = conf("data-ours", selector(kind, ours));
        String goConf = conf("data-go", selector(kind, theirs));
        IpLink before = ours.host.kernel().link(DEVICE).orElseThrow();

        JsonNode result = ourHostDevice(ours).add(ourConf, ours.container.path(), "ctr-hd", "net1").result();
        JsonNode goResult = goHostDevice(theirs).add(goConf, theirs.container.path(), "ctr-hd", "net1").result();

        assertThat(ours.normalized(result, before.mac()))
                .isEqualTo(theirs.normalized(goResult, theirs.container.kernel().link("net1").orElseThrow().mac()));
        assertThat(result.path("interfaces").get(0).path("mac").asText()).isEqualTo(before.mac());
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly("lo");
        IpLink net1 = ours.container.kernel().link("net1").orElseThrow();
        assertThat(net1.kind()).isEqualTo("veth");
        assertThat(net1.up()).isTrue();
        assertThat(NetlinkView.findLink(ours.container, "net1").orElseThrow().alias()).isEqualTo(DEVICE)
                .isEqualTo(NetlinkView.findLink(theirs.container, "net1").orElseThrow().alias());
        assertThat(ours.container.kernel().addresses("net1")).filteredOn(a -> a.family().equals("inet"))
                .extracting(IpAddress::cidr).containsExactly("10.77.1.10/24");
        assertThat(ours.container.kernel().routes()).filteredOn(r -> r.family().equals("inet"))
                .extracting(r -> r.dst() + " via " + r.gateway() + " dev " + r.dev())
                .containsExactlyInAnyOrder("default via 10.77.1.1 dev net1", "10.77.1.0/24 via null dev net1");
        assertThat(Topology.reaches(ours.container, ours.peer, Topology.PEER_ADDRESS)).isTrue();
        assertThat(allocations(tmp.resolve("data-ours"))).containsExactly("10.77.1.10");

        String withPrev = ourConf.substring(0, ourConf.length() - 1) + ",\"prevResult\":" + result + "}";
        CniExec.Outcome check = ourHostDevice(ours).check(withPrev, ours.container.path(), "ctr-hd", "net1");
        assertThat(check.succeeded()).as(check.process().describe()).isTrue();

        ourHostDevice(ours).del(ourConf, ours.container.path(), "ctr-hd", "net1").result();
        goHostDevice(theirs).del(goConf, theirs.container.path(), "ctr-hd", "net1").result();
        for (Topology world : List.of(ours, theirs)) {
            assertThat(NetlinkView.linkNames(world.container)).containsExactly("lo");
            assertThat(NetlinkView.findLink(world.host, DEVICE).orElseThrow().isUp()).as("left down, as upstream")
                    .isFalse();
        }
        assertThat(NetlinkView.findLink(ours.host, DEVICE).orElseThrow().alias()).as("alias cleared, as newer upstream")
                .isEmpty();
        assertThat(NetlinkView.findLink(theirs.host, DEVICE).orElseThrow().alias()).as("Go 1.1.1 leaves it")
                .isEqualTo(DEVICE);
        assertThat(ours.host.kernel().link(DEVICE).orElseThrow().mac()).isEqualTo(before.mac());
        assertThat(ours.host.kernel().addresses(DEVICE)).noneMatch(a -> a.family().equals("inet"));
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        ourHostDevice(ours).del(ourConf, ours.container.path(), "ctr-hd", "net1").result();
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly(DEVICE, "lo");
    }

    @Test
    void checkFailsOnceTheMacChanged() throws Exception {
        String conf = conf("data-ours", selector("device", ours));
        JsonNode result = ourHostDevice(ours).add(conf, ours.container.path(), "ctr-hd", "net1").result();
        String mac = result.path("interfaces").get(0).path("mac").asText();
        ours.container.exec("ip", "link", "set", "net1", "address", "02:00:00:00:00:99").requireSuccess();
        String withPrev = conf.substring(0, conf.length() - 1) + ",\"prevResult\":" + result + "}";
        assertThat(ourHostDevice(ours).check(withPrev, ours.container.path(), "ctr-hd", "net1").msg())
                .isEqualTo("Interface net1 Mac " + mac + " doesn't match container Mac: 02:00:00:00:00:99");
    }

    @Test
    void anAddThatFailsAfterTheMovePutsTheDeviceBackUpUnderItsName() throws Exception {
        String unreachable = "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-hd\",\"type\":\"host-device\","
                + "\"device\":\"" + DEVICE + "\",\"ipam\":{\"type\":\"host-local\",\"dataDir\":\""
                + tmp.resolve("data-ours") + "\",\"ranges\":[[{\"subnet\":\"10.77.1.0/24\",\"rangeStart\":"
                + "\"10.77.1.10\"}]],\"routes\":[{\"dst\":\"10.99.0.0/16\",\"gw\":\"10.200.0.1\"}]}}";
        CniExec.Outcome failed = ourHostDevice(ours).add(unreachable, ours.container.path(), "ctr-hd", "net1");
        assertThat(failed.msg()).startsWith("failed to add route '10.99.0.0/16 via 10.200.0.1 dev net1'");
        assertThat(failed.process().stderr()).doesNotContain("rollback step failed");
        Link back = NetlinkView.findLink(ours.host, DEVICE).orElseThrow();
        assertThat(back.isUp()).as("it was up before the ADD").isTrue();
        assertThat(back.alias()).isEmpty();
        assertThat(NetlinkView.linkNames(ours.container)).containsExactly("lo");
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        ours.host.exec("ip", "addr", "add", "10.77.1.2/24", "dev", DEVICE).requireSuccess();
        assertThat(Topology.reaches(ours.host, ours.peer, Topology.PEER_ADDRESS)).as("the device works again")
                .isTrue();
        ours.host.exec("ip", "addr", "del", "10.77.1.2/24", "dev", DEVICE).requireSuccess();

        for (String bad : List.of("\"device\":\"nope0\"", "\"hwaddr\":\"02:00:00:00:00:77\"",
                "\"kernelpath\":\"/sys/devices/../class\"", "\"pciBusID\":\"0000:99:00.0\"")) {
            CniExec.Outcome refused = ourHostDevice(ours).add(conf("data-ours", bad), ours.container.path(),
                    "ctr-hd", "net1");
            assertThat(refused.succeeded()).as(bad).isFalse();
            assertThat(NetlinkView.linkNames(ours.container)).as(bad).containsExactly("lo");
            assertThat(NetlinkView.linkNames(ours.host)).as(bad).containsExactly(DEVICE, "lo");
            assertThat(allocations(tmp.resolve("data-ours"))).as(bad).isEmpty();
        }
    }

    @Test
    void aContainerLinkNamedLikeTheDeviceIsNoObstacle() throws Exception {
        for (Topology world : List.of(ours, theirs)) {
            world.container.exec("ip", "link", "add", DEVICE, "type", "veth", "peer", "name", "other0")
                    .requireSuccess();
        }
        ourHostDevice(ours).add(conf("data-ours", selector("device", ours)), ours.container.path(), "ctr-hd",
                "net1").result();
        assertThat(NetlinkView.linkNames(ours.container)).containsExactly(DEVICE, "lo", "net1", "other0");
        CniExec.Outcome go = goHostDevice(theirs).add(conf("data-go", selector("device", theirs)),
                theirs.container.path(), "ctr-hd", "net1");
        assertThat(go.succeeded()).as("Go 1.1.1 moves the device in under its host name first").isFalse();
        assertThat(go.msg()).contains("file exists");

        ourHostDevice(ours).del(conf("data-ours", selector("device", ours)), ours.container.path(), "ctr-hd", "net1")
                .result();
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly(DEVICE, "lo");
        assertThat(NetlinkView.linkNames(ours.container)).containsExactly(DEVICE, "lo", "other0");
    }

    @Test
    void aDeviceRenamedInsideTheContainerIsFoundByItsAlias() throws Exception {
        String conf = conf("data-ours", selector("device", ours));
        ourHostDevice(ours).add(conf, ours.container.path(), "ctr-hd", "net1").result();
        ours.container.exec("ip", "link", "set", "net1", "down").requireSuccess();
        ours.container.exec("ip", "link", "set", "net1", "name", "renamed0").requireSuccess();
        ourHostDevice(ours).del(conf, ours.container.path(), "ctr-hd", "net1").result();
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly(DEVICE, "lo");
        assertThat(NetlinkView.linkNames(ours.container)).containsExactly("lo");
    }

    @Test
    void delReleasesTheAddressEvenWhenItsConfigurationIsBroken() throws Exception {
        ourHostDevice(ours).add(conf("data-ours", selector("device", ours)), ours.container.path(), "ctr-hd", "net1")
                .result();
        assertThat(allocations(tmp.resolve("data-ours"))).containsExactly("10.77.1.10");
        CniExec.Outcome del = ourHostDevice(ours).del(conf("data-ours", "\"hwaddr\":\"bad\""),
                ours.container.path(), "ctr-hd", "net1");
        assertThat(del.code()).isEqualTo(7);
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        CniExec.Outcome gonePci = ourHostDevice(ours).del(conf("data-ours", "\"pciBusID\":\"0000:99:00.0\""),
                ours.container.path(), "ctr-hd", "net1");
        assertThat(gonePci.succeeded()).as("the device is found by CNI_IFNAME: " + gonePci.process().describe()).isTrue();
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly(DEVICE, "lo");
    }

    @Test
    void delAfterTheNamespaceIsGoneReleasesTheAddressAndTheVethIsGone() throws Exception {
        String conf = conf("data-ours", selector("device", ours));
        ourHostDevice(ours).add(conf, ours.container.path(), "ctr-hd", "net1").result();
        Path gone = ours.container.path();
        ours.container.close();
        ourHostDevice(ours).del(conf, gone, "ctr-hd", "net1").result();
        assertThat(allocations(tmp.resolve("data-ours"))).isEmpty();
        assertThat(NetlinkView.linkNames(ours.host)).as("a veth dies with its namespace; the kernel returns only "
                + "physical devices").containsExactly("lo");
        // The kernel dismantles a deleted namespace asynchronously (its cleanup work runs after the last reference
        // is gone): a DEL answered quickly (through the plugin service) can come before the peer went.
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (NetlinkView.linkNames(ours.peer).size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(NetlinkView.linkNames(ours.peer)).as("and takes its peer with it").containsExactly("lo");
    }

    @Test
    void delAfterTheKernelReturnedThePhysicalDeviceRestoresItsName() throws Exception {
        // What the kernel leaves of a physical device whose namespace was deleted: back in the initial namespace,
        // down, under its container name, with the alias host-device gave it.
        for (Topology world : List.of(ours, theirs)) {
            world.host.exec("ip", "link", "set", DEVICE, "down").requireSuccess();
            world.host.exec("ip", "link", "set", DEVICE, "name", "net1").requireSuccess();
            world.host.exec("ip", "link", "set", "net1", "alias", DEVICE).requireSuccess();
        }
        Path gone = tmp.resolve("no-such-netns");
        String conf = conf("data-ours", selector("device", ours));

        ourHostDevice(ours).del(conf, gone, "ctr-hd", "net1").result();

        Link restored = NetlinkView.findLink(ours.host, DEVICE).orElseThrow();
        assertThat(restored.alias()).isEmpty();
        assertThat(NetlinkView.linkNames(ours.host)).containsExactly(DEVICE, "lo");
        CniExec.Outcome go = goHostDevice(theirs).del(conf("data-go", selector("device", theirs)), gone, "ctr-hd",
                "net1");
        assertThat(go.succeeded()).as("Go 1.1.1 cannot open the namespace and fails DEL").isFalse();
        assertThat(NetlinkView.linkNames(theirs.host)).containsExactly("lo", "net1");
    }
}
