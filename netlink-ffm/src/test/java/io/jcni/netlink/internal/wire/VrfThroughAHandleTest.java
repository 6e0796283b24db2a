package io.jcni.netlink.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.NetlinkException;
import io.jcni.netlink.Route;
import io.jcni.netlink.internal.rtnl.HandleImpl;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The vrf plugin's messages through a handle over a scripted kernel: the device request and the enslaving of a port
 * as byte vectors written from {@code <linux/if_link.h>}, and a kernel without {@code CONFIG_NET_VRF} answering as
 * this machine's does (EOPNOTSUPP, "Unknown device type"), which the plugin turns into code 50. Runs on any kernel,
 * so the refusal is covered also where the real kernel has VRF.
 */
class VrfThroughAHandleTest {

    private static String hex(String annotated) {
        StringBuilder digits = new StringBuilder();
        for (String line : annotated.split("\n")) {
            int comment = line.indexOf('#');
            digits.append((comment < 0 ? line : line.substring(0, comment)).replaceAll("\\s", ""));
        }
        return digits.toString();
    }

    /** The sent datagram with its sequence number zeroed. */
    private static String sent(byte[] datagram) {
        byte[] copy = datagram.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.nativeOrder()).putInt(8, 0);
        return HexFormat.of().formatHex(copy);
    }

    @Test
    void vrfAndEnslavingAPortAreTheseBytes() {
        FakeTransport kernel = new FakeTransport();
        kernel.responder = request -> List.of(Replies.ack(Replies.seq(request)));
        try (HandleImpl nl = new HandleImpl(kernel)) {
            nl.addVrf(LinkAttrs.named("vrf-blue").up(true), 1001);
            nl.setMaster(5, 9);
        }
        assertThat(sent(kernel.sent.get(0))).isEqualTo(hex("""
                48000000 1000 0506 00000000 00000000   # RTM_NEWLINK, REQUEST|ACK|EXCL|CREATE
                00 00 0000 00000000 01000000 01000000  # ifinfomsg: flags IFF_UP, change IFF_UP
                0d00 0300 7672662d 626c7565 00 000000  # IFLA_IFNAME "vrf-blue"
                1800 1200                              # IFLA_LINKINFO
                  0800 0100 76726600                   #   IFLA_INFO_KIND "vrf"
                  0c00 0200 0800 0100 e9030000         #   IFLA_INFO_DATA { IFLA_VRF_TABLE 1001 }
                """));
        assertThat(sent(kernel.sent.get(1))).isEqualTo(hex("""
                28000000 1000 0500 00000000 00000000   # RTM_NEWLINK, REQUEST|ACK: ip link set dev <5> master <9>
                00 00 0000 05000000 00000000 00000000  # ifinfomsg: index 5
                0800 0a00 09000000                     # IFLA_MASTER 9
                """));
    }

    /**
     * The vrf plugin's other requests: a saved route replaced into the VRF's table (above 255, so in
     * {@code RTA_TABLE}, the {@code rtmsg} table 0) and DEL's release of the port ({@code IFLA_MASTER 0}).
     */
    @Test
    void aRouteMovedIntoTheVrfTableAndThePortReleasedAreTheseBytes() throws Exception {
        FakeTransport kernel = new FakeTransport();
        kernel.responder = request -> List.of(Replies.ack(Replies.seq(request)));
        try (HandleImpl nl = new HandleImpl(kernel)) {
            nl.replaceRoute(Route.to(InetAddress.ofLiteral("10.7.0.0"), 24).via(InetAddress.ofLiteral("10.7.0.1"))
                    .dev(5).table(1001));
            nl.setNoMaster(5);
        }
        assertThat(sent(kernel.sent.get(0))).isEqualTo(hex("""
                3c000000 1800 0505 00000000 00000000   # RTM_NEWROUTE, REQUEST|ACK|REPLACE|CREATE
                02 18 00 00 00 03 00 01 00000000       # rtmsg: AF_INET /24, table 0 (in RTA_TABLE), boot, universe
                0800 0100 0a070000                     # RTA_DST 10.7.0.0
                0800 0f00 e9030000                     # RTA_TABLE 1001
                0800 0500 0a070001                     # RTA_GATEWAY 10.7.0.1
                0800 0400 05000000                     # RTA_OIF 5
                """));
        assertThat(sent(kernel.sent.get(1))).isEqualTo(hex("""
                28000000 1000 0500 00000000 00000000   # RTM_NEWLINK, REQUEST|ACK: ip link set dev <5> nomaster
                00 00 0000 05000000 00000000 00000000  # ifinfomsg: index 5
                0800 0a00 00000000                     # IFLA_MASTER 0
                """));
    }

    @Test
    void aKernelWithoutVrfIsNotSupportedWithItsOwnWords() {
        FakeTransport kernel = new FakeTransport();
        kernel.responder = request -> List.of(Replies.error(Replies.seq(request), FakeTransport.PORT_ID,
                Errno.EOPNOTSUPP, Replies.attr(NetlinkH.NLMSGERR_ATTR_MSG, Replies.cstring("Unknown device type"))));
        try (HandleImpl nl = new HandleImpl(kernel)) {
            assertThatThrownBy(() -> nl.addVrf(LinkAttrs.named("vrf-blue"), 1001))
                    .isInstanceOfSatisfying(NetlinkException.class, e -> {
                        assertThat(e.kind()).isEqualTo(NetlinkException.Kind.NOT_SUPPORTED);
                        assertThat(e.errnoName()).isEqualTo("EOPNOTSUPP");
                        assertThat(e.extAck()).isEqualTo("Unknown device type");
                        assertThat(e.getMessage()).isEqualTo("RTM_NEWLINK vrf-blue type vrf table 1001: EOPNOTSUPP "
                                + "(Operation not supported): Unknown device type");
                    });
        }
        assertThatThrownBy(() -> new HandleImpl(new FakeTransport()).addVrf(LinkAttrs.named("vrf-blue"), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
