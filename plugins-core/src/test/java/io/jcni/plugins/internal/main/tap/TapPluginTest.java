package io.jcni.plugins.internal.main.tap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * tap against a real kernel: the device made in an anonymous "container" namespace, read back through netlink-ffm
 * (the it module reads it with {@code ip -d -j link}). Configuration errors come first and leave nothing.
 */
class TapPluginTest {
    private final Skel skel = PluginRegistry.skel("tap");
    private NetNs container;
    private String path;

    @BeforeEach
    void container() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates a network namespace");
        container = NetNs.create();
        path = container.path().toString();
    }

    @AfterEach
    void close() {
        if (container != null) {
            container.close();
        }
    }

    <T> T nl(Function<NetlinkHandle, T> work) {
        try (NetlinkHandle nl = Netlink.open(container)) {
            return work.apply(nl);
        }
    }

    List<String> links() {
        return nl(nl -> nl.links().stream().map(Link::name).sorted().toList());
    }

    static String conf(String keys) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"tapnet\",\"type\":\"tap\"" + keys + "}";
    }

    PluginCall call(String command, String conf) {
        return PluginCall.of(command).netns(path).containerId("ctr-tap").ifName("tap0").stdin(conf);
    }

    static String withPrev(String conf, Result result) {
        return conf.substring(0, conf.length() - 1) + ",\"prevResult\":"
                + new String(CniJson.encode(result), StandardCharsets.UTF_8) + "}";
    }

    @Test
    void ownerAndGroupMakeGosNetlinkDeviceMultiQueueMtuMacAndUp() throws Exception {
        String conf = conf(",\"mtu\":1400,\"mac\":\"02:00:00:aa:bb:cc\",\"multiQueue\":true,\"owner\":1000,"
                + "\"group\":1001");
        Result result = (Result) call("ADD", conf).run(skel).result();

        assertThat(result.interfaces()).containsExactly(new Interface("tap0", "02:00:00:aa:bb:cc", path));
        Link tap = nl(nl -> nl.link("tap0"));
        assertThat(tap.info()).isEqualTo(new LinkInfo.Tun(true, 1000, 1001, false, true, true, true, 0));
        assertThat(tap.mtu()).isEqualTo(1400);
        assertThat(tap.address()).isEqualTo(MacAddress.parse("02:00:00:aa:bb:cc"));
        assertThat(tap.isUp()).isTrue();

        call("CHECK", withPrev(conf, result)).run(skel).ok();
        CniError other = call("CHECK", withPrev(conf.replace("1001", "1002"), result)).run(skel).error();
        assertThat(other.msg()).isEqualTo("tap tap0 is not as configured");
        call("DEL", conf).run(skel).ok();
        assertThat(links()).containsExactly("lo");
        call("DEL", conf).run(skel).ok();
    }

    /** Without both owner and group Go runs {@code ip tuntap add}: no packet information, no virtio-net header. */
    @Test
    void withoutOwnerAndGroupTheDeviceIsWhatIpTuntapMakes() throws Exception {
        call("ADD", conf(",\"owner\":0")).run(skel).result();
        assertThat(nl(nl -> nl.link("tap0")).info()).isEqualTo(new LinkInfo.Tun(true, 0, -1, false, false, true,
                false, 0));
    }

    @Test
    void aBridgeInTheContainerGetsTheDeviceAsAPort() throws Exception {
        nl(nl -> {
            nl.addBridge(LinkAttrs.named("br0").up(true));
            return null;
        });
        call("ADD", conf(",\"bridge\":\"br0\"")).run(skel).result();
        int master = nl(nl -> nl.link("tap0").masterIndex());
        int bridge = nl(nl -> nl.link("br0").index());
        assertThat(master).isEqualTo(bridge);
    }

    @Test
    void aMissingBridgeFailsAndTheDeviceIsGoneAgain() throws Exception {
        CniError error = call("ADD", conf(",\"bridge\":\"nobr0\"")).run(skel).error();
        assertThat(error.msg()).isEqualTo("failed to get bridge nobr0: Link not found");
        assertThat(links()).containsExactly("lo");
    }

    @Test
    void anExistingLinkOfThatNameIsAnErrorAndIsNotTouched() throws Exception {
        nl(nl -> {
            nl.addVeth(LinkAttrs.named("tap0"), LinkAttrs.named("peer0"));
            return null;
        });
        CniError error = call("ADD", conf("")).run(skel).error();
        assertThat(error.msg()).startsWith("failed to create tap tap0 mode tap: TUNSETIFF tap0: EEXIST");
        String kind = nl(nl -> nl.link("tap0").kind());
        assertThat(kind).isEqualTo("veth");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown mode|,\"mode\":\"tun\"|7|unknown tap mode: \"tun\"",
        "negative owner|,\"owner\":-1|7|owner: -1 out of range 0-2147483647",
        "owner beyond uid_t|,\"group\":4294967296|7|group: 4294967296 out of range 0-2147483647",
        "owner by name|,\"owner\":\"root\"|6|owner: expected integer, got string",
        "selinuxContext|,\"selinuxContext\":\"system_u:object_r:container_t:s0\"|2|"
                + "selinuxContext: not supported by jcni's tap",
        "selinuxcontext|,\"selinuxcontext\":\"system_u:object_r:container_t:s0\"|2|"
                + "selinuxcontext: not supported by jcni's tap",
        "multicast mac|,\"mac\":\"01:00:5e:00:00:01\"|7|mac: \"01:00:5e:00:00:01\" is a multicast address",
        "mtu|,\"mtu\":70000|7|mtu: 70000 out of range 0-65535",
    })
    void badConfigurationsAreRefusedBeforeAnything(String what, String keys, int code, String message)
            throws Exception {
        CniError error = call("ADD", conf(keys)).run(skel).error();
        assertThat(error.code()).isEqualTo(code);
        assertThat(error.msg()).isEqualTo(message);
        assertThat(links()).containsExactly("lo");
    }

    @Test
    void macFromCniArgsAndTheCapabilityInGosOrder() throws Exception {
        String conf = conf(",\"mac\":\"02:00:00:00:00:01\",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:03\"}");
        Result result = (Result) call("ADD", conf).args("IgnoreUnknown=1;MAC=02:00:00:00:00:02").run(skel).result();
        assertThat(result.interfaces().get(0).mac()).isEqualTo("02:00:00:00:00:03");
        call("DEL", conf).run(skel).ok();
        result = (Result) call("ADD", conf(",\"mac\":\"02:00:00:00:00:01\"")).args("MAC=02:00:00:00:00:02").run(skel)
                .result();
        assertThat(result.interfaces().get(0).mac()).isEqualTo("02:00:00:00:00:02");
    }

    @Test
    void statusIsReadyWithDevNetTun() throws Exception {
        PluginCall.of("STATUS").stdin(conf("")).run(skel).ok();
    }
}
