package io.jcni.plugins.internal.main.loopback;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The loopback plugin in a fresh, anonymous namespace of its own (root only; removed when closed). */
class LoopbackPluginTest {
    static final String CONF = "{\"cniVersion\":\"1.0.0\",\"name\":\"lo-net\",\"type\":\"loopback\"}";

    private final Skel skel = PluginRegistry.skel("loopback");
    private NetNs netns;
    private String path;

    @BeforeEach
    void freshNamespace() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates a network namespace");
        netns = NetNs.create();
        path = netns.path().toString();
    }

    @AfterEach
    void close() {
        if (netns != null) {
            netns.close();
        }
    }

    boolean loIsUp() {
        try (NetlinkHandle nl = Netlink.open(netns)) {
            return nl.link("lo").isUp();
        }
    }

    @Test
    void addBringsLoUpAndReportsItAsGoDoes() throws Exception {
        assertThat(loIsUp()).as("a fresh namespace has lo down").isFalse();
        Result result = (Result) PluginCall.of("ADD").netns(path).ifName("eth7").stdin(CONF).run(skel).result();
        assertThat(loIsUp()).isTrue();
        assertThat(result.interfaces()).containsExactly(new Interface("lo", "00:00:00:00:00:00", path));
        assertThat(result.ips()).extracting(ip -> ip.interfaceIndex() + " " + ip.address() + " " + ip.gateway())
                .containsExactly("0 127.0.0.1/8 null", "0 ::1/128 null");
        assertThat(result.routes()).isEmpty();
    }

    @Test
    void checkPassesAfterAddAndFailsAfterDel() throws Exception {
        PluginCall.of("ADD").netns(path).stdin(CONF).run(skel).ok();
        PluginCall.of("CHECK").netns(path).stdin(CONF).run(skel).ok();
        PluginCall.of("DEL").netns(path).stdin(CONF).run(skel).ok();
        assertThat(loIsUp()).isFalse();
        CniError error = PluginCall.of("CHECK").netns(path).stdin(CONF).run(skel).error();
        assertThat(error.msg()).isEqualTo("loopback interface is down");
    }

    @Test
    void delIsToleratedWithoutOrWithAGoneNamespaceAndRepeated() throws Exception {
        PluginCall.of("DEL").netns(null).stdin(CONF).run(skel).ok();
        PluginCall.of("DEL").netns("/var/run/netns/jcni-sdk-gone-0000").stdin(CONF).run(skel).ok();
        PluginCall.of("ADD").netns(path).stdin(CONF).run(skel).ok();
        PluginCall.of("DEL").netns(path).stdin(CONF).run(skel).ok();
        PluginCall.of("DEL").netns(path).stdin(CONF).run(skel).ok();
        assertThat(loIsUp()).isFalse();
    }

    @Test
    void prevResultPassesThrough() throws Exception {
        String previous = "{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"" + path
                + "\"}],\"ips\":[{\"interface\":0,\"address\":\"10.1.0.5/24\"}]}";
        String conf = CONF.replace("}", ",\"prevResult\":" + previous + "}");
        Result result = (Result) PluginCall.of("ADD").netns(path).stdin(conf).run(skel).result();
        assertThat(result.interfaces()).extracting(Interface::name).containsExactly("eth0");
        assertThat(result.ips()).extracting(ip -> ip.address().toString()).containsExactly("10.1.0.5/24");
        assertThat(loIsUp()).isTrue();
    }

    @Test
    void addInAMissingNamespaceIsCode8() throws Exception {
        CniError error = PluginCall.of("ADD").netns("/var/run/netns/jcni-sdk-gone-0000").stdin(CONF).run(skel)
                .error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETNS);
        assertThat(error.msg()).startsWith("failed to open netns \"/var/run/netns/jcni-sdk-gone-0000\"");
    }

    @Test
    void delOnThePluginsOwnNamespaceIsRefusedAndTheHostsLoStaysUp() throws Exception {
        CniError error = PluginCall.of("DEL").netns("/proc/self/ns/net").stdin(CONF).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETNS);
        try (NetlinkHandle host = Netlink.open()) {
            assertThat(host.link("lo").isUp()).isTrue();
        }
    }
}
