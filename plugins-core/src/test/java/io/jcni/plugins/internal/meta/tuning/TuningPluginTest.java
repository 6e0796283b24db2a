package io.jcni.plugins.internal.meta.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.netlink.Link;
import io.jcni.netlink.LinkAttrs;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.Netlink;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.plugins.testing.Worlds;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.CniVersion;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * tuning against a real kernel: a fresh anonymous namespace holding a veth pair {@code eth0}/{@code peer0}, the
 * plugin run in-process (root only; the namespace disappears when closed). The it module covers the same with
 * {@code ip -j} and against Go's tuning.
 */
class TuningPluginTest {
    static final MacAddress NEW_MAC = MacAddress.parse("c2:b0:57:49:47:f1");

    @TempDir
    Path tmp;

    private NetNs netns;
    private String path;
    private Skel skel;

    @BeforeEach
    void namespaceWithAVethPair() throws Exception {
        assumeTrue(Worlds.root(), "needs root: creates a network namespace");
        netns = NetNs.create();
        path = netns.path().toString();
        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.addVeth(LinkAttrs.named("eth0").mtu(1500), LinkAttrs.named("peer0"));
        }
        skel = Skel.of("tuning", new TuningPlugin(tmp.resolve("no-allowlist")), CniVersion.SUPPORTED);
    }

    @AfterEach
    void close() {
        if (netns != null) {
            netns.close();
        }
    }

    Link eth0() {
        try (NetlinkHandle nl = Netlink.open(netns)) {
            return nl.link("eth0");
        }
    }

    String sysctl(String key) {
        return Sysctl.read(netns, key);
    }

    String conf(String fields) {
        return "{\"cniVersion\":\"1.1.0\",\"name\":\"t\",\"type\":\"tuning\",\"dataDir\":\"" + tmp.resolve("data")
                + "\"" + fields + ",\"prevResult\":{\"cniVersion\":\"1.1.0\",\"interfaces\":[{\"name\":\"eth0\","
                + "\"mac\":\"02:00:00:00:00:01\",\"sandbox\":\"" + path + "\"}],\"ips\":[{\"address\":\"10.1.0.2/24\","
                + "\"interface\":0}]}}";
    }

    PluginCall call(String command, String conf) {
        return PluginCall.of(command).netns(path).containerId("ctr-tun").ifName("eth0").stdin(conf);
    }

    Path backupFile() {
        return tmp.resolve("data").resolve("ctr-tun_eth0.json");
    }

    @Test
    void addChangesEverythingAndDelPutsItBack() throws Exception {
        Link before = eth0();
        String arpBefore = sysctl("net/ipv4/conf/eth0/arp_filter");
        String somaxconnBefore = sysctl("net.core.somaxconn");
        String conf = conf("""
                ,"sysctl":{"net.ipv4.conf.IFNAME.arp_filter":"1","net.core.somaxconn":"517"},\
                "mac":"c2:b0:57:49:47:f1","mtu":1400,"promisc":true,"allmulti":true,"txQLen":77""");

        Result result = (Result) call("ADD", conf).run(skel).result();

        assertThat(result.interfaces()).containsExactly(new Interface("eth0", "c2:b0:57:49:47:f1", path));
        assertThat(result.ips()).extracting(ip -> ip.address().toString()).containsExactly("10.1.0.2/24");
        Link after = eth0();
        assertThat(after.address()).isEqualTo(NEW_MAC);
        assertThat(after.mtu()).isEqualTo(1400);
        assertThat(after.isPromisc()).isTrue();
        assertThat(after.isAllmulti()).isTrue();
        assertThat(after.txQueueLen()).isEqualTo(77);
        assertThat(sysctl("net/ipv4/conf/eth0/arp_filter")).isEqualTo("1");
        assertThat(sysctl("net.core.somaxconn")).isEqualTo("517");
        assertThat(Files.getPosixFilePermissions(backupFile())).isEqualTo(PosixFilePermissions.fromString(
                "rw-------"));
        assertThat(CniJson.parse(Files.readAllBytes(backupFile())).toString()).isEqualTo("{\"mac\":\""
                + before.address() + "\",\"promisc\":false,\"mtu\":1500,\"allmulti\":false,\"txQLen\":"
                + before.txQueueLen() + ",\"jcniSysctl\":{\"net/ipv4/conf/eth0/arp_filter\":\"" + arpBefore
                + "\",\"net/core/somaxconn\":\"" + somaxconnBefore + "\"}}");

        call("CHECK", conf).run(skel).ok();
        call("DEL", conf).run(skel).ok();

        Link restored = eth0();
        assertThat(restored.address()).isEqualTo(before.address());
        assertThat(restored.mtu()).isEqualTo(1500);
        assertThat(restored.isPromisc()).isFalse();
        assertThat(restored.isAllmulti()).isFalse();
        assertThat(restored.txQueueLen()).isEqualTo(before.txQueueLen());
        assertThat(sysctl("net/ipv4/conf/eth0/arp_filter")).isEqualTo(arpBefore);
        assertThat(sysctl("net.core.somaxconn")).isEqualTo(somaxconnBefore);
        assertThat(backupFile()).doesNotExist();
        call("DEL", conf).run(skel).ok();
    }

    @Test
    void checkFailsOnceTheStateIsBrokenOnPurpose() throws Exception {
        String conf = conf(",\"sysctl\":{\"net.ipv4.conf.IFNAME.arp_filter\":\"1\"},\"mtu\":1400,\"allmulti\":true");
        call("ADD", conf).run(skel).ok();
        call("CHECK", conf).run(skel).ok();

        Sysctl.write(netns, "net/ipv4/conf/eth0/arp_filter", "0");
        assertThat(call("CHECK", conf).run(skel).error().msg()).isEqualTo("Error: Tuning configured value of "
                + "/proc/sys/net/ipv4/conf/eth0/arp_filter is 1, current value is 0");
        Sysctl.write(netns, "net/ipv4/conf/eth0/arp_filter", "1");

        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.setMtu(nl.link("eth0").index(), 1300);
        }
        assertThat(call("CHECK", conf).run(skel).error().msg())
                .isEqualTo("Error: Tuning configured MTU of eth0 is 1400, current value is 1300");
        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.setMtu(nl.link("eth0").index(), 1400);
            nl.setAllmulti(nl.link("eth0").index(), false);
        }
        assertThat(call("CHECK", conf).run(skel).error().msg())
                .isEqualTo("Error: Tuning configured all-multicast mode of eth0 is true, current value is false");
        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.deleteLink("eth0");
        }
        assertThat(call("CHECK", conf).run(skel).error().msg()).isEqualTo("Cannot find container link eth0");
    }

    @Test
    void aValueTheKernelRejectsRollsBackTheSysctlsAlreadyWritten() throws Exception {
        String somaxconnBefore = sysctl("net.core.somaxconn");
        Link before = eth0();
        String conf = conf("""
                ,"sysctl":{"net.core.somaxconn":"600"},"mac":"c2:b0:57:49:47:f1",\
                "mtu":99999999""");

        CniError error = call("ADD", conf).run(skel).error();

        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).startsWith("failed to set MTU 99999999 on eth0: RTM_NEWLINK");
        assertThat(sysctl("net.core.somaxconn")).isEqualTo(somaxconnBefore);
        assertThat(eth0().address()).as("the MAC set before the MTU failed is restored").isEqualTo(before.address());
        assertThat(eth0().mtu()).isEqualTo(before.mtu());
        assertThat(backupFile()).doesNotExist();
    }

    @Test
    void aSysctlValueTheKernelRejectsLeavesTheEarlierOnesRestored() throws Exception {
        String somaxconnBefore = sysctl("net.core.somaxconn");
        String conf = conf("""
                ,"sysctl":{"net.core.somaxconn":"601","net.ipv4.conf.IFNAME.arp_filter":\
                "not-a-number"}""");

        CniError error = call("ADD", conf).run(skel).error();

        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).startsWith("failed to set sysctl net.ipv4.conf.IFNAME.arp_filter=not-a-number");
        assertThat(sysctl("net.core.somaxconn")).isEqualTo(somaxconnBefore);
        assertThat(backupFile()).doesNotExist();
    }

    @Test
    void anUnknownSysctlIsAConfigurationError() throws Exception {
        CniError error = call("ADD", conf(",\"sysctl\":{\"net.core.no_such_knob\":\"1\"}")).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("no sysctl net/core/no_such_knob in the container's namespace");
    }

    @Test
    void macPrecedenceIsConfThenCniArgsThenCapabilityThenArgsCni() throws Exception {
        String base = ",\"mac\":\"02:00:00:00:00:0a\"";
        call("ADD", conf(base)).run(skel).ok();
        assertThat(eth0().address()).isEqualTo(MacAddress.parse("02:00:00:00:00:0a"));
        call("ADD", conf(base)).args("MAC=02:00:00:00:00:0b").run(skel).ok();
        assertThat(eth0().address()).isEqualTo(MacAddress.parse("02:00:00:00:00:0b"));
        call("ADD", conf(base + ",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:0c\"}")).args("MAC=02:00:00:00:00:0b")
                .run(skel).ok();
        assertThat(eth0().address()).isEqualTo(MacAddress.parse("02:00:00:00:00:0c"));
        call("ADD", conf(base + ",\"runtimeConfig\":{\"mac\":\"02:00:00:00:00:0c\"},\"args\":{\"cni\":{\"mac\":"
                + "\"02:00:00:00:00:0d\",\"mtu\":1450}}")).args("MAC=02:00:00:00:00:0b").run(skel).ok();
        assertThat(eth0().address()).isEqualTo(MacAddress.parse("02:00:00:00:00:0d"));
        assertThat(eth0().mtu()).isEqualTo(1450);
    }

    @Test
    void delAfterTheNamespaceIsGoneRemovesTheBackup() throws Exception {
        String conf = conf(",\"mtu\":1400");
        call("ADD", conf).run(skel).ok();
        assertThat(backupFile()).exists();
        netns.close();
        netns = null;
        call("DEL", conf).run(skel).ok();
        assertThat(backupFile()).doesNotExist();
    }

    @Test
    void delAfterTheLinkIsGoneRestoresTheSysctlsItCan() throws Exception {
        String somaxconnBefore = sysctl("net.core.somaxconn");
        String conf = conf("""
                ,"sysctl":{"net.core.somaxconn":"602","net.ipv4.conf.IFNAME.arp_filter":"1"},\
                "mtu":1400""");
        call("ADD", conf).run(skel).ok();
        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.deleteLink("eth0");
        }
        call("DEL", conf).run(skel).ok();
        assertThat(sysctl("net.core.somaxconn")).isEqualTo(somaxconnBefore);
        assertThat(backupFile()).doesNotExist();
    }

    @Test
    void delRestoresFromABackupGoWrote() throws Exception {
        Link before = eth0();
        try (NetlinkHandle nl = Netlink.open(netns)) {
            nl.setMtu(before.index(), 1280);
            nl.setPromisc(before.index(), true);
        }
        Files.createDirectories(backupFile().getParent());
        // What Go's createBackup writes (json.MarshalIndent with a one-space indent) for mtu and promisc.
        Files.writeString(backupFile(), "{\n \"promisc\": false,\n \"mtu\": 1500\n}");
        call("DEL", conf("")).run(skel).ok();
        assertThat(eth0().mtu()).isEqualTo(1500);
        assertThat(eth0().isPromisc()).isFalse();
        assertThat(backupFile()).doesNotExist();
    }
}
