package io.jcni.netlink.internal.rtnl;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.Cidrs;
import io.jcni.netlink.Family;
import io.jcni.netlink.Filter;
import io.jcni.netlink.FilterInfo;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetlinkOps;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.QdiscInfo;
import io.jcni.netlink.Rule;
import io.jcni.netlink.TcAction;
import io.jcni.netlink.TcClock;
import io.jcni.netlink.TcHandle;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.Request;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Traffic control, rule, ifb, vrf and tun messages against byte vectors written by hand from the headers
 * ({@code <linux/rtnetlink.h>}, {@code <linux/pkt_sched.h>}, {@code <linux/pkt_cls.h>},
 * {@code <linux/tc_act/tc_mirred.h>}, {@code <linux/fib_rules.h>}, {@code <linux/if_link.h>}): little-endian, every
 * field annotated. Every request encoder of these ops has a vector; the reply vectors cover what the decoders read
 * (the vrf one a link type this test kernel lacks).
 */
class TcAndRuleWireVectorsTest {
    private static final int ACK = NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK;
    private static final int CREATE = ACK | NetlinkH.NLM_F_CREATE | NetlinkH.NLM_F_EXCL;
    /** This machine's {@code /proc/net/psched}: 64 ns ticks, 15.625 per microsecond. */
    private static final TcClock CLOCK = TcClock.parse("000003e8 00000040 000f4240 3b9aca00\n");

    private static byte[] hex(String annotated) {
        StringBuilder digits = new StringBuilder();
        for (String line : annotated.split("\n")) {
            int comment = line.indexOf('#');
            digits.append((comment < 0 ? line : line.substring(0, comment)).replaceAll("\\s", ""));
        }
        return HexFormat.of().parseHex(digits);
    }

    /**
     * The one request {@code op} submits, encoded as a handle sends it ({@code NLM_F_REQUEST | NLM_F_ACK} and the
     * request's own flags, sequence number 1): the vectors check the op's message type and flags too.
     */
    private static String sent(Consumer<NetlinkOps> op) {
        List<Request> submitted = new ArrayList<>();
        op.accept(new Ops() {
            @Override
            protected void submit(Request request) {
                submitted.add(request);
            }
        });
        assertThat(submitted).hasSize(1);
        Request r = submitted.getFirst();
        return encode(r, NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK | r.flags());
    }

    /** A dump request as the channel sends it ({@code NLM_F_REQUEST | NLM_F_DUMP}). */
    private static String dump(Request r) {
        return encode(r, NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_DUMP | r.flags());
    }

    private static String encode(Request r, int flags) {
        MessageWriter w = new MessageWriter(16);
        w.begin(r.type(), flags, 1);
        r.encode(w);
        w.end();
        return HexFormat.of().formatHex(Arrays.copyOf(w.array(), w.position()));
    }

    private static String expect(String annotated) {
        return HexFormat.of().formatHex(hex(annotated));
    }

    private static ByteBuffer buffer(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }

    // ---- requests ----------------------------------------------------------------------------------------------

    @Test
    void ingressQdisc() {
        assertThat(sent(ops -> ops.addQdisc(Qdisc.ingress(3)))).isEqualTo(expect("""
                34000000 2400 0506 01000000 00000000   # nlmsghdr: len 52, RTM_NEWQDISC, REQUEST|ACK|EXCL|CREATE
                00 00 0000 03000000                    # tcmsg: AF_UNSPEC, ifindex 3
                0000ffff f1ffffff 00000000             #   handle ffff:0, parent TC_H_INGRESS, info 0
                0c00 0100 696e6772 65737300            # TCA_KIND "ingress"
                0400 0200                              # TCA_OPTIONS, empty
                """));
    }

    @Test
    void clsactQdisc() {
        assertThat(sent(ops -> ops.addQdisc(Qdisc.clsact(3)))).isEqualTo(expect("""
                30000000 2400 0506 01000000 00000000   # nlmsghdr: len 48
                00 00 0000 03000000 0000ffff f1ffffff 00000000 # tcmsg: ifindex 3, ffff:0, parent TC_H_CLSACT
                0b00 0100 636c7361 637400 00           # TCA_KIND "clsact", padded; no options
                """));
    }

    @Test
    void tbfAsTheGoBandwidthPluginSendsIt() {
        QdiscInfo.Tbf tbf = QdiscInfo.Tbf.goBandwidth(1_000_000, 10_000, 25, CLOCK);
        assertThat(tbf).isEqualTo(new QdiscInfo.Tbf(1_000_000, 35_000, 156_250, 0, 0, 0));
        Qdisc q = Qdisc.root(3, TcHandle.make(1, 0), tbf);
        assertThat(sent(ops -> ops.addQdisc(q))).isEqualTo(expect("""
                58000000 2400 0506 01000000 00000000   # nlmsghdr: len 88
                00 00 0000 03000000 00000100 ffffffff 00000000 # tcmsg: ifindex 3, handle 1:0, parent TC_H_ROOT
                0800 0100 74626600                     # TCA_KIND "tbf"
                2c00 0200                              # TCA_OPTIONS, 44 bytes
                  2800 0100                            #   TCA_TBF_PARMS, struct tc_tbf_qopt:
                    00 00 0000 0000 0000 40420f00      #     rate: cell_log 0, linklayer unaware, mpu 0, 1000000 B/s
                    00 00 0000 0000 0000 00000000      #     peakrate: none
                    b8880000 5a620200 00000000         #     limit 35000, buffer 156250 ticks (10 ms), mtu 0
                """));
    }

    @Test
    void tbfAsTcSendsItWithBurstAndRateTable() {
        QdiscInfo.Tbf tbf = QdiscInfo.Tbf.tc(1_000_000, 10_000, 25_000, CLOCK);
        assertThat(tbf).isEqualTo(new QdiscInfo.Tbf(1_000_000, 35_000, 156_250, 10_000, 0, 1));
        MessageWriter w = new MessageWriter(16);
        w.begin(RtnetlinkH.RTM_NEWQDISC, CREATE, 1);
        TcCodec.newQdisc(w, Qdisc.root(3, TcHandle.make(1, 0), tbf), CLOCK);
        w.end();
        byte[] msg = Arrays.copyOf(w.array(), w.position());
        String head = expect("""
                64040000 2400 0506 01000000 00000000   # nlmsghdr: len 1124, as tc's own request
                00 00 0000 03000000 00000100 ffffffff 00000000 # tcmsg
                0800 0100 74626600                     # TCA_KIND "tbf"
                3804 0200                              # TCA_OPTIONS, 1080 bytes
                  2800 0100                            #   TCA_TBF_PARMS:
                    03 01 0000 ffff 0000 40420f00      #     rate: cell_log 3, ethernet, cell_align -1, 1000000 B/s
                    00 00 0000 0000 0000 00000000      #     peakrate: none
                    b8880000 5a620200 00000000         #     limit 35000, buffer 156250, mtu 0
                  0800 0600 10270000                   #   TCA_TBF_BURST 10000
                  0404 0200                            #   TCA_TBF_RTAB, 1024 bytes:
                    7d000000 fa000000 77010000         #     8, 16, 24 bytes: 125, 250, 375 ticks
                """);
        assertThat(HexFormat.of().formatHex(msg)).startsWith(head);
        // entry i: (i + 1) << 3 bytes at 10^6 B/s take 8(i + 1) us, 125(i + 1) ticks of 64 ns, computed as tc_core.c
        // does: the time in double, truncated to whole microseconds, then to ticks. 1992 / 10^6 * 10^6 is
        // 1991.9999... in double, so entry 248 is 1991 us = 31109 ticks, not 31125: tc sends the same
        // (TcAgainstReferenceTest compares the whole table with tc's).
        ByteBuffer rtab = buffer(msg).position(100).slice().order(ByteOrder.nativeOrder());
        for (int i = 0; i < 256; i++) {
            long micros = (long) (1_000_000 * ((double) ((i + 1) << 3) / 1_000_000));
            assertThat(rtab.getInt(4 * i)).as("rtab[%d]", i).isEqualTo((int) (micros * 15.625));
        }
        assertThat(rtab.getInt(4 * 248)).isEqualTo(31109);
        assertThat(rtab.getInt(4 * 255)).isEqualTo(32000);
        assertThat(msg).hasSize(100 + 1024);
    }

    @Test
    void tbfAbove4GBytesPerSecondUsesRate64() {
        QdiscInfo.Tbf tbf = new QdiscInfo.Tbf(5_000_000_000L, 1_000_000, 1000, 0, 0, 0);
        assertThat(sent(ops -> ops.addQdisc(Qdisc.root(3, TcHandle.make(1, 0), tbf)))).isEqualTo(expect("""
                64000000 2400 0506 01000000 00000000   # nlmsghdr: len 100
                00 00 0000 03000000 00000100 ffffffff 00000000
                0800 0100 74626600                     # TCA_KIND "tbf"
                3800 0200                              # TCA_OPTIONS, 56 bytes
                  2800 0100                            #   TCA_TBF_PARMS
                    00 00 0000 0000 0000 ffffffff      #     rate ~0U: see TCA_TBF_RATE64
                    00 00 0000 0000 0000 00000000
                    40420f00 e8030000 00000000         #     limit 1000000, buffer 1000
                  0c00 0400 00f2052a 01000000          #   TCA_TBF_RATE64 5000000000
                """));
    }

    @Test
    void replaceQdiscDiffersFromAddOnlyInItsFlags() {
        String add = sent(ops -> ops.addQdisc(Qdisc.clsact(3)));
        String replace = sent(ops -> ops.replaceQdisc(Qdisc.clsact(3)));
        assertThat(replace.substring(0, 12)).isEqualTo(add.substring(0, 12));
        assertThat(replace.substring(12, 16)).isEqualTo("0505"); // REQUEST|ACK|REPLACE|CREATE, no EXCL
        assertThat(replace.substring(16)).isEqualTo(add.substring(16));
    }

    @Test
    void deleteQdisc() {
        assertThat(sent(ops -> ops.deleteQdisc(3, TcHandle.ROOT, 0))).isEqualTo(expect("""
                24000000 2500 0500 01000000 00000000   # nlmsghdr: len 36, RTM_DELQDISC, REQUEST|ACK
                00 00 0000 03000000 00000000 ffffffff 00000000 # tcmsg: ifindex 3, any handle, parent root
                """));
    }

    @Test
    void u32MatchAllWithTwoMirredRedirectsAsGoCreatesIt() {
        Filter f = new Filter(3, TcHandle.make(0xffff, 0), 0, 1, Filter.PROTOCOL_ALL, FilterInfo.U32.matchAll(
                TcHandle.make(1, 1), List.of(TcAction.Mirred.egressRedirect(7),
                        TcAction.Mirred.egressRedirect(7).verdict(TcAction.PASS))));
        assertThat(sent(ops -> ops.addFilter(f))).isEqualTo(expect("""
                c8000000 2c00 0506 01000000 00000000   # nlmsghdr: len 200, RTM_NEWTFILTER, create flags
                00 00 0000 03000000 00000000 0000ffff  # tcmsg: ifindex 3, handle 0, parent ffff:
                00030100                               #   info: prio 1 << 16 | htons(ETH_P_ALL)
                0800 0100 75333200                     # TCA_KIND "u32"
                9c00 0200                              # TCA_OPTIONS, 156 bytes
                  2400 0500                            #   TCA_U32_SEL, struct tc_u32_sel + 1 key:
                    01 00 01 00 0000 0000 0000 0000 00000000 # TERMINAL, nkeys 1, no offsets or hash
                    00000000 00000000 00000000 00000000 #    key: mask 0, val 0, off 0, offmask 0
                  0800 0100 01000100                   #   TCA_U32_CLASSID 1:1
                  6c00 0700                            #   TCA_U32_ACT, 108 bytes
                    3400 0100                          #     action 1
                      0b00 0100 6d697272 656400 00     #       TCA_ACT_KIND "mirred"
                      2400 0200                        #       TCA_ACT_OPTIONS
                        2000 0200                      #         TCA_MIRRED_PARMS, struct tc_mirred:
                          00000000 00000000 04000000   #           index, capab, action TC_ACT_STOLEN
                          00000000 00000000            #           refcnt, bindcnt
                          01000000 07000000            #           TCA_EGRESS_REDIR to ifindex 7
                    3400 0200                          #     action 2
                      0b00 0100 6d697272 656400 00
                      2400 0200
                        2000 0200
                          00000000 00000000 00000000   #           action TC_ACT_OK (pass)
                          00000000 00000000
                          01000000 07000000
                """));
    }

    @Test
    void deleteFiltersOfAPriority() {
        assertThat(sent(ops -> ops.deleteFilter(3, TcHandle.make(0xffff, 0), 1,
                Filter.PROTOCOL_ALL))).isEqualTo(expect("""
                24000000 2d00 0500 01000000 00000000   # nlmsghdr: len 36, RTM_DELTFILTER
                00 00 0000 03000000 00000000 0000ffff 00030100 # tcmsg: ifindex 3, parent ffff:, prio 1, all
                """));
    }

    @Test
    void tcDumpRequest() {
        assertThat(dump(new TcCodec.DumpRequest(RtnetlinkH.RTM_GETTFILTER, 3,
                TcHandle.make(0xffff, 0)))).isEqualTo(expect("""
                24000000 2e00 0103 01000000 00000000   # nlmsghdr: len 36, RTM_GETTFILTER, REQUEST|DUMP
                00 00 0000 03000000 00000000 0000ffff 00000000 # tcmsg: ifindex 3, parent ffff:
                """));
    }

    @Test
    void ipv4SourceRule() {
        Rule r = Rule.from(Cidrs.ip("10.0.0.5"), 32).table(100).priority(1000);
        assertThat(sent(ops -> ops.addRule(r))).isEqualTo(expect("""
                34000000 2000 0506 01000000 00000000   # nlmsghdr: len 52, RTM_NEWRULE, create flags
                02 00 20 00 64 00 00 01 00000000       # fib_rule_hdr: AF_INET, src /32, table 100, FR_ACT_TO_TBL
                0800 0200 0a000005                     # FRA_SRC 10.0.0.5
                0800 0600 e8030000                     # FRA_PRIORITY 1000
                0800 0f00 64000000                     # FRA_TABLE 100
                """));
    }

    @Test
    void ipv6RuleWithEverySelectorAndATableAbove255() {
        Rule r = Rule.from(Cidrs.ip("fd00::5"), 128).to(Cidrs.ip("fd01::"), 64).iif("v0").oif("v1")
                .table(1000).invert(true);
        assertThat(sent(ops -> ops.deleteRule(r))).isEqualTo(expect("""
                5c000000 2100 0500 01000000 00000000   # nlmsghdr: len 92, RTM_DELRULE, REQUEST|ACK
                0a 40 80 00 00 00 00 01 02000000       # AF_INET6, dst /64, src /128, table in FRA_TABLE, INVERT
                1400 0100 fd010000 00000000 00000000 00000000 # FRA_DST fd01::
                1400 0200 fd000000 00000000 00000000 00000005 # FRA_SRC fd00::5
                0800 0f00 e8030000                     # FRA_TABLE 1000 (no FRA_PRIORITY: any)
                0700 0300 763000 00                    # FRA_IIFNAME "v0"
                0700 1100 763100 00                    # FRA_OIFNAME "v1"
                """));
    }

    @Test
    void ruleDumpRequestCarriesTheFamilyOnly() {
        assertThat(dump(new RuleCodec.DumpRequest(Family.V6))).isEqualTo(expect("""
                1c000000 2200 0103 01000000 00000000   # nlmsghdr: len 28, RTM_GETRULE, REQUEST|DUMP
                0a 00 00 00 00 00 00 00 00000000       # fib_rule_hdr: AF_INET6, nothing else
                """));
    }

    @Test
    void ifbLink() {
        assertThat(sent(ops -> ops.addIfb(LinkAttrs.named("bwp0").mtu(1500).up(true)))).isEqualTo(expect("""
                40000000 1000 0506 01000000 00000000   # nlmsghdr: len 64, RTM_NEWLINK
                00 00 0000 00000000 01000000 01000000  # ifinfomsg: flags IFF_UP, change IFF_UP
                0900 0300 62777030 00 000000           # IFLA_IFNAME "bwp0"
                0800 0400 dc050000                     # IFLA_MTU 1500
                0c00 1200                              # IFLA_LINKINFO
                  0800 0100 69666200                   #   IFLA_INFO_KIND "ifb"
                """));
    }

    @Test
    void vrfLink() {
        assertThat(sent(ops -> ops.addVrf(LinkAttrs.named("vrf-blue"), 1001)))
                .isEqualTo(expect("""
                48000000 1000 0506 01000000 00000000   # nlmsghdr: len 72, RTM_NEWLINK
                00 00 0000 00000000 00000000 00000000  # ifinfomsg
                0d00 0300 7672662d 626c7565 00 000000  # IFLA_IFNAME "vrf-blue"
                1800 1200                              # IFLA_LINKINFO
                  0800 0100 76726600                   #   IFLA_INFO_KIND "vrf"
                  0c00 0200                            #   IFLA_INFO_DATA
                    0800 0100 e9030000                 #     IFLA_VRF_TABLE 1001
                """));
    }

    // ---- replies -----------------------------------------------------------------------------------------------

    @Test
    void decodesATbfQdiscWithRate64() {
        byte[] msg = hex("""
                6c000000 2400 0200 00000000 00000000   # nlmsghdr: len 108, RTM_NEWQDISC, NLM_F_MULTI
                00 00 0000 03000000 00000100 ffffffff 02000000 # tcmsg: ifindex 3, 1:, root, refcnt 2
                0800 0100 74626600                     # TCA_KIND "tbf"
                3800 0200                              # TCA_OPTIONS
                  2800 0100                            #   TCA_TBF_PARMS
                    00 01 0000 0000 4000 ffffffff      #     rate: ethernet, mpu 64, ~0U
                    00 00 0000 0000 0000 00000000
                    b8880000 5a620200 00000000         #     limit 35000, buffer 156250
                  0c00 0400 00f2052a 01000000          #   TCA_TBF_RATE64 5000000000
                0c00 0300 00000000 00000000            # TCA_STATS (ignored)
                """);
        assertThat(TcCodec.decodeQdisc(buffer(msg), 0, msg.length, 0)).isEqualTo(new Qdisc(3, TcHandle.make(1, 0),
                TcHandle.ROOT, new QdiscInfo.Tbf(5_000_000_000L, 35_000, 156_250, 0, 64, 1)));
        assertThat(TcCodec.decodeQdisc(buffer(msg), 0, msg.length, 4)).as("another link's").isNull();
    }

    @Test
    void decodesAU32KeyNodeWithItsActions() {
        byte[] msg = hex("""
                a4000000 2c00 0200 00000000 00000000   # nlmsghdr: len 164, RTM_NEWTFILTER, NLM_F_MULTI
                00 00 0000 03000000 00080080 0000ffff 00030100 # tcmsg: ifindex 3, fh 800::800, ffff:, prio 1 all
                0800 0100 75333200                     # TCA_KIND "u32"
                7800 0200                              # TCA_OPTIONS, 120 bytes
                  2400 0500                            #   TCA_U32_SEL
                    01 00 01 00 0000 0000 0000 0000 00000000
                    ffffffff 0a000001 10000000 00000000 # key: mask, val 10.0.0.1 (big-endian) at 16
                  0800 0100 01000100                   #   TCA_U32_CLASSID 1:1
                  4800 0700                            #   TCA_U32_ACT, 72 bytes
                    3400 0100                          #     action 1
                      0b00 0100 6d697272 656400 00     #       "mirred"
                      2400 0200
                        2000 0200                      #         tc_mirred: index 1, stolen, ref 1, bind 1
                          01000000 00000000 04000000 01000000 01000000
                          01000000 07000000            #           egress redirect to 7
                    1000 0200                          #     action 2
                      0900 0100 67616374 00 000000     #       "gact", options not decoded
                """);
        assertThat(TcCodec.decodeFilter(buffer(msg), 0, msg.length, 3)).isEqualTo(new Filter(3,
                TcHandle.make(0xffff, 0), 0x80000800, 1, Filter.PROTOCOL_ALL, new FilterInfo.U32(TcHandle.make(1, 1),
                        List.of(new FilterInfo.U32Key(0x0a000001, 0xffffffff, 16, 0)),
                        List.of(TcAction.Mirred.egressRedirect(7), new TcAction.Other("gact")), 0)));
    }

    @Test
    void decodesARuleWithATableAbove255() {
        byte[] msg = hex("""
                3c000000 2000 0200 00000000 00000000   # nlmsghdr: len 60, RTM_NEWRULE, NLM_F_MULTI
                02 00 20 00 fc 00 00 01 00000000       # AF_INET, src /32, table RT_TABLE_COMPAT, to table
                0800 0f00 e8030000                     # FRA_TABLE 1000
                0800 0600 e8030000                     # FRA_PRIORITY 1000
                0800 0200 0a000005                     # FRA_SRC 10.0.0.5
                0500 1500 04 000000                    # FRA_PROTOCOL (ignored)
                """);
        assertThat(RuleCodec.decode(buffer(msg), 0, msg.length)).isEqualTo(
                Rule.from(Cidrs.ip("10.0.0.5"), 32).table(1000).priority(1000));
    }

    @Test
    void decodesATapLink() {
        byte[] msg = hex("""
                74000000 1000 0000 00000000 00000000   # nlmsghdr: len 116, RTM_NEWLINK
                00 00 0100 04000000 02100000 00000000  # ifinfomsg: ARPHRD_ETHER, index 4
                0900 0300 74617030 00 000000           # IFLA_IFNAME "tap0"
                4800 1200                              # IFLA_LINKINFO
                  0800 0100 74756e00                   #   IFLA_INFO_KIND "tun"
                  3c00 0200                            #   IFLA_INFO_DATA
                    0500 0300 02 000000                #     IFLA_TUN_TYPE IFF_TAP
                    0500 0400 00 000000                #     IFLA_TUN_PI 0
                    0500 0500 01 000000                #     IFLA_TUN_VNET_HDR 1
                    0500 0600 01 000000                #     IFLA_TUN_PERSIST 1
                    0500 0700 01 000000                #     IFLA_TUN_MULTI_QUEUE 1
                    0800 0800 00000000                 #     IFLA_TUN_NUM_QUEUES 0
                    0800 0100 31d40000                 #     IFLA_TUN_OWNER 54321 (no group: any)
                """);
        assertThat(LinkCodec.decode(buffer(msg), 0, msg.length).info())
                .isEqualTo(new LinkInfo.Tun(true, 54321, -1, false, true, true, true, 0));
    }

    @Test
    void decodesAVrfLink() {
        byte[] msg = hex("""
                48000000 1000 0000 00000000 00000000   # nlmsghdr: len 72
                00 00 0100 05000000 00000000 00000000  # ifinfomsg: index 5
                0d00 0300 7672662d 626c7565 00 000000  # IFLA_IFNAME "vrf-blue"
                1800 1200                              # IFLA_LINKINFO
                  0800 0100 76726600                   #   "vrf"
                  0c00 0200 0800 0100 e9030000         #   IFLA_INFO_DATA { IFLA_VRF_TABLE 1001 }
                """);
        assertThat(LinkCodec.decode(buffer(msg), 0, msg.length).info()).isEqualTo(new LinkInfo.Vrf(1001));
    }
}
