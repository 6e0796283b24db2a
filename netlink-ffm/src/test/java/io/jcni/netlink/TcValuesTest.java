package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The tc, rule and tun/tap value types: clock conversions, token bucket parameters, handles and their checks. */
class TcValuesTest {
    private static final TcClock CLOCK = TcClock.parse("000003e8 00000040 000f4240 3b9aca00");

    @Test
    void clockFromProcNetPsched() {
        assertThat(CLOCK).isEqualTo(new TcClock(15.625, 1.0));
        // a 1 GHz clock resolution means "multiplier 1" whatever t2us says (iproute2's compatibility rule)
        assertThat(TcClock.parse("000003e8 00000040 3b9aca00 3b9aca00")).isEqualTo(new TcClock(1000.0, 1000.0));
        assertThat(TcClock.system().tickInUsec()).isPositive();
        assertThatThrownBy(() -> TcClock.parse("garbage")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TcClock.parse("000003e8 00000000 000f4240")).isInstanceOf(
                IllegalArgumentException.class);
        assertThat(CLOCK.xmitTime(1_000_000, 10_000)).isEqualTo(156_250);
        assertThat(CLOCK.time2tick(8)).isEqualTo(125);
    }

    @Test
    void tbfAsTcAndAsGoBandwidth() {
        assertThat(QdiscInfo.Tbf.tc(1_000_000, 10_000, 25_000, CLOCK))
                .isEqualTo(new QdiscInfo.Tbf(1_000_000, 35_000, 156_250, 10_000, 0, QdiscInfo.Tbf.LINKLAYER_ETHERNET));
        assertThat(QdiscInfo.Tbf.goBandwidth(1_000_000, 10_000, 25, CLOCK))
                .isEqualTo(new QdiscInfo.Tbf(1_000_000, 35_000, 156_250, 0, 0, QdiscInfo.Tbf.LINKLAYER_UNAWARE));
        // Go truncates rate * latency before adding the burst, tc after: 154320 B/s * 25 ms = 3858 B either way,
        // and both round the buffer time down to whole microseconds before converting it to ticks
        QdiscInfo.Tbf go = QdiscInfo.Tbf.goBandwidth(154_320, 12_499, 25, CLOCK);
        assertThat(go.limit()).isEqualTo(3858 + 12_499);
        assertThat(go.buffer()).isEqualTo((int) (80_994 * 15.625)); // 12499 / 154320 s = 80994.0... us
    }

    @Test
    void tbfRejectsWhatTheKernelCouldNotHold() {
        assertThatThrownBy(() -> QdiscInfo.Tbf.tc(0, 10_000, 25_000, CLOCK)).hasMessageContaining("rate");
        assertThatThrownBy(() -> QdiscInfo.Tbf.goBandwidth(1000, 0, 25, CLOCK)).hasMessageContaining("burst");
        assertThatThrownBy(() -> QdiscInfo.Tbf.goBandwidth(1000, 1L << 32, 25, CLOCK)).hasMessageContaining("burst");
        assertThatThrownBy(() -> QdiscInfo.Tbf.tc(1L << 40, 10_000, 1_000_000, CLOCK))
                .hasMessageContaining("limit does not fit 32 bits");
        assertThatThrownBy(() -> QdiscInfo.Tbf.goBandwidth(1L << 40, 10_000, 25, CLOCK))
                .hasMessageContaining("limit does not fit 32 bits");
        assertThatThrownBy(() -> new QdiscInfo.Tbf(1000, 1, 1, 0, 0, 7)).hasMessageContaining("link layer");
    }

    @Test
    void handlesAsTcWritesThem() {
        assertThat(TcHandle.format(TcHandle.ROOT)).isEqualTo("root");
        assertThat(TcHandle.format(TcHandle.make(1, 0))).isEqualTo("1:");
        assertThat(TcHandle.format(TcHandle.make(1, 1))).isEqualTo("1:1");
        assertThat(TcHandle.format(TcHandle.INGRESS)).isEqualTo("ffff:fff1");
        assertThat(TcHandle.format(0)).isEqualTo("none");
        assertThat(TcHandle.format(5)).isEqualTo(":5");
        assertThat(TcHandle.major(0x80000800)).isEqualTo(0x8000);
        assertThat(TcHandle.minor(0x80000800)).isEqualTo(0x800);
        assertThatThrownBy(() -> TcHandle.make(0x10000, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requestsDescribeThemselvesAsTcAndIpDo() {
        assertThat(Qdisc.ingress(3)).hasToString("dev 3 parent ffff:fff1 handle ffff: ingress");
        assertThat(Qdisc.root(3, TcHandle.make(1, 0), new QdiscInfo.Tbf(1_000_000, 35_000, 156_250, 0, 0, 0)))
                .hasToString("dev 3 parent root handle 1: tbf rate 1000000 limit 35000 buffer 156250 linklayer 0");
        assertThat(new Filter(3, TcHandle.make(0xffff, 0), 0, 1, Filter.PROTOCOL_ALL, FilterInfo.U32.matchAll(
                TcHandle.make(1, 1), List.of(TcAction.Mirred.egressRedirect(7))))).hasToString("dev 3 parent ffff: "
                        + "protocol 0x0003 pref 1 u32 match 00000000/00000000 at 0 flowid 1:1 action mirred egress "
                        + "redirect dev 7 stolen");
        assertThat(Rule.from(Cidrs.ip("10.0.0.5"), 32).table(100).priority(1000))
                .hasToString("1000: inet from 10.0.0.5/32 lookup 100");
        assertThat(TunTap.tap("tap0").multiQueue(true).owner(1000)).hasToString("tap0 mode tap multi_queue user 1000");
    }

    @Test
    void invalidValuesAreRejectedBeforeAnyRequest() {
        assertThatThrownBy(() -> Rule.of(Family.V4).source(Cidrs.ip("fd00::1"), 128))
                .hasMessageContaining("other family");
        assertThatThrownBy(() -> Rule.of(Family.V4).iif("no/slash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FilterInfo.U32Key(0x0a000001, 0xffffff00, 16, 0)).hasMessageContaining("mask");
        assertThatThrownBy(() -> new Filter(3, 0, 0, 0x10000, Filter.PROTOCOL_ALL, new FilterInfo.Other("u32")))
                .hasMessageContaining("priority");
        assertThatThrownBy(() -> TcAction.Mirred.egressRedirect(0)).hasMessageContaining("index");
        assertThatThrownBy(() -> TunTap.tap("tap0").owner(-2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TunTap.tap("a-name-longer-than-15")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Qdisc.ingress(0)).hasMessageContaining("index");
    }
}
