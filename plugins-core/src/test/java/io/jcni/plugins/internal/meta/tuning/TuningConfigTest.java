package io.jcni.plugins.internal.meta.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniVersion;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * tuning's configuration: keys, values and error codes, all refused before the plugin opens the namespace (the calls
 * name a namespace that does not exist, so reaching the kernel would fail with another message and code).
 */
class TuningConfigTest {
    static final String PREV = """
            ,"prevResult":{"cniVersion":"1.0.0","interfaces":[{"name":"eth0",\
            "sandbox":"/x"}],"ips":[]}""";

    @TempDir
    Path tmp;

    Skel skel() {
        return Skel.of("tuning", new TuningPlugin(tmp.resolve("no-allowlist")), CniVersion.SUPPORTED);
    }

    static String conf(String fields) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"t\",\"type\":\"tuning\"" + fields + PREV + "}";
    }

    CniError addError(String conf) throws CniException {
        return PluginCall.of("ADD").stdin(conf).run(skel()).error();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "net.core.somaxconn|net/core/somaxconn",
        "net/core/somaxconn|net/core/somaxconn",
        "net.ipv4.conf.IFNAME.arp_filter|net/ipv4/conf/eth0.100/arp_filter",
        "net/ipv4/conf/IFNAME/arp_filter|net/ipv4/conf/eth0.100/arp_filter",
        "net/ipv4/conf/eth1.5/arp_filter|net/ipv4/conf/eth1.5/arp_filter",
        "net.ipv6.conf.IFNAME.IFNAME|net/ipv6/conf/eth0.100/IFNAME",
    })
    void keysBecomeCanonicalPathsWithIfnameSubstitutedOnce(String key, String path) throws CniException {
        assertThat(SysctlKeys.canonical(key, "eth0.100")).isEqualTo(path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"kernel.hostname", "vm/swappiness", "net", "net.", ".net.core.somaxconn",
        "net..core", "net/../kernel/hostname", "net/core/../../kernel/hostname", "net/./core/somaxconn",
        "net/core/", "/net/core/somaxconn", "netfilter.x", "NET.core.somaxconn", "IFNAME.x"})
    void keysOutsideNetOrWithDotSegmentsAreRefused(String key) {
        assertThatThrownBy(() -> SysctlKeys.canonical(key, "eth0"))
                .isInstanceOfSatisfying(CniException.class, e -> {
                    assertThat(e.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
                    assertThat(e.error().msg()).isEqualTo("invalid net sysctl key: \"" + key + "\"");
                });
    }

    @Test
    void anIfnameThatIsADotSegmentCannotEscape() {
        assertThatThrownBy(() -> SysctlKeys.canonical("net/ipv4/conf/IFNAME/x", ".."))
                .isInstanceOf(CniException.class);
    }

    @Test
    void aKeyOutsideNetIsCode7BeforeAnythingIsTouched() throws Exception {
        CniError error = addError(conf(",\"sysctl\":{\"net.core.somaxconn\":\"500\",\"kernel.panic\":\"1\"}"));
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("invalid net sysctl key: \"kernel.panic\"");
    }

    @Test
    void twoKeysForOneSysctlConflict() throws Exception {
        CniError error = addError(conf("""
                ,"sysctl":{"net.ipv4.conf.IFNAME.arp_filter":"1",\
                "net/ipv4/conf/eth0/arp_filter":"0"}"""));
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("conflicting sysctl keys \"net.ipv4.conf.IFNAME.arp_filter\" and "
                + "\"net/ipv4/conf/eth0/arp_filter\"");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        "sysctl":{"net.core.somaxconn":500}|6|sysctl.net.core.somaxconn: expected string, got number
        "sysctl":[]|6|sysctl: expected object, got array
        "mtu":-1|7|
        "mtu":"1400"|6|
        "txQLen":-2|7|
        "promisc":"yes"|6|
        "allmulti":1|6|
        "mac":"c2:b0:57:49:47"|7|mac: invalid MAC address "c2:b0:57:49:47"
        "mac":"c2:b0:57:49:47:zz"|7|mac: invalid MAC address "c2:b0:57:49:47:zz"
        "mac":"c2-b0:57:49:47:f1"|7|mac: invalid MAC address "c2-b0:57:49:47:f1"
        "mac":"01:00:5e:00:00:01"|7|mac: "01:00:5e:00:00:01" is a multicast address
        "mac":"00:00:00:00:00:00"|7|mac: "00:00:00:00:00:00" is the all-zero address
        "args":{"cni":{"mac":"nope"}}|7|mac: invalid MAC address "nope"
        "args":{"cni":{"mtu":-3}}|7|
        "args":{"cni":{"sysctl":{"kernel.x":"1"}}}|7|invalid net sysctl key: "kernel.x"
        """)
    void badValuesAreRefusedWithTheirCode(String field, int code, String message) throws Exception {
        CniError error = addError(conf("," + field));
        assertThat(error.code()).as(error.toString()).isEqualTo(code);
        if (message != null) {
            assertThat(error.msg()).isEqualTo(message);
        }
    }

    @Test
    void addAndCheckNeedAPrevResult() throws Exception {
        String noPrev = "{\"cniVersion\":\"1.0.0\",\"name\":\"t\",\"type\":\"tuning\",\"mtu\":1400}";
        for (String command : new String[] {"ADD", "CHECK"}) {
            CniError error = PluginCall.of(command).stdin(noPrev).run(skel()).error();
            assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
            assertThat(error.msg()).isEqualTo("Required prevResult missing");
        }
    }

    @Test
    void unknownCniArgsAreRefusedUnlessIgnored() throws Exception {
        CniError error = PluginCall.of("ADD").args("FOO=bar").stdin(conf("")).run(skel()).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        CniError bad = PluginCall.of("ADD").args("IgnoreUnknown=1;FOO=bar;MAC=zz").stdin(conf("")).run(skel())
                .error();
        assertThat(bad.msg()).as("the MAC from CNI_ARGS is validated").isEqualTo("mac: invalid MAC address \"zz\"");
    }

    @Test
    void aConfiguredAllowlistRefusesKeysMatchingNoLine() throws Exception {
        Path allowlist = Files.writeString(tmp.resolve("allowlist.conf"),
                "^net\\.core\\.somaxconn$\n\n  ^net\\.ipv4\\.conf\\.IFNAME\\.[a-z_]+$  \n");
        Skel skel = Skel.of("tuning", new TuningPlugin(allowlist), CniVersion.SUPPORTED);
        CniError error = PluginCall.of("ADD").stdin(conf("""
                ,"sysctl":{"net.core.somaxconn":"5",\
                "net.ipv4.conf.IFNAME.arp_filter":"1","net.ipv4.ip_forward":"1"}""")).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("Sysctl net.ipv4.ip_forward is not allowed. Only the following sysctls "
                + "are allowed: [^net\\.core\\.somaxconn$, ^net\\.ipv4\\.conf\\.IFNAME\\.[a-z_]+$]");
    }

    @Test
    void anAllowlistWithABadPatternIsAnInternalError() throws Exception {
        Path allowlist = Files.writeString(tmp.resolve("allowlist.conf"), "net\\.core\\.(\n");
        Skel skel = Skel.of("tuning", new TuningPlugin(allowlist), CniVersion.SUPPORTED);
        CniError error = PluginCall.of("ADD").stdin(conf(",\"sysctl\":{\"net.core.somaxconn\":\"5\"}")).run(skel)
                .error();
        assertThat(error.code()).isEqualTo(CniError.INTERNAL);
        assertThat(error.msg()).startsWith("invalid pattern in the sysctl allowlist");
    }

    @Test
    void delNeedsNothingButTheDataDirAndSucceedsWithoutABackup() throws Exception {
        PluginCall.of("DEL").stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"t\",\"type\":\"tuning\",\"dataDir\":\""
                + tmp + "\",\"mtu\":-5}").run(skel()).ok();
    }

    @Test
    void resultIsThePrevResultWithTheNewMacOnTheInterface() throws Exception {
        io.jcni.spec.PluginConfig config = io.jcni.spec.CniJson.decodePluginConfig(("""
                {"cniVersion":"1.1.0",\
                "name":"t","type":"tuning","prevResult":{"cniVersion":"1.1.0","interfaces":[\
                {"name":"veth1","mac":"aa:aa:aa:aa:aa:aa"},{"name":"eth0","mac":"02:00:00:00:00:01",\
                "mtu":1500,"sandbox":"/n"}],"ips":[{"address":"10.0.0.2/24","interface":1}]}}""")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        TuningConfig tuning = new TuningConfig(tmp, java.util.List.of(), io.jcni.plugins.internal.pkg.ip.Macs.parseUnicast(
                "C2:B0:57:49:47:F1", "mac"), 1400, null, null, -1, config.prevResult().orElseThrow());
        io.jcni.spec.Result result = (io.jcni.spec.Result) TuningPlugin.resultOf(tuning.prevResult(), tuning, "eth0");
        assertThat(result.interfaces()).containsExactly(
                new io.jcni.spec.Interface("veth1", "aa:aa:aa:aa:aa:aa", 0, "", "", ""),
                new io.jcni.spec.Interface("eth0", "c2:b0:57:49:47:f1", 1400, "/n", "", ""));
        assertThat(result.ips()).isEqualTo(((io.jcni.spec.Result) tuning.prevResult()).ips());
    }

    @Test
    void sysctlValuesCompareWithWhitespaceNormalized() {
        assertThat(TuningPlugin.normalized("4096\t131072\t6291456\n")).isEqualTo("4096 131072 6291456");
        assertThat(TuningPlugin.normalized(" 1 ")).isEqualTo("1");
    }
}
