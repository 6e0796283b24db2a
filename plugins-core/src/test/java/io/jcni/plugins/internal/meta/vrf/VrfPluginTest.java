package io.jcni.plugins.internal.meta.vrf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * vrf against a real kernel. Whether the kernel has VRF is asked once, by creating one in a throw-away namespace;
 * without it (this project's machines) ADD must fail with code 50 naming CONFIG_NET_VRF and leave the namespace as it
 * was, and STATUS must say the same; with it, the interface is enslaved, checked and released.
 */
class VrfPluginTest {
    private final Skel skel = PluginRegistry.skel("vrf");
    private NetNs container;
    private String path;

    @BeforeEach
    void containerWithAVeth() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates a network namespace");
        container = NetNs.create();
        path = container.path().toString();
        nl(nl -> {
            nl.addVeth(LinkAttrs.named("eth0").up(true), LinkAttrs.named("peer0"));
            nl.addAddress(nl.link("eth0").index(), io.jcni.spec.IpText.parseAddress("10.7.0.5", "t"), 24);
            return null;
        });
    }

    @AfterEach
    void close() {
        if (container != null) {
            container.close();
        }
    }

    interface Work<T> {
        T run(NetlinkHandle nl) throws Exception;
    }

    <T> T nl(Work<T> work) throws Exception {
        try (NetlinkHandle nl = Netlink.open(container)) {
            return work.run(nl);
        }
    }

    List<String> links() throws Exception {
        return nl(nl -> nl.links().stream().map(Link::name).sorted().toList());
    }

    /** Whether this kernel creates VRF devices (probed in a namespace of its own). */
    static boolean kernelHasVrf() {
        try (NetNs probe = NetNs.create(); NetlinkHandle nl = Netlink.open(probe)) {
            nl.addVrf(LinkAttrs.named("probe0"), 1);
            return true;
        } catch (NetlinkException e) {
            return false;
        }
    }

    static String conf(String keys, boolean prev) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"vrfnet\",\"type\":\"vrf\"" + keys
                + (prev ? ",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\"}]}" : "")
                + "}";
    }

    PluginCall call(String command, String conf) {
        return PluginCall.of(command).netns(path).containerId("ctr-vrf").ifName("eth0").stdin(conf);
    }

    @Test
    void withoutKernelSupportAddIsCode50NamingTheOptionAndLeavesNothing() throws Exception {
        assumeTrue(!kernelHasVrf(), "this kernel has CONFIG_NET_VRF: the refusal cannot be exercised");
        CniError error = call("ADD", conf(",\"vrfname\":\"blue\",\"table\":1001", true)).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
        assertThat(error.msg()).isEqualTo("failed to create vrf: the running kernel has no vrf support "
                + "(CONFIG_NET_VRF)");
        assertThat(error.details()).contains("EOPNOTSUPP").contains("CONFIG_NET_VRF");
        assertThat(links()).containsExactly("eth0", "lo", "peer0");
        int master = nl(nl -> nl.link("eth0").masterIndex());
        assertThat(master).isZero();

        CniError status = PluginCall.of("STATUS").stdin(conf(",\"vrfname\":\"blue\"", false)).run(skel).error();
        assertThat(status.code()).isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
        assertThat(status.msg()).isEqualTo(error.msg());
        call("DEL", conf(",\"vrfname\":\"blue\"", false)).run(skel).ok();
        assertThat(call("CHECK", conf(",\"vrfname\":\"blue\"", true)).run(skel).error().msg())
                .isEqualTo("Link not found");
    }

    @Test
    void withKernelSupportTheInterfaceIsEnslavedCheckedAndReleased() throws Exception {
        assumeTrue(kernelHasVrf(), "this kernel lacks CONFIG_NET_VRF: VRF devices cannot be created here");
        String conf = conf(",\"vrfname\":\"blue\"", true);
        call("ADD", conf).run(skel).result();
        Link vrf = nl(nl -> nl.link("blue"));
        assertThat(vrf.info()).isEqualTo(new LinkInfo.Vrf(1));
        int master = nl(nl -> nl.link("eth0").masterIndex());
        assertThat(master).isEqualTo(vrf.index());
        call("CHECK", conf).run(skel).ok();
        CniError clash = call("ADD", conf(",\"vrfname\":\"blue\",\"table\":7", true)).ifName("peer0").run(skel)
                .error();
        assertThat(clash.msg()).isEqualTo("VRF blue already exist with different routing table 1");
        call("DEL", conf).run(skel).ok();
        assertThat(links()).containsExactly("eth0", "lo", "peer0");
        call("DEL", conf).run(skel).ok();
    }

    @Test
    void aLinkOfThatNameThatIsNoVrfIsRefusedAndLeftAlone() throws Exception {
        CniError error = call("ADD", conf(",\"vrfname\":\"peer0\"", true)).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("Netlink peer0 is not a VRF");
        call("DEL", conf(",\"vrfname\":\"peer0\"", false)).run(skel).ok();
        assertThat(links()).containsExactly("eth0", "lo", "peer0");
    }

    @Test
    void configurationErrors() throws Exception {
        CniError noName = call("ADD", conf("", true)).run(skel).error();
        assertThat(noName.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(noName.msg()).isEqualTo("configuration is expected to have a valid vrf name");
        CniError badName = call("ADD", conf(",\"vrfname\":\"a/b\"", true)).run(skel).error();
        assertThat(badName.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(badName.msg()).isEqualTo("vrfname: invalid interface name \"a/b\"");
        CniError noPrev = call("ADD", conf(",\"vrfname\":\"blue\"", false)).run(skel).error();
        assertThat(noPrev.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(noPrev.msg()).isEqualTo("missing prevResult from earlier plugin");
        CniError table = call("ADD", conf(",\"vrfname\":\"blue\",\"table\":-1", true)).run(skel).error();
        assertThat(table.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(links()).containsExactly("eth0", "lo", "peer0");
    }

    @Test
    void delOfAGoneNamespaceIsSuccess() throws Exception {
        PluginCall.of("DEL").netns("/var/run/netns/jcni-vrf-gone").ifName("eth0")
                .stdin(conf(",\"vrfname\":\"blue\"", false)).run(skel).ok();
    }

    @Test
    void theFreeTableIsTheLowestNoVrfUses() {
        List<Link> links = List.of(vrfLink(1), vrfLink(2), vrfLink(4));
        assertThat(VrfPlugin.freeTable(links)).isEqualTo(3);
        assertThat(VrfPlugin.freeTable(List.of())).isEqualTo(1);
    }

    private static Link vrfLink(int table) {
        return new Link(table, "vrf" + table, 1, 0, 65575, null, null, 1000, io.jcni.netlink.OperState.UNKNOWN, 0, 0,
                -1, "", 0, 0, new LinkInfo.Vrf(table), null);
    }
}
