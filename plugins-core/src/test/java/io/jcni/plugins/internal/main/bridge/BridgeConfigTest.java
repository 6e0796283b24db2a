package io.jcni.plugins.internal.main.bridge;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.netlink.MacAddress;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.Dns;
import io.jcni.spec.Interface;
import io.jcni.spec.IpConfig;
import io.jcni.spec.IpPrefix;
import io.jcni.spec.IpText;
import io.jcni.spec.Result;
import io.jcni.spec.Route;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bridge's configuration: Go's keys, defaults and messages, the MAC overrides in Go's order, and the options ADD
 * refuses before touching anything. Runs the real skel in-process; every call here fails or is decided before the
 * first side effect (CNI_NETNS points nowhere).
 */
class BridgeConfigTest {
    private final Skel skel = PluginRegistry.skel("bridge");

    static String conf(String extra) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"net\",\"type\":\"bridge\"" + extra + "}";
    }

    CniError addError(String extra) throws CniException {
        return PluginCall.of("ADD").netns("/var/run/netns/jcni-net-never").stdin(conf(extra)).run(skel).error();
    }

    /** The configuration as the plugin loads it for ADD (through a recording plugin on the same skel path). */
    static BridgeConfig load(String extra, String cniArgs) throws Exception {
        BridgeConfig[] loaded = new BridgeConfig[1];
        io.jcni.plugins.sdk.CniPlugin probe = new io.jcni.plugins.sdk.CniPlugin() {
            @Override
            public io.jcni.spec.CniResult add(io.jcni.plugins.sdk.CniRequest request) throws CniException {
                loaded[0] = BridgeConfig.forAdd(request);
                return new Result(List.of(), List.of(), List.of(), Dns.EMPTY);
            }

            @Override
            public void del(io.jcni.plugins.sdk.CniRequest request) {
            }

            @Override
            public void check(io.jcni.plugins.sdk.CniRequest request) {
            }
        };
        PluginCall call = PluginCall.of("ADD").netns("/proc/self/ns/net").env("CNI_NETNS_OVERRIDE", "1")
                .stdin(conf(extra));
        if (cniArgs != null) {
            call.args(cniArgs);
        }
        PluginCall.Outcome outcome = call.run(Skel.of("bridge", probe, io.jcni.spec.CniVersion.SUPPORTED));
        if (outcome.status() != 0) {
            throw new AssertionError(outcome.toString());
        }
        return loaded[0];
    }

    @Test
    void anEmptyBridgeNameFailsAddWithGosMessageInsteadOfBecomingCni0() throws Exception {
        CniError error = addError(",\"bridge\":\"\"");
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg())
                .isEqualTo("failed to create bridge \"\": could not add \"\": LinkAttrs.Name cannot be empty");
        assertThat(load(",\"bridge\":null", null).bridge()).as("null is absent, as in Go").isEqualTo("cni0");
    }

    @Test
    void anEmptyBridgeNameDoesNotFailDelAsInGo() throws Exception {
        PluginCall.of("DEL").netns("/var/run/netns/jcni-net-never").stdin(conf(",\"bridge\":\"\"")).run(skel).ok();
    }

    @Test
    void defaultsAreGos() throws Exception {
        BridgeConfig c = load("", null);
        assertThat(c.bridge()).isEqualTo("cni0");
        assertThat(c.isGateway()).isFalse();
        assertThat(c.isDefaultGateway()).isFalse();
        assertThat(c.forceAddress()).isFalse();
        assertThat(c.mtu()).isZero();
        assertThat(c.hairpinMode()).isFalse();
        assertThat(c.promiscMode()).isFalse();
        assertThat(c.vlan()).isZero();
        assertThat(c.vlanTrunk()).isEmpty();
        assertThat(c.preserveDefaultVlan()).isTrue();
        assertThat(c.enableDad()).isFalse();
        assertThat(c.disableContainerInterface()).isFalse();
        assertThat(c.portIsolation()).isFalse();
        assertThat(c.mac()).isNull();
        assertThat(c.layer3()).isFalse();
        assertThat(c.vlanFiltering()).isFalse();
    }

    @Test
    void everyKeyIsRead() throws Exception {
        BridgeConfig c = load("""
                ,"bridge":"br-x","isDefaultGateway":true,"forceAddress":true,"mtu":1400,\
                "hairpinMode":true,"vlanTrunk":[{"minID":5,"maxID":7},{"id":6},{"id":100}],\
                "preserveDefaultVlan":false,"enabledad":true,"portIsolation":true,\
                "dns":{"nameservers":["10.0.0.53"]},"ipam":{"type":"host-local"}""", null);
        assertThat(c.bridge()).isEqualTo("br-x");
        assertThat(c.isGateway()).as("implied by isDefaultGateway").isTrue();
        assertThat(c.isDefaultGateway()).isTrue();
        assertThat(c.forceAddress()).isTrue();
        assertThat(c.mtu()).isEqualTo(1400);
        assertThat(c.hairpinMode()).isTrue();
        assertThat(c.vlanTrunk()).containsExactly(5, 6, 7, 100);
        assertThat(c.vlanFiltering()).isTrue();
        assertThat(c.preserveDefaultVlan()).isFalse();
        assertThat(c.enableDad()).isTrue();
        assertThat(c.portIsolation()).isTrue();
        assertThat(c.dns().nameservers()).containsExactly("10.0.0.53");
        assertThat(c.ipamType()).isEqualTo("host-local");
        assertThat(c.layer3()).isTrue();
    }

    @Test
    void theMacOverridesApplyInGosOrderLastWins() throws Exception {
        assertThat(load("", "MAC=0a:00:00:00:00:01").mac()).isEqualTo(MacAddress.parse("0a:00:00:00:00:01"));
        assertThat(load(",\"args\":{\"cni\":{\"mac\":\"0a:00:00:00:00:02\"}}", "MAC=0a:00:00:00:00:01").mac())
                .isEqualTo(MacAddress.parse("0a:00:00:00:00:02"));
        assertThat(load("""
                ,"args":{"cni":{"mac":"0a:00:00:00:00:02"}},\
                "runtimeConfig":{"mac":"0A-00-00-00-00-03"}""", "MAC=0a:00:00:00:00:01").mac())
                .isEqualTo(MacAddress.parse("0a:00:00:00:00:03"));
        assertThat(load("", "IgnoreUnknown=1;K8S_POD_NAME=x").mac()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        unknown ipMasqBackend|,"ipMasq":true,"ipMasqBackend":"ebtables"|7|unknown ipmasq backend "ebtables"
        ipMasqBackend wrong type|,"ipMasq":true,"ipMasqBackend":1|6|ipMasqBackend: expected string, got number
        vlan out of range|,"vlan":4095|7|invalid VLAN ID 4095 (must be between 0 and 4094)
        negative vlan|,"vlan":-1|7|invalid VLAN ID -1 (must be between 0 and 4094)
        vlan and vlanTrunk|,"vlan":5,"vlanTrunk":[{"id":6}]|7|cannot set vlan and vlanTrunk at the same time
        trunk minID|,"vlanTrunk":[{"minID":0,"maxID":6}]|7|incorrect trunk minID parameter
        trunk maxID|,"vlanTrunk":[{"minID":1,"maxID":4095}]|7|incorrect trunk maxID parameter
        trunk order|,"vlanTrunk":[{"minID":9,"maxID":6}]|7|minID is greater than maxID in trunk parameter
        trunk min missing|,"vlanTrunk":[{"maxID":6}]|7|minID and maxID should be configured simultaneously, minID is missing
        trunk max missing|,"vlanTrunk":[{"minID":6}]|7|minID and maxID should be configured simultaneously, maxID is missing
        trunk id|,"vlanTrunk":[{"id":5000}]|7|incorrect trunk id parameter
        hairpin with promisc|,"hairpinMode":true,"promiscMode":true|7|cannot set hairpin mode and promiscuous mode at the same time
        IPAM with disabled interface|,"disableContainerInterface":true,"ipam":{"type":"static"}|7|cannot use IPAM when DisableContainerInterface flag is set
        bridge name too long|,"bridge":"a-very-long-bridge-name"|7|bridge: interface name must have 1-15 bytes: "a-very-long-bridge-name"
        mtu out of range|,"mtu":70000|7|mtu: 70000 out of range 0-65535
        mtu wrong type|,"mtu":"1400"|6|mtu: expected integer, got string
        isGateway wrong type|,"isGateway":1|6|isGateway: expected boolean, got number
        bad runtimeConfig mac|,"runtimeConfig":{"mac":"zz:00:00:00:00:01"}|7|runtimeConfig.mac: invalid MAC address "zz:00:00:00:00:01"
        multicast mac|,"args":{"cni":{"mac":"01:00:5e:00:00:01"}}|7|args.cni.mac: "01:00:5e:00:00:01" is a multicast address
        dotted mac form is Go's too|,"runtimeConfig":{"mac":"0a58.0ad8.0399"},"ipMasq":true,"ipMasqBackend":"x"|7|unknown ipmasq backend "x"
        """)
    void refusedBeforeAnySideEffectWithGosMessage(String what, String extra, int code, String msg) throws Exception {
        CniError error = addError(extra);
        assertThat(error.code()).as(what).isEqualTo(code);
        assertThat(error.msg()).isEqualTo(msg);
    }

    @Test
    void ipMasqAndMacspoofchkAreTakenWithEveryBackendGoTakes() throws Exception {
        for (String backend : new String[] {"", ",\"ipMasqBackend\":\"iptables\"", ",\"ipMasqBackend\":\"nftables\"",
            ",\"ipMasqBackend\":null"}) {
            BridgeConfig c = load(",\"ipMasq\":true,\"macspoofchk\":true" + backend, null);
            assertThat(c.ipMasq()).as(backend).isTrue();
            assertThat(c.macSpoofCheck()).isTrue();
        }
        // Go's DEL does not read ipMasqBackend: neither does jcni's, so a bad value never blocks a DEL.
        CniError unknown = addError(",\"ipMasq\":true,\"ipMasqBackend\":\"ebtables\"");
        assertThat(unknown.details()).contains("jcni serves all three with nftables");
        assertThat(unknown.cniVersion()).isEqualTo("1.0.0");
    }

    @Test
    void cniArgsMacIsCode4WhenMalformedAndUnknownKeysAreRefusedAsLibcniDoes() throws Exception {
        CniError bad = PluginCall.of("ADD").netns("/var/run/netns/jcni-net-never").args("MAC=nope").stdin(conf(""))
                .run(skel).error();
        assertThat(bad.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(bad.msg()).isEqualTo("CNI_ARGS MAC: invalid MAC address \"nope\"");
        CniError unknown = PluginCall.of("ADD").netns("/var/run/netns/jcni-net-never").args("FOO=1").stdin(conf(""))
                .run(skel).error();
        assertThat(unknown.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(unknown.msg()).isEqualTo("CNI_ARGS: unknown args [FOO=1]");
    }

    @Test
    void aMissingNamespaceIsCode8AfterTheConfigurationIsValid() throws Exception {
        CniError error = addError("");
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETNS);
        assertThat(error.msg()).startsWith("failed to open netns \"/var/run/netns/jcni-net-never\"");
    }

    static IpPrefix p(String text) throws CniException {
        return IpPrefix.parse(text, "t");
    }

    static java.net.InetAddress ip(String text) throws CniException {
        return IpText.parseAddress(text, "t");
    }

    @Test
    void gatewaysAndDefaultRoutesAreComputedAsGosCalcGateways() throws Exception {
        BridgeConfig c = load(",\"isDefaultGateway\":true,\"ipam\":{\"type\":\"x\"}", null);
        Result ipam = new Result(List.of(), List.of(new IpConfig(0, p("10.1.2.9/24"), null),
                new IpConfig(0, p("fd00:1::9/64"), ip("fd00:1::fe")), new IpConfig(0, p("10.3.0.9/16"), null)),
                List.of(new Route(p("10.9.0.0/16"), null)), Dns.EMPTY);
        Result out = BridgeGateway.withGateways(new Result(List.of(new Interface("a", "", "")), List.of(), List.of(),
                Dns.EMPTY), ipam, c);
        assertThat(out.ips()).extracting(i -> i.interfaceIndex() + " " + i.address() + " "
                + IpText.format(i.gateway())).containsExactly("2 10.1.2.9/24 10.1.2.1", "2 fd00:1::9/64 fd00:1::fe",
                "2 10.3.0.9/16 10.3.0.1");
        assertThat(out.routes()).extracting(r -> r.dst() + " " + (r.gw() == null ? "-" : IpText.format(r.gw())))
                .containsExactly("10.9.0.0/16 -", "0.0.0.0/0 10.1.2.1", "::/0 fd00:1::fe");
    }

    @Test
    void anIpamDefaultRouteWithoutGatewayIsNotDuplicated() throws Exception {
        BridgeConfig c = load(",\"isDefaultGateway\":true,\"ipam\":{\"type\":\"x\"}", null);
        Result ipam = new Result(List.of(), List.of(new IpConfig(0, p("10.1.2.9/24"), null)),
                List.of(new Route(p("0.0.0.0/0"), null)), Dns.EMPTY);
        Result out = BridgeGateway.withGateways(ipam, ipam, c);
        assertThat(out.routes()).extracting(r -> r.dst().toString()).containsExactly("0.0.0.0/0");
    }

    @Test
    void withoutIsGatewayNoGatewayIsInvented() throws Exception {
        BridgeConfig c = load(",\"ipam\":{\"type\":\"x\"}", null);
        Result ipam = new Result(List.of(), List.of(new IpConfig(0, p("10.1.2.9/24"), null)), List.of(), Dns.EMPTY);
        assertThat(BridgeGateway.withGateways(ipam, ipam, c).ips().get(0).gateway()).isNull();
    }

    @Test
    void theFirstAddressOfASubnetIsGosGateway() throws Exception {
        assertThat(IpText.format(BridgeGateway.firstAddress(p("10.1.255.200/23")))).isEqualTo("10.1.254.1");
        assertThat(IpText.format(BridgeGateway.firstAddress(p("fd00::ffff/112")))).isEqualTo("fd00::1");
    }
}
