package io.jcni.plugins.internal.meta.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Filter;
import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.LinkInfo;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.Qdisc;
import io.jcni.netlink.QdiscInfo;
import io.jcni.netlink.TcHandle;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * bandwidth against a real kernel: a "host" and a "container" namespace (both anonymous, gone when closed) joined by a
 * veth pair {@code hv0}/{@code eth0}, the plugin run in-process on a thread inside the host namespace, which is the
 * plugin's host. State is read back through netlink-ffm; the it module reads it with {@code tc -j}, compares it with
 * Go's plugin and measures real traffic.
 */
class BandwidthPluginTest {
    static final long RATE = 8_000_000;
    static final long BURST = 80_000;

    private final Skel skel = PluginRegistry.skel("bandwidth");
    private NetNs host;
    private NetNs container;
    private String containerPath;
    private final java.util.List<NetNs> extra = new java.util.ArrayList<>();

    @BeforeEach
    void vethBetweenTwoNamespaces() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates network namespaces");
        host = NetNs.create();
        container = NetNs.create();
        containerPath = container.path().toString();
        try (NetlinkHandle nl = Netlink.open(host)) {
            nl.addVeth(LinkAttrs.named("hv0").up(true), LinkAttrs.named("eth0").netns(container));
        }
        try (NetlinkHandle nl = Netlink.open(container)) {
            nl.setUp(nl.link("eth0").index());
        }
    }

    @AfterEach
    void close() {
        for (NetNs other : extra) {
            other.close();
        }
        if (container != null) {
            container.close();
        }
        if (host != null) {
            host.close();
        }
    }

    String prevResult() {
        return "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"hv0\"},{\"name\":\"eth0\",\"sandbox\":\""
                + containerPath + "\"}],\"ips\":[{\"address\":\"10.5.0.2/24\",\"interface\":1}]}";
    }

    String conf(String network, String keys, String prev) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"" + network + "\",\"type\":\"bandwidth\"" + keys
                + (prev == null ? "" : ",\"prevResult\":" + prev) + "}";
    }

    String both() {
        return ",\"ingressRate\":" + RATE + ",\"ingressBurst\":" + BURST + ",\"egressRate\":" + RATE
                + ",\"egressBurst\":" + BURST;
    }

    /** Runs the call in the host namespace (the plugin's host is its thread's namespace). */
    PluginCall.Outcome inHost(PluginCall call) {
        return host.call(() -> call.run(skel));
    }

    PluginCall call(String command, String containerId, String conf) {
        return PluginCall.of(command).netns(containerPath).containerId(containerId).ifName("eth0").stdin(conf);
    }

    <T> T hostNl(java.util.function.Function<NetlinkHandle, T> read) {
        try (NetlinkHandle nl = Netlink.open(host)) {
            return read.apply(nl);
        }
    }

    List<String> hostLinks() {
        return hostNl(nl -> nl.links().stream().map(Link::name).sorted().toList());
    }

    @Test
    void addLaysOutGosQdiscsCheckPassesAndDelRemovesTheIfb() throws Exception {
        String conf = conf("bwnet", both(), prevResult());
        Result result = (Result) inHost(call("ADD", "ctr-bw", conf)).result();

        String ifbName = Ifb.name("bwnet", "ctr-bw");
        assertThat(result.interfaces()).extracting(Interface::name).containsExactly("hv0", "eth0", ifbName);
        QdiscInfo.Tbf expected = QdiscInfo.Tbf.goBandwidth(RATE / 8, BURST / 8, 25);
        hostNl(nl -> {
            Link hv0 = nl.link("hv0");
            Link ifb = nl.link(ifbName);
            assertThat(ifb.info()).isInstanceOf(LinkInfo.Ifb.class);
            assertThat(ifb.isUp()).isTrue();
            assertThat(ifb.mtu()).isEqualTo(hv0.mtu());
            assertThat(ifb.txQueueLen()).as("Go's queue length 0").isZero();
            assertThat(ifb.alias()).isEqualTo("jcni-bandwidth bwnet ctr-bw");
            assertThat(result.interfaces().get(2).mac()).isEqualTo(ifb.address().toString());
            assertThat(nl.qdisc(hv0.index(), TcHandle.ROOT).info()).isEqualTo(expected);
            assertThat(nl.qdisc(ifb.index(), TcHandle.ROOT).info()).isEqualTo(expected);
            assertThat(nl.qdisc(hv0.index(), TcHandle.INGRESS).kind()).isEqualTo("ingress");
            assertThat(nl.filters(hv0.index(), TcHandle.make(0xffff, 0))).extracting(Filter::info)
                    .contains(BandwidthPlugin.redirect(hv0.index(), ifb.index()).info());
            return null;
        });

        String checked = conf("bwnet", both(), json(result));
        inHost(call("CHECK", "ctr-bw", checked)).ok();

        hostNl(nl -> {
            nl.deleteQdisc(nl.link(ifbName).index(), TcHandle.ROOT, 0);
            return null;
        });
        CniError broken = inHost(call("CHECK", "ctr-bw", checked)).error();
        assertThat(broken.msg()).isEqualTo("Failed to find qdisc");
        assertThat(broken.details()).isEqualTo("the root qdisc of " + ifbName + " is noqueue, not tbf");

        inHost(call("DEL", "ctr-bw", conf)).ok();
        assertThat(hostLinks()).containsExactly("hv0", "lo");
        inHost(call("DEL", "ctr-bw", conf)).ok();
    }

    @Test
    void ingressOnlyMakesNoIfbAndCheckSeesAChangedRate() throws Exception {
        String keys = ",\"ingressRate\":" + RATE + ",\"ingressBurst\":" + BURST;
        Result result = (Result) inHost(call("ADD", "ctr-in", conf("bwnet", keys, prevResult()))).result();
        assertThat(result.interfaces()).hasSize(2);
        assertThat(hostLinks()).containsExactly("hv0", "lo");
        String other = ",\"ingressRate\":" + (RATE * 2) + ",\"ingressBurst\":" + BURST;
        CniError error = inHost(call("CHECK", "ctr-in", conf("bwnet", other, json(result)))).error();
        assertThat(error.msg()).isEqualTo("Rate doesn't match");
        assertThat(error.details()).isEqualTo("tbf on hv0: 1000000 bytes/s, configured 2000000 bytes/s");
    }

    /**
     * The ifb's name is taken (here by a veth): ADD fails there, after the host end's tbf was made, and takes that
     * tbf away again; the link that was there is not touched.
     */
    @Test
    void aFailedAddLeavesNothingAndNeverTouchesWhatWasThere() throws Exception {
        String ifbName = Ifb.name("bwnet", "ctr-fail");
        hostNl(nl -> {
            nl.addVeth(LinkAttrs.named(ifbName), LinkAttrs.named("squat1"));
            return null;
        });
        CniError error = inHost(call("ADD", "ctr-fail", conf("bwnet", both(), prevResult()))).error();
        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).startsWith("adding link " + ifbName + ": RTM_NEWLINK").contains("EEXIST");
        hostNl(nl -> {
            Link hv0 = nl.link("hv0");
            assertThat(nl.qdisc(hv0.index(), TcHandle.ROOT).kind()).as("the tbf was rolled back").isEqualTo("noqueue");
            assertThat(nl.findQdisc(hv0.index(), TcHandle.INGRESS)).isEmpty();
            assertThat(nl.link(ifbName).kind()).isEqualTo("veth");
            return null;
        });
        inHost(call("DEL", "ctr-fail", conf("bwnet", both(), prevResult()))).ok();
        assertThat(hostLinks()).as("DEL leaves a link of that name that is no ifb").contains(ifbName);
    }

    @Test
    void theHostEndMustBeInThePrevResult() throws Exception {
        String prev = "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"" + containerPath
                + "\"}]}";
        CniError error = inHost(call("ADD", "ctr-x", conf("bwnet", both(), prev))).error();
        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).isEqualTo("no veth peer of container interface found in host ns");
        assertThat(hostLinks()).containsExactly("hv0", "lo");
    }

    /**
     * GC removes the ifbs this network's bandwidth made for containers not in the valid list, and nothing else: not
     * a valid container's, not another network's, not an ifb without jcni's alias (Go's, or anyone's).
     */
    @Test
    void gcRemovesOnlyThisNetworksIfbsOfGoneContainers() throws Exception {
        String egress = ",\"egressRate\":" + RATE + ",\"egressBurst\":" + BURST;
        for (String[] a : new String[][] {{"ctr-keep", "bwnet"}, {"ctr-gone", "bwnet"}, {"ctr-other", "othernet"}}) {
            String hostEnd = "h-" + a[0].substring(4);
            String path = attachment(hostEnd);
            String prev = "{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"" + hostEnd + "\"},{\"name\":"
                    + "\"eth0\",\"sandbox\":\"" + path + "\"}]}";
            inHost(call("ADD", a[0], conf(a[1], egress, prev)).netns(path)).ok();
        }
        String foreign = Ifb.name("bwnet", "ctr-go");
        hostNl(nl -> {
            nl.addIfb(LinkAttrs.named(foreign));
            return null;
        });
        assertThat(hostLinks()).contains(Ifb.name("bwnet", "ctr-keep"), Ifb.name("bwnet", "ctr-gone"),
                Ifb.name("othernet", "ctr-other"), foreign);

        String gc = "{\"cniVersion\":\"1.1.0\",\"name\":\"bwnet\",\"type\":\"bandwidth\",\"cni.dev/valid-attachments\":"
                + "[{\"containerID\":\"ctr-keep\",\"ifname\":\"eth0\"}]}";
        inHost(PluginCall.of("GC").stdin(gc)).ok();

        assertThat(hostLinks()).contains(Ifb.name("bwnet", "ctr-keep"), Ifb.name("othernet", "ctr-other"), foreign)
                .doesNotContain(Ifb.name("bwnet", "ctr-gone"));
        CniError noList = inHost(PluginCall.of("GC").stdin(gc.replace(",\"cni.dev/valid-attachments\":"
                + "[{\"containerID\":\"ctr-keep\",\"ifname\":\"eth0\"}]", ""))).error();
        assertThat(noList.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(noList.msg()).isEqualTo("GC needs cni.dev/valid-attachments");
        assertThat(hostLinks()).contains(Ifb.name("bwnet", "ctr-keep"));
    }

    /** Another container namespace with {@code eth0}, its peer {@code hostEnd} in the host; closed with the test. */
    String attachment(String hostEnd) {
        NetNs other = NetNs.create();
        extra.add(other);
        try (NetlinkHandle nl = Netlink.open(host)) {
            nl.addVeth(LinkAttrs.named(hostEnd).up(true), LinkAttrs.named("eth0").netns(other));
        }
        return other.path().toString();
    }

    @Test
    void statusProbesWhatAddNeeds() {
        inHost(PluginCall.of("STATUS").stdin("{\"cniVersion\":\"1.1.0\",\"name\":\"bwnet\",\"type\":\"bandwidth\"}"))
                .ok();
    }

    static String json(Result result) {
        return new String(io.jcni.spec.CniJson.encode(result), java.nio.charset.StandardCharsets.UTF_8);
    }
}
