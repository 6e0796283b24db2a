package io.jcni.plugins.internal.ipam.staticip;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.plugins.testing.PluginCall.Outcome;
import io.jcni.plugins.testing.PluginCall;
import io.jcni.spec.CniError;
import io.jcni.spec.CniResult;
import io.jcni.spec.CniVersion;
import io.jcni.spec.LegacyResult;
import io.jcni.spec.Result;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StaticPluginTest {
    private static final Path GO_STATIC = Path.of("/usr/lib/cni/static");
    private final Skel skel = PluginRegistry.skel("static");

    static String conf(String version, String ipam, String extra) {
        return "{\"cniVersion\":\"" + version + "\",\"name\":\"static-net\",\"type\":\"macvlan\",\"ipam\":{"
                + "\"type\":\"static\"" + (ipam.isEmpty() ? "" : "," + ipam) + "}" + extra + "}";
    }

    static final String FULL = """
            "addresses":[{"address":"10.10.0.1/24","gateway":"10.10.0.254"},\
            {"address":"3ffe:ffff:0:01ff::1/64","gateway":"3ffe:ffff:0::1"}],\
            "routes":[{"dst":"0.0.0.0/0"},{"dst":"192.168.0.0/16","gw":"10.10.5.1"},\
            {"dst":"3ffe:ffff:0:01ff::1/64"}],\
            "dns":{"nameservers":["8.8.8.8"],"domain":"example.com","search":["example.com"]}""";

    @Test
    void addReturnsTheConfiguredAddressesRoutesAndDns() throws Exception {
        Result result = (Result) PluginCall.of("ADD").stdin(conf("1.0.0", FULL, "")).run(skel).result();
        assertThat(result.cniVersion()).isEqualTo(CniVersion.V1_0_0);
        assertThat(result.interfaces()).isEmpty();
        assertThat(result.ips()).extracting(ip -> ip.address().toString() + " via " + ip.gateway().getHostAddress())
                .containsExactly("10.10.0.1/24 via 10.10.0.254", "3ffe:ffff:0:1ff::1/64 via 3ffe:ffff:0:0:0:0:0:1");
        assertThat(result.ips()).allMatch(ip -> ip.interfaceIndex() == null);
        assertThat(result.routes()).extracting(r -> r.dst().toString())
                .containsExactly("0.0.0.0/0", "192.168.0.0/16", "3ffe:ffff:0:1ff::1/64");
        assertThat(result.routes().get(1).gw().getHostAddress()).isEqualTo("10.10.5.1");
        assertThat(result.dns().nameservers()).containsExactly("8.8.8.8");
        assertThat(result.dns().domain()).isEqualTo("example.com");
    }

    @Test
    void resultFollowsTheConfigVersionDownToTheLegacyShape() throws Exception {
        CniResult result = PluginCall.of("ADD").stdin(conf("0.2.0", FULL, "")).run(skel).result();
        assertThat(result).isInstanceOfSatisfying(LegacyResult.class, legacy -> {
            assertThat(legacy.ip4().ip().toString()).isEqualTo("10.10.0.1/24");
            assertThat(legacy.ip6().ip().toString()).isEqualTo("3ffe:ffff:0:1ff::1/64");
        });
    }

    @Test
    void moreThanOneAddressPerFamilyNeeds030() throws Exception {
        String two = "\"addresses\":[{\"address\":\"10.10.0.1/24\"},{\"address\":\"10.10.1.1/24\"}]";
        CniError error = PluginCall.of("ADD").stdin(conf("0.2.0", two, "")).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_NETWORK_CONFIG);
        assertThat(error.msg()).isEqualTo("CNI version 0.2.0 does not support more than 1 address per family");
        assertThat(PluginCall.of("ADD").stdin(conf("0.3.0", two, "")).run(skel).status()).isZero();
    }

    @Test
    void cniArgsAppendAddressesAndSetGatewaysOfTheirSubnets() throws Exception {
        Result result = (Result) PluginCall.of("ADD")
                .args("IP=10.20.0.5/24,fd20::5/64;GATEWAY=10.20.0.1,10.10.0.200")
                .stdin(conf("1.0.0", "\"addresses\":[{\"address\":\"10.10.0.1/24\"}]", "")).run(skel).result();
        assertThat(result.ips()).extracting(ip -> ip.address() + " " + ip.gateway())
                .containsExactly("10.10.0.1/24 /10.10.0.200", "10.20.0.5/24 /10.20.0.1", "fd20::5/64 null");
    }

    @Test
    void unknownCniArgsFailUnlessIgnoreUnknown() throws Exception {
        String config = conf("1.0.0", "\"addresses\":[{\"address\":\"10.10.0.1/24\"}]", "");
        CniError error = PluginCall.of("ADD").args("K8S_POD_NAME=web").stdin(config).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(error.msg()).contains("K8S_POD_NAME=web");
        assertThat(PluginCall.of("ADD").args("IgnoreUnknown=1;K8S_POD_NAME=web").stdin(config).run(skel).status())
                .isZero();
    }

    @Test
    void invalidGatewayArgumentIsNamed() throws Exception {
        CniError error = PluginCall.of("ADD").args("GATEWAY=10.1.1")
                .stdin(conf("1.0.0", "\"addresses\":[{\"address\":\"10.10.0.1/24\"}]", "")).run(skel).error();
        assertThat(error.code()).isEqualTo(CniError.INVALID_ENVIRONMENT_VARIABLES);
        assertThat(error.msg()).isEqualTo("invalid gateway address: 10.1.1");
    }

    @Test
    void argsCniIpsThenTheIpsCapabilityReplaceAllAddresses() throws Exception {
        String addresses = "\"addresses\":[{\"address\":\"10.10.0.1/24\",\"gateway\":\"10.10.0.254\"}]";
        Result fromArgs = (Result) PluginCall.of("ADD")
                .stdin(conf("1.0.0", addresses, ",\"args\":{\"cni\":{\"ips\":[\"10.30.0.3/16\"]}}")).run(skel).result();
        assertThat(fromArgs.ips()).extracting(ip -> ip.address().toString()).containsExactly("10.30.0.3/16");
        assertThat(fromArgs.ips().getFirst().gateway()).isNull();
        Result fromCapability = (Result) PluginCall.of("ADD").stdin(conf("1.0.0", addresses,
                """
                        ,"args":{"cni":{"ips":["10.30.0.3/16"]}},"runtimeConfig":{"ips":["10.40.0.4/24",\
                        "fd40::4/64"]}""")).run(skel).result();
        assertThat(fromCapability.ips()).extracting(ip -> ip.address().toString())
                .containsExactly("10.40.0.4/24", "fd40::4/64");
    }

    @Test
    void missingIpamIsAConfigError() throws Exception {
        CniError error = PluginCall.of("ADD")
                .stdin("{\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"type\":\"static\"}").run(skel).error();
        assertThat(error.code()).isEqualTo(7);
        assertThat(error.msg()).isEqualTo("IPAM config missing 'ipam' key");
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.10.0.1", "10.10.0.1/33", "nonsense/24", "10.10.0.256/24"})
    void invalidAddressIsAConfigErrorNamingTheField(String address) throws Exception {
        CniError error = PluginCall.of("ADD")
                .stdin(conf("1.0.0", "\"addresses\":[{\"address\":\"" + address + "\"}]", "")).run(skel).error();
        assertThat(error.code()).isEqualTo(7);
        assertThat(error.msg()).startsWith("ipam.addresses[0].address: ");
    }

    @Test
    void delNeedsNothingAndIgnoresTheConfig() {
        PluginCall.of("DEL").env("CNI_NETNS", null)
                .stdin(conf("1.0.0", "\"addresses\":[{\"address\":\"garbage\"}]", "")).run(skel).ok();
    }

    @Test
    void checkNeedsAPrevResult() throws Exception {
        CniError error = PluginCall.of("CHECK").stdin(conf("1.0.0", FULL, "")).run(skel).error();
        assertThat(error.msg()).isEqualTo("Required prevResult missing");
    }

    @Test
    void checkPassesWhenEveryAddressIsInThePrevResult() throws Exception {
        String added = PluginCall.of("ADD").stdin(conf("1.0.0", FULL, "")).run(skel).ok().stdout();
        PluginCall.of("CHECK").stdin(conf("1.0.0", FULL, ",\"prevResult\":" + added)).run(skel).ok();
    }

    @Test
    void checkFailsOnAMissingAddressOrAnotherGateway() throws Exception {
        String one = "{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.10.0.1/24\",\"gateway\":\"10.10.0.254\"}]}";
        CniError missing = PluginCall.of("CHECK").stdin(conf("1.0.0", FULL, ",\"prevResult\":" + one)).run(skel)
                .error();
        assertThat(missing.msg()).isEqualTo("static: Failed to find addr 3ffe:ffff:0:1ff::1 on interface eth0");
        String wrongGateway = """
                {"cniVersion":"1.0.0","ips":[{"address":"10.10.0.1/24","gateway":\
                "10.10.0.1"}]}""";
        CniError gateway = PluginCall.of("CHECK")
                .stdin(conf("1.0.0", "\"addresses\":[{\"address\":\"10.10.0.1/24\",\"gateway\":\"10.10.0.254\"}]",
                        ",\"prevResult\":" + wrongGateway)).run(skel).error();
        assertThat(gateway.msg()).isEqualTo("static: Failed to match addr 10.10.0.1 on interface eth0");
    }

    /** The same inputs through Debian's Go static plugin give the same result. */
    @ParameterizedTest
    @ValueSource(strings = {"0.2.0", "0.3.1", "0.4.0", "1.0.0"})
    void sameResultAsGoStatic(String version) throws Exception {
        assumeTrue(Files.isExecutable(GO_STATIC), "Go reference plugin missing: " + GO_STATIC);
        String config = conf(version, FULL, ",\"runtimeConfig\":{}");
        for (String args : List.of("", "IP=10.20.0.5/24;GATEWAY=10.20.0.1")) {
            PluginCall call = PluginCall.of("ADD").args(args).stdin(config);
            Outcome go = call.exec(GO_STATIC);
            Outcome ours = call.run(skel);
            assertThat(ours.status()).as("args %s: %s vs Go %s", args, ours, go).isEqualTo(go.status());
            if (go.status() == 0) {
                assertThat(ours.result()).as("args %s", args).isEqualTo(go.result());
            } else {
                assertThat(ours.error().msg()).isEqualTo(go.error().msg());
            }
        }
    }
}
