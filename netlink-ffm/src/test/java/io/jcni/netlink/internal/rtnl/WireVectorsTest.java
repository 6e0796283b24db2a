package io.jcni.netlink.internal.rtnl;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.BridgeVlan;
import io.jcni.netlink.Cidrs;
import io.jcni.netlink.IpvlanFlag;
import io.jcni.netlink.IpvlanMode;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NextHop;
import io.jcni.netlink.Route;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Requests and replies against byte vectors written by hand from the headers ({@code <linux/netlink.h>},
 * {@code <linux/rtnetlink.h>}, {@code <linux/if_link.h>}, {@code <linux/if_addr.h>}, {@code <linux/if_bridge.h>}):
 * little-endian, every field annotated. The reply vectors cover link types this test kernel lacks (vlan, ipvlan,
 * bridge VLANs), whose decoders cannot be checked against a live kernel here.
 */
class WireVectorsTest {
    private static final int CREATE = NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK | NetlinkH.NLM_F_CREATE
            | NetlinkH.NLM_F_EXCL;

    private static byte[] hex(String annotated) {
        StringBuilder digits = new StringBuilder();
        for (String line : annotated.split("\n")) {
            int comment = line.indexOf('#');
            digits.append((comment < 0 ? line : line.substring(0, comment)).replaceAll("\\s", ""));
        }
        return HexFormat.of().parseHex(digits);
    }

    private static byte[] encode(int type, int seq, java.util.function.Consumer<MessageWriter> body) {
        MessageWriter w = new MessageWriter(16);
        w.begin(type, CREATE, seq);
        body.accept(w);
        w.end();
        return Arrays.copyOf(w.array(), w.position());
    }

    @Test
    void newAddressRequest() {
        byte[] expected = hex("""
                38000000 1400 0506 04030201 00000000   # nlmsghdr: len 56, RTM_NEWADDR, REQUEST|ACK|EXCL|CREATE, seq
                02 18 00 00 07000000                   # ifaddrmsg: AF_INET, /24, flags 0, scope 0, index 7
                0800 0200 0a010203                     # IFA_LOCAL 10.1.2.3
                0800 0100 0a010203                     # IFA_ADDRESS 10.1.2.3
                0800 0400 0a0102ff                     # IFA_BROADCAST 10.1.2.255 (computed)
                0800 0800 00000000                     # IFA_FLAGS 0
                """);
        assertThat(encode(RtnetlinkH.RTM_NEWADDR, 0x01020304,
                w -> AddressCodec.newAddress(w, Cidrs.address(7, "10.1.2.3/24")))).isEqualTo(expected);
    }

    @Test
    void newVethRequestWithNestedPeer() {
        byte[] expected = hex("""
                68000000 1000 0506 01000000 00000000   # nlmsghdr: len 104, RTM_NEWLINK, create flags, seq 1
                00 00 0000 00000000 00000000 00000000  # ifinfomsg: AF_UNSPEC, index 0, flags 0, change 0
                0900 0300 65746830 00 000000           # IFLA_IFNAME "eth0", padded
                0800 0400 78050000                     # IFLA_MTU 1400
                3400 1200                              # IFLA_LINKINFO, 52 bytes
                  0900 0100 76657468 00 000000         #   IFLA_INFO_KIND "veth"
                  2400 0200                            #   IFLA_INFO_DATA, 36 bytes
                    2000 0100                          #     VETH_INFO_PEER, 32 bytes
                      00 00 0000 00000000 00000000 00000000 # ifinfomsg of the peer
                      0a00 0300 70656572 3000 0000     #       IFLA_IFNAME "peer0"
                """);
        assertThat(encode(RtnetlinkH.RTM_NEWLINK, 1, w -> {
            LinkCodec.newLink(w, LinkAttrs.named("eth0").mtu(1400));
            int[] info = LinkCodec.beginInfo(w, "veth");
            LinkCodec.vethPeer(w, LinkAttrs.named("peer0"));
            LinkCodec.endInfo(w, info);
        })).isEqualTo(expected);
    }

    @Test
    void newMultipathRouteRequest() {
        byte[] expected = hex("""
                50000000 1800 0506 05000000 00000000   # nlmsghdr: len 80, RTM_NEWROUTE, create flags, seq 5
                02 10 00 00 fe 03 00 01 00000000       # rtmsg: AF_INET /16, table main, proto boot, universe, unicast
                0800 0100 0a070000                     # RTA_DST 10.7.0.0
                0800 0f00 fe000000                     # RTA_TABLE 254
                2400 0900                              # RTA_MULTIPATH, 36 bytes
                  1000 00 01 03000000                  #   rtnexthop: len 16, flags 0, hops 1 (weight 2), ifindex 3
                  0800 0500 0a000002                   #     RTA_GATEWAY 10.0.0.2
                  1000 00 00 04000000                  #   rtnexthop: len 16, weight 1, ifindex 4
                  0800 0500 0a000102                   #     RTA_GATEWAY 10.0.1.2
                """);
        Route r = Cidrs.route("10.7.0.0/16").multipath(List.of(
                NextHop.via(InetAddress.ofLiteral("10.0.0.2"), 3).weight(2),
                NextHop.via(InetAddress.ofLiteral("10.0.1.2"), 4)));
        assertThat(encode(RtnetlinkH.RTM_NEWROUTE, 5, w -> RouteCodec.newRoute(w, r))).isEqualTo(expected);
    }

    @Test
    void routeWithMetricsRequest() {
        byte[] expected = hex("""
                68000000 1800 0506 06000000 00000000   # nlmsghdr: len 104
                0a 30 00 00 00 03 00 01 00000000       # rtmsg: AF_INET6 /48, table 0 (in RTA_TABLE), boot, universe
                1400 0100 fd050000 00000000 00000000 00000000 # RTA_DST fd05::
                0800 0f00 e8030000                     # RTA_TABLE 1000
                1400 0500 fd000000 00000000 00000000 00000002 # RTA_GATEWAY fd00::2
                0800 0600 2c010000                     # RTA_PRIORITY 300
                1400 0800                              # RTA_METRICS, 20 bytes
                  0800 0200 78050000                   #   RTAX_MTU 1400
                  0800 0800 b0040000                   #   RTAX_ADVMSS 1200
                """);
        Route r = Cidrs.route("fd05::/48").via(InetAddress.ofLiteral("fd00::2")).metric(300).table(1000)
                .mtu(1400).advmss(1200);
        assertThat(encode(RtnetlinkH.RTM_NEWROUTE, 6, w -> RouteCodec.newRoute(w, r))).isEqualTo(expected);
    }

    @Test
    void bridgeVlanRequestOnTheBridgeItself() {
        byte[] expected = hex("""
                34000000 1300 0506 07000000 00000000   # nlmsghdr: len 52, RTM_SETLINK
                07 00 0000 05000000 00000000 00000000  # ifinfomsg: AF_BRIDGE, index 5
                1400 1a00                              # IFLA_AF_SPEC, 20 bytes
                  0600 0000 0200 0000                  #   IFLA_BRIDGE_FLAGS BRIDGE_FLAGS_SELF
                  0800 0200 0600 0a00                  #   IFLA_BRIDGE_VLAN_INFO flags PVID|UNTAGGED, vid 10
                """);
        assertThat(encode(RtnetlinkH.RTM_SETLINK, 7, w -> LinkCodec.bridgeVlan(w, 5, 10, 6, true)))
                .isEqualTo(expected);
    }

    private static ByteBuffer buffer(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }

    @Test
    void decodesAVlanLink() {
        byte[] msg = hex("""
                58000000 1000 0000 00000000 00000000   # nlmsghdr: len 88, RTM_NEWLINK
                00 00 0100 05000000 03100000 00000000  # ifinfomsg: ARPHRD_ETHER, index 5, UP|BROADCAST|MULTICAST
                0b00 0300 76302e31 303000 00           # IFLA_IFNAME "v0.100"
                0800 0500 03000000                     # IFLA_LINK 3
                2400 1200                              # IFLA_LINKINFO
                  0900 0100 766c616e 00 000000         #   IFLA_INFO_KIND "vlan"
                  1400 0200                            #   IFLA_INFO_DATA
                    0600 0100 6400 0000                #     IFLA_VLAN_ID 100
                    0600 0500 8100 0000                #     IFLA_VLAN_PROTOCOL 0x8100 (big-endian)
                """);
        Link link = LinkCodec.decode(buffer(msg), 0, msg.length);
        assertThat(link.index()).isEqualTo(5);
        assertThat(link.name()).isEqualTo("v0.100");
        assertThat(link.parentIndex()).isEqualTo(3);
        assertThat(link.isUp()).isTrue();
        assertThat(link.type()).isEqualTo(1);
        assertThat(link.info()).isEqualTo(new LinkInfo.Vlan(100, 0x8100));
    }

    @Test
    void decodesAnIpvlanLink() {
        byte[] msg = hex("""
                4c000000 1000 0000 00000000 00000000   # nlmsghdr: len 76
                00 00 0100 06000000 00000000 00000000  # ifinfomsg: index 6
                0800 0300 69763000                     # IFLA_IFNAME "iv0"
                2400 1200                              # IFLA_LINKINFO
                  0b00 0100 6970766c 616e00 00         #   IFLA_INFO_KIND "ipvlan"
                  1400 0200                            #   IFLA_INFO_DATA
                    0600 0100 0200 0000                #     IFLA_IPVLAN_MODE l3s
                    0600 0200 0100 0000                #     IFLA_IPVLAN_FLAGS private
                """);
        assertThat(LinkCodec.decode(buffer(msg), 0, msg.length).info())
                .isEqualTo(new LinkInfo.Ipvlan(IpvlanMode.L3S, IpvlanFlag.PRIVATE));
    }

    @Test
    void decodesBridgeVlansExpandingRanges() {
        byte[] msg = hex("""
                44000000 1000 0000 00000000 00000000   # nlmsghdr: len 68
                07 00 0100 05000000 00000000 00000000  # ifinfomsg: AF_BRIDGE, index 5
                0700 0300 763000 00                    # IFLA_IFNAME "v0"
                1c00 1a00                              # IFLA_AF_SPEC
                  0800 0200 0600 0a00                  #   vid 10 PVID|UNTAGGED
                  0800 0200 0800 1400                  #   vid 20 RANGE_BEGIN
                  0800 0200 1000 1600                  #   vid 22 RANGE_END
                """);
        assertThat(LinkCodec.decodeVlans(buffer(msg), 0, msg.length, 5)).containsExactly(
                new BridgeVlan(10, true, true), new BridgeVlan(20, false, false), new BridgeVlan(21, false, false),
                new BridgeVlan(22, false, false));
        assertThat(LinkCodec.decodeVlans(buffer(msg), 0, msg.length, 6)).isNull();
    }
}
