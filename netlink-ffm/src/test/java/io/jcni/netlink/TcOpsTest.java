package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Traffic control and ifb operations against the kernel, read back through our API and through {@code tc -j} and
 * {@code ip -d -j link}: the qdiscs, filter and actions the Go bandwidth plugin lays out, built from our typed ops.
 */
class TcOpsTest {
    private static final int INGRESS_HANDLE = TcHandle.make(0xffff, 0);

    private TestNamespace t;
    private Link v0;

    @BeforeEach
    void namespace() {
        t = TestNamespace.create();
        v0 = t.vethPair("v0", "v1");
    }

    @AfterEach
    void remove() {
        if (t != null) {
            t.close();
        }
    }

    private Qdisc qdisc(int index, String kind) {
        return t.nl.qdiscs(index).stream().filter(q -> q.kind().equals(kind)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " qdisc on " + index + ": " + t.nl.qdiscs(index)));
    }

    private JsonNode tcQdisc(String dev, String kind) {
        for (JsonNode q : t.tc("-d", "qdisc", "show", "dev", dev)) {
            if (q.get("kind").asText().equals(kind)) {
                return q;
            }
        }
        throw new AssertionError("tc shows no " + kind + " qdisc on " + dev);
    }

    @Test
    void ifbIsCreatedListedAndDeleted() {
        t.nl.addIfb(LinkAttrs.named("ifb-a").mtu(1400).up(true));
        Link ifb = t.nl.link("ifb-a");
        assertThat(ifb.info()).isEqualTo(new LinkInfo.Ifb());
        assertThat(ifb.mtu()).isEqualTo(1400);
        assertThat(ifb.isUp()).isTrue();
        assertThat(t.nl.links()).filteredOn(l -> l.info() instanceof LinkInfo.Ifb).extracting(Link::name)
                .containsExactly("ifb-a");
        JsonNode ip = t.ipLink("ifb-a");
        assertThat(ip.get("linkinfo").get("info_kind").asText()).isEqualTo("ifb");
        assertThat(ip.get("mtu").asInt()).isEqualTo(1400);
        assertThatThrownBy(() -> t.nl.addIfb(LinkAttrs.named("ifb-a"))).isInstanceOfSatisfying(
                NetlinkException.class, e -> assertThat(e.isExists()).isTrue());
        t.nl.deleteLink(ifb.index());
        assertThat(t.nl.findLink("ifb-a")).isEmpty();
        assertThat(t.ip("link", "show", "type", "ifb")).isEmpty();
    }

    @Test
    void tbfAsTcComputesItCarriesTheRateTableAndReadsBackAsTcShows() {
        QdiscInfo.Tbf tbf = QdiscInfo.Tbf.tc(1_000_000, 10_000, 25_000);
        assertThat(tbf.limit()).isEqualTo(35_000);
        t.nl.addQdisc(Qdisc.root(v0.index(), TcHandle.make(1, 0), tbf));

        Qdisc back = qdisc(v0.index(), "tbf");
        assertThat(back.handle()).isEqualTo(TcHandle.make(1, 0));
        assertThat(back.parent()).isEqualTo(TcHandle.ROOT);
        assertThat(back.info()).isEqualTo(new QdiscInfo.Tbf(1_000_000, 35_000, tbf.buffer(), 0, 0,
                QdiscInfo.Tbf.LINKLAYER_ETHERNET));

        // The same qdisc made by tc itself on the peer reads the same, field for field.
        Kernel.sh("tc", "-n", t.name, "qdisc", "add", "dev", "v1", "root", "handle", "1:", "tbf", "rate", "8000000bit",
                "burst", "10000", "latency", "25ms");
        JsonNode ours = tcQdisc("v0", "tbf");
        JsonNode tcs = tcQdisc("v1", "tbf");
        assertThat(ours.get("options")).isEqualTo(tcs.get("options"));
        assertThat(ours.get("options").get("rate").asLong()).isEqualTo(1_000_000);
        assertThat(ours.get("options").get("burst").asText()).isEqualTo("10000b/1");
        assertThat(ours.get("options").get("lat").asLong()).isEqualTo(25_000);
        assertThat(ours.get("options").get("linklayer").asText()).isEqualTo("ethernet");
        assertThat(ours.get("handle").asText()).isEqualTo("1:");
        assertThat(ours.get("root").asBoolean()).isTrue();
        assertThat(qdisc(t.nl.link("v1").index(), "tbf").info()).isEqualTo(back.info());
        assertThatThrownBy(() -> t.nl.addQdisc(Qdisc.root(v0.index(), TcHandle.make(1, 0), tbf)))
                .isInstanceOfSatisfying(NetlinkException.class, e -> assertThat(e.isExists()).as(e.getMessage())
                        .isTrue());
    }

    @Test
    void goBandwidthLayoutBuiltFromTypedOps() {
        t.nl.addIfb(LinkAttrs.named("bwp0").mtu(v0.mtu()).up(true));
        int ifb = t.nl.link("bwp0").index();
        QdiscInfo.Tbf tbf = QdiscInfo.Tbf.goBandwidth(1_000_000, 10_000, QdiscInfo.Tbf.GO_BANDWIDTH_LATENCY_MILLIS);
        // ingress: tbf on the host veth
        t.nl.addQdisc(Qdisc.root(v0.index(), TcHandle.make(1, 0), tbf));
        // egress: everything arriving on the host veth is redirected to the ifb, which shapes it
        t.nl.addQdisc(Qdisc.ingress(v0.index()));
        List<TcAction> actions = List.of(TcAction.Mirred.egressRedirect(ifb),
                TcAction.Mirred.egressRedirect(ifb).verdict(TcAction.PASS));
        t.nl.addFilter(new Filter(v0.index(), INGRESS_HANDLE, 0, 1, Filter.PROTOCOL_ALL,
                FilterInfo.U32.matchAll(TcHandle.make(1, 1), actions)));
        t.nl.addQdisc(Qdisc.root(ifb, TcHandle.make(1, 0), tbf));

        assertThat(t.nl.qdiscs(v0.index())).extracting(Qdisc::kind).containsExactlyInAnyOrder("tbf", "ingress");
        assertThat(t.nl.qdisc(v0.index(), TcHandle.ROOT).info()).isEqualTo(tbf);
        assertThat(t.nl.qdisc(v0.index(), TcHandle.INGRESS)).isEqualTo(Qdisc.ingress(v0.index()));
        assertThat(qdisc(v0.index(), "ingress")).isEqualTo(Qdisc.ingress(v0.index()));
        assertThat(qdisc(ifb, "tbf").info()).isEqualTo(tbf);
        assertThat(t.nl.qdiscs(0)).extracting(Qdisc::index).contains(v0.index(), ifb);

        List<Filter> filters = t.nl.filters(v0.index(), INGRESS_HANDLE);
        List<Filter> keyed = filters.stream().filter(f -> f.info() instanceof FilterInfo.U32 u && !u.keys().isEmpty())
                .toList();
        assertThat(keyed).hasSize(1);
        Filter f = keyed.getFirst();
        assertThat(f.priority()).isEqualTo(1);
        assertThat(f.protocol()).isEqualTo(Filter.PROTOCOL_ALL);
        assertThat(f.handle()).isEqualTo(0x80000800);
        assertThat(f.info()).isEqualTo(FilterInfo.U32.matchAll(TcHandle.make(1, 1), actions));
        assertThat(filters).anySatisfy(h -> assertThat(((FilterInfo.U32) h.info()).divisor()).isEqualTo(1));

        JsonNode tcTbf = tcQdisc("v0", "tbf").get("options");
        assertThat(tcTbf.get("rate").asLong()).isEqualTo(1_000_000);
        assertThat(tcTbf.get("burst").asText()).isEqualTo("10000b/1");
        assertThat(tcTbf.get("lat").asLong()).isEqualTo(25_000);
        assertThat(tcTbf.get("linklayer").asText()).isEqualTo("unspec");
        assertThat(tcQdisc("v0", "ingress").get("parent").asText()).isEqualTo("ffff:fff1");
        JsonNode node = null;
        for (JsonNode j : t.tc("filter", "show", "dev", "v0", "ingress")) {
            if (j.has("options") && j.get("options").has("match")) {
                node = j.get("options");
            }
        }
        assertThat(node).as("tc shows the u32 key node").isNotNull();
        assertThat(node.get("flowid").asText()).isEqualTo("1:1");
        assertThat(node.get("actions")).hasSize(2);
        assertThat(node.get("actions").get(0).get("kind").asText()).isEqualTo("mirred");
        assertThat(node.get("actions").get(0).get("to_dev").asText()).isEqualTo("bwp0");
        assertThat(node.get("actions").get(0).get("mirred_action").asText()).isEqualTo("redirect");
        assertThat(node.get("actions").get(0).get("control_action").get("type").asText()).isEqualTo("stolen");
        assertThat(node.get("actions").get(1).get("control_action").get("type").asText()).isEqualTo("pass");

        t.nl.deleteFilter(v0.index(), INGRESS_HANDLE, 1, Filter.PROTOCOL_ALL);
        assertThat(t.nl.filters(v0.index(), INGRESS_HANDLE)).isEmpty();
        t.nl.deleteQdisc(v0.index(), TcHandle.INGRESS, 0);
        t.nl.deleteQdisc(v0.index(), TcHandle.ROOT, 0);
        assertThat(t.nl.qdiscs(v0.index())).extracting(Qdisc::kind).doesNotContain("tbf", "ingress");
        assertThat(t.tc("qdisc", "show", "dev", "v0")).extracting(j -> j.get("kind").asText())
                .doesNotContain("tbf", "ingress");
    }

    @Test
    void deletingWhatIsNotThereIsNotFoundAndAddingTwiceIsExists() {
        assertThat(t.nl.filters(v0.index(), INGRESS_HANDLE)).as("no ingress qdisc, no filters").isEmpty();
        assertThat(t.nl.findQdisc(v0.index(), TcHandle.INGRESS)).isEmpty();
        assertThat(t.nl.qdisc(v0.index(), TcHandle.ROOT)).as("the default root qdisc")
                .isEqualTo(new Qdisc(v0.index(), 0, TcHandle.ROOT, new QdiscInfo.Other("noqueue")));
        assertThat(t.nl.findQdisc(9999, TcHandle.ROOT)).isEmpty();
        assertThatThrownBy(() -> t.nl.deleteQdisc(v0.index(), TcHandle.ROOT, 0)).isInstanceOfSatisfying(
                NetlinkException.class, e -> assertThat(e.isNotFound()).as(e.getMessage()).isTrue());
        assertThatThrownBy(() -> t.nl.deleteQdisc(v0.index(), TcHandle.INGRESS, 0)).isInstanceOfSatisfying(
                NetlinkException.class, e -> assertThat(e.isNotFound()).as(e.getMessage()).isTrue());
        t.nl.addQdisc(Qdisc.ingress(v0.index()));
        assertThatThrownBy(() -> t.nl.addQdisc(Qdisc.ingress(v0.index()))).isInstanceOfSatisfying(
                NetlinkException.class, e -> {
                    assertThat(e.isExists()).as(e.getMessage()).isTrue();
                    assertThat(e.getMessage()).startsWith("RTM_NEWQDISC dev " + v0.index() + " parent ffff:fff1");
                });
        assertThatThrownBy(() -> t.nl.deleteFilter(v0.index(), INGRESS_HANDLE, 7, Filter.PROTOCOL_ALL))
                .isInstanceOfSatisfying(NetlinkException.class,
                        e -> assertThat(e.isNotFound()).as(e.getMessage()).isTrue());
        t.nl.deleteLink(v0.index());
        assertThatThrownBy(() -> t.nl.deleteQdisc(v0.index(), TcHandle.INGRESS, 0)).isInstanceOfSatisfying(
                NetlinkException.class, e -> assertThat(e.isNotFound()).as(e.getMessage()).isTrue());
    }

    @Test
    void clsactAndReplace() {
        t.nl.addQdisc(Qdisc.clsact(v0.index()));
        assertThat(qdisc(v0.index(), "clsact")).isEqualTo(Qdisc.clsact(v0.index()));
        assertThat(tcQdisc("v0", "clsact").get("parent").asText()).isEqualTo("ffff:fff1");
        t.nl.deleteQdisc(v0.index(), TcHandle.CLSACT, 0);
        assertThat(t.nl.qdiscs(v0.index())).extracting(Qdisc::kind).doesNotContain("clsact");

        QdiscInfo.Tbf slow = QdiscInfo.Tbf.tc(125_000, 5_000, 50_000);
        QdiscInfo.Tbf fast = QdiscInfo.Tbf.tc(12_500_000, 50_000, 50_000);
        t.nl.replaceQdisc(Qdisc.root(v0.index(), TcHandle.make(1, 0), slow));
        t.nl.replaceQdisc(Qdisc.root(v0.index(), TcHandle.make(1, 0), fast));
        assertThat(((QdiscInfo.Tbf) qdisc(v0.index(), "tbf").info()).rate()).isEqualTo(12_500_000);
        assertThat(tcQdisc("v0", "tbf").get("options").get("rate").asLong()).isEqualTo(12_500_000);
    }

    @Test
    void batchedTcRequestsReportEachOutcome() {
        Batch b = t.nl.batch();
        b.addQdisc(Qdisc.ingress(v0.index()));
        b.addQdisc(Qdisc.ingress(v0.index()));
        b.deleteQdisc(v0.index(), TcHandle.ROOT, 0);
        BatchResult r = b.execute();
        assertThat(r.outcomes().get(0).error()).isNull();
        assertThat(r.outcomes().get(1).error().isExists()).isTrue();
        assertThat(r.outcomes().get(2).error().isNotFound()).isTrue();
    }
}
