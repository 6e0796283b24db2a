package io.jcni.it.meta;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jcni.it.support.Attachment;
import io.jcni.it.support.CniExec;
import io.jcni.it.support.IpLink;
import io.jcni.it.support.LibcniDriver;
import io.jcni.it.support.Locations;
import io.jcni.it.support.NetlinkView;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import io.jcni.netlink.Link;
import io.jcni.netlink.MacAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * jcni's tuning launcher in real namespaces, side by side with Debian's Go tuning 1.1.1: each test namespace holds a
 * veth pair {@code eth0}/{@code peer0} that stands for the interface a previous plugin made; the chain is Go's
 * trivial plugin (which reports {@code eth0} in its result) then tuning, run by Go libcni. Kernel state is read back
 * with {@code ip -j} and with jcni's netlink layer. Runtime and plugins run in this JVM's namespace, as tuning touches
 * nothing but the container's (its sysctls and link) and its backups go to a {@code dataDir} of the test's; the
 * host-state guard holds it to that.
 */
class TuningTest {
    private static final String TAG = "tun";
    private static final String SYSCTLS = """
            "sysctl":{"net.ipv4.conf.IFNAME.arp_filter":"1",\
            "net.core.somaxconn":"517","net.ipv4.tcp_rmem":"4096 87380 1048576"}""";

    @TempDir
    Path tmp;

    @AutoClose
    private TestNetns ours;
    @AutoClose
    private TestNetns theirs;

    @BeforeEach
    void world() {
        Prerequisites.assumeRoot();
        Prerequisites.assumeGoTools();
        Prerequisites.assumeReferencePlugins("tuning");
        Prerequisites.assumeDistPlugins("tuning");
        ours = withEth0(TestNetns.create(TAG));
        theirs = withEth0(TestNetns.create(TAG));
    }

    static TestNetns withEth0(TestNetns netns) {
        netns.exec("ip", "link", "add", "eth0", "mtu", "1500", "type", "veth", "peer", "name", "peer0")
                .requireSuccess();
        return netns;
    }

    Path conflist(String name, String cniVersion, String tuningFields) throws IOException {
        return Files.writeString(tmp.resolve(name + ".conflist"), "{\"cniVersion\":\"" + cniVersion
                + "\",\"name\":\"jcni-tun-" + name + "\",\"plugins\":[{\"type\":\"" + Locations.TRIVIAL_PLUGIN_TYPE
                + "\"},{\"type\":\"tuning\"," + tuningFields + "}]}");
    }

    LibcniDriver jcni() {
        return LibcniDriver.create(List.of(Locations.distCniBin(), Locations.goBin()), tmp.resolve("cache-jcni"));
    }

    LibcniDriver go() {
        return LibcniDriver.create(List.of(Locations.referencePlugins(), Locations.goBin()), tmp.resolve("cache-go"));
    }

    static Link eth0(TestNetns netns) {
        return NetlinkView.requireLink(netns, "eth0");
    }

    /** The interface state tuning changes, read with ip -j (flags as ip prints them). */
    static String linkState(TestNetns netns) {
        IpLink link = netns.kernel().link("eth0").orElseThrow();
        return "mac=" + link.mac() + " mtu=" + link.mtu() + " promisc=" + link.flags().contains("PROMISC")
                + " allmulti=" + link.flags().contains("ALLMULTI");
    }

    static String sysctls(TestNetns netns) {
        return netns.kernel().sysctl("net/ipv4/conf/eth0/arp_filter") + " | "
                + netns.kernel().sysctl("net/core/somaxconn") + " | " + netns.kernel().sysctl("net/ipv4/tcp_rmem");
    }

    static List<Path> files(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.toList();
        }
    }

    @ParameterizedTest(name = "cniVersion {0}")
    @ValueSource(strings = {"0.3.1", "0.4.0", "1.0.0"})
    void sameResultAndKernelStateAsGoTuningAndDelRestoresMoreThanGo(String cniVersion) throws Exception {
        String fields = SYSCTLS + ",\"mac\":\"c2:b0:57:49:47:f1\",\"mtu\":1400,\"promisc\":true,\"allmulti\":true";
        Path oursConf = conflist("ours", cniVersion, "\"dataDir\":\"" + tmp.resolve("data-ours") + "\"," + fields);
        Path theirsConf = conflist("go", cniVersion, "\"dataDir\":\"" + tmp.resolve("data-go") + "\"," + fields);
        Attachment attachment = Attachment.of("tun-" + cniVersion.replace('.', '-'), "eth0");
        String linkBefore = linkState(ours);
        String theirLinkBefore = linkState(theirs);
        String sysctlsBefore = sysctls(ours);
        assertThat(sysctls(theirs)).isEqualTo(sysctlsBefore);

        JsonNode ourResult = jcni().add(oursConf, ours.path(), attachment).answer();
        JsonNode goResult = go().add(theirsConf, theirs.path(), attachment).answer();

        assertThat(ourResult.toString().replace(ours.path().toString(), "NETNS"))
                .isEqualTo(goResult.toString().replace(theirs.path().toString(), "NETNS"));
        assertThat(ourResult.path("interfaces").get(0).path("mac").asText()).isEqualTo("c2:b0:57:49:47:f1");
        assertThat(linkState(ours)).isEqualTo("mac=c2:b0:57:49:47:f1 mtu=1400 promisc=true allmulti=true")
                .isEqualTo(linkState(theirs));
        Link link = eth0(ours);
        assertThat(link.address()).isEqualTo(MacAddress.parse("c2:b0:57:49:47:f1"));
        assertThat(link.mtu()).isEqualTo(1400);
        assertThat(link.isPromisc()).isTrue();
        assertThat(link.isAllmulti()).isTrue();
        assertThat(sysctls(ours)).isEqualTo("1 | 517 | 4096\t87380\t1048576").isEqualTo(sysctls(theirs));
        assertThat(NetlinkView.sysctl(ours, "net.core.somaxconn")).isEqualTo("517");

        if (!cniVersion.equals("0.3.1")) {
            assertThat(jcni().check(oursConf, ours.path(), attachment).answer().isEmpty()).isTrue();
            assertThat(go().check(theirsConf, theirs.path(), attachment).succeeded())
                    .as("Go 1.1.1 compares the tab-separated tcp_rmem with the configured spaces")
                    .isFalse();
        }

        assertThat(jcni().del(oursConf, ours.path(), attachment).succeeded()).isTrue();
        assertThat(go().del(theirsConf, theirs.path(), attachment).succeeded()).isTrue();
        assertThat(linkState(ours)).isEqualTo(linkBefore);
        assertThat(linkState(theirs)).isEqualTo(theirLinkBefore);
        assertThat(sysctls(ours)).as("jcni restores the sysctls too").isEqualTo(sysctlsBefore);
        assertThat(sysctls(theirs)).as("Go 1.1.1 leaves them").isEqualTo("1 | 517 | 4096\t87380\t1048576");
        assertThat(files(tmp.resolve("data-ours"))).isEmpty();
        assertThat(jcni().del(oursConf, ours.path(), attachment).succeeded()).as("DEL repeated is DEL once").isTrue();
    }

    @Test
    void checkFailsAsGoReportsItOnceTheStateIsBroken() throws Exception {
        String fields = "\"mtu\":1400,\"allmulti\":true";
        Path oursConf = conflist("ours", "1.0.0", "\"dataDir\":\"" + tmp.resolve("data-ours") + "\"," + fields);
        Path theirsConf = conflist("go", "1.0.0", "\"dataDir\":\"" + tmp.resolve("data-go") + "\"," + fields);
        Attachment attachment = Attachment.of("tun-check", "eth0");
        jcni().add(oursConf, ours.path(), attachment).answer();
        go().add(theirsConf, theirs.path(), attachment).answer();
        assertThat(jcni().check(oursConf, ours.path(), attachment).succeeded()).isTrue();
        assertThat(go().check(theirsConf, theirs.path(), attachment).succeeded()).isTrue();

        for (TestNetns netns : List.of(ours, theirs)) {
            netns.exec("ip", "link", "set", "eth0", "mtu", "1300").requireSuccess();
        }
        assertThat(jcni().check(oursConf, ours.path(), attachment).cniError().path("msg").asText())
                .isEqualTo("Error: Tuning configured MTU of eth0 is 1400, current value is 1300")
                .isEqualTo(go().check(theirsConf, theirs.path(), attachment).cniError().path("msg").asText());

        for (TestNetns netns : List.of(ours, theirs)) {
            netns.exec("ip", "link", "set", "eth0", "mtu", "1400", "allmulticast", "off").requireSuccess();
        }
        assertThat(jcni().check(oursConf, ours.path(), attachment).cniError().path("msg").asText())
                .isEqualTo("Error: Tuning configured all-multicast mode of eth0 is true, current value is false");
        assertThat(go().check(theirsConf, theirs.path(), attachment).succeeded()).isFalse();
    }

    String prevResult(TestNetns netns) {
        return "\"prevResult\":{\"cniVersion\":\"1.0.0\",\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\""
                + netns.path() + "\"}],\"ips\":[]}";
    }

    CniExec ourTuning() {
        return CniExec.of(Locations.distPlugin("tuning"), List.of(Locations.distCniBin()));
    }

    CniExec goTuning() {
        return CniExec.of(Locations.referencePlugin("tuning"), List.of(Locations.referencePlugins()));
    }

    String conf(TestNetns netns, Path dataDir, String fields) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"jcni-tun-x\",\"type\":\"tuning\",\"dataDir\":\"" + dataDir
                + "\"," + fields + "," + prevResult(netns) + "}";
    }

    @Test
    void anAddThatFailsLeavesNoSysctlNoLinkChangeAndNoBackupBehind() throws Exception {
        Path data = tmp.resolve("data");
        String linkBefore = linkState(ours);
        String sysctlsBefore = sysctls(ours);
        String conf = conf(ours, data, SYSCTLS + ",\"mac\":\"c2:b0:57:49:47:f1\",\"promisc\":true,\"mtu\":70000");

        CniExec.Outcome failed = ourTuning().add(conf, ours.path(), "tun-bad", "eth0");

        assertThat(failed.code()).isEqualTo(7);
        assertThat(failed.msg()).startsWith("failed to set MTU 70000 on eth0: RTM_NEWLINK");
        assertThat(sysctls(ours)).isEqualTo(sysctlsBefore);
        assertThat(linkState(ours)).isEqualTo(linkBefore);
        assertThat(files(data)).isEmpty();

        for (String bad : List.of("\"sysctl\":{\"kernel.panic\":\"5\"}", "\"sysctl\":{\"net/../kernel/panic\":\"5\"}",
                "\"sysctl\":{\"net.core.somaxconn\":\"1\",\"net.ipv4.conf.all.no_such_knob\":\"1\"}",
                "\"mac\":\"01:02:03:04:05:06\"")) {
            CniExec.Outcome refused = ourTuning().add(conf(ours, data, bad), ours.path(), "tun-bad", "eth0");
            assertThat(refused.code()).as(bad).isEqualTo(7);
            assertThat(sysctls(ours)).isEqualTo(sysctlsBefore);
            assertThat(linkState(ours)).isEqualTo(linkBefore);
            assertThat(files(data)).isEmpty();
        }
    }

    @Test
    void txQueueLengthWhichGo111LacksIsSetAndRestored() throws Exception {
        Path data = tmp.resolve("data");
        int before = eth0(ours).txQueueLen();
        String conf = conf(ours, data, "\"txQLen\":333");
        ourTuning().add(conf, ours.path(), "tun-txq", "eth0").result();
        assertThat(eth0(ours).txQueueLen()).isEqualTo(333);
        assertThat(ours.exec("ip", "-d", "link", "show", "eth0").stdout()).contains("qlen 333");
        ourTuning().check(conf, ours.path(), "tun-txq", "eth0").result();
        ourTuning().del(conf, ours.path(), "tun-txq", "eth0").result();
        assertThat(eth0(ours).txQueueLen()).isEqualTo(before);
    }

    @Test
    void goDelRestoresWhatOurAddChangedAndOurDelWhatGoAddChanged() throws Exception {
        Path data = tmp.resolve("data");
        String conf = conf(ours, data, "\"mac\":\"c2:b0:57:49:47:f2\",\"mtu\":1420,\"promisc\":true");
        String before = linkState(ours);
        ourTuning().add(conf, ours.path(), "tun-iop", "eth0").result();
        assertThat(linkState(ours)).isEqualTo("mac=c2:b0:57:49:47:f2 mtu=1420 promisc=true allmulti=false");
        goTuning().del(conf, ours.path(), "tun-iop", "eth0").result();
        assertThat(linkState(ours)).isEqualTo(before);
        assertThat(files(data)).isEmpty();

        goTuning().add(conf, ours.path(), "tun-iop2", "eth0").result();
        assertThat(linkState(ours)).isEqualTo("mac=c2:b0:57:49:47:f2 mtu=1420 promisc=true allmulti=false");
        ourTuning().del(conf, ours.path(), "tun-iop2", "eth0").result();
        assertThat(linkState(ours)).isEqualTo(before);
        assertThat(files(data)).isEmpty();
    }

    @Test
    void macFromTheCapabilityAndFromCniArgsAsGoTakesThem() throws Exception {
        String fields = "\"capabilities\":{\"mac\":true},\"mac\":\"02:00:00:00:00:01\"";
        Path oursConf = conflist("ours", "1.0.0", "\"dataDir\":\"" + tmp.resolve("data-ours") + "\"," + fields);
        Path theirsConf = conflist("go", "1.0.0", "\"dataDir\":\"" + tmp.resolve("data-go") + "\"," + fields);
        Attachment attachment = Attachment.of("tun-cap", "eth0").withCniArgs("IgnoreUnknown=1;MAC=02:00:00:00:00:02")
                .withCapabilityArgs("{\"mac\":\"02:00:00:00:00:03\"}");
        JsonNode ourResult = jcni().add(oursConf, ours.path(), attachment).answer();
        JsonNode goResult = go().add(theirsConf, theirs.path(), attachment).answer();
        assertThat(ourResult.path("interfaces").get(0).path("mac").asText()).isEqualTo("02:00:00:00:00:03")
                .isEqualTo(goResult.path("interfaces").get(0).path("mac").asText());
        assertThat(linkState(ours)).startsWith("mac=02:00:00:00:00:03").isEqualTo(linkState(theirs));
        jcni().del(oursConf, ours.path(), attachment).answer();
        go().del(theirsConf, theirs.path(), attachment).answer();

        Attachment argsOnly = Attachment.of("tun-cap2", "eth0").withCniArgs("IgnoreUnknown=1;MAC=02:00:00:00:00:02");
        jcni().add(oursConf, ours.path(), argsOnly).answer();
        go().add(theirsConf, theirs.path(), argsOnly).answer();
        assertThat(linkState(ours)).startsWith("mac=02:00:00:00:00:02").isEqualTo(linkState(theirs));
    }
}
