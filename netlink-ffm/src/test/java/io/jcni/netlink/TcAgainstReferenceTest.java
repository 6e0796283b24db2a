package io.jcni.netlink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jcni.netlink.internal.rtnl.TcCodec;
import io.jcni.netlink.internal.wire.MessageWriter;
import io.jcni.netlink.internal.wire.NetlinkH;
import io.jcni.netlink.internal.wire.RtnetlinkH;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Our tc requests against the two references: the bytes {@code tc} itself sends for the same token bucket (captured
 * with {@code strace}), rate table included; and the kernel state the Go bandwidth plugin (Debian's
 * {@code containernetworking-plugins}) leaves, rebuilt from our typed ops in another namespace and compared through
 * {@code tc -j}.
 */
class TcAgainstReferenceTest {
    private static final Path GO_BANDWIDTH = Path.of("/usr/lib/cni/bandwidth");

    @TempDir
    Path dir;

    /**
     * {@code tc qdisc add dev v0 root handle 1: tbf rate R burst B latency L [mpu M]} and
     * {@code Qdisc.root(v0, 1:, Tbf.tc(...))} are the same message but for the sequence number: tbf parameters, burst
     * attribute and the whole 256-entry rate table ({@code tc_calc_rtable}).
     */
    @ParameterizedTest
    @CsvSource({
        "8000000, 10000, 25, 0",
        "100000, 3000, 50, 0",
        "1000000000, 131072, 1, 0",
        "56000, 1600, 400, 64",
        "7777776, 9999, 33, 0",
    })
    void tbfRequestIsByteForByteWhatTcSends(long rateBits, long burst, long latencyMillis, int mpu) throws Exception {
        assumeTrue(Kernel.run("sh", "-c", "command -v strace").exit() == 0, "strace is not installed");
        try (TestNamespace t = TestNamespace.create()) {
            Link v0 = t.vethPair("v0", "v1");
            Path trace = dir.resolve("tc.strace");
            List<String> command = new ArrayList<>(List.of("strace", "-f", "-qq", "-e", "trace=sendmsg", "-e",
                    "write=all", "-o", trace.toString(), "tc", "-n", t.name, "qdisc", "add", "dev", "v0", "root",
                    "handle", "1:", "tbf", "rate", rateBits + "bit", "burst", Long.toString(burst), "latency",
                    latencyMillis + "ms"));
            if (mpu != 0) {
                command.addAll(List.of("mpu", Integer.toString(mpu)));
            }
            Kernel.sh(command.toArray(String[]::new));
            byte[] theirs = capturedMessage(trace, RtnetlinkH.RTM_NEWQDISC);

            QdiscInfo.Tbf tbf = QdiscInfo.Tbf.tc(rateBits / 8, burst, latencyMillis * 1000);
            tbf = new QdiscInfo.Tbf(tbf.rate(), tbf.limit(), tbf.buffer(), tbf.burst(), mpu, tbf.linkLayer());
            MessageWriter w = new MessageWriter(2048);
            w.begin(RtnetlinkH.RTM_NEWQDISC, NetlinkH.NLM_F_REQUEST | NetlinkH.NLM_F_ACK | NetlinkH.NLM_F_CREATE
                    | NetlinkH.NLM_F_EXCL, 0);
            TcCodec.newQdisc(w, Qdisc.root(v0.index(), TcHandle.make(1, 0), tbf), TcClock.system());
            w.end();
            byte[] ours = Arrays.copyOf(w.array(), w.position());

            ByteBuffer.wrap(theirs).order(ByteOrder.nativeOrder()).putInt(8, 0); // sequence numbers differ
            assertThat(HexFormat.of().formatHex(ours)).isEqualTo(HexFormat.of().formatHex(theirs));
            assertThat(ours.length).as("a rate table was compared").isGreaterThan(1024);
        }
    }

    /**
     * The first message of {@code type} in an strace log written with {@code -e write=all}: its hex dump lines
     * ({@code  | 00000  64 04 00 00 ...  d...|}) after the {@code sendmsg} call.
     */
    private static byte[] capturedMessage(Path trace, int type) throws IOException {
        List<byte[]> buffers = new ArrayList<>();
        StringBuilder hex = null;
        for (String line : Files.readAllLines(trace)) {
            if (line.startsWith(" | ") && hex != null) {
                hex.append(line, 10, Math.min(line.length(), 10 + 49));
            } else {
                if (hex != null && !hex.isEmpty()) {
                    buffers.add(HexFormat.of().parseHex(hex.toString().replace(" ", "")));
                }
                hex = line.startsWith(" * ") ? new StringBuilder() : null;
            }
        }
        if (hex != null && !hex.isEmpty()) {
            buffers.add(HexFormat.of().parseHex(hex.toString().replace(" ", "")));
        }
        for (byte[] b : buffers) {
            ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
            if (b.length >= 16 && Short.toUnsignedInt(m.getShort(4)) == type) {
                return Arrays.copyOf(b, m.getInt(0));
            }
        }
        throw new AssertionError("no message of type " + type + " in " + buffers.size() + " captured buffers:\n"
                + Files.readString(trace));
    }

    /**
     * Go's bandwidth plugin in one test host namespace, our typed ops in another: {@code tc -j} shows the same qdiscs
     * (tbf on the host veth and on the ifb, ingress on the host veth) and the same u32 filter with its two mirred
     * actions.
     */
    @ParameterizedTest
    @CsvSource({"8000000, 80000", "1234567, 99999"})
    void goBandwidthPluginLayoutIsWhatOurOpsBuild(long rateBits, long burstBits) throws Exception {
        assumeTrue(Files.isExecutable(GO_BANDWIDTH), "the Go reference plugins are not installed (scripts/setup)");
        try (TestNamespace goHost = TestNamespace.create();
                TestNamespace goContainer = TestNamespace.create();
                TestNamespace ours = TestNamespace.create()) {
            goHost.nl.addVeth(LinkAttrs.named("hv0").up(true), LinkAttrs.named("eth0").netns(goContainer.ns));
            goContainer.nl.setUp(goContainer.nl.link("eth0").index());
            String config = """
                    {"cniVersion":"0.4.0","name":"bwtest","type":"bandwidth",
                     "ingressRate":%d,"ingressBurst":%d,"egressRate":%d,"egressBurst":%d,
                     "prevResult":{"cniVersion":"0.4.0","ips":[],
                       "interfaces":[{"name":"hv0"},{"name":"eth0","sandbox":"/run/netns/%s"}]}}
                    """.formatted(rateBits, burstBits, rateBits, burstBits, goContainer.name);
            JsonNode result = new ObjectMapper().readTree(runPlugin(goHost.name, goContainer.name, config));
            String ifbName = result.get("interfaces").get(2).get("name").asText();
            assertThat(ifbName).startsWith("bwp");

            Link hv0 = ours.vethPair("hv0", "eth0");
            ours.nl.addIfb(LinkAttrs.named(ifbName).mtu(hv0.mtu()).up(true));
            int ifb = ours.nl.link(ifbName).index();
            QdiscInfo.Tbf tbf = QdiscInfo.Tbf.goBandwidth(rateBits / 8, burstBits / 8,
                    QdiscInfo.Tbf.GO_BANDWIDTH_LATENCY_MILLIS);
            ours.nl.addQdisc(Qdisc.root(hv0.index(), TcHandle.make(1, 0), tbf));
            ours.nl.addQdisc(Qdisc.ingress(hv0.index()));
            ours.nl.addFilter(new Filter(hv0.index(), TcHandle.make(0xffff, 0), 0, 1, Filter.PROTOCOL_ALL,
                    FilterInfo.U32.matchAll(TcHandle.make(1, 1), List.of(TcAction.Mirred.egressRedirect(ifb),
                            TcAction.Mirred.egressRedirect(ifb).verdict(TcAction.PASS)))));
            ours.nl.addQdisc(Qdisc.root(ifb, TcHandle.make(1, 0), tbf));

            JsonNode goQdiscs = goHost.tc("-d", "qdisc", "show");
            assertThat(goQdiscs).as("Go made tbf, ingress, tbf").hasSize(3);
            assertThat(ours.tc("-d", "qdisc", "show", "dev", "hv0")).isEqualTo(goHost.tc("-d", "qdisc", "show", "dev",
                    "hv0"));
            assertThat(ours.tc("-d", "qdisc", "show", "dev", ifbName)).isEqualTo(goHost.tc("-d", "qdisc", "show",
                    "dev", ifbName));
            JsonNode goFilters = goHost.tc("-d", "filter", "show", "dev", "hv0", "ingress");
            assertThat(goFilters.toString()).contains("mirred").contains(ifbName);
            assertThat(ours.tc("-d", "filter", "show", "dev", "hv0", "ingress")).isEqualTo(goFilters);
            // and our reads see Go's objects as they see ours
            int goHv0 = goHost.nl.link("hv0").index();
            int goIfb = goHost.nl.link(ifbName).index();
            assertThat(goHost.nl.qdiscs(goIfb)).extracting(Qdisc::info).contains(tbf);
            assertThat(goHost.nl.filters(goHv0, TcHandle.make(0xffff, 0))).extracting(Filter::info)
                    .contains(FilterInfo.U32.matchAll(TcHandle.make(1, 1), List.of(
                            TcAction.Mirred.egressRedirect(goIfb),
                            TcAction.Mirred.egressRedirect(goIfb).verdict(TcAction.PASS))));
        }
    }

    /** Runs Go's bandwidth ADD inside {@code hostNs}; returns its stdout, failing with its stderr. */
    private static String runPlugin(String hostNs, String containerNs, String config) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("ip", "netns", "exec", hostNs, GO_BANDWIDTH.toString());
        pb.environment().put("CNI_COMMAND", "ADD");
        pb.environment().put("CNI_CONTAINERID", "jcni-tc-test");
        pb.environment().put("CNI_NETNS", "/run/netns/" + containerNs);
        pb.environment().put("CNI_IFNAME", "eth0");
        pb.environment().put("CNI_PATH", GO_BANDWIDTH.getParent().toString());
        Process p = pb.start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(config.getBytes(StandardCharsets.UTF_8));
        }
        String out;
        String err;
        try (var stdout = p.getInputStream(); var stderr = p.getErrorStream()) {
            out = new String(stdout.readAllBytes(), StandardCharsets.UTF_8);
            err = new String(stderr.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("Go bandwidth failed: %s %s", out, err).isZero();
        return out;
    }
}
