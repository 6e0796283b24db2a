package io.jcni.plugins.internal.ipam.hostlocal;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniResult;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpText;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host-local plugin through the skel, in-process, on a temporary data directory. */
class HostLocalPluginTest {
    private final Skel skel = PluginRegistry.skel("host-local");

    @TempDir
    Path tmp;

    String conf(String version, String ipam) {
        return conf(version, ipam, "");
    }

    String conf(String version, String ipam, String extra) {
        return "{\"cniVersion\":\"" + version + "\",\"name\":\"hl\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + tmp.resolve("data") + "\"" + (ipam.isEmpty() ? "" : "," + ipam)
                + "}" + extra + "}";
    }

    static String ranges(String... subnets) {
        StringBuilder out = new StringBuilder("\"ranges\":[");
        for (int i = 0; i < subnets.length; i++) {
            out.append(i == 0 ? "" : ",").append("[{\"subnet\":\"").append(subnets[i]).append("\"}]");
        }
        return out.append(']').toString();
    }

    Result add(String containerId, String config) throws Exception {
        return (Result) PluginCall.of("ADD").containerId(containerId).stdin(config).run(skel).result();
    }

    static List<String> addresses(Result result) {
        return result.ips().stream().map(ip -> ip.address().toString()).toList();
    }

    List<String> files() throws IOException {
        Path dir = tmp.resolve("data/hl");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).filter(n -> !n.equals("lock")
                    && !n.startsWith("last_reserved_ip")).sorted().toList();
        }
    }

    @Test
    void addAllocatesTheFirstAddressAfterTheGatewayWithRoutesAndDns() throws Exception {
        Path resolv = Files.writeString(tmp.resolve("resolv.conf"), "nameserver 10.60.0.53\nsearch example\n");
        Result result = add("c1", conf("1.0.0", ranges("10.60.0.0/24") + ",\"routes\":[{\"dst\":\"0.0.0.0/0\"},"
                + "{\"dst\":\"192.168.0.0/16\",\"gw\":\"10.60.0.254\"}],\"resolvConf\":\"" + resolv + "\""));
        assertThat(result.ips()).extracting(ip -> ip.address() + " gw " + IpText.format(ip.gateway()))
                .containsExactly("10.60.0.2/24 gw 10.60.0.1");
        assertThat(result.ips()).allMatch(ip -> ip.interfaceIndex() == null);
        assertThat(result.routes()).extracting(r -> r.dst().toString()).containsExactly("0.0.0.0/0",
                "192.168.0.0/16");
        assertThat(result.dns().nameservers()).containsExactly("10.60.0.53");
        assertThat(result.dns().search()).containsExactly("example");
        assertThat(files()).containsExactly("10.60.0.2");
        assertThat(Files.readString(tmp.resolve("data/hl/10.60.0.2"))).isEqualTo("c1\r\neth0");
    }

    @Test
    void aSlash30HasOneAddressAndThenIsExhausted() throws Exception {
        String config = conf("1.0.0", ranges("10.61.0.0/30"));
        assertThat(addresses(add("c1", config))).containsExactly("10.61.0.2/30");
        CniError error = PluginCall.of("ADD").containerId("c2").stdin(config).run(skel).error();
        assertThat(error.msg()).contains("no IP addresses available in range set: 10.61.0.1-10.61.0.2");
        assertThat(files()).containsExactly("10.61.0.2");
        PluginCall.of("DEL").containerId("c1").stdin(config).run(skel).ok();
        assertThat(addresses(add("c2", config))).containsExactly("10.61.0.2/30");
    }

    @Test
    void dualStackGetsOneAddressPerRangeSet() throws Exception {
        Result result = add("c1", conf("1.0.0", ranges("10.62.0.0/24", "fd62::/64")));
        assertThat(addresses(result)).containsExactly("10.62.0.2/24", "fd62::2/64");
        assertThat(files()).containsExactly("10.62.0.2", "fd62::2");
    }

    @Test
    void theLegacyTopLevelRangeComesFirst() throws Exception {
        Result result = add("c1", conf("1.0.0", "\"subnet\":\"10.63.0.0/24\",\"rangeStart\":\"10.63.0.100\","
                + "\"rangeEnd\":\"10.63.0.110\",\"gateway\":\"10.63.0.254\"," + ranges("fd63::/64")));
        assertThat(result.ips()).extracting(ip -> ip.address() + " " + IpText.format(ip.gateway()))
                .containsExactly("10.63.0.100/24 10.63.0.254", "fd63::2/64 fd63::1");
    }

    @Test
    void theIpRangesCapabilityComesFirst() throws Exception {
        Result result = add("c1", conf("1.0.0", ranges("10.64.0.0/24"),
                ",\"runtimeConfig\":{\"ipRanges\":[[{\"subnet\":\"10.65.0.0/24\"}]]}"));
        assertThat(addresses(result)).containsExactly("10.65.0.2/24", "10.64.0.2/24");
    }

    @Test
    void requestedAddressesFromCniArgsArgsAndCapability() throws Exception {
        String ipam = ranges("10.66.0.0/24", "fd66::/64");
        Result fromEnv = (Result) PluginCall.of("ADD").containerId("c1").args("IgnoreUnknown=1;IP=10.66.0.50")
                .stdin(conf("1.0.0", ipam)).run(skel).result();
        assertThat(addresses(fromEnv)).containsExactly("10.66.0.50/24", "fd66::2/64");
        Result fromArgs = add("c2", conf("1.0.0", ipam, ",\"args\":{\"cni\":{\"ips\":[\"fd66::99/64\"]}}"));
        assertThat(addresses(fromArgs)).containsExactly("10.66.0.51/24", "fd66::99/64");
        Result fromCapability = add("c3", conf("1.0.0", ipam,
                ",\"runtimeConfig\":{\"ips\":[\"10.66.0.77\",\"fd66::77\"]}"));
        assertThat(addresses(fromCapability)).containsExactly("10.66.0.77/24", "fd66::77/64");
    }

    @Test
    void aRequestedAddressThatIsTakenOutOfRangeOrTheGatewayFails() throws Exception {
        String config = conf("1.0.0", ranges("10.67.0.0/24"));
        add("c1", config);
        CniError taken = PluginCall.of("ADD").containerId("c2").args("IP=10.67.0.2").stdin(config).run(skel).error();
        assertThat(taken.msg()).contains("requested IP address 10.67.0.2 is not available in range set "
                + "10.67.0.1-10.67.0.254");
        CniError outside = PluginCall.of("ADD").containerId("c2").args("IP=10.99.0.2").stdin(config).run(skel)
                .error();
        assertThat(outside.msg()).contains("10.99.0.2");
        CniError gateway = PluginCall.of("ADD").containerId("c2").args("IP=10.67.0.1").stdin(config).run(skel)
                .error();
        assertThat(gateway.msg()).contains("requested ip 10.67.0.1 is subnet's gateway");
        assertThat(files()).containsExactly("10.67.0.2");
    }

    @Test
    void unknownCniArgsFailUnlessIgnored() throws Exception {
        String config = conf("1.0.0", ranges("10.68.0.0/24"));
        assertThat(PluginCall.of("ADD").args("K8S_POD_NAME=x").stdin(config).run(skel).error().code())
                .isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        PluginCall.of("ADD").args("IgnoreUnknown=true;K8S_POD_NAME=x").stdin(config).run(skel).ok();
    }

    @Test
    void theSameAttachmentGetsTheSameAddressesAgain() throws Exception {
        String config = conf("1.0.0", ranges("10.69.0.0/24", "fd69::/64"));
        Result first = add("c1", config);
        Result again = add("c1", config);
        assertThat(again.ips()).isEqualTo(first.ips());
        assertThat(files()).hasSize(2);
        Result otherInterface = (Result) PluginCall.of("ADD").containerId("c1").ifName("net1").stdin(config)
                .run(skel).result();
        assertThat(addresses(otherInterface)).containsExactly("10.69.0.3/24", "fd69::3/64");
    }

    @Test
    void delReleasesAndRepeatedDelSucceeds() throws Exception {
        String config = conf("1.0.0", ranges("10.70.0.0/24", "fd70::/64"));
        add("c1", config);
        add("c2", config);
        PluginCall.of("DEL").containerId("c1").netns(null).stdin(config).run(skel).ok();
        PluginCall.of("DEL").containerId("c1").netns(null).stdin(config).run(skel).ok();
        assertThat(files()).containsExactly("10.70.0.3", "fd70::3");
        PluginCall.of("DEL").containerId("never-added").stdin(config).run(skel).ok();
    }

    @Test
    void checkFindsTheReservationUntilDel() throws Exception {
        String config = conf("1.0.0", ranges("10.71.0.0/24"));
        add("c1", config);
        PluginCall.of("CHECK").containerId("c1").stdin(config).run(skel).ok();
        PluginCall.of("DEL").containerId("c1").stdin(config).run(skel).ok();
        CniError error = PluginCall.of("CHECK").containerId("c1").stdin(config).run(skel).error();
        assertThat(error.msg()).isEqualTo("host-local: Failed to find address added by container c1");
    }

    @Test
    void gcReleasesReservationsOfAttachmentsNotInTheValidSet() throws Exception {
        String v110 = conf("1.1.0", ranges("10.72.0.0/24"));
        add("keep", v110);
        add("drop", v110);
        PluginCall.of("ADD").containerId("keep").ifName("net1").stdin(v110).run(skel).ok();
        String gc = conf("1.1.0", ranges("10.72.0.0/24"), """
                ,"cni.dev/valid-attachments":[{"containerID":\
                "keep","ifname":"eth0"}]""");
        PluginCall.of("GC").env("CNI_CONTAINERID", null).env("CNI_IFNAME", null).env("CNI_NETNS", null).stdin(gc)
                .run(skel).ok();
        assertThat(files()).containsExactly("10.72.0.2");
        assertThat(Files.readString(tmp.resolve("data/hl/10.72.0.2"))).isEqualTo("keep\r\neth0");
    }

    @Test
    void gcWithoutValidAttachmentsIsRefusedWithCode7AndReleasesNothing() throws Exception {
        String v110 = conf("1.1.0", ranges("10.72.0.0/24"));
        add("c1", v110);
        add("c2", v110);

        CniError error = PluginCall.of("GC").env("CNI_CONTAINERID", null).env("CNI_IFNAME", null)
                .env("CNI_NETNS", null).stdin(v110).run(skel).error();

        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("GC needs cni.dev/valid-attachments");
        assertThat(files()).containsExactly("10.72.0.2", "10.72.0.3");
        // An empty list is an answer: nothing is valid.
        PluginCall.of("GC").env("CNI_CONTAINERID", null).env("CNI_IFNAME", null).env("CNI_NETNS", null)
                .stdin(conf("1.1.0", ranges("10.72.0.0/24"), ",\"cni.dev/valid-attachments\":[]")).run(skel).ok();
        assertThat(files()).isEmpty();
    }

    @Test
    void anInterfaceNameThatIsNotUtf8IsRefusedWithCode4InsteadOfStoredDifferentlyFromGo() throws Exception {
        // How the JVM sees CNI_IFNAME bytes that are not UTF-8 (here "e\xff"): as U+FFFD.
        CniError error = PluginCall.of("ADD").ifName("e\uFFFD").stdin(conf("1.0.0", ranges("10.77.0.0/24")))
                .run(skel).error();

        assertThat(error.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(error.msg()).isEqualTo("interface name is not valid UTF-8");
        assertThat(files()).isEmpty();
    }

    @Test
    void aResolvConfThatIsAFifoFailsTheAddAtOnceAndErrorTextsNameNoJavaException() throws Exception {
        Path fifo = tmp.resolve("resolv-fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor()).isZero();
        try {
            CniError error = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    java.time.Duration.ofSeconds(30), () -> PluginCall.of("ADD").stdin(conf("1.0.0",
                            ranges("10.78.0.0/24") + ",\"resolvConf\":\"" + fifo + "\"")).run(skel).error());
            assertThat(error.code()).isEqualTo(CniError.IO_FAILURE);
            assertThat(error.msg()).isEqualTo("ipam.resolvConf: cannot read \"" + fifo
                    + "\": not a regular file (a FIFO)");
        } finally {
            java.nio.channels.FileChannel.open(fifo, java.nio.file.StandardOpenOption.READ,
                    java.nio.file.StandardOpenOption.WRITE).close();
        }
        Path missing = tmp.resolve("missing.conf");
        CniError error = PluginCall.of("ADD").stdin(conf("1.0.0", ranges("10.78.0.0/24") + ",\"resolvConf\":\""
                + missing + "\"")).run(skel).error();
        assertThat(error.msg()).isEqualTo("ipam.resolvConf: cannot read \"" + missing
                + "\": No such file or directory");
        assertThat(files()).isEmpty();
    }

    @Test
    void statusIsReadyWithAWritableDataDirAndCode50Otherwise() throws Exception {
        PluginCall.of("STATUS").stdin(conf("1.1.0", ranges("10.73.0.0/24"))).run(skel).ok();
        Files.writeString(tmp.resolve("file"), "x");
        String blocked = "{\"cniVersion\":\"1.1.0\",\"name\":\"hl\",\"type\":\"bridge\",\"ipam\":{\"type\":"
                + "\"host-local\",\"dataDir\":\"" + tmp.resolve("file") + "\"," + ranges("10.73.0.0/24") + "}}";
        assertThat(PluginCall.of("STATUS").stdin(blocked).run(skel).error().code())
                .isEqualTo(CniError.PLUGIN_NOT_AVAILABLE);
    }

    @Test
    void configErrorsAreCode7WithGosMessages() throws Exception {
        assertThat(PluginCall.of("ADD").stdin(conf("1.0.0", "")).run(skel).error().msg())
                .isEqualTo("no IP ranges specified");
        CniError hostBits = PluginCall.of("ADD").stdin(conf("1.0.0", ranges("10.74.0.1/24"))).run(skel).error();
        assertThat(hostBits.code()).isEqualTo(7);
        assertThat(hostBits.msg()).contains("Network has host bits set");
        CniError overlap = PluginCall.of("ADD").stdin(conf("1.0.0", ranges("10.74.0.0/24", "10.74.0.0/25")))
                .run(skel).error();
        assertThat(overlap.msg()).contains("range set 0 overlaps with 1");
        CniError tooSmall = PluginCall.of("ADD").stdin(conf("1.0.0", ranges("10.74.0.0/31"))).run(skel).error();
        assertThat(tooSmall.msg()).contains("too small to allocate from");
        CniError noIpam = PluginCall.of("ADD").stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"hl\",\"type\":\"x\"}")
                .run(skel).error();
        assertThat(noIpam.msg()).isEqualTo("IPAM config missing 'ipam' key");
        CniError twoV4 = PluginCall.of("ADD").stdin(conf("0.2.0", ranges("10.74.0.0/24", "10.75.0.0/24")))
                .run(skel).error();
        assertThat(twoV4.msg()).isEqualTo("CNI version 0.2.0 does not support more than 1 address per family");
        assertThat(files()).isEmpty();
    }

    @Test
    void resultInA020ConfigIsTheLegacyShape() throws Exception {
        CniResult result = PluginCall.of("ADD").stdin(conf("0.2.0", ranges("10.76.0.0/24", "fd76::/64")))
                .run(skel).result();
        assertThat(result).isInstanceOfSatisfying(LegacyResult.class, legacy -> {
            assertThat(legacy.ip4().ip().toString()).isEqualTo("10.76.0.2/24");
            assertThat(legacy.ip6().ip().toString()).isEqualTo("fd76::2/64");
        });
    }

    static String first(List<IpConfig> ips) {
        return ips.get(0).address().toString();
    }
}
